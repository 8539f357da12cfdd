"""The settings window and its pages."""

from sammy_desktop.ui.settings.sections import SettingsSection

__all__ = ["SettingsSection"]
