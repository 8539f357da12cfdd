"""Settings > Screen: how a shared screen is sent, all generated.

The image size and when to send apply to the next frame; the detail the model sees (the
Live ``media_resolution``) reaches a running conversation at its next quiet moment, through
a resuming reconnect. Every field comes from the Settings model's ``Screen`` section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["ScreenPage"]


class ScreenPage(FieldsPage):
    """The generated screen-sharing fields.

    Args:
        state: the live settings.
        parent: the Qt parent.
    """

    def __init__(self, state: SettingsState, parent: QWidget | None = None) -> None:
        super().__init__(SettingsSection.SCREEN, state, parent)
        self.add_generated()
