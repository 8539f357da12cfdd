"""The running desktop app: every part built once and wired together.

:class:`DesktopApp` is the second half of the composition root (``app.py`` has the process
side: flags, logging, the Qt application and the event loop). It builds, in order: the
event bus, the theme and the Qt bridge, the shared settings, the audio engine, the timer
service, the history (after deleting what is older than the person keeps it), the tool
manager with the desktop tool pack, the backend (the Live API or the offline demo), the
agent core, and the windows; it wires their events to each other; and it
shuts them down in the reverse order, each with a time limit.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sammy_desktop import __version__, live_sdk
from sammy_desktop.backend import Backend
from sammy_desktop.config import Settings
from sammy_desktop.config.private_data import prune_expired
from sammy_desktop.core import AgentCore, ConversationHistory
from sammy_desktop.eventbus import EventBus
from sammy_desktop.loop_watchdog import LoopStallWatchdog
from sammy_desktop.tools import ToolManager, ToolServices
from sammy_desktop.tools.desktop import TimerService, desktop_tools, service_tools
from sammy_desktop.tools.desktop.code_execution import code_execution_unavailable_reason
from sammy_desktop.tools.mcp import McpServers, default_config_file
from sammy_desktop.voice_controls import EarconPlayer, SilentSink, VoiceControls

if TYPE_CHECKING:
    from pathlib import Path

    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QApplication

    from sammy_desktop.app import AppContext, QuitSignal
    from sammy_desktop.audio import AudioDevice, AudioEngine
    from sammy_desktop.core.key_check import KeyCheck
    from sammy_desktop.ui import MainWindow
    from sammy_desktop.ui.garbage import QtThreadGarbageCollector
    from sammy_desktop.ui.history import HistoryWindow
    from sammy_desktop.ui.instance.address import InstanceAddress
    from sammy_desktop.ui.instance.server import InstanceServer

__all__ = ["DesktopApp", "LaunchOptions"]

_log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class LaunchOptions:
    """What the command line asked for.

    Attributes:
        demo: start in the offline demo right away (``--demo``).
        api_base_url: the ``--api-base-url`` endpoint override, or None.
        start_hidden: start with only the tray icon (``--start-hidden``, how Start at login
            starts the app); without a system tray the window shows anyway.
        instance_address: where this app, the one of its settings folder, takes remote
            commands (``app.py`` holds the folder's lock); None takes none (tests).
    """

    demo: bool = False
    api_base_url: str | None = None
    start_hidden: bool = False
    instance_address: InstanceAddress | None = None


class DesktopApp:
    """Everything the running app is made of.

    Args:
        app: the QApplication (running under qasync).
        context: settings, folders and secrets loaded by ``app.py``.
        quit_signal: how every part asks the app to quit.
        options: what the command line asked for.
        collector: the app's garbage collector, told to freeze what lives as long as the
            app once the Live SDK is loaded (None: left as it is, as in tests).
    """

    def __init__(
        self,
        app: QApplication,
        context: AppContext,
        quit_signal: QuitSignal,
        options: LaunchOptions,
        collector: QtThreadGarbageCollector | None = None,
    ) -> None:
        from sammy_desktop import ui

        self._app = app
        self._collector = collector
        self._context = context
        self._quit = quit_signal
        self._options = options
        paths = context.paths

        self.bus = EventBus()
        self.assets = ui.Assets()
        self.theme = ui.ThemeController(app, self.assets, context.settings.theme)
        self.bridge = ui.EventBridge(self.bus, app)
        self.settings_state = ui.SettingsState(context.settings_store, context.settings, app)
        self.tasks = ui.UiTasks()
        self.confirmations = ui.QtConfirmationPort(app)

        self.audio, audio_problem = self._build_audio()
        if audio_problem:
            context.notices.append(audio_problem)
        self.earcons = EarconPlayer(self.assets, self.audio)
        self.notifier = ui.QtDesktopNotifier(self._settings, self.earcons.play, app)
        self.timers = TimerService(self.bus, self.notifier)

        # What outlived the person's retention goes before anything new is written.
        prune_expired(paths, context.settings.history_retention.days, datetime.now(UTC))
        self.history = ConversationHistory(paths.history_dir)
        services = ToolServices(
            paths=paths,
            settings=self._settings,
            transcript=self.history.transcript,
            url_opener=ui.QtUrlOpener(),
        )
        self._agent_ref: list[AgentCore] = []
        self.tools = ToolManager(
            self.bus,
            services,
            tools=desktop_tools(
                timers=self.timers,
                clipboard=ui.QtClipboard(),
                launcher=ui.QtApplicationLauncher(),
            ),
            confirmer=self.confirmations,
            state=lambda: self._agent_ref[0].snapshot(),
        )
        for problem in self.tools.registration_problems:
            _log.warning("tool registration: %s", problem)
        # The person's MCP servers; they start after the window shows (run()).
        self.mcp = McpServers(
            default_config_file(paths.config_dir),
            tools=self.tools,
            bus=self.bus,
            secrets=context.secrets,
        )
        self.loop_watchdog = LoopStallWatchdog(
            describe=lambda: f"tool calls: {self.tools.calls.describe() or 'none'}"
        )

        self.backend = Backend(context.secrets, self._settings, api_base_url=options.api_base_url)
        sink = self.audio.playback if self.audio is not None else SilentSink()
        self.agent = AgentCore(
            bus=self.bus,
            settings=self.settings_state.settings,
            tools=self.tools,
            sink=sink,
            client_factory=self.backend,
            history=self.history,
            extra_tools=service_tools,
            before_connect=self._ready_to_connect,
        )
        self._live_sdk_loading: asyncio.Future[bool] | None = None
        # Remote commands are taken once the window is up (run()).
        self.instance_server: InstanceServer | None = None
        self._agent_ref.append(self.agent)
        self.controls = VoiceControls(self.agent, self.audio)

        self.window: MainWindow = self._build_windows()
        self._build_desktop_integration()
        self._connect_signals()

    # ------------------------------------------------------------------ building

    def _settings(self) -> Settings:
        return self.settings_state.settings

    def _build_audio(self) -> tuple[AudioEngine | None, str]:
        """The audio engine, or None with a sentence saying why there is no audio."""
        try:
            from sammy_desktop.audio import AudioEngine
        except OSError as exc:  # PortAudio missing: sounddevice cannot load
            _log.warning("no audio: %s", exc)
            return (
                None,
                "There is no sound: the PortAudio library is missing. Install it (on "
                "Debian/Ubuntu: sudo apt-get install libportaudio2) and start Sammy again; "
                "until then you can type.",
            )
        return AudioEngine(self.bus, self._context.settings), ""

    def _build_windows(self) -> MainWindow:
        from sammy_desktop import ui
        from sammy_desktop.ui.key_state import key_state_for_platform
        from sammy_desktop.ui.screen import ScreenShare
        from sammy_desktop.ui.screen.grab import this_apps_windows
        from sammy_desktop.ui.screen.share import default_grabber

        paths = self._context.paths
        self._key_state = key_state_for_platform(self._app.platformName())
        # Sharing the screen: off at every start, stopped when the conversation ends.
        # Sammy's own windows are blanked out of a shared screen's picture.
        self.screen_share = ScreenShare(
            self.controls,
            self.settings_state,
            self.tasks,
            grabber=default_grabber(own_windows=this_apps_windows),
            bridge=self.bridge,
            parent=self._app,
        )
        window = ui.MainWindow(
            self.settings_state.settings,
            notices=self._context.notices,
            on_quit=self._quit.request,
            theme=self.theme,
            bridge=self.bridge,
            controls=self.controls,
            tasks=self.tasks,
            settings_state=self.settings_state,
            demo_mode=False,
            play_sound=self.earcons.play,
            stop_speaking=self._stop_speaking,
            geometry_file=paths.config_dir / "window-geometry",
            confirmations=self.confirmations,
            key_state=self._key_state,
            screen_share=self.screen_share,
        )
        list_devices: Callable[[], Sequence[AudioDevice]] | None = None
        if self.audio is not None:
            from sammy_desktop.audio import list_devices
        self.settings_window = ui.SettingsWindow(
            self.settings_state,
            self._context.secrets,
            self.theme,
            self.tasks,
            tools=self.tools,
            mcp=self.mcp,
            controls=self.controls,
            confirmations=self.confirmations,
            client_factory=self.backend,
            code_execution_unavailable=code_execution_unavailable_reason,
            list_devices=list_devices,
            bridge=self.bridge,
            on_test_tone=lambda: self.earcons.play("test_tone"),
            on_key_changed=self._on_key_changed,
            check_key=self._check_pasted_key,
            on_try_demo=self._on_try_demo,
            on_leave_demo=lambda: self._on_key_changed(True),
            paths=paths,
            about=ui.AboutInfo(
                __version__,
                paths.log_dir,
                paths.data_dir,
                paths.config_dir,
                self._context.secrets.backend_title(),
                notes_folder=paths.notes_dir,
            ),
        )
        window.settings_requested.connect(self.settings_window.open_section)
        window.demo_mode_changed.connect(self.settings_window.account_page.set_demo_mode)
        if window.screen_sharing is not None:
            privacy = self.settings_window.privacy_page
            window.screen_sharing.shared_context_changed.connect(privacy.show_screen_shared)
        self.history_window = self._build_history_window(window)
        # The optional global talk hotkey; it starts in run(), once the loop runs.
        self.hotkey = ui.GlobalHotkey(self.settings_state, self.tasks, parent=self._app)
        self.hotkey.pressed.connect(window.on_hotkey_pressed)
        self.hotkey.released.connect(window.on_hotkey_released)
        self.hotkey.status_changed.connect(self.settings_window.show_hotkey_status)
        self.hotkey.unavailable_changed.connect(self.settings_window.show_hotkey_commands)
        self.tray = ui.TrayIcon(window, self.bridge, on_quit=self._quit.request)
        self.tray.attach_notifier(self.notifier)
        window.set_tray_available(self.tray.available())
        self.tray.show()
        return window

    def _build_history_window(self, window: MainWindow) -> HistoryWindow:
        """The History window (Ctrl+H): the history folder's conversations, and Continue."""
        from sammy_desktop.archive import HistoryArchive
        from sammy_desktop.ui.history import HistoryWindow

        history = HistoryWindow(
            HistoryArchive.for_paths(self._context.paths),
            self.theme,
            self.tasks,
            controls=self.controls,
            settings_state=self.settings_state,
            live_history=self._live_history_file,
            bridge=self.bridge,
        )
        window.history_requested.connect(history.open_window)
        history.continued.connect(window.show_continuing)
        return history

    def _build_desktop_integration(self) -> None:
        """Start at login (the settings switch) and the applications-menu offer."""
        from sammy_desktop.ui.autostart_switch import AutostartSwitch
        from sammy_desktop.ui.desktop_entry_offer import DesktopEntryOffer
        from sammy_desktop.ui.settings import SettingsSection

        paths = self._context.paths
        self.autostart = AutostartSwitch(
            self.settings_state, self.tasks, profile_dir=paths.profile_dir, parent=self._app
        )
        card = self.settings_window.appearance_page.cards.get("start_at_login")
        if card is not None:
            self.autostart.show_on(
                card,
                banner=lambda text: self.window.show_banner_for_settings(
                    SettingsSection.APPEARANCE, text, "warning"
                ),
            )
        self.desktop_entry_offer = DesktopEntryOffer(
            self.window.banners,
            self.settings_state,
            self.tasks,
            self.assets,
            is_profile=paths.is_profile,
            parent=self._app,
        )

    def _live_history_file(self) -> Path | None:
        """The file of the conversation being written now (it cannot be deleted)."""
        return self.history.path if self.agent.state.is_running else None

    def _connect_signals(self) -> None:
        from sammy_desktop.audio import PlaybackDrained

        self.bus.subscribe(PlaybackDrained, lambda _event: self.agent.on_playback_drained())
        if self.audio is not None:
            self.audio.capture.set_consumer(self.agent.send_audio)
        self.settings_state.changed.connect(self.on_settings_changed)

    # ------------------------------------------------------------------ running

    async def run(self, on_window_shown: Callable[[MainWindow], None] | None = None) -> int:
        """Show the window, connect (or welcome), and run until a quit is asked for.

        The window shows as soon as the devices are open; with ``--start-hidden`` only the
        tray icon does (and the window all the same where there is no tray: an app must
        never be out of reach). ``on_window_shown`` is called with the window at that point,
        shown or hidden. The Live SDK (a third of the start-up when imported up front) loads
        on a worker thread after that; a connection started meanwhile says Connecting and
        waits for it (:meth:`_ready_to_connect`).
        """
        self.loop_watchdog.start()
        await self._start_audio()
        self.hotkey.apply()
        if self._options.demo:
            await self.start_demo()
        elif self.backend.has_key():
            if self._settings().connect_on_start:
                self.tasks.run(self.agent.start(), name="agent-start")
        else:
            self._show_welcome()
        if self._options.start_hidden and self.tray.available():
            _log.info("started hidden: only the tray icon shows (--start-hidden)")
        else:
            if self._options.start_hidden:
                _log.info(
                    "--start-hidden asked for the tray icon only, but this desktop has no "
                    "system tray: showing the window"
                )
            self.window.show()
            _log.info("window shown")
        if on_window_shown is not None:
            on_window_shown(self.window)
        self._take_remote_commands()
        self.autostart.reconcile()
        self.desktop_entry_offer.start()
        self._live_sdk()
        self.mcp.start()
        await self._quit.wait()
        return self._quit.exit_code

    def _take_remote_commands(self) -> None:
        """Answer ``sammy-desktop --toggle-talk`` and the other remote commands from now on.

        A socket that cannot be made costs the remote commands, not the app (logged).
        """
        address = self._options.instance_address
        if address is None:
            return
        from sammy_desktop.ui.instance.remote_control import RemoteControl
        from sammy_desktop.ui.instance.server import InstanceServer, InstanceServerError

        tray = self.tray
        self.remote_control = RemoteControl(
            self.window,
            self._quit.request,
            describe=lambda: tray.tooltip,
            screen_share=self.screen_share,
        )
        server = InstanceServer(address, self.remote_control.handle, parent=self._app)
        try:
            server.listen()
        except InstanceServerError as exc:
            _log.warning("no remote commands: %s", exc)
            server.deleteLater()
            return
        _log.info("taking remote commands on %s", address.server_name)
        self.instance_server = server

    def _live_sdk(self) -> asyncio.Future[bool]:
        """The Live SDK's loading, started on first call: True once loaded, False if broken."""
        if self._live_sdk_loading is None:
            self._live_sdk_loading = asyncio.ensure_future(self._load_live_sdk())
        return self._live_sdk_loading

    async def _load_live_sdk(self) -> bool:
        """Load the Live SDK off the loop; a broken installation is shown, not a crash."""
        try:
            await asyncio.to_thread(_load_live_sdk)
        except Exception:  # noqa: BLE001 - the window stays, with the reason
            _log.exception("the Live SDK could not be loaded")
            self.window.banners.show_banner(
                "live-sdk",
                "error",
                "Sammy could not load its Live API library, so it cannot connect. Reinstall "
                "the app; the log file has the details.",
            )
            return False
        if self._collector is not None:
            # The SDK and its models live as long as the app: out of every collection.
            self._collector.freeze()
        return True

    async def _ready_to_connect(self) -> None:
        """The agent's ``before_connect``: the SDK loaded and, for the demo, the simulator up."""
        if not await asyncio.shield(self._live_sdk()):
            raise RuntimeError("the Live SDK could not be loaded (see the banner)")
        if self.agent.demo_mode:
            await asyncio.to_thread(importlib.import_module, "sammy_desktop.sim")
            await self.backend.start_demo()

    async def start_demo(self) -> None:
        """Switch to the offline demo: the embedded simulator answers from now on.

        The agent says Connecting at once; the simulator starts before its first
        connection (:meth:`_ready_to_connect`).
        """
        await self.agent.stop()
        self.agent.demo_mode = True
        self.window.set_demo_mode(True)
        self.window.show_conversation()
        await self.agent.start()

    async def shutdown(self) -> None:
        """Stop everything in the reverse order it was built, each part time-limited."""
        self.window.close_for_quit()
        self.settings_window.close()
        self.history_window.close()
        self.tray.hide()
        self.screen_share.close()
        stopped = self.timers.shutdown()
        if stopped:
            _log.info("%d timer(s) still running at quit", len(stopped))
        if self.instance_server is not None:
            self.instance_server.close()  # a command now finds no app, as it should
        steps: list[tuple[str, Callable[[], object]]] = [
            ("global hotkey", self.hotkey.aclose),
            ("ui tasks", lambda: self.tasks.aclose(STOP_TIMEOUT_S)),
            ("agent", self.agent.stop),
            # Before the tools: every server's child process ends with it.
            ("MCP servers", self.mcp.aclose),
            ("tools", lambda: self.tools.aclose(STOP_TIMEOUT_S)),
            ("backend", self.backend.stop_demo),
        ]
        if self.audio is not None:
            steps.append(("audio", self.audio.stop))
        for name, step in steps:
            try:
                await asyncio.wait_for(step(), STOP_TIMEOUT_S)  # type: ignore[arg-type]
            except TimeoutError:
                _log.warning("stopping the %s took longer than %.0f s", name, STOP_TIMEOUT_S)
            except Exception:  # noqa: BLE001 - shutdown goes on whatever one part does
                _log.exception("stopping the %s failed", name)
        self.bridge.close()
        if self._key_state is not None:
            self._key_state.close()
        self.loop_watchdog.stop()
        # What this app made a child of the QApplication goes with it. The application
        # outlives the app wherever more than one runs in a process (the tests), and a
        # helper left there keeps the app and its windows alive (the notifier holds
        # _settings) and its slots connected (the theme to the system's colour scheme).
        helpers: list[QObject | None] = [self.theme, self.bridge, self.settings_state]
        helpers += [self.confirmations, self.notifier, self.screen_share, self.hotkey]
        helpers += [self.autostart, self.desktop_entry_offer, self.instance_server]
        for helper in helpers:
            if helper is not None:
                helper.deleteLater()

    # ------------------------------------------------------------------ slots

    def on_settings_changed(self, settings: Settings, names: frozenset[str]) -> None:
        """Apply a change made in the settings pane to the parts that need telling."""
        if self.audio is not None:
            self.audio.apply_settings(settings)
        self.tasks.run(self.agent.update_settings(settings), name="agent-update-settings")

    def _on_key_changed(self, has_key: bool) -> None:
        """A key was saved or removed in Settings: reconnect with it (or stop)."""
        self.tasks.run(self._restart_for_key(has_key), name="agent-key-changed")

    async def _restart_for_key(self, has_key: bool) -> None:
        await self.agent.stop()
        left_demo = self.agent.demo_mode
        if left_demo:
            await self.backend.stop_demo()
            self.agent.demo_mode = False
            self.window.set_demo_mode(False)
        if has_key and self.backend.has_key():
            if left_demo:
                self.window.banners.show_banner(
                    "demo-ended",
                    "info",
                    "The offline demo has ended: Sammy now talks to Gemini with your key. "
                    "The demo is still in Settings > Account.",
                )
            self.window.show_conversation()
            await self.agent.start()

    async def _check_pasted_key(self, key: str) -> KeyCheck:
        """Ask the service (never the demo's simulator) whether a pasted key works."""
        from sammy_desktop.core.key_check import KeyCheck, KeyVerdict, check_key

        if not await asyncio.shield(self._live_sdk()):
            return KeyCheck(
                KeyVerdict.SERVICE_ERROR,
                "Sammy cannot check the key: its Live API library did not load (see the "
                "banner). You can save it anyway.",
            )
        return await check_key(key, self.backend.client_for_key)

    def _on_try_demo(self) -> None:
        self.tasks.run(self.start_demo(), name="start-demo")

    def _show_welcome(self) -> None:
        from sammy_desktop import ui

        def on_key_saved() -> None:
            self._on_key_changed(True)

        panel = ui.WelcomePanel(
            self._context.secrets,
            self.theme,
            self.tasks,
            on_key_saved=on_key_saved,
            on_try_demo=self._on_try_demo,
            check_key=self._check_pasted_key,
        )
        self.window.set_welcome(panel)

    def _stop_speaking(self) -> None:
        self.agent.stop_speaking()

    async def _start_audio(self) -> None:
        if self.audio is not None:
            try:
                await self.audio.start()
            except Exception:  # noqa: BLE001 - the app runs on without sound
                _log.exception("the audio could not start")
                self.window.show_banner_for_settings(
                    "Audio devices",
                    "Sound could not start on the chosen devices. Choose a microphone and a "
                    "speaker in Settings > Audio devices.",
                )


def _load_live_sdk() -> None:
    """Import the Live SDK on a worker thread, and build its message models.

    The modules bind it lazily (:mod:`sammy_desktop.live_sdk`); loading it here, off the
    loop thread, keeps the window responsive meanwhile. The models are built here too
    (:func:`~sammy_desktop.live_sdk.build_message_models`), not in the first answer.
    """
    started = time.perf_counter()
    importlib.import_module("google.genai.types")
    importlib.import_module("google.genai.live")
    loaded = time.perf_counter()
    models = live_sdk.build_message_models()
    _log.debug(
        "Live SDK loaded in %.0f ms, its %d message models built in %.0f ms",
        (loaded - started) * 1000,
        models,
        (time.perf_counter() - loaded) * 1000,
    )
