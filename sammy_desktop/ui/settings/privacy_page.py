"""Settings > Privacy: what the assistant may learn about this computer and about you.

A switch per kind of context (the time, the time zone, the platform, the app's state...):
when the assistant asks for context it gets only what is switched on, and the main window
shows each time exactly what was shared. Below, what the assistant may read: the generated
"about you" and custom context fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sammy_desktop.config import PrivacySettings
from sammy_desktop.ui.painted import ToggleSwitch
from sammy_desktop.ui.settings.fields import FieldCard
from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["PrivacyPage"]


class PrivacyPage(FieldsPage):
    """The context-sharing switches and the context the person writes themselves.

    Args:
        state: the live settings.
        parent: the Qt parent.
    """

    def __init__(self, state: SettingsState, parent: QWidget | None = None) -> None:
        super().__init__(SettingsSection.PRIVACY, state, parent)
        self.add_note(
            "When the assistant asks for context, it learns only what is switched on here. "
            "Each time, a banner in the main window shows exactly what was shared."
        )
        for name, info in PrivacySettings.model_fields.items():
            switch = ToggleSwitch()
            switch.setChecked(bool(getattr(self.settings.privacy, name)))
            switch.toggled.connect(lambda on, n=name: self.set_shared(n, on))
            key = f"privacy.{name}"
            card = FieldCard(key, info.title or name, info.description or "", switch, inline=True)
            self.body.addWidget(card)
            self.cards[key] = card
        self.add_group_title("What the assistant may read")
        self.add_generated()

    def set_shared(self, name: str, on: bool) -> None:
        """Switch the sharing of one kind of context (a ``PrivacySettings`` field)."""
        privacy = self.settings.privacy.model_dump()
        privacy[name] = on
        self.apply("privacy", privacy)
