"""The History window's own few style rules, in the theme's colours.

Everything the window shares with the rest of the app (buttons, fields, bubbles, tool cards,
quiet descriptions, the badge) comes from the app's stylesheet; the rules here are only the
window's own: its background, the list of conversations and its rows, the title. They are
filled from the same :class:`~sammy_desktop.ui.theme.Palette`, so both themes follow.
"""

from __future__ import annotations

from dataclasses import asdict
from string import Template
from typing import Final

from sammy_desktop.ui.theme import Palette

__all__ = ["history_stylesheet"]

_TEMPLATE: Final = Template(
    """
QWidget#historyWindow { background: ${bg}; }
QWidget#historySidebar {
    background: ${surface};
    border-right: 1px solid ${border};
}
QLineEdit#historySearch { border-radius: 18px; padding: 7px 14px; }
QListWidget#historyList {
    background: transparent;
    border: 2px solid transparent;
    border-radius: 10px;
    outline: none;
}
QListWidget#historyList:focus[keyboardFocus="true"] { border-color: ${focus}; }
QListWidget#historyList::item {
    border-radius: 10px;
    margin: 1px 0;
    background: transparent;
}
QListWidget#historyList::item:hover:!selected { background: ${surface_alt}; }
QListWidget#historyList::item:selected { background: ${accent_soft}; }
QWidget#historyRow, QWidget#historyRow QLabel { background: transparent; }
QLabel#historyRowDate { font-weight: 600; font-size: 13px; }
QLabel#historyRowText { font-size: 13px; color: ${text}; }
QLabel#historyRowTools { font-size: 12px; color: ${text_muted}; }
QLabel#historyRowFacts { font-size: 12px; color: ${text_faint}; }
QLabel#historyTitle { font-size: 18px; font-weight: 600; }
QLabel#historyNotice { font-size: 12px; color: ${text_muted}; }
"""
)


def history_stylesheet(palette: Palette) -> str:
    """The window's rules in ``palette``'s colours."""
    return _TEMPLATE.substitute({key: str(value) for key, value in asdict(palette).items()})
