"""All Qt code: windows, dialogs, the tray, and the bridge from core events to Qt signals.

Nothing outside this package (and ``app.py``) imports PySide6. The app builds these
through their constructors. Wiring, in the composition root (after the QApplication and
inside the qasync loop)::

    theme = ThemeController(app, Assets(), settings.theme)      # sets Fusion + stylesheet
    bridge = EventBridge(bus, app)
    state = SettingsState(settings_store, settings, app)       # the one Settings object
    tasks = UiTasks()
    confirmations = QtConfirmationPort(app)                     # ToolManager(confirmer=...)
    notifier = QtDesktopNotifier(lambda: state.settings, play_sound, app)
    # ToolServices(url_opener=QtUrlOpener()); desktop_tools(timers=TimerService(bus,
    #   notifier), clipboard=QtClipboard(), launcher=QtApplicationLauncher())
    window = MainWindow(
        state.settings, notices=notices, on_quit=quit_signal.request, theme=theme,
        bridge=bridge, controls=agent, tasks=tasks, settings_state=state,
        demo_mode=demo, play_sound=play_sound, stop_speaking=playback.flush,
        geometry_file=paths.config_dir / "window-geometry", confirmations=confirmations,
    )
    settings_window = SettingsWindow(
        state, secrets, theme, tasks, tools=manager, controls=agent,
        list_devices=list_devices, bridge=bridge, on_test_tone=lambda: play_sound("test_tone"),
        on_key_changed=on_key_changed, about=AboutInfo(..., notes_folder=paths.notes_dir),
    )
    window.settings_requested.connect(settings_window.open_section)
    hotkey = GlobalHotkey(state, tasks)                         # follows global_hotkey*
    hotkey.pressed.connect(window.on_hotkey_pressed)
    hotkey.released.connect(window.on_hotkey_released)
    hotkey.status_changed.connect(settings_window.show_hotkey_status)
    hotkey.unavailable_changed.connect(settings_window.show_hotkey_commands)
    hotkey.apply()                                              # once the loop runs
    tray = TrayIcon(window, bridge, on_quit=quit_signal.request, demo_mode=demo)
    # the tray follows window.set_demo_mode() (the welcome panel's demo) by itself
    tray.attach_notifier(notifier); tray.show()
    # no key: window.set_welcome(WelcomePanel(secrets, theme, tasks,
    #   on_key_saved=..., on_try_demo=...)); later window.show_conversation()
    # at quit: await hotkey.aclose(); await tasks.aclose(); window.close_for_quit();
    #   bridge.close()

``play_sound(name)`` plays ``Assets().sound(name)`` (24 kHz mono PCM16 WAV).
"""

from typing import TYPE_CHECKING

from sammy_desktop.lazy import lazy_attributes

if TYPE_CHECKING:
    from sammy_desktop.ui.assets import Assets
    from sammy_desktop.ui.bridge import EventBridge
    from sammy_desktop.ui.confirmation import ConfirmationSheet, QtConfirmationPort
    from sammy_desktop.ui.controls import AgentControls, UiTasks
    from sammy_desktop.ui.desktop_ports import QtApplicationLauncher, QtClipboard, QtDesktopNotifier
    from sammy_desktop.ui.global_hotkey import GlobalHotkey
    from sammy_desktop.ui.main_window import MainWindow
    from sammy_desktop.ui.settings import AboutInfo, SettingsSection, SettingsWindow
    from sammy_desktop.ui.settings_state import SettingsState
    from sammy_desktop.ui.theme import ThemeController
    from sammy_desktop.ui.tray import TrayIcon
    from sammy_desktop.ui.url_opener import QtUrlOpener
    from sammy_desktop.ui.welcome import WelcomePanel

# Each name is imported on first use (see lazy_attributes): a remote command
# (``sammy-desktop --talk-start``) loads only the modules it needs, not every window.
__getattr__ = lazy_attributes(
    __name__,
    {
        "Assets": "sammy_desktop.ui.assets",
        "EventBridge": "sammy_desktop.ui.bridge",
        "ConfirmationSheet": "sammy_desktop.ui.confirmation",
        "QtConfirmationPort": "sammy_desktop.ui.confirmation",
        "AgentControls": "sammy_desktop.ui.controls",
        "UiTasks": "sammy_desktop.ui.controls",
        "QtApplicationLauncher": "sammy_desktop.ui.desktop_ports",
        "QtClipboard": "sammy_desktop.ui.desktop_ports",
        "QtDesktopNotifier": "sammy_desktop.ui.desktop_ports",
        "GlobalHotkey": "sammy_desktop.ui.global_hotkey",
        "MainWindow": "sammy_desktop.ui.main_window",
        "AboutInfo": "sammy_desktop.ui.settings",
        "SettingsSection": "sammy_desktop.ui.settings",
        "SettingsWindow": "sammy_desktop.ui.settings",
        "SettingsState": "sammy_desktop.ui.settings_state",
        "ThemeController": "sammy_desktop.ui.theme",
        "TrayIcon": "sammy_desktop.ui.tray",
        "QtUrlOpener": "sammy_desktop.ui.url_opener",
        "WelcomePanel": "sammy_desktop.ui.welcome",
    },
)

__all__ = [
    "AboutInfo",
    "AgentControls",
    "Assets",
    "ConfirmationSheet",
    "EventBridge",
    "GlobalHotkey",
    "MainWindow",
    "QtApplicationLauncher",
    "QtClipboard",
    "QtConfirmationPort",
    "QtDesktopNotifier",
    "QtUrlOpener",
    "SettingsSection",
    "SettingsState",
    "SettingsWindow",
    "ThemeController",
    "TrayIcon",
    "UiTasks",
    "WelcomePanel",
]
