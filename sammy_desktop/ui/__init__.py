"""All Qt code: windows, dialogs, the tray, and the bridge from core events to Qt signals.

Nothing outside this package (and ``app.py``) imports PySide6. The app builds these
through their constructors; see each module for what it needs.
"""

from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.confirmation import ConfirmationSheet, QtConfirmationPort
from sammy_desktop.ui.controls import AgentControls, UiTasks
from sammy_desktop.ui.main_window import MainWindow, SettingsSection
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.settings_window import AboutInfo, SettingsWindow
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.tray import TrayIcon
from sammy_desktop.ui.url_opener import QtUrlOpener
from sammy_desktop.ui.welcome import WelcomePanel

__all__ = [
    "AboutInfo",
    "AgentControls",
    "Assets",
    "ConfirmationSheet",
    "EventBridge",
    "MainWindow",
    "QtConfirmationPort",
    "QtUrlOpener",
    "SettingsSection",
    "SettingsState",
    "SettingsWindow",
    "ThemeController",
    "TrayIcon",
    "UiTasks",
    "WelcomePanel",
]
