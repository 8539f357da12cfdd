"""Settings > Talking: the talk mode, sensitivity, pre-roll, echo cancellation, the hotkey.

Every field here is generated from the Settings model. One thing is added by hand: under
the global hotkey's switch, a calm sentence when this desktop will not let an app see keys
pressed in other windows (Wayland, for one), so the switch never seems to do nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QLabel

from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["TalkingPage"]


class TalkingPage(FieldsPage):
    """The generated talking fields and the global hotkey's status line.

    Args:
        state: the live settings.
        parent: the Qt parent.
    """

    def __init__(self, state: SettingsState, parent: QWidget | None = None) -> None:
        super().__init__(SettingsSection.TALKING, state, parent)
        self.add_generated()
        self.hotkey_status = QLabel("")
        self.hotkey_status.setObjectName("fieldDescription")
        self.hotkey_status.setWordWrap(True)
        self.hotkey_status.setAccessibleName("Global hotkey status")
        self.hotkey_status.hide()
        self.cards["global_hotkey"].add_below(self.hotkey_status)

    def show_hotkey_status(self, text: str) -> None:
        """Say under the global hotkey switch whether it works here, and why not ("" hides)."""
        self.hotkey_status.setText(text)
        self.hotkey_status.setVisible(bool(text))
