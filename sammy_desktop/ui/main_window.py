"""The main window: its layout, and the composed parts that give it behaviour.

Layout (UI.md): a header with the name, the demo badge, the state pill and the settings
button; banners; the transcript (or the welcome panel on first run), the confirmation
sheet over both; a text box; the round talk button with its hint, under it one labelled
button (End conversation, or New conversation when none runs), the level meters and a quiet
status line.

The window builds that layout and hands the behaviour to small parts, each with one job:

* :class:`~sammy_desktop.ui.talk_input.TalkInput`: what a talk press means in each talk
  mode, and the talk button's look and hint;
* :class:`~sammy_desktop.ui.talk_keys.TalkKeys`: Space held in the window and the global
  hotkey, as one talk key;
* :class:`~sammy_desktop.ui.session_controls.SessionControls`: the text box, and End
  conversation / New conversation;
* :class:`~sammy_desktop.ui.notices.Notices`: banners and transcript notes for what happened;
* :class:`~sammy_desktop.ui.mic_notices.MicNotices`: a microphone that would not open, a
  Bluetooth headset's microphone;
* :class:`~sammy_desktop.ui.status_line.StatusLine`: latency, reconnects and tokens;
* :class:`~sammy_desktop.ui.window_geometry.WindowGeometry`: size and position between runs.

Every connection between them, the bridge and the widgets is made in one place,
:meth:`MainWindow._connect_signals`; with the layout that is most of this file, and both
are kept whole here on purpose, so the window reads top to bottom.

Keyboard: Space talks (see ``talk_keys``), Esc stops the assistant speaking (or denies an
open question), Ctrl+, opens the settings, Ctrl+H the conversation history, Ctrl+Shift+S
shares the screen or stops sharing it, Ctrl+Q quits.
The window never waits on the agent: its coroutines run as owned tasks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QCloseEvent, QKeyEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.audio.events import MicrophoneInUse, PlaybackDrained
from sammy_desktop.config import Settings
from sammy_desktop.core.events import AgentState, SessionStarted, TurnStats
from sammy_desktop.tools.events import ConfirmationRequested
from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.banners import BannerArea
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.confirmation import ConfirmationSheet, QtConfirmationPort
from sammy_desktop.ui.controls import AgentControls, UiTasks
from sammy_desktop.ui.header import HeaderLayout
from sammy_desktop.ui.key_state import KeyState
from sammy_desktop.ui.mic_notices import MicNotices
from sammy_desktop.ui.notices import Notices
from sammy_desktop.ui.painted import LevelMeter
from sammy_desktop.ui.screen_sharing import SHARE_SHORTCUT, ScreenSharing, SharingBanner
from sammy_desktop.ui.session_controls import SessionControls
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.state_pill import StatePill
from sammy_desktop.ui.status_line import MicMark, StatusLine
from sammy_desktop.ui.talk_button import TalkButton
from sammy_desktop.ui.talk_input import TalkInput
from sammy_desktop.ui.talk_keys import TalkKeys, types_space
from sammy_desktop.ui.theme import Palette, ThemeController
from sammy_desktop.ui.transcript import TranscriptView
from sammy_desktop.ui.usage import estimate, usage_line
from sammy_desktop.ui.window_geometry import WindowGeometry

if TYPE_CHECKING:
    from sammy_desktop.ui.screen.share import ScreenShare
    from sammy_desktop.ui.screen.sources import ShareSource

__all__ = ["MainWindow"]


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
        stop_speaking: silences the assistant's answer for good (Esc, the tray's Stop
            speaking); the app wires the agent's ``stop_speaking``.
        geometry_file: where the window's size and position are kept between runs.
        confirmations: the tool layer's confirmation port; its questions show on the
            window's sheet.
        key_state: asks the window system whether Space is still held when a release
            arrives unmarked (X11 without detectable auto-repeat); None trusts Qt.
        open_url: opens a Google Search suggestion in the browser;
            ``QDesktopServices.openUrl`` by default (tests pass a recorder).
        screen_share: shares the screen or a window with the assistant; without it there
            is no Share button.
        list_sources: what can be shared (the screen engine's ``list_sources`` by default).
    """

    settings_requested = Signal(str)
    """The person asked for the settings; the argument is a section name or ""."""

    history_requested = Signal()
    """The person asked for the conversation history (the header's button, Ctrl+H)."""

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
        open_url: Callable[[QUrl], bool] | None = None,
        screen_share: ScreenShare | None = None,
        list_sources: Callable[[], Sequence[ShareSource]] | None = None,
    ) -> None:
        super().__init__()
        self._open_url = open_url
        self._settings = settings_state.settings if settings_state is not None else settings
        self._on_quit = on_quit
        self._quitting = False
        self._bridge = bridge
        self._tasks = tasks or UiTasks()
        self._settings_state = settings_state
        self._stop_speaking = stop_speaking
        self._geometry = WindowGeometry(geometry_file)
        self._confirmations = confirmations
        self._demo_mode = demo_mode
        self._tray_available = False
        state = controls.state if controls is not None else AgentState.DISCONNECTED
        app = QApplication.instance()
        assert isinstance(app, QApplication), "the main window needs a QApplication"
        self._theme = theme or ThemeController(app, Assets(), self._settings.theme)
        self._assets = self._theme.assets

        self.setObjectName("mainWindow")
        self.setWindowTitle("Sammy")
        self.setWindowIcon(self._assets.app_icon())
        self.resize(420, 680)
        self.setMinimumSize(360, 520)
        self._geometry.restore(self)
        self.setAccessibleName("Sammy Desktop")
        self._sharing_offered = screen_share is not None
        self._build()

        self.talk_input = TalkInput(
            self.talk_button,
            self.talk_hint,
            pill=self.state_pill,
            settings=self._settings,
            tasks=self._tasks,
            controls=controls,
            play_sound=play_sound,
            invitation=self.transcript.set_invitation,
            parent=self,
        )
        """What talk presses mean, and what the talk button, its hint and the pill say."""
        self.talk_keys = TalkKeys(
            question_open=lambda: self.confirmation_sheet.current is not None,
            key_state=key_state,
            parent=self,
        )
        """Space in this window and the global hotkey, as one talk key."""
        self.notices = Notices(self.banners, self.transcript, state=state, parent=self)
        """Banners and transcript notes for what happened."""
        self.mic_notices = MicNotices(
            self.banners, settings=self._settings, settings_state=settings_state, parent=self
        )
        """Banners about the microphone itself (would not open; Bluetooth)."""
        self.session_controls = SessionControls(
            self.message_input,
            self.conversation_button,
            notices=self.notices,
            tasks=self._tasks,
            controls=controls,
            parent=self,
        )
        """What the text box and the conversation button do."""
        self.screen_sharing: ScreenSharing | None = None
        """The Share button, its chooser and the sharing banner; None without a screen share."""
        if screen_share is not None and self.share_button is not None:
            if list_sources is None:
                from sammy_desktop.ui.screen.sources import list_sources as listed

                list_sources = listed
            self.screen_sharing = ScreenSharing(
                screen_share,
                button=self.share_button,
                banner=self.sharing_banner,
                banners=self.banners,
                theme=self._theme,
                list_sources=list_sources,
                dialog_parent=self,
                parent=self,
            )
        self.notice_labels = self.notices.show_startup_notices(notices)
        if welcome is not None:
            self.set_welcome(welcome)
        self._connect_signals()
        self.on_palette_changed(self._theme.palette)

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        central = QWidget(self)
        central.setObjectName("central")
        layout = QVBoxLayout(central)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addLayout(self._build_header(central))

        # The banners and the pages: the confirmation sheet covers both, so that in a low
        # window a question has the banners' room as well.
        self._middle = QWidget(central)
        middle = QVBoxLayout(self._middle)
        middle.setContentsMargins(0, 0, 0, 0)
        middle.setSpacing(layout.spacing())
        self.sharing_banner = SharingBanner(self._theme, self._middle)
        self.sharing_banner.hide()
        middle.addWidget(self.sharing_banner)
        self.banners = BannerArea(self._theme, self._middle)
        middle.addWidget(self.banners)

        self.stack = QStackedWidget(self._middle)
        self._conversation = QWidget(self.stack)
        conversation_layout = QVBoxLayout(self._conversation)
        conversation_layout.setContentsMargins(0, 0, 0, 0)
        self.transcript = TranscriptView(
            self._theme, open_url=self._open_url, parent=self._conversation
        )
        conversation_layout.addWidget(self.transcript)
        self.stack.addWidget(self._conversation)
        self.confirmation_sheet = ConfirmationSheet(self._middle)
        middle.addWidget(self.stack, 1)
        layout.addWidget(self._middle, 1)
        self.welcome: QWidget | None = None

        # Everything under the conversation; hidden while the welcome panel shows.
        self.bottom_panel = QWidget(central)
        self._build_bottom(self.bottom_panel)
        layout.addWidget(self.bottom_panel)
        self.setCentralWidget(central)

        QWidget.setTabOrder(self.history_button, self.settings_button)
        QWidget.setTabOrder(self.settings_button, self.transcript)
        QWidget.setTabOrder(self.transcript, self.message_input)
        QWidget.setTabOrder(self.message_input, self.send_button)
        QWidget.setTabOrder(self.send_button, self.talk_button)
        QWidget.setTabOrder(self.talk_button, self.conversation_button)
        if self.share_button is not None:
            QWidget.setTabOrder(self.talk_button, self.share_button)
            QWidget.setTabOrder(self.share_button, self.conversation_button)
        self.talk_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def _build_header(self, parent: QWidget) -> HeaderLayout:
        # One row, or the badge (and the name) on a second one when the window is narrow.
        header = HeaderLayout(spacing=8)
        title = QLabel("Sammy", parent)
        title.setObjectName("appTitle")
        header.set_title(title)
        self.demo_badge = QLabel("Offline demo", parent)
        self.demo_badge.setObjectName("demoBadge")
        self.demo_badge.setAccessibleName("Offline demo: answers come from a local simulator")
        self.demo_badge.setToolTip("Answers come from a local simulator, not from Gemini.")
        self.demo_badge.setVisible(self._demo_mode)
        header.set_badge(self.demo_badge)
        self.mic_mark = MicMark(parent)
        header.add_trailing(self.mic_mark)
        self.state_pill = StatePill(parent)
        self.state_label = self.state_pill.label
        header.add_trailing(self.state_pill)
        self.history_button = self._tool_button(parent, "Conversation history (Ctrl+H)")
        self.history_button.setAccessibleName("Conversation history")
        header.add_trailing(self.history_button)
        self.settings_button = self._tool_button(parent, "Settings (Ctrl+,)")
        self.settings_button.setAccessibleName("Settings")
        header.add_trailing(self.settings_button)
        return header

    def _build_bottom(self, panel: QWidget) -> None:
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)

        input_row = QHBoxLayout()
        input_row.setSpacing(8)
        self.message_input = QLineEdit(panel)
        self.message_input.setObjectName("messageInput")
        self.message_input.setPlaceholderText("Type a message…")
        self.message_input.setAccessibleName("Message")
        self.message_input.setAccessibleDescription("Type instead of talking; Enter sends.")
        self.message_input.setMaxLength(4000)
        self.send_button = self._tool_button(panel, "Send")
        input_row.addWidget(self.message_input, 1)
        input_row.addWidget(self.send_button)
        layout.addLayout(input_row)

        talk_row = QHBoxLayout()
        talk_row.setContentsMargins(24, 0, 24, 0)
        talk_row.addStretch(1)
        # The Share button (when there is screen sharing) beside the talk button, and as
        # much room on the other side, so the talk button stays in the middle.
        self.share_button: QToolButton | None = None
        """Share the screen or a window, or stop; None without screen sharing."""
        beside: QWidget = QWidget(panel)
        if self._sharing_offered:
            self.share_button = self._tool_button(panel, f"Share screen ({SHARE_SHORTCUT})")
            self.share_button.setObjectName("shareButton")
            beside = self.share_button
        beside.setFixedSize(40, 40)
        balance = QWidget(panel)
        balance.setFixedSize(40, 40)
        talk_row.addWidget(balance, 0, Qt.AlignmentFlag.AlignVCenter)
        talk_row.addSpacing(12)
        self.talk_button = TalkButton(self._assets, panel)
        talk_row.addWidget(self.talk_button)
        talk_row.addSpacing(12)
        talk_row.addWidget(beside, 0, Qt.AlignmentFlag.AlignVCenter)
        talk_row.addStretch(1)
        layout.addLayout(talk_row)
        self.talk_hint = QLabel("", panel)
        self.talk_hint.setObjectName("talkHint")
        self.talk_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.talk_hint)
        # End conversation / New conversation, in words: a step away, never in the way.
        self.conversation_button = QPushButton(panel)
        self.conversation_button.setObjectName("linkButton")
        self.conversation_button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.conversation_button.setCursor(Qt.CursorShape.PointingHandCursor)
        layout.addWidget(self.conversation_button, 0, Qt.AlignmentFlag.AlignHCenter)

        meters = QHBoxLayout()
        meters.setSpacing(8)
        meters.setContentsMargins(24, 4, 24, 0)
        mic_label = QLabel("Mic", panel)
        mic_label.setObjectName("meterLabel")
        self.input_meter = LevelMeter(panel)
        self.input_meter.setAccessibleName("Microphone level")
        speaker_label = QLabel("Speaker", panel)
        speaker_label.setObjectName("meterLabel")
        self.output_meter = LevelMeter(panel)
        self.output_meter.setAccessibleName("Speaker level")
        meters.addWidget(mic_label)
        meters.addWidget(self.input_meter, 1)
        meters.addSpacing(12)
        meters.addWidget(speaker_label)
        meters.addWidget(self.output_meter, 1)
        layout.addLayout(meters)

        self.status_line = StatusLine(panel, settings=lambda: self._settings)
        layout.addWidget(self.status_line)

    def _tool_button(self, parent: QWidget, tip: str) -> QToolButton:
        button = QToolButton(parent)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        return button

    def _connect_signals(self) -> None:
        talk = self.talk_input
        session = self.session_controls
        self.talk_button.pressed.connect(talk.on_pressed)
        self.talk_button.released.connect(talk.on_released)
        self.talk_keys.pressed.connect(talk.on_pressed)
        self.talk_keys.released.connect(talk.on_released)
        self.message_input.returnPressed.connect(session.on_send_text)
        self.send_button.clicked.connect(session.on_send_text)
        self.conversation_button.clicked.connect(session.on_conversation_clicked)
        self.settings_button.clicked.connect(self.on_settings_clicked)
        self.history_button.clicked.connect(self.history_requested)
        self.notices.settings_requested.connect(self.settings_requested)
        self.mic_notices.settings_requested.connect(self.settings_requested)
        self.notices.connect_requested.connect(session.on_connect_clicked)
        self.confirmation_sheet.shown_request.connect(self.on_confirmation_shown)
        if self._confirmations is not None:
            self._confirmations.attach(self.confirmation_sheet)
        self._theme.palette_changed.connect(self.on_palette_changed)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self.on_focus_changed)

        quit_shortcut = QShortcut(QKeySequence("Ctrl+Q"), self)
        quit_shortcut.activated.connect(self._on_quit)
        settings_shortcut = QShortcut(QKeySequence("Ctrl+,"), self)
        settings_shortcut.activated.connect(self.on_settings_clicked)
        history_shortcut = QShortcut(QKeySequence("Ctrl+H"), self)
        history_shortcut.activated.connect(self.history_requested)
        if self.screen_sharing is not None:
            share_shortcut = QShortcut(QKeySequence(SHARE_SHORTCUT), self)
            share_shortcut.activated.connect(self.screen_sharing.toggle)
            self.talk_input.talk_started.connect(self.screen_sharing.share.on_talk_pressed)

        if self._settings_state is not None:
            self._settings_state.changed.connect(self.on_settings_changed)
            self._settings_state.changed.connect(talk.on_settings_changed)

        bridge = self._bridge
        if bridge is None:
            return
        # Talk input comes last: starting a turn asked for while connecting changes the
        # state again, and the header (its pill is the talk input's to show) must not show
        # the older state after the newer one.
        bridge.state_changed.connect(session.on_state_changed)
        bridge.state_changed.connect(self.notices.on_state_changed)
        bridge.state_changed.connect(talk.on_state_changed)
        bridge.session_started.connect(self.on_session_started)
        bridge.session_started.connect(self.status_line.on_session_started)
        bridge.session_started.connect(self.notices.on_session_started)
        bridge.session_ended.connect(self.notices.on_session_ended)
        bridge.session_ended.connect(talk.on_session_ended)
        bridge.input_level.connect(self.input_meter.set_dbfs)
        bridge.input_level.connect(talk.on_input_level)
        bridge.output_level.connect(self.output_meter.set_dbfs)
        bridge.output_level.connect(talk.on_output_level)
        bridge.microphone_opening.connect(talk.on_microphone_opening)
        bridge.microphone_listening.connect(talk.on_microphone_listening)
        bridge.microphone_unavailable.connect(talk.on_microphone_unavailable)
        bridge.microphone_in_use.connect(talk.on_microphone_in_use)
        bridge.stream_error.connect(talk.on_stream_error)
        bridge.stream_recovered.connect(talk.on_stream_recovered)
        bridge.microphone_in_use.connect(self.mic_mark.on_microphone_in_use)
        bridge.microphone_in_use.connect(self.on_microphone_in_use)
        bridge.playback_drained.connect(self.on_playback_drained)
        bridge.microphone_unavailable.connect(self.mic_notices.on_microphone_unavailable)
        bridge.microphone_listening.connect(self.mic_notices.on_microphone_listening)
        bridge.microphone_in_use.connect(self.mic_notices.on_microphone_in_use)
        bridge.stream_error.connect(self.mic_notices.on_stream_error)
        bridge.stream_recovered.connect(self.mic_notices.on_stream_recovered)
        bridge.bluetooth_microphone.connect(self.mic_notices.on_bluetooth_microphone)

        transcript = self.transcript
        bridge.transcript_updated.connect(transcript.update_line)
        bridge.answer_stopped.connect(transcript.mark_stopped)
        bridge.tool_call_started.connect(transcript.add_tool_call)
        bridge.tool_call_progress.connect(transcript.progress_tool_call)
        bridge.tool_call_finished.connect(transcript.finish_tool_call)
        bridge.tool_call_failed.connect(transcript.fail_tool_call)
        bridge.tool_call_cancelled.connect(transcript.cancel_tool_call)
        bridge.grounding_sources_found.connect(transcript.show_sources)
        bridge.code_executed.connect(transcript.show_code_execution)
        bridge.confirmation_requested.connect(self.on_confirmation_requested)

        notices = self.notices
        bridge.end_session_requested.connect(notices.on_end_session_requested)
        bridge.error_raised.connect(notices.on_error_raised)
        bridge.connection_lost.connect(notices.on_connection_lost)
        bridge.reconnecting.connect(notices.on_reconnecting)
        bridge.reconnected.connect(notices.on_reconnected)
        bridge.no_response.connect(notices.on_no_response)
        bridge.turn_stats.connect(notices.on_turn_stats)
        bridge.tools_changed.connect(notices.on_tools_changed)
        bridge.context_shared.connect(notices.on_context_shared)
        bridge.escalation_raised.connect(notices.on_escalation_raised)
        bridge.timer_started.connect(notices.on_timer_started)
        bridge.timer_fired.connect(notices.on_timer_fired)
        bridge.timer_cancelled.connect(notices.on_timer_cancelled)
        bridge.device_fallback.connect(notices.on_device_fallback)
        bridge.device_switched.connect(notices.on_device_switched)
        bridge.stream_error.connect(notices.on_stream_error)
        bridge.stream_recovered.connect(notices.on_stream_recovered)

        bridge.reconnected.connect(self.status_line.on_reconnected)
        bridge.turn_stats.connect(self.status_line.on_turn_stats)
        bridge.turn_stats.connect(self.on_turn_stats)
        bridge.usage_updated.connect(self.status_line.on_usage_updated)

    # ------------------------------------------------------------------ public API

    @property
    def talking(self) -> bool:
        """Whether the person is talking (see :attr:`TalkInput.talking`)."""
        return self.talk_input.talking

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
            self._size_stack_by_current_page()

    def show_conversation(self) -> None:
        """Show the transcript (after a key was saved or the demo started)."""
        self.stack.setCurrentWidget(self._conversation)
        self.bottom_panel.show()
        self._size_stack_by_current_page()

    def _size_stack_by_current_page(self) -> None:
        """Only the page shown sets the stack's size.

        The welcome panel, hidden behind the conversation, kept its 381 px minimum, and in
        a window of the default height the talk button was cut.
        """
        current = self.stack.currentWidget()
        for index in range(self.stack.count()):
            page = self.stack.widget(index)
            if page is not None:
                shown = page is current
                policy = QSizePolicy.Policy.Preferred if shown else QSizePolicy.Policy.Ignored
                page.setSizePolicy(policy, policy)
        self.stack.updateGeometry()

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
        self.notices.show_for_settings(section, text, kind)

    def show_continuing(self, words: str) -> None:
        """A conversation from the history goes on: say so, and bring the window up.

        Args:
            words: when that conversation was ("Sun 30 Nov 2026, 09:15").
        """
        self.show_conversation()
        self.transcript.add_note(f"Continuing the conversation of {words}")
        self.show_and_raise()

    def close_for_quit(self) -> None:
        """Close the window as part of quitting (does not ask to quit again)."""
        self._quitting = True
        self._geometry.save(self)
        self.talk_keys.unwatch()
        self.close()

    def on_hotkey_pressed(self) -> None:
        """The global hotkey went down (in any window): talk, as the talk button does."""
        self.talk_keys.on_hotkey_pressed()

    def on_hotkey_released(self) -> None:
        """The global hotkey came up."""
        self.talk_keys.on_hotkey_released()

    # ------------------------------------------------------------------ window events

    def stop_speaking(self) -> None:
        """Silence the assistant's answer for good (Esc, the tray's Stop speaking)."""
        if self._stop_speaking is not None:
            self._stop_speaking()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc denies an open question, or else stops the assistant speaking."""
        if event.key() == Qt.Key.Key_Escape:
            if self.confirmation_sheet.current is not None:
                self.confirmation_sheet.deny()
            else:
                self.stop_speaking()
            event.accept()
            return
        super().keyPressEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        """From the first show on the native window exists: Space is watched on it."""
        super().showEvent(event)
        self.talk_keys.watch(self.windowHandle())

    def changeEvent(self, event: QEvent) -> None:
        """Losing the focus lets go of Space: the key-up may go to another window."""
        if event.type() == QEvent.Type.ActivationChange and not self.isActiveWindow():
            self.talk_keys.on_window_deactivated()
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing hides to the tray when set up so; otherwise it quits the app."""
        if self._quitting:
            event.accept()
            return
        self._geometry.save(self)
        if self._settings.close_to_tray and self._tray_available:
            self.hide()
            event.ignore()
            return
        self._on_quit()
        event.accept()

    # ------------------------------------------------------------------ slots

    def on_settings_clicked(self) -> None:
        """The settings button or Ctrl+,: the settings, where they were left."""
        self.settings_requested.emit("")

    def on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        """In the text box Space types: the talk hint says what the keys do there.

        Focus in another window (Settings) leaves this window's focus where it was.
        """
        if new is not None and new.window() is self:
            self.talk_input.set_typing(types_space(new))

    def on_microphone_in_use(self, event: MicrophoneInUse) -> None:
        """The microphone closed: its meter falls to the floor at once."""
        if not event.in_use:
            self.input_meter.fall_to_floor()

    def on_playback_drained(self, _event: PlaybackDrained) -> None:
        """Nothing plays any more: the speaker's meter falls to the floor at once."""
        self.output_meter.fall_to_floor()

    def on_session_started(self, _event: SessionStarted) -> None:
        """A new conversation: "always this session" approvals are forgotten."""
        if self._confirmations is not None:
            self._confirmations.forget_session()

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

    def on_settings_changed(self, settings: Settings, names: frozenset[str]) -> None:
        """Follow the settings that change how the window looks and closes."""
        self._settings = settings
        if "theme" in names:
            self._theme.set_theme(settings.theme)
        if names & {"model", "token_prices"}:
            self.status_line.refresh_cost()

    def on_turn_stats(self, event: TurnStats) -> None:
        """Under the answer, quietly: what the turn used, and what that may have cost.

        ``1,234 tokens (audio 1,100 · text 134) · ≈ $0.0042``; the cost only when a price
        for the model in use is known (the person's own rates, or Sammy's table).
        """
        if event.total_tokens <= 0:
            return
        cost = estimate(
            self._settings.model,
            self._settings.token_prices,
            prompt_tokens=event.prompt_tokens,
            response_tokens=event.response_tokens,
            prompt_by_modality=event.prompt_by_modality,
            response_by_modality=event.response_by_modality,
        )
        text = usage_line(
            event.total_tokens, event.prompt_by_modality, event.response_by_modality, cost
        )
        tooltip = (
            cost.tooltip if cost is not None else f"No price known for {self._settings.model}."
        )
        self.transcript.show_turn_usage(event.turn_id, text, tooltip)

    def on_palette_changed(self, palette: Palette) -> None:
        """The theme changed: icons in the new colours."""
        color = palette.text_muted
        self.settings_button.setIcon(self._assets.icon("settings", color, 18))
        self.history_button.setIcon(self._assets.icon("clock", color, 18))
        self.send_button.setIcon(self._assets.icon("send", palette.accent, 18))
        self.talk_button.update()
