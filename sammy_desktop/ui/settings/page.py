"""What every settings page is made of, and the one way a page applies a value.

A :class:`SettingsPage` is a scrolling column under a heading; the settings window lists
it under that heading. A :class:`FieldsPage` also edits settings: it lays out a
:class:`~sammy_desktop.ui.settings.fields.FieldCard` per field, generated from the
Settings model (every field whose ``section`` is the page's title gets an editor unless a
page makes its own), and applies each change at once through
:class:`~sammy_desktop.ui.settings_state.SettingsState`. A refused value is marked on its
card with a sentence naming the field, and nothing changes.

Every page scrolls with the mouse wheel wherever the pointer is: its lists, number boxes
and sliders take the wheel only once focused (:class:`~.fields.WheelGuard`), the ones on
cards as they are added and any other when the page shows.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from sammy_desktop.config import Settings
from sammy_desktop.config.store import SettingsError
from sammy_desktop.ui.settings.fields import FieldCard, WheelGuard, build_editor, can_edit
from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["FieldsPage", "SettingsPage"]

_log = logging.getLogger(__name__)

# Fields with a hand-made editor on their page (or none at all) instead of a generated one.
_CUSTOM_FIELDS: Final = frozenset(
    {
        "schema_version",
        "model",
        "voice",
        "input_device",
        "output_device",
        "enabled_tools",
        "privacy",
        "history_retention",  # under its own title on the Privacy page
        "token_prices",  # the Account page's own editor
    }
)


class SettingsPage(QScrollArea):
    """A page of the settings window: its heading, then :attr:`body`.

    Args:
        title: the heading, and the page's name in the section list.
        parent: the Qt parent.
    """

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.setObjectName("settingsPage")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.wheel_guard = WheelGuard(self)
        """Keeps the wheel for the page over unfocused lists and number boxes."""
        content = QWidget(self)
        content.setObjectName("settingsPageContent")
        column = QVBoxLayout(content)
        column.setContentsMargins(24, 20, 24, 24)
        column.setSpacing(10)
        heading = QLabel(title, content)
        heading.setObjectName("pageTitle")
        column.addWidget(heading)
        self.body = QVBoxLayout()
        """Where a page puts its cards, one under the other (same spacing as the heading)."""
        self.body.setContentsMargins(0, 0, 0, 0)
        self.body.setSpacing(10)
        column.addLayout(self.body)
        column.addStretch(1)  # a short page starts at the top
        self.setWidget(content)

    def showEvent(self, event: QShowEvent) -> None:
        """Guard every list and number box the page made, wherever it put them."""
        super().showEvent(event)
        content = self.widget()
        if content is not None:
            self.wheel_guard.guard(content)

    def add_group_title(self, text: str) -> None:
        """A small title over the cards that follow."""
        label = QLabel(text)
        label.setObjectName("groupTitle")
        self.body.addSpacing(6)
        self.body.addWidget(label)

    def add_note(self, text: str) -> QLabel:
        """A line of explanation in the page's quiet tone; returned so it can change."""
        note = QLabel(text)
        note.setObjectName("fieldDescription")
        note.setWordWrap(True)
        self.body.addWidget(note)
        return note


class FieldsPage(SettingsPage):
    """A page that edits settings, one card per field.

    Args:
        title: the heading; also the ``section`` of the fields :meth:`add_generated` adds.
        state: the live settings.
        parent: the Qt parent.
    """

    def __init__(self, title: str, state: SettingsState, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self._state = state
        self.cards: dict[str, FieldCard] = {}
        """The page's field cards by setting name (``privacy.<name>`` for privacy)."""

    @property
    def settings(self) -> Settings:
        """The settings shown (the shared object, always current)."""
        return self._state.settings

    def apply(self, name: str, value: Any) -> bool:
        """Validate, save and apply one setting; mark its card if refused.

        Returns:
            True when the value was accepted.
        """
        card = self.cards.get(name)
        try:
            self._state.update(**{name: value})
        except SettingsError as exc:
            title = card.title if card is not None else name
            # What happened, then what to do: "Language was not changed. Use a language code..."
            message = f"{title} was not changed. {exc.sentence}"
            _log.info("setting refused: %s", message)
            if card is not None:
                card.show_error(message)
            return False
        if card is not None:
            card.clear_error()
        return True

    def add_card(self, name: str, editor: QWidget, *, inline: bool = False) -> FieldCard:
        """A card for the setting ``name`` around a hand-made ``editor``."""
        info = Settings.model_fields[name]
        card = FieldCard(name, info.title or name, info.description or "", editor, inline=inline)
        self.wheel_guard.guard(editor)
        self.body.addWidget(card)
        self.cards[name] = card
        return card

    def add_field(self, name: str) -> FieldCard:
        """A card with the generated editor for the setting ``name``."""
        info = Settings.model_fields[name]

        def apply(value: Any) -> None:
            self.apply(name, value)

        editor, inline = build_editor(info, getattr(self.settings, name), apply)
        return self.add_card(name, editor, inline=inline)

    def add_generated(self) -> None:
        """Cards for every field of this page's section that has no hand-made editor."""
        for name, info in Settings.model_fields.items():
            extra = info.json_schema_extra
            in_section = isinstance(extra, dict) and extra.get("section") == self.title
            # Fields without a generated editor (maps, lists) are edited in the JSON file.
            if in_section and name not in _CUSTOM_FIELDS and can_edit(info):
                self.add_field(name)
