"""Settings > Appearance: the theme and the window's behaviour, all generated.

The theme (follow the system, light or dark) applies at once; so does closing to the tray.
Every field comes from the Settings model's ``Appearance`` section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["AppearancePage"]


class AppearancePage(FieldsPage):
    """The generated appearance fields.

    Args:
        state: the live settings.
        parent: the Qt parent.
    """

    def __init__(self, state: SettingsState, parent: QWidget | None = None) -> None:
        super().__init__(SettingsSection.APPEARANCE, state, parent)
        self.add_generated()
