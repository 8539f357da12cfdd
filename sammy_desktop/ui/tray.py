"""The tray icon: talk, stop speaking, share, show/hide, settings, quit; its colour by state.

Its tooltip says the state and, whenever a capture stream is open, "mic on": the tray is
where a person looks when the system's microphone indicator is lit and the window is hidden.
While the screen is shared the icon has a red dot and the tooltip says "sharing screen".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from sammy_desktop.audio.events import MicrophoneInUse
from sammy_desktop.core.events import AgentState, StateChanged
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.desktop_ports import QtDesktopNotifier
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.state_pill import STATE_WORDS

__all__ = ["TrayIcon"]

_VARIANTS: Final = {
    AgentState.USER_SPEAKING: "tray-listening",
    AgentState.THINKING: "tray-thinking",
    AgentState.CONNECTING: "tray-thinking",
    AgentState.RECONNECTING: "tray-thinking",
    AgentState.ASSISTANT_SPEAKING: "tray-speaking",
    AgentState.ERROR: "tray-error",
}


class TrayIcon(QObject):
    """The system tray entry.

    Args:
        window: the main window it shows, hides and talks through.
        bridge: state changes recolour the icon.
        on_quit: the app's quit.
        demo_mode: label the tooltip as the offline demo (also when the window is); it
            then follows the window's :meth:`~MainWindow.set_demo_mode`.
        parent: the Qt parent.
    """

    def __init__(
        self,
        window: MainWindow,
        bridge: EventBridge,
        on_quit: Callable[[], None],
        *,
        demo_mode: bool = False,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._window = window
        self._demo_mode = demo_mode or window.demo_mode
        self._state = AgentState.DISCONNECTED
        self._mic_in_use = False
        self._sharing = False
        self._assets = window.assets
        self.icon = QSystemTrayIcon(self._assets.app_icon("tray-idle"), self)
        self._show_tooltip()
        self.menu = QMenu()
        self.talk_action = QAction("Talk", self.menu)
        self.talk_action.setCheckable(True)
        self.stop_action = QAction("Stop speaking", self.menu)
        self.stop_action.setEnabled(False)
        self.share_action = QAction("Share screen…", self.menu)
        self.show_action = QAction("Hide Sammy", self.menu)
        self.settings_action = QAction("Settings…", self.menu)
        self.quit_action = QAction("Quit", self.menu)
        self.menu.addAction(self.talk_action)
        self.menu.addAction(self.stop_action)
        if window.screen_sharing is not None:
            self.menu.addAction(self.share_action)
        self.menu.addSeparator()
        self.menu.addAction(self.show_action)
        self.menu.addAction(self.settings_action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.icon.setContextMenu(self.menu)

        self.show_action.triggered.connect(self.toggle_window)
        self.talk_action.triggered.connect(self.toggle_talk)
        self.stop_action.triggered.connect(window.stop_speaking)
        self.settings_action.triggered.connect(window.on_settings_clicked)
        self.quit_action.triggered.connect(on_quit)
        self.icon.activated.connect(self._on_activated)
        self.menu.aboutToShow.connect(self._refresh_menu)
        bridge.state_changed.connect(self.on_state_changed)
        bridge.microphone_in_use.connect(self.on_microphone_in_use)
        window.demo_mode_changed.connect(self.set_demo_mode)
        if window.screen_sharing is not None:
            self.share_action.triggered.connect(window.screen_sharing.choose)
            window.screen_sharing.sharing_changed.connect(self.on_sharing_changed)
            window.screen_sharing.share.stopped.connect(self.on_sharing_stopped)

    @property
    def name(self) -> str:
        """How the tray names the app ("Sammy", or "Sammy (offline demo)")."""
        return "Sammy (offline demo)" if self._demo_mode else "Sammy"

    def set_demo_mode(self, on: bool) -> None:
        """Label the tray as the offline demo (the app entered it later) or not."""
        self._demo_mode = on
        self._show_tooltip()

    def attach_notifier(self, notifier: QtDesktopNotifier) -> None:
        """Show the tool pack's notifications as tray messages."""
        notifier.notification.connect(self.show_message)

    def show_message(self, title: str, body: str) -> None:
        """A balloon from the tray, where the desktop supports them."""
        if self.icon.isVisible() and QSystemTrayIcon.supportsMessages():
            self.icon.showMessage(title, body, self._assets.app_icon(), 8000)

    @staticmethod
    def available() -> bool:
        """Whether the desktop has a system tray."""
        return QSystemTrayIcon.isSystemTrayAvailable()

    def show(self) -> None:
        """Put the icon in the tray and let the window hide to it."""
        self.icon.show()
        self._window.set_tray_available(self.available())

    def hide(self) -> None:
        """Remove the icon."""
        self.icon.hide()
        self._window.set_tray_available(False)

    def toggle_window(self) -> None:
        """Show the window if hidden, hide it if shown."""
        if self._window.isVisible() and not self._window.isMinimized():
            self._window.hide()
        else:
            self._window.show_and_raise()

    def toggle_talk(self) -> None:
        """Start talking, or send what was said (whatever the talk key does)."""
        self._window.talk_input.toggle()

    def on_state_changed(self, event: StateChanged) -> None:
        """Recolour the icon and say the state in its tooltip."""
        self._state = event.new
        self.stop_action.setEnabled(event.new is AgentState.ASSISTANT_SPEAKING)
        self._show_icon()
        self._show_tooltip()

    def on_sharing_changed(self, sharing: bool) -> None:
        """The screen is shared or not: the red dot, the tooltip and the menu follow."""
        self._sharing = sharing
        self.share_action.setText("Stop sharing" if sharing else "Share screen…")
        self._show_icon()
        self._show_tooltip()

    def on_sharing_stopped(self, reason: str) -> None:
        """Sharing stopped without the person asking: with the window hidden, say it here."""
        if reason and not self._window.isVisible():
            self.show_message(self.name, reason)

    def _show_icon(self) -> None:
        icon = self._assets.app_icon(_VARIANTS.get(self._state, "tray-idle"))
        sharing = self._window.screen_sharing
        if self._sharing and sharing is not None:
            icon = sharing.mark_icon(icon)
        self.icon.setIcon(icon)

    def on_microphone_in_use(self, event: MicrophoneInUse) -> None:
        """A capture stream opened or closed: the tooltip says "mic on" while one is open."""
        self._mic_in_use = event.in_use
        self._show_tooltip()

    @property
    def tooltip(self) -> str:
        """What the tray icon's tooltip says now."""
        return self.icon.toolTip()

    def _show_tooltip(self) -> None:
        mic = " · mic on" if self._mic_in_use else ""
        share = " · sharing screen" if self._sharing else ""
        self.icon.setToolTip(f"{self.name}: {STATE_WORDS[self._state]}{mic}{share}")

    def _refresh_menu(self) -> None:
        shown = self._window.isVisible() and not self._window.isMinimized()
        self.show_action.setText("Hide Sammy" if shown else "Show Sammy")
        self.talk_action.setChecked(self._window.talking)
        self.talk_action.setText("Stop talking" if self._window.talking else "Talk")
        self.share_action.setText("Stop sharing" if self._sharing else "Share screen…")

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.toggle_window()
