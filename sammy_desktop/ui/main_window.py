"""The main window: state, conversation, push-to-talk, banners, and the keyboard.

Layout (UI.md): a header with the name, the demo badge, the state pill and the controls;
banners; the transcript (or the welcome panel on first run) with the confirmation sheet
over it; a text box; the round talk button with its hint, the level meters and a quiet
status line.

Keyboard: Space held anywhere in the window talks (not while typing in the text box),
Esc stops the assistant speaking (or denies an open question), Ctrl+, opens the settings,
Ctrl+Q quits. The window never waits on the agent: its coroutines run as owned tasks.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from PySide6.QtCore import QByteArray, QEvent, QObject, Qt, QUrl, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QDesktopServices,
    QKeyEvent,
    QKeySequence,
    QShortcut,
    QShowEvent,
    QWindow,
)
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QStackedWidget,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.audio.events import DeviceFallback, StreamError, StreamRecovered
from sammy_desktop.config import Settings, TalkMode
from sammy_desktop.core.events import (
    AgentState,
    ConnectionLost,
    ErrorKind,
    ErrorRaised,
    NoResponse,
    Reconnected,
    Reconnecting,
    SessionEnded,
    SessionStarted,
    StateChanged,
    ToolsChanged,
    TurnStats,
    UsageUpdated,
)
from sammy_desktop.tools.desktop.events import TimerCancelled, TimerFired, TimerStarted
from sammy_desktop.tools.events import (
    ConfirmationRequested,
    ContextShared,
    EndSessionRequested,
    EscalationRaised,
)
from sammy_desktop.tools.wording import human_duration
from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.banners import BannerArea
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.confirmation import ConfirmationSheet, QtConfirmationPort
from sammy_desktop.ui.controls import AgentControls, UiTasks
from sammy_desktop.ui.key_state import KeyState
from sammy_desktop.ui.painted import LevelMeter
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.state_pill import STATE_WORDS, StatePill
from sammy_desktop.ui.talk_button import TalkButton, TalkLook
from sammy_desktop.ui.theme import Palette, ThemeController
from sammy_desktop.ui.transcript import TranscriptView

__all__ = ["MainWindow", "SettingsSection"]

_log = logging.getLogger(__name__)


class SettingsSection:
    """Names of the settings sections a banner or shortcut can open."""

    ACCOUNT: Final = "Account"
    VOICE: Final = "Voice & language"
    TALKING: Final = "Talking"
    DEVICES: Final = "Audio devices"
    TOOLS: Final = "Tools"
    PRIVACY: Final = "Privacy"
    APPEARANCE: Final = "Appearance"
    ABOUT: Final = "About"


_RUNNING: Final = frozenset(
    {
        AgentState.CONNECTING,
        AgentState.READY,
        AgentState.USER_SPEAKING,
        AgentState.THINKING,
        AgentState.ASSISTANT_SPEAKING,
        AgentState.RECONNECTING,
    }
)
_CAN_TALK: Final = frozenset(
    {
        AgentState.READY,
        AgentState.USER_SPEAKING,
        AgentState.THINKING,
        AgentState.ASSISTANT_SPEAKING,
        AgentState.RECONNECTING,
    }
)
_TEXT_INPUTS: Final = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox)
_SHARED_WORDS: Final = {
    "time": "date and time",
    "local_time": "date and time",
    "date": "date",
    "timezone": "time zone",
    "time_zone": "time zone",
    "platform": "operating system",
    "operating_system": "operating system",
    "app_state": "app state",
    "preferences": "your preferences",
    "user_preferences": "your preferences",
    "custom_context": "custom context",
}


def _shared_summary(shared: dict[str, object]) -> str:
    words: list[str] = []
    for key in shared:
        word = _SHARED_WORDS.get(key, key.replace("_", " "))
        if word not in words:
            words.append(word)
    return ", ".join(words) if words else "nothing"


class MainWindow(QMainWindow):
    """The app's one window.

    Only ``settings`` and ``on_quit`` are required, so the window can be shown before the
    agent exists; the app passes the rest once it has built them.

    Args:
        settings: the settings in use (``settings_state.settings`` when that is given).
        notices: messages for the person shown as banners under the header (a settings
            file that could not be read, for one).
        on_quit: called when the person quits (Ctrl+Q, closing the window without
            close-to-tray, the tray's Quit).
        theme: colours and icons; one is made from the default resources if None.
        bridge: the event bridge whose signals drive the window.
        controls: the agent; without it the talk controls are unavailable.
        tasks: runs the agent's coroutines; a new one if None.
        settings_state: live settings (talk mode, click-to-toggle, earcons, close to tray).
        demo_mode: show the "Offline demo" badge.
        welcome: a first-run panel shown instead of the transcript until
            :meth:`show_conversation`.
        play_sound: plays a short sound by name (``listen_start``, ``listen_stop``).
        stop_speaking: silences the assistant now (Esc); the app wires playback's flush.
        geometry_file: where the window's size and position are kept between runs.
        confirmations: the tool layer's confirmation port; its questions show on the
            window's sheet.
        key_state: asks the window system whether Space is still held when a release
            arrives unmarked (X11 without detectable auto-repeat); None trusts Qt.
    """

    settings_requested = Signal(str)
    """The person asked for the settings; the argument is a section name or ""."""

    demo_mode_changed = Signal(bool)
    """The app entered (True) or left (False) the offline demo."""

    def __init__(
        self,
        settings: Settings,
        *,
        notices: Sequence[str] = (),
        on_quit: Callable[[], None],
        theme: ThemeController | None = None,
        bridge: EventBridge | None = None,
        controls: AgentControls | None = None,
        tasks: UiTasks | None = None,
        settings_state: SettingsState | None = None,
        demo_mode: bool = False,
        welcome: QWidget | None = None,
        play_sound: Callable[[str], None] | None = None,
        stop_speaking: Callable[[], None] | None = None,
        geometry_file: Path | None = None,
        confirmations: QtConfirmationPort | None = None,
        key_state: KeyState | None = None,
    ) -> None:
        super().__init__()
        self._settings = settings_state.settings if settings_state is not None else settings
        self._on_quit = on_quit
        self._quitting = False
        self._bridge = bridge
        self._controls = controls
        self._tasks = tasks or UiTasks()
        self._settings_state = settings_state
        self._play_sound = play_sound
        self._stop_speaking = stop_speaking
        self._geometry_file = geometry_file
        self._confirmations = confirmations
        self._key_state = key_state
        self._demo_mode = demo_mode
        self._tray_available = False
        self._talking = False
        self._talk_pending = False
        self._mic_paused = False
        self._held_keys: set[str] = set()
        self._reconnects = 0
        self._last_turn_ms: float | None = None
        self._state = controls.state if controls is not None else AgentState.DISCONNECTED
        app = QApplication.instance()
        assert isinstance(app, QApplication), "the main window needs a QApplication"
        self._theme = theme or ThemeController(app, Assets(), self._settings.theme)
        self._assets = self._theme.assets

        self.setObjectName("mainWindow")
        self.setWindowTitle("Sammy")
        self.setWindowIcon(self._assets.app_icon())
        self.resize(420, 680)
        self.setMinimumSize(360, 520)
        self._restore_geometry()
        self.setAccessibleName("Sammy Desktop")
        self._build()
        for index, text in enumerate(notices):
            banner = self.banners.show_banner(f"notice-{index}", "warning", text)
            self.notice_labels.append(banner.text_label)
        if welcome is not None:
            self.show_welcome()
        self._connect_signals()
        self._apply_palette(self._theme.palette)
        self._show_state(self._state, "")
        # Space is watched on this window's native window (see showEvent), not with an
        # application-wide filter: that one ran Python for every event in the app, some
        # hundreds a second (each qasync call_soon is a Qt timer event), for a key press.
        self._watched_window: QWindow | None = None

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        central = QWidget(self)
        central.setObjectName("central")
        self._central = central
        layout = QVBoxLayout(central)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)

        header = QHBoxLayout()
        header.setSpacing(8)
        title = QLabel("Sammy", central)
        title.setObjectName("appTitle")
        header.addWidget(title)
        self.demo_badge = QLabel("Offline demo", central)
        self.demo_badge.setObjectName("demoBadge")
        self.demo_badge.setAccessibleName("Offline demo: answers come from a local simulator")
        self.demo_badge.setToolTip("Answers come from a local simulator, not from Gemini.")
        self.demo_badge.setVisible(self._demo_mode)
        header.addWidget(self.demo_badge)
        header.addStretch(1)
        self.state_pill = StatePill(central)
        self.state_label = self.state_pill.label
        header.addWidget(self.state_pill)
        self.settings_button = self._tool_button(central, "Settings (Ctrl+,)")
        self.settings_button.setAccessibleName("Settings")
        header.addWidget(self.settings_button)
        layout.addLayout(header)

        self.banners = BannerArea(self._theme, central)
        self.notice_labels: list[QLabel] = []
        layout.addWidget(self.banners)

        self.stack = QStackedWidget(central)
        self._conversation = QWidget(self.stack)
        conversation_layout = QVBoxLayout(self._conversation)
        conversation_layout.setContentsMargins(0, 0, 0, 0)
        self.transcript = TranscriptView(self._theme, parent=self._conversation)
        conversation_layout.addWidget(self.transcript)
        self.stack.addWidget(self._conversation)
        self.confirmation_sheet = ConfirmationSheet(self._conversation)
        layout.addWidget(self.stack, 1)
        self.welcome: QWidget | None = None

        # Everything under the conversation; hidden while the welcome panel shows.
        self.bottom_panel = QWidget(central)
        bottom = QVBoxLayout(self.bottom_panel)
        bottom.setContentsMargins(0, 0, 0, 0)
        bottom.setSpacing(8)
        layout.addWidget(self.bottom_panel)
        central = self.bottom_panel
        layout = bottom

        input_row = QHBoxLayout()
        input_row.setSpacing(8)
        self.message_input = QLineEdit(central)
        self.message_input.setObjectName("messageInput")
        self.message_input.setPlaceholderText("Type a message…")
        self.message_input.setAccessibleName("Message")
        self.message_input.setAccessibleDescription("Type instead of talking; Enter sends.")
        self.message_input.setMaxLength(4000)
        self.send_button = self._tool_button(central, "Send")
        input_row.addWidget(self.message_input, 1)
        input_row.addWidget(self.send_button)
        layout.addLayout(input_row)

        # Connect and end-session flank the talk button: a step away, never in the way.
        talk_row = QHBoxLayout()
        talk_row.setContentsMargins(24, 0, 24, 0)
        self.connect_button = self._tool_button(central, "Connect")
        self.end_session_button = self._tool_button(central, "End session")
        talk_row.addWidget(self.connect_button, 0, Qt.AlignmentFlag.AlignVCenter)
        talk_row.addStretch(1)
        self.talk_button = TalkButton(self._assets, central)
        talk_row.addWidget(self.talk_button)
        talk_row.addStretch(1)
        talk_row.addWidget(self.end_session_button, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addLayout(talk_row)
        self.talk_hint = QLabel("", central)
        self.talk_hint.setObjectName("talkHint")
        self.talk_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.talk_hint)

        meters = QHBoxLayout()
        meters.setSpacing(8)
        meters.setContentsMargins(24, 4, 24, 0)
        mic_label = QLabel("Mic", central)
        mic_label.setObjectName("meterLabel")
        self.input_meter = LevelMeter(central)
        self.input_meter.setAccessibleName("Microphone level")
        speaker_label = QLabel("Speaker", central)
        speaker_label.setObjectName("meterLabel")
        self.output_meter = LevelMeter(central)
        self.output_meter.setAccessibleName("Speaker level")
        meters.addWidget(mic_label)
        meters.addWidget(self.input_meter, 1)
        meters.addSpacing(12)
        meters.addWidget(speaker_label)
        meters.addWidget(self.output_meter, 1)
        layout.addLayout(meters)

        self.status_line = QLabel("", central)
        self.status_line.setObjectName("statusLine")
        self.status_line.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status_line.setAccessibleName("Status")
        layout.addWidget(self.status_line)
        self._update_status_line()
        self.setCentralWidget(self._central)

        QWidget.setTabOrder(self.settings_button, self.transcript)
        QWidget.setTabOrder(self.transcript, self.message_input)
        QWidget.setTabOrder(self.message_input, self.send_button)
        QWidget.setTabOrder(self.send_button, self.connect_button)
        QWidget.setTabOrder(self.connect_button, self.talk_button)
        QWidget.setTabOrder(self.talk_button, self.end_session_button)
        self.talk_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def _tool_button(self, parent: QWidget, tip: str) -> QToolButton:
        button = QToolButton(parent)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        return button

    def _connect_signals(self) -> None:
        self.talk_button.pressed.connect(self.on_talk_pressed)
        self.talk_button.released.connect(self.on_talk_released)
        self.message_input.returnPressed.connect(self.on_send_text)
        self.send_button.clicked.connect(self.on_send_text)
        self.connect_button.clicked.connect(self.on_connect_clicked)
        self.end_session_button.clicked.connect(self.on_end_session_clicked)
        self.settings_button.clicked.connect(lambda: self.settings_requested.emit(""))
        self.confirmation_sheet.shown_request.connect(self.on_confirmation_shown)
        if self._confirmations is not None:
            self._confirmations.attach(self.confirmation_sheet)
        self._theme.palette_changed.connect(self._apply_palette)

        quit_shortcut = QShortcut(QKeySequence("Ctrl+Q"), self)
        quit_shortcut.activated.connect(self._on_quit)
        settings_shortcut = QShortcut(QKeySequence("Ctrl+,"), self)
        settings_shortcut.activated.connect(lambda: self.settings_requested.emit(""))

        if self._settings_state is not None:
            self._settings_state.changed.connect(self.on_settings_changed)

        bridge = self._bridge
        if bridge is None:
            return
        bridge.state_changed.connect(self.on_state_changed)
        bridge.transcript_updated.connect(self.transcript.update_line)
        bridge.tool_call_started.connect(self.transcript.add_tool_call)
        bridge.tool_call_progress.connect(self.transcript.progress_tool_call)
        bridge.tool_call_finished.connect(self.transcript.finish_tool_call)
        bridge.tool_call_failed.connect(self.transcript.fail_tool_call)
        bridge.tool_call_cancelled.connect(self.transcript.cancel_tool_call)
        bridge.confirmation_requested.connect(self.on_confirmation_requested)
        bridge.end_session_requested.connect(self.on_end_session_requested)
        bridge.session_started.connect(self.on_session_started)
        bridge.session_ended.connect(self.on_session_ended)
        bridge.context_shared.connect(self.on_context_shared)
        bridge.escalation_raised.connect(self.on_escalation_raised)
        bridge.error_raised.connect(self.on_error_raised)
        bridge.connection_lost.connect(self.on_connection_lost)
        bridge.reconnecting.connect(self.on_reconnecting)
        bridge.reconnected.connect(self.on_reconnected)
        bridge.no_response.connect(self.on_no_response)
        bridge.turn_stats.connect(self.on_turn_stats)
        bridge.usage_updated.connect(self.on_usage_updated)
        bridge.tools_changed.connect(self.on_tools_changed)
        bridge.grounding_sources_found.connect(self.transcript.show_sources)
        bridge.timer_started.connect(self.on_timer_started)
        bridge.timer_fired.connect(self.on_timer_fired)
        bridge.timer_cancelled.connect(self.on_timer_cancelled)
        bridge.input_level.connect(self.on_input_level)
        bridge.output_level.connect(self.on_output_level)
        bridge.device_fallback.connect(self.on_device_fallback)
        bridge.stream_error.connect(self.on_stream_error)
        bridge.stream_recovered.connect(self.on_stream_recovered)

    # ------------------------------------------------------------------ public API

    @property
    def talking(self) -> bool:
        """Whether the person is talking (button or Space held, or toggled on).

        Hands-free: whether the microphone is live (connected and not paused).
        """
        if self._hands_free():
            return self._state in _RUNNING and not self._mic_paused
        return self._talking

    @property
    def assets(self) -> Assets:
        """The icons and sounds the window uses."""
        return self._assets

    @property
    def tasks(self) -> UiTasks:
        """The tasks the window started (the app closes them at shutdown)."""
        return self._tasks

    @property
    def demo_mode(self) -> bool:
        """Whether the window is labelled as the offline demo."""
        return self._demo_mode

    def set_demo_mode(self, on: bool) -> None:
        """Show or hide the "Offline demo" badge and title (the tray follows)."""
        changed = on != self._demo_mode
        self._demo_mode = on
        self.demo_badge.setVisible(on)
        self.setWindowTitle("Sammy (offline demo)" if on else "Sammy")
        if changed:
            self.demo_mode_changed.emit(on)

    def set_welcome(self, welcome: QWidget) -> None:
        """Use ``welcome`` as the first-run panel and show it."""
        if self.welcome is not None:
            self.stack.removeWidget(self.welcome)
        self.welcome = welcome
        self.stack.addWidget(welcome)
        self.show_welcome()

    def show_welcome(self) -> None:
        """Show the first-run panel instead of the transcript."""
        if self.welcome is not None:
            self.stack.setCurrentWidget(self.welcome)
            self.bottom_panel.hide()

    def show_conversation(self) -> None:
        """Show the transcript (after a key was saved or the demo started)."""
        self.stack.setCurrentWidget(self._conversation)
        self.bottom_panel.show()

    def set_tray_available(self, available: bool) -> None:
        """Whether a tray icon exists, so closing can hide the window to it."""
        self._tray_available = available

    def show_and_raise(self) -> None:
        """Bring the window to the front (from the tray, or for a question)."""
        self.showNormal()
        self.raise_()
        self.activateWindow()

    def show_banner_for_settings(self, section: str, text: str, kind: str = "error") -> None:
        """A banner whose action opens the settings at ``section``."""
        self.banners.show_banner(
            f"settings-{section}",
            kind,
            text,
            actions=[("Open settings", lambda: self.settings_requested.emit(section))],
        )

    def close_for_quit(self) -> None:
        """Close the window as part of quitting (does not ask to quit again)."""
        self._quitting = True
        self._save_geometry()
        if self._watched_window is not None:
            self._watched_window.removeEventFilter(self)
            self._watched_window = None
        self.close()

    def _restore_geometry(self) -> None:
        if self._geometry_file is None:
            return
        try:
            data = self._geometry_file.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            _log.info("window geometry not restored: %s", exc)
            return
        if not self.restoreGeometry(QByteArray(data)):
            _log.info("window geometry in %s not usable; default size", self._geometry_file)

    def _save_geometry(self) -> None:
        if self._geometry_file is None or not self.isVisible():
            return
        try:
            self._geometry_file.parent.mkdir(parents=True, exist_ok=True)
            self._geometry_file.write_bytes(self.saveGeometry().data())
        except OSError as exc:  # a read-only profile must not stop the window closing
            _log.info("window geometry not saved: %s", exc)

    # ------------------------------------------------------------------ talking

    def on_talk_pressed(self) -> None:
        """The talk button or Space went down."""
        if self._hands_free():
            self._toggle_hands_free_mic()
        elif self._toggle_mode():
            if self._talking:
                self._stop_talking()
            else:
                self._start_talking()
        else:
            self._start_talking()

    def on_talk_released(self) -> None:
        """The talk button or Space came up."""
        if not self._toggle_mode() and not self._hands_free():
            self._stop_talking()

    def _toggle_mode(self) -> bool:
        return self._settings.push_to_talk_toggle

    def _hands_free(self) -> bool:
        return self._settings.talk_mode is TalkMode.HANDS_FREE

    def _toggle_hands_free_mic(self) -> None:
        # Hands-free: the microphone is live whenever connected; the button pauses it.
        controls = self._controls
        if controls is None:
            return
        if controls.state not in _RUNNING:
            self._mic_paused = False
            self._tasks.run(controls.start(), "ui-connect-hands-free")
        elif self._mic_paused:
            self._mic_paused = False
            controls.begin_talk()
            self._sound("listen_start")
        else:
            self._mic_paused = True
            controls.end_talk()
            self._sound("listen_stop")
        self._show_talk_look()
        self._update_hint()

    def _start_talking(self) -> None:
        controls = self._controls
        if controls is None or self._talking:
            return
        self._talking = True
        self.talk_button.set_look(TalkLook.LISTENING)
        state = controls.state
        if state in _RUNNING:
            # While connecting the core may already take the turn (and buffer the audio);
            # if not, the turn starts at the next state change.
            self._talk_pending = not controls.begin_talk()
        else:
            # Not connected: connect first and talk as soon as the core accepts the turn.
            self._talk_pending = True
            self._tasks.run(controls.start(), "ui-connect-to-talk")
        # After begin_talk: it silences the assistant, which would cut the earcon too.
        self._sound("listen_start")
        self._update_hint()

    def _stop_talking(self) -> None:
        if not self._talking:
            return
        self._talking = False
        self._talk_pending = False
        # The end of the turn goes out first: the earcon and the new look can wait a moment,
        # the model's answer waits for activityEnd. Repainting before the loop's next turn
        # would put the repaint ahead of the sender; so the look changes just after it.
        if self._controls is not None:
            self._controls.end_talk()
        self._sound("listen_stop")
        self._after_sending(self._show_talk_look)
        self._after_sending(self._update_hint)

    def _after_sending(self, update: Callable[[], None]) -> None:
        """Run a look update after what the loop already has queued (the sender's turn)."""
        try:
            asyncio.get_running_loop().call_soon(update)
        except RuntimeError:  # no loop running (a bare widget in a test): now
            update()

    def _sound(self, name: str) -> None:
        if self._play_sound is not None and self._settings.earcons:
            try:
                self._play_sound(name)
            except Exception:  # noqa: BLE001 - a missing earcon must never stop talking
                _log.exception("could not play the sound %s", name)

    # ------------------------------------------------------------------ other controls

    def on_send_text(self) -> None:
        """Send what is in the text box."""
        text = self.message_input.text().strip()
        if not text or self._controls is None:
            return
        controls = self._controls
        if controls.state in _CAN_TALK:
            if controls.send_text(text):
                self.message_input.clear()
            return
        self.banners.show_banner(
            "not-connected",
            "info",
            "Not connected: connect first, then send your message again. Your text is kept.",
            actions=[("Connect", self.on_connect_clicked)],
        )

    def on_connect_clicked(self) -> None:
        """Connect when disconnected, disconnect when connected."""
        controls = self._controls
        if controls is None:
            return
        if controls.state in _RUNNING:
            self._tasks.run(controls.stop(), "ui-disconnect")
        else:
            self.banners.remove("not-connected")
            self._tasks.run(controls.start(), "ui-connect")

    def on_end_session_clicked(self) -> None:
        """End the conversation for good."""
        if self._controls is not None and self._controls.state in _RUNNING:
            self._tasks.run(self._controls.end_session("ended by the person"), "ui-end-session")

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc denies an open question, or else stops the assistant speaking."""
        if event.key() == Qt.Key.Key_Escape:
            if self.confirmation_sheet.current is not None:
                self.confirmation_sheet.deny()
            elif self._stop_speaking is not None:
                self._stop_speaking()
            event.accept()
            return
        super().keyPressEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        """Watch the native window's key events from the first show on (see eventFilter)."""
        super().showEvent(event)
        handle = self.windowHandle()
        if handle is not None and handle is not self._watched_window:
            handle.installEventFilter(self)
            self._watched_window = handle

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Space held anywhere in this window talks, unless a text field has focus.

        Installed on the window's QWindow, which sees every key event for this window
        before the focused widget does (a focused button would take Space as a click).
        """
        kind = event.type()
        if kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_Space and self._space_is_ours():
                if event.isAutoRepeat():
                    return True
                if kind == QEvent.Type.KeyPress:
                    self._hold_key("space")
                elif self._key_state is not None and self._key_state.is_down(
                    event.nativeScanCode()
                ):
                    pass  # an auto-repeat Qt did not mark: the key is still held
                else:
                    self._let_go_key("space")
                return True
        return False

    def changeEvent(self, event: QEvent) -> None:
        """Losing the focus lets go of Space: the key-up may go to another window."""
        if event.type() == QEvent.Type.ActivationChange and not self.isActiveWindow():
            self._let_go_key("space")
        super().changeEvent(event)

    def on_hotkey_pressed(self) -> None:
        """The global hotkey went down (in any window): talk, as the talk button does."""
        self._hold_key("hotkey")

    def on_hotkey_released(self) -> None:
        """The global hotkey came up."""
        self._let_go_key("hotkey")

    def _hold_key(self, key: str) -> None:
        # Space and the global hotkey can both be down (Ctrl+Alt+Space typed into this
        # window reaches both): one press, one release, or toggle mode would flip twice.
        if key in self._held_keys:
            return
        self._held_keys.add(key)
        if len(self._held_keys) == 1:
            self.on_talk_pressed()

    def _let_go_key(self, key: str) -> None:
        if key not in self._held_keys:
            return
        self._held_keys.discard(key)
        if not self._held_keys:
            self.on_talk_released()

    def _space_is_ours(self) -> bool:
        if self.confirmation_sheet.current is not None:
            return False  # Space presses the sheet's focused button
        focus = QApplication.focusWidget()
        if isinstance(focus, _TEXT_INPUTS):
            return False
        return not (isinstance(focus, QComboBox) and focus.isEditable())

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing hides to the tray when set up so; otherwise it quits the app."""
        if self._quitting:
            event.accept()
            return
        self._save_geometry()
        if self._settings.close_to_tray and self._tray_available:
            self.hide()
            event.ignore()
            return
        self._on_quit()
        event.accept()

    # ------------------------------------------------------------------ state

    def on_state_changed(self, event: StateChanged) -> None:
        """The agent moved to a new state."""
        self._show_state(event.new, event.reason)
        if event.new in _CAN_TALK:
            self.banners.remove("connection")
            if event.new is AgentState.READY:
                self.banners.remove("error")
        if self._talk_pending and self._talking and event.new in _RUNNING:
            # Cleared first: begin_talk itself changes the state, which lands here again.
            self._talk_pending = False
            controls = self._controls
            if controls is not None and not controls.begin_talk():
                self._talk_pending = True
        if event.new not in _RUNNING and self._talking and not self._talk_pending:
            self._talking = False
            self._show_talk_look()

    def _show_state(self, state: AgentState, reason: str) -> None:
        self._state = state
        self.state_pill.set_state(state, reason)
        running = state in _RUNNING
        self.connect_button.setToolTip("Disconnect" if running else "Connect")
        self.connect_button.setAccessibleName("Disconnect" if running else "Connect")
        self.end_session_button.setEnabled(running)
        self.connect_button.setEnabled(self._controls is not None)
        self.talk_button.setEnabled(self._controls is not None)
        self._show_talk_look()
        self._update_hint()

    def _show_talk_look(self) -> None:
        hands_free_live = self._hands_free() and self._state in _CAN_TALK and not self._mic_paused
        if self._controls is None:
            look = TalkLook.UNAVAILABLE
        elif self._state is AgentState.ASSISTANT_SPEAKING and not self._talking:
            look = TalkLook.SPEAKING
        elif self._talking or self._state is AgentState.USER_SPEAKING or hands_free_live:
            look = TalkLook.LISTENING
        else:
            look = TalkLook.IDLE
        self.talk_button.set_look(look)

    def _update_hint(self) -> None:
        hands_free = self._settings.talk_mode is TalkMode.HANDS_FREE
        if self._controls is None:
            hint = "Talking is not available yet"
        elif self._talking and self._talk_pending:
            hint = "Connecting… keep talking"
        elif self._talking:
            hint = "Listening… click again to send" if self._toggle_mode() else "Listening…"
        elif self._state is AgentState.USER_SPEAKING:
            hint = "Listening…"
        elif self._state is AgentState.ASSISTANT_SPEAKING:
            hint = "Speaking · Esc to stop"
        elif self._state is AgentState.THINKING and not hands_free:
            hint = "Thinking…"
        elif hands_free and self._state not in _RUNNING:
            hint = "Hands-free · click to connect"
        elif hands_free and self._mic_paused:
            hint = "Microphone paused · click to listen"
        elif hands_free:
            hint = "Hands-free: just talk · click to pause"
        elif self._settings.push_to_talk_toggle:
            hint = "Press Space or click to talk"
        else:
            hint = "Hold Space to talk"
        self.talk_hint.setText(hint)
        self.talk_button.setToolTip(hint)
        word = STATE_WORDS[self._state]
        self.talk_button.setAccessibleDescription(f"{hint}. State: {word}.")

    def _update_status_line(self) -> None:
        latency = "—" if self._last_turn_ms is None else f"{self._last_turn_ms:.0f} ms"
        self.status_line.setText(f"last turn {latency}   ·   reconnects {self._reconnects}")

    # ------------------------------------------------------------------ event slots

    def on_session_started(self, event: SessionStarted) -> None:
        """A new conversation: the counters start again."""
        self._reconnects = 0
        self._last_turn_ms = None
        self._update_status_line()
        if self._confirmations is not None:
            self._confirmations.forget_session()
        self.banners.remove("session-ended")
        if self.transcript.lines():
            self.transcript.add_note("New conversation")

    def on_session_ended(self, event: SessionEnded) -> None:
        """The conversation is over."""
        self.transcript.add_note(f"Conversation ended ({event.reason})")
        self._talk_pending = False
        if self._talking:
            self._talking = False
            self._show_talk_look()
            self._update_hint()

    def on_end_session_requested(self, event: EndSessionRequested) -> None:
        """The assistant ends the conversation (the endSession tool)."""
        reason = f": {event.reason}" if event.reason else ""
        self.transcript.add_note(f"Sammy is ending the conversation{reason}")

    def on_confirmation_requested(self, event: ConfirmationRequested) -> None:
        """A tool waits for the person's yes: its card says so."""
        card = self.transcript.tool_card(event.call_id)
        if card is not None:
            card.show_waiting_for_approval()

    def on_confirmation_shown(self, _call_id: str) -> None:
        """A question is open: make sure the person can see it."""
        self.show_conversation()
        if not self.isVisible() or self.isMinimized():
            self.show_and_raise()

    def on_context_shared(self, event: ContextShared) -> None:
        """Say exactly what the assistant learnt about this computer."""
        shared = dict(event.shared)
        text = f"Shared with Sammy: {_shared_summary(shared)}."
        if event.withheld:
            held = ", ".join(
                name.removeprefix("share_").replace("_", " ") for name in event.withheld
            )
            text += f" Held back by your privacy settings: {held}."
        details = json.dumps(shared, indent=2, ensure_ascii=False, default=str)
        self.banners.show_banner(
            "context",
            "info",
            text,
            actions=[
                ("Privacy settings", lambda: self.settings_requested.emit(SettingsSection.PRIVACY))
            ],
            details=details,
        )

    def on_escalation_raised(self, event: EscalationRaised) -> None:
        """Escalation saved: show the record id and where it went."""
        if event.channel_opened:
            where = f"Opened {event.channel_opened} for you."
        else:
            where = "It is saved on this computer only (no support contact is set)."
        record_folder = event.record_path.parent

        def show_record() -> None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(record_folder)))

        self.banners.show_banner(
            "escalation",
            "success",
            f"Sent for review as {event.record_id}. {where}",
            actions=[("Show record", show_record)],
        )

    def on_error_raised(self, event: ErrorRaised) -> None:
        """A problem the person must act on, with the action that helps."""
        text = f"{event.message} {event.what_to_do}".strip()
        if event.kind is ErrorKind.AUTH:
            actions = [
                ("Open settings", lambda: self.settings_requested.emit(SettingsSection.ACCOUNT))
            ]
        elif event.kind is ErrorKind.CONFIGURATION:
            actions = [
                ("Open settings", lambda: self.settings_requested.emit(SettingsSection.VOICE))
            ]
        else:
            actions = [("Connect again", self.on_connect_clicked)]
        self.banners.show_banner("error", "error", text, actions=actions)

    def on_connection_lost(self, event: ConnectionLost) -> None:
        """The connection dropped; a reconnection usually follows."""
        why = f" ({event.reason})" if event.reason else ""
        self.banners.show_banner(
            "connection", "warning", f"Connection lost{why}. Trying again…", dismissible=False
        )

    def on_reconnecting(self, event: Reconnecting) -> None:
        """A reconnection attempt is on its way."""
        self.banners.show_banner(
            "connection",
            "warning",
            f"Offline: reconnecting (attempt {event.attempt} of {event.max_attempts}). "
            "Keep talking; what you say is kept and sent once the connection is back.",
            dismissible=False,
        )

    def on_reconnected(self, event: Reconnected) -> None:
        """Back online."""
        self.banners.remove("connection")
        self._reconnects += 1
        self._update_status_line()
        if not event.planned:
            how = (
                "conversation resumed"
                if event.resumed
                else "conversation restarted with its history"
            )
            self.transcript.add_note(f"Reconnected · {how}")

    def on_no_response(self, event: NoResponse) -> None:
        """The service stayed silent after the person's turn."""
        if event.gave_up:
            self.banners.show_banner(
                "no-response",
                "warning",
                "No answer came back. Please say it again, or check the connection.",
            )
        else:
            self.transcript.add_note("Waiting for an answer…")

    def on_turn_stats(self, event: TurnStats) -> None:
        """Show how long the last answer took to start."""
        self.banners.remove("no-response")
        if event.first_audio_ms is not None:
            self._last_turn_ms = event.first_audio_ms
        self._update_status_line()

    def on_timer_started(self, event: TimerStarted) -> None:
        """A timer runs: a quiet banner says what for and when it ends."""
        timer = event.timer
        ends = timer.ends_at.astimezone().strftime("%H:%M")
        self.banners.show_banner(
            f"timer-{timer.id}",
            "info",
            f"Timer “{timer.label}” set for {human_duration(timer.duration_s)}; it ends at {ends}.",
        )

    def on_timer_fired(self, event: TimerFired) -> None:
        """A timer ended."""
        self.banners.show_banner(
            f"timer-{event.timer.id}", "success", f"Timer done: “{event.timer.label}”."
        )

    def on_timer_cancelled(self, event: TimerCancelled) -> None:
        """A timer was cancelled: its banner goes."""
        self.banners.remove(f"timer-{event.timer.id}")

    def on_tools_changed(self, event: ToolsChanged) -> None:
        """Say that the assistant's tools changed, and when that takes effect."""
        if self._state not in _RUNNING:
            return
        when = "now" if event.applied_live else "after reconnecting"
        count = len(event.enabled)
        self.transcript.add_note(f"Tools updated: {count} available to Sammy {when}")

    def on_usage_updated(self, event: UsageUpdated) -> None:
        """Token use goes in the status line's tooltip."""
        self.status_line.setToolTip(f"{event.session_total} tokens used in this conversation")

    def on_input_level(self, dbfs: float) -> None:
        """The microphone's level: the meter, and the ring while listening."""
        self.input_meter.set_dbfs(dbfs)
        if self.talk_button.look is TalkLook.LISTENING:
            self.talk_button.set_level_dbfs(dbfs)

    def on_output_level(self, dbfs: float) -> None:
        """The speaker's level: the meter, and the ring while the assistant speaks."""
        self.output_meter.set_dbfs(dbfs)
        if self.talk_button.look is TalkLook.SPEAKING:
            self.talk_button.set_level_dbfs(dbfs)

    def on_device_fallback(self, event: DeviceFallback) -> None:
        """The chosen device could not be used; another one is."""
        what = "microphone" if event.direction == "input" else "speaker"
        self.banners.show_banner(
            f"device-{event.direction}",
            "warning",
            f"Using the {what} {event.used!r} instead of {event.requested!r}: {event.reason}",
            actions=[
                ("Choose a device", lambda: self.settings_requested.emit(SettingsSection.DEVICES))
            ],
        )

    def on_stream_error(self, event: StreamError) -> None:
        """A device failed (no microphone, unplugged headset...)."""
        what = "microphone" if event.direction == "input" else "speaker"
        self.banners.show_banner(
            f"device-{event.direction}",
            "error",
            f"The {what} is not working: {event.reason}. Trying again…",
            actions=[
                ("Choose a device", lambda: self.settings_requested.emit(SettingsSection.DEVICES))
            ],
        )

    def on_stream_recovered(self, event: StreamRecovered) -> None:
        """A device works again."""
        self.banners.remove(f"device-{event.direction}")

    def on_settings_changed(self, settings: Settings, names: frozenset[str]) -> None:
        """Follow the settings that change how the window behaves."""
        self._settings = settings
        if "theme" in names:
            self._theme.set_theme(settings.theme)
        if "talk_mode" in names and self._controls is not None:
            if self._talking:
                self._stop_talking()
            self._mic_paused = False
            self._tasks.run(self._controls.set_talk_mode(settings.talk_mode), "ui-talk-mode")
        self._update_hint()

    def _apply_palette(self, palette: Palette) -> None:
        color = palette.text_muted
        self.connect_button.setIcon(self._assets.icon("power", color, 20))
        self.end_session_button.setIcon(self._assets.icon("leave", color, 20))
        self.settings_button.setIcon(self._assets.icon("settings", color, 18))
        self.send_button.setIcon(self._assets.icon("send", palette.accent, 18))
        self.talk_button.update()
