"""Fixtures for the UI tests: a real event bus and bridge, the theme, a fake agent, and
factories that build the windows and the welcome panel as the app does.

:class:`FakeAgent` stands in for the AgentCore (which needs a Live connection): it records
what the UI asked and emits the real core events on the real bus, so the window is driven
through the same bridge as in the app.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.config import Settings, TalkKey, TalkMode, Theme
from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.core.events import AgentState, StateChanged
from sammy_desktop.core.screen import VideoFrame
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.settings import AboutInfo, SettingsWindow
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.welcome import WelcomePanel


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Let the UI tasks a test left running finish on its loop before Qt's events are run.

    Once a test function returns, pytest-qt runs ``processEvents`` outside any loop. Under
    qasync a task's next step is a Qt timer, so a task a scenario started and did not await
    (a settings window built in ``qloop.run`` starts its key-status read) would take that
    step with no asyncio loop running, and fail at random in this test or a later one.
    """
    try:
        return (yield)
    finally:
        funcargs = getattr(item, "funcargs", {})
        tasks, qloop = funcargs.get("tasks"), funcargs.get("qloop")
        if isinstance(tasks, UiTasks) and isinstance(qloop, asyncio.Runner) and tasks.pending:
            qloop.run(tasks.join())


class EventCounter(QObject):
    """Counts the events of one type (paints unless told) a widget receives."""

    def __init__(self, widget: QWidget, kind: QEvent.Type = QEvent.Type.Paint) -> None:
        super().__init__(widget)
        self.kind = kind
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == self.kind:
            self.count += 1
        return False

    def settle(self) -> int:
        """Deliver the pending events (until a pass adds none); the count after."""
        while True:
            before = self.count
            for _ in range(3):
                QApplication.processEvents()
            if self.count == before:
                return self.count


class FakeAgent:
    """Records the calls the UI makes and moves through states like the core does."""

    def __init__(self, bus: EventBus, state: AgentState = AgentState.DISCONNECTED) -> None:
        self.bus = bus
        self.calls: list[tuple[str, tuple[object, ...]]] = []
        self._state = state
        self.called = asyncio.Event()
        self.tool_switches: list[tuple[str, bool]] = []

    @property
    def state(self) -> AgentState:
        return self._state

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    def move_to(self, new: AgentState, reason: str = "") -> None:
        old, self._state = self._state, new
        self.bus.emit(StateChanged(old=old, new=new, reason=reason))

    def _record(self, name: str, *args: object) -> None:
        self.calls.append((name, args))
        self.called.set()

    async def start(self) -> None:
        self._record("start")
        self.move_to(AgentState.CONNECTING, "starting")
        await asyncio.sleep(0)
        self.move_to(AgentState.READY, "connected")

    async def stop(self) -> None:
        self._record("stop")
        self.move_to(AgentState.DISCONNECTED, "stopped by the person")

    async def end_session(self, reason: str) -> None:
        self._record("end_session", reason)
        self.move_to(AgentState.ENDED, reason)

    def begin_talk(self, pre_roll: bytes = b"") -> bool:
        self._record("begin_talk")
        if not self._state.is_connected:
            return False
        self.move_to(AgentState.USER_SPEAKING, "talk pressed")
        return True

    def end_talk(self) -> None:
        self._record("end_talk")
        if self._state is AgentState.USER_SPEAKING:
            self.move_to(AgentState.THINKING, "talk released")

    def send_text(self, text: str) -> bool:
        self._record("send_text", text)
        return self._state.is_connected

    def send_video(self, frame: VideoFrame) -> bool:
        self._record("send_video", frame)
        return self._state.is_connected

    def set_screen_sharing(self, active: bool, source: str = "") -> None:
        self._record("set_screen_sharing", active, source)

    async def set_talk_mode(self, mode: TalkMode) -> None:
        self._record("set_talk_mode", mode)

    async def set_tool_enabled(self, name: str, on: bool) -> bool:
        self._record("set_tool_enabled", name, on)
        self.tool_switches.append((name, on))
        return True


@pytest.fixture(autouse=True, scope="package")
def _collection_on_the_qt_thread_only() -> Iterator[None]:
    """No automatic collection while the UI tests run, as in the app (ui/garbage.py).

    Python's cyclic GC runs in whichever thread happens to allocate when it triggers; a
    widget collected in a worker thread (asyncio.to_thread, a key listener's thread)
    leaves its timers registered on the Qt thread, and a later test crashes in
    QTimerInfoList::activateTimers. With automatic collection off, every collection is
    one of the fixtures here, on the Qt thread.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    yield
    gc.collect()
    if was_enabled:
        gc.enable()


# A full collection walks everything the session keeps (0.12-0.24 s); one after every UI
# test was 325 of tests/ui's 546 s (2026-12-07). A young one walks what the test made.
@pytest.fixture(autouse=True)
def _collect_qt_garbage_on_the_qt_thread(
    _collection_on_the_qt_thread_only: None,
) -> Iterator[None]:
    """Collect each test's leftover widgets on the Qt thread, right after it.

    Nothing is collected automatically during a test, so what it made is still in the
    young generations and a young collection finds its garbage. Every tenth is a full one
    (the collector's own threshold and count for its oldest generation); what waits for it
    (still on the Qt thread): a cycle that also holds an older object, and what a running
    app's own collector moved to the old generation during the test.
    Freezing what survived each collection instead crashed the collector in a local run
    (CI aborted with it too, cause unproven; 2026-12-06, reverted); and the app's own
    collector (ui/garbage.py) unfreezes everything when a test stops an app, which undoes
    the session's freeze below.
    """
    yield
    gc.disable()  # in case a test gave automatic collection back
    # The oldest generation counts the young collections since the last full one.
    full = gc.get_count()[2] + 1 >= gc.get_threshold()[2]
    gc.collect(2 if full else 1)


@pytest.fixture(autouse=True, scope="session")
def _freeze_what_was_imported(qapp: QApplication) -> None:
    """Leave the modules' objects out of every collection, which keeps each one quick."""
    gc.collect()
    gc.freeze()


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[asyncio.Runner]:
    """A runner whose loop is qasync's, so Qt events flow while a test awaits."""
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        yield runner


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def bridge(bus: EventBus, qapp: QApplication) -> Iterator[EventBridge]:
    bridge = EventBridge(bus)
    yield bridge
    bridge.close()
    bridge.deleteLater()


@pytest.fixture(scope="session")
def _theme_controller(qapp: QApplication) -> ThemeController:
    # One per session: applying a stylesheet restyles every widget alive, which gets slow.
    return ThemeController(qapp, Assets(), Theme.LIGHT)


@pytest.fixture
def theme(_theme_controller: ThemeController) -> Iterator[ThemeController]:
    _theme_controller.set_theme(Theme.LIGHT)
    yield _theme_controller
    _theme_controller.set_theme(Theme.LIGHT)


@pytest.fixture
def agent(bus: EventBus) -> FakeAgent:
    return FakeAgent(bus)


@pytest.fixture
def settings_state(tmp_path: Path, qapp: QApplication) -> SettingsState:
    # Hold to talk: a test's press and release are instant, which Auto would take for a tap.
    # Auto has its own tests (tests/ui/test_talk_input.py).
    settings = Settings(talk_key=TalkKey.HOLD_TO_TALK)
    return SettingsState(SettingsStore(tmp_path / "settings.json"), settings)


@pytest.fixture
def tasks() -> UiTasks:
    return UiTasks()


MakeSettingsWindow = Callable[..., SettingsWindow]


@pytest.fixture
def make_settings_window(
    qtbot: QtBot,
    qloop: asyncio.Runner,
    settings_state: SettingsState,
    theme: ThemeController,
    tasks: UiTasks,
    tmp_path: Path,
) -> MakeSettingsWindow:
    """Build the settings window as the app does, with its folders under ``tmp_path``.

    Keyword arguments are SettingsWindow's own (tools, controls, list_devices, ...), plus
    ``secrets`` (an environment-free store by default) and ``notes_folder``.

    The window starts background work when it is built (the Account page reads the key's
    status), so, as in the app, it is built on a running loop: a test that is not already
    running one gets the window once that work is done. A window built inside a running
    scenario is kept until the test ends (as the app keeps its own), so the work it started
    finishes on a live window when the test's tasks are joined (``pytest_runtest_call``).
    """
    built: list[SettingsWindow] = []

    def make(
        *, secrets: SecretStore | None = None, notes_folder: Path | None = None, **options: Any
    ) -> SettingsWindow:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            return build(secrets=secrets, notes_folder=notes_folder, **options)

        async def settled() -> SettingsWindow:
            window = build(secrets=secrets, notes_folder=notes_folder, **options)
            await tasks.join()
            return window

        return qloop.run(settled())

    def build(
        *, secrets: SecretStore | None = None, notes_folder: Path | None = None, **options: Any
    ) -> SettingsWindow:
        about = AboutInfo(
            "1.0",
            tmp_path / "logs",
            tmp_path / "data",
            tmp_path / "config",
            notes_folder=notes_folder,
        )
        window = SettingsWindow(
            settings_state,
            secrets or SecretStore(environ={}),
            theme,
            tasks,
            about=about,
            **options,
        )
        qtbot.addWidget(window)
        built.append(window)
        return window

    return make


MakeWindow = Callable[..., MainWindow]


@pytest.fixture
def make_window(
    qtbot: QtBot,
    theme: ThemeController,
    bridge: EventBridge,
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
) -> MakeWindow:
    """Build the main window on the test's fakes; keyword arguments add or override."""

    def make(**extra: Any) -> MainWindow:
        arguments: dict[str, Any] = {
            "on_quit": lambda: None,
            "theme": theme,
            "bridge": bridge,
            "controls": agent,
            "tasks": tasks,
            "settings_state": settings_state,
        }
        window = MainWindow(settings_state.settings, **(arguments | extra))
        qtbot.addWidget(window)
        return window

    return make


MakeWelcome = Callable[..., WelcomePanel]


@pytest.fixture
def make_welcome(theme: ThemeController, tasks: UiTasks) -> MakeWelcome:
    """Build the welcome panel on the test's theme and tasks; keyword arguments override.

    Not handed to qtbot: a panel usually goes into a window, which then owns it.
    """

    def make(**extra: Any) -> WelcomePanel:
        arguments: dict[str, Any] = {
            "on_key_saved": lambda: None,
            "on_try_demo": lambda: None,
        }
        return WelcomePanel(SecretStore(environ={}), theme, tasks, **(arguments | extra))

    return make


def talking(window: MainWindow) -> bool:
    """``window.talking``, read through a call so mypy does not narrow it between steps."""
    return window.talking


async def wait_until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Wait until ``condition()`` holds, at most ``timeout_s``, letting the loop and Qt run.

    For a widget state no signal announces; where a signal or an event does, wait on that.

    Raises:
        TimeoutError: the condition still did not hold after ``timeout_s``.
    """
    async with asyncio.timeout(timeout_s):
        while not condition():  # noqa: ASYNC110 - a widget state, no event to await
            await asyncio.sleep(0.02)


class Picture:
    """A widget's picture, taken again until it stops changing.

    A page shown, or a field marked, is laid out by Qt a moment later (posted layout
    requests); two pictures in a row that are the same prove that moment has passed.
    Use :meth:`settled` as the condition of :func:`wait_until` or ``qtbot.waitUntil``.
    """

    def __init__(self, widget: QWidget) -> None:
        self._widget = widget
        self._last: QImage | None = None
        self.pixmap = QPixmap()
        """The latest picture."""

    def settled(self) -> bool:
        """Take the picture again; True when it is the same as the one before."""
        self.pixmap = self._widget.grab()
        image = self.pixmap.toImage()
        same = self._last is not None and image == self._last
        self._last = image
        return same
