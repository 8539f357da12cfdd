"""Focus frames for the keyboard only: focus from a click, or from the app, draws none.

A widget the person reached with the keyboard (Tab, Shift+Tab, a shortcut) shows that it has
the focus; one that got it from a click, or from the window at start-up, does not. The talk
button had a ring at start-up, Settings' section list a 2 px border as soon as it opened,
the transcript a frame after a click: heavy, and saying nothing the person asked about.

:func:`track_keyboard_focus` keeps a widget's ``keyboardFocus`` property true while its focus
came by the keyboard; the stylesheet draws the frame by it
(``QListWidget#sectionList:focus[keyboardFocus="true"]``) and a painted widget asks
:func:`has_keyboard_focus`. Focus that moves for another reason than the person's (the
window deactivated and activated again, a popup, the app giving it back after the
confirmation sheet) keeps what the widget had: a person on the keyboard keeps their frame.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QWidget

__all__ = ["KEYBOARD_FOCUS", "has_keyboard_focus", "track_keyboard_focus"]

KEYBOARD_FOCUS: Final = "keyboardFocus"
"""The property the stylesheet reads: whether the widget's focus came by the keyboard."""

_BY_KEYBOARD: Final = frozenset(
    {
        Qt.FocusReason.TabFocusReason,
        Qt.FocusReason.BacktabFocusReason,
        Qt.FocusReason.ShortcutFocusReason,
    }
)
"""Focus the person moved with the keyboard: the frame shows."""

_NOT_THE_PERSONS: Final = frozenset(
    {
        Qt.FocusReason.ActiveWindowFocusReason,
        Qt.FocusReason.PopupFocusReason,
        Qt.FocusReason.OtherFocusReason,
    }
)
"""Focus moved by the window system or the app: the widget keeps what it had."""


class _KeyboardFocusWatch(QObject):
    """Sets its widget's ``keyboardFocus`` from the reason of each focus change."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
            return False
        assert isinstance(event, QFocusEvent)
        reason = event.reason()
        if reason in _NOT_THE_PERSONS or not isinstance(watched, QWidget):
            return False
        _set(watched, kind == QEvent.Type.FocusIn and reason in _BY_KEYBOARD)
        return False


def track_keyboard_focus(widget: QWidget) -> None:
    """Keep ``widget``'s ``keyboardFocus`` property true while its focus came by the keyboard.

    The widget is restyled (and repainted) whenever it changes.
    """
    widget.setProperty(KEYBOARD_FOCUS, False)
    widget.installEventFilter(_KeyboardFocusWatch(widget))


def has_keyboard_focus(widget: QWidget) -> bool:
    """Whether ``widget`` has the focus, and it came by the keyboard: draw its focus frame."""
    return widget.hasFocus() and bool(widget.property(KEYBOARD_FOCUS))


def _set(widget: QWidget, on: bool) -> None:
    if bool(widget.property(KEYBOARD_FOCUS)) == on:
        return
    widget.setProperty(KEYBOARD_FOCUS, on)
    # A dynamic property only restyles after an explicit re-polish.
    style = widget.style()
    style.unpolish(widget)
    style.polish(widget)
    widget.update()
