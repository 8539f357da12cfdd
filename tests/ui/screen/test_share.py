"""The ScreenShare controller with a fake clock, timer and grabber, and the fake agent.

Each frame's encoding runs on a real worker thread; the tests wait for the UI tasks to
finish (``tasks.join``), and move time on by hand (a fake clock and a timer they fire).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter

from sammy_desktop.config import MediaResolution, ScreenImageSize, ScreenSendPolicy
from sammy_desktop.core.events import AgentState, SessionEnded
from sammy_desktop.core.screen import VideoFrame, frame_tokens
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.screen.encode import Encoded, encode_frame
from sammy_desktop.ui.screen.grab import SourceGone
from sammy_desktop.ui.screen.share import NOT_RUNNING, SESSION_ENDED, ScreenShare
from sammy_desktop.ui.screen.sources import ShareSource
from sammy_desktop.ui.settings_state import SettingsState
from tests.ui.conftest import FakeAgent

from .support import SCREEN, FakeClock, FakeGrabber, FakeTimer, quadrants, shows_quadrants


class Rig:
    """A ScreenShare on fakes, with what it said."""

    def __init__(
        self,
        agent: FakeAgent,
        settings_state: SettingsState,
        tasks: UiTasks,
        bridge: EventBridge,
        encoder: Callable[[QImage, int, bytes | None], Encoded | None] = encode_frame,
    ) -> None:
        self.agent = agent
        self.tasks = tasks
        self.clock = FakeClock()
        self.grabber = FakeGrabber(quadrants(640, 480))
        self.timers: list[FakeTimer] = []
        self.share = ScreenShare(
            agent,
            settings_state,
            tasks,
            grabber=self.grabber,
            clock=self.clock,
            timer=self._timer,
            encoder=encoder,
            bridge=bridge,
            capture_allowed=lambda: "",
        )
        self.stopped: list[str] = []
        self.problems: list[str] = []
        self.sharing: list[bool] = []
        self.thumbnails: list[tuple[QImage, int, int]] = []
        self.share.stopped.connect(self.stopped.append)
        self.share.problem.connect(self.problems.append)
        self.share.sharing_changed.connect(self.sharing.append)
        self.share.frame_sent.connect(lambda image, w, h: self.thumbnails.append((image, w, h)))

    def _timer(self, callback: Callable[[], None]) -> FakeTimer:
        timer = FakeTimer(callback, self.clock)
        self.timers.append(timer)
        return timer

    @property
    def timer(self) -> FakeTimer:
        return self.timers[0]

    def delay(self) -> float | None:
        """The timer's pending delay (a call, so mypy does not narrow it between steps)."""
        return self.timer.delay_s

    def frames(self) -> list[VideoFrame]:
        return [args[0] for name, args in self.agent.calls if name == "send_video"]  # type: ignore[misc]

    def sharing_calls(self) -> list[tuple[object, ...]]:
        return [args for name, args in self.agent.calls if name == "set_screen_sharing"]

    async def tick(self, seconds: float) -> None:
        """Move time on by ``seconds``, fire the timer if it is due, let the frame finish."""
        self.clock.now += seconds
        due = self.timer.due_at
        if due is not None and due <= self.clock.now + 1e-9:
            self.timer.fire()
        await self.tasks.join()


@pytest.fixture
def rig(
    agent: FakeAgent, settings_state: SettingsState, tasks: UiTasks, bridge: EventBridge
) -> Iterator[Rig]:
    agent.move_to(AgentState.READY, "connected")
    rig = Rig(agent, settings_state, tasks, bridge)
    yield rig
    rig.share.close()


def paint_corner(image: QImage, colour: str) -> QImage:
    changed = image.copy()
    painter = QPainter(changed)
    painter.fillRect(QRect(0, 0, 100, 100), QColor(colour))
    painter.end()
    return changed


def test_a_press_sends_a_frame_at_once_then_one_a_second_while_talking(
    rig: Rig, qloop: asyncio.Runner
) -> None:
    async def scenario() -> None:
        assert rig.share.start(SCREEN)
        assert rig.sharing_calls() == [(True, SCREEN.title)]
        assert rig.delay() is None  # idle, while talking only: nothing yet
        rig.agent.begin_talk()  # ready -> user_speaking: the press
        assert rig.delay() == 0
        await rig.tick(0)
        assert len(rig.frames()) == 1
        assert rig.delay() == pytest.approx(1.0)
        # Nothing changed: a frame is taken each second but none is sent.
        await rig.tick(1.0)
        assert len(rig.frames()) == 1
        assert rig.share.frames_unchanged == 1
        rig.grabber.image = paint_corner(rig.grabber.image, "white")
        await rig.tick(0.5)  # not due yet
        assert len(rig.frames()) == 1
        await rig.tick(0.5)
        assert len(rig.frames()) == 2
        rig.agent.end_talk()  # thinking: still answering
        rig.grabber.image = paint_corner(rig.grabber.image, "black")
        await rig.tick(1.0)
        assert len(rig.frames()) == 3
        rig.agent.move_to(AgentState.READY, "answer played")
        assert rig.delay() is None  # idle: no more frames
        rig.grabber.image = paint_corner(rig.grabber.image, "gray")
        await rig.tick(5.0)
        assert len(rig.frames()) == 3

    qloop.run(scenario())
    frames = rig.frames()
    first = QImage.fromData(frames[0].jpeg)
    assert (first.width(), first.height()) == (640, 480)  # smaller than the long edge
    assert shows_quadrants(first)
    assert [(w, h) for _, w, h in rig.thumbnails] == [(640, 480)] * 3
    assert rig.share.frames_sent == 3
    assert rig.problems == []


def test_always_sends_without_talking_and_the_size_follows_the_setting(
    rig: Rig, settings_state: SettingsState, qloop: asyncio.Runner
) -> None:
    settings_state.update(
        screen_send_policy=ScreenSendPolicy.ALWAYS, screen_image_size=ScreenImageSize.PX_768
    )
    rig.grabber.image = quadrants(1920, 1080)

    async def scenario() -> None:
        rig.share.start(SCREEN)
        await rig.tick(0)
        for colour in ("white", "black", "gray"):
            rig.grabber.image = paint_corner(rig.grabber.image, colour)
            await rig.tick(1.0)

    qloop.run(scenario())
    frames = rig.frames()
    assert len(frames) == 4
    assert {(f.width, f.height) for f in frames} == {(768, 432)}
    assert rig.timer.starts.count(0) == 1  # every frame after the first waited a second


def test_a_frame_due_while_the_last_is_encoding_is_skipped_not_queued(
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
    bridge: EventBridge,
    qloop: asyncio.Runner,
) -> None:
    agent.move_to(AgentState.READY, "connected")
    release = threading.Event()
    encodings: list[int] = []

    def slow_encoder(image: QImage, long_edge: int, previous: bytes | None) -> Encoded | None:
        encodings.append(long_edge)
        release.wait(10)
        return encode_frame(image, long_edge, None)

    rig = Rig(agent, settings_state, tasks, bridge, encoder=slow_encoder)
    settings_state.update(screen_send_policy=ScreenSendPolicy.ALWAYS)

    async def scenario() -> None:
        rig.share.start(SCREEN)
        rig.timer.fire()
        await asyncio.sleep(0)  # the grab ran; the encoding is on the worker
        for _ in range(3):
            rig.clock.now += 1.0
            rig.timer.fire()
        release.set()
        await tasks.join()

    qloop.run(scenario())
    assert len(encodings) == 1
    assert rig.share.frames_skipped == 3
    assert len(rig.frames()) == 1
    rig.share.close()


def test_the_session_ending_stops_sharing_with_a_notice(
    rig: Rig, bus: EventBus, qloop: asyncio.Runner
) -> None:
    async def scenario() -> None:
        rig.share.start(SCREEN)
        rig.agent.begin_talk()
        await rig.tick(0)
        bus.emit(SessionEnded(reason="stopped by the person", history_file=None))
        rig.grabber.image = paint_corner(rig.grabber.image, "white")
        await rig.tick(1.0)

    qloop.run(scenario())
    assert rig.stopped == [SESSION_ENDED]
    assert rig.sharing == [True, False]
    assert rig.sharing_calls() == [(True, SCREEN.title), (False, "")]
    assert len(rig.frames()) == 1
    assert not rig.share.sharing


def test_the_agent_stopping_stops_sharing_too(rig: Rig, qloop: asyncio.Runner) -> None:
    async def scenario() -> None:
        rig.share.start(SCREEN)
        await rig.agent.stop()

    qloop.run(scenario())
    assert rig.stopped == [SESSION_ENDED]


def test_a_window_that_closes_stops_sharing_with_a_notice(rig: Rig, qloop: asyncio.Runner) -> None:
    window = ShareSource("window", "4242", "Notes")

    async def scenario() -> None:
        rig.share.start(window)
        rig.agent.begin_talk()
        await rig.tick(0)
        rig.grabber.error = SourceGone("the window \u201cNotes\u201d closed.")
        await rig.tick(1.0)

    qloop.run(scenario())
    assert len(rig.frames()) == 1
    assert rig.stopped == ["Screen sharing stopped: the window \u201cNotes\u201d closed."]
    assert not rig.share.sharing
    assert rig.delay() is None


def test_stop_by_the_person_says_nothing_and_sends_no_more(rig: Rig, qloop: asyncio.Runner) -> None:
    async def scenario() -> None:
        rig.share.start(SCREEN)
        rig.agent.begin_talk()
        await rig.tick(0)
        rig.share.stop()
        rig.grabber.image = paint_corner(rig.grabber.image, "white")
        rig.share.on_talk_pressed()
        await rig.tick(1.0)

    qloop.run(scenario())
    assert rig.stopped == [""]
    assert len(rig.frames()) == 1
    assert rig.grabber.grabs == 1


def test_sharing_needs_a_conversation(
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
    bridge: EventBridge,
) -> None:
    rig = Rig(agent, settings_state, tasks, bridge)
    assert not rig.share.start(SCREEN)
    assert rig.problems == [NOT_RUNNING]
    assert rig.sharing_calls() == []


def test_a_refused_permission_is_a_problem_not_a_sharing(
    agent: FakeAgent, settings_state: SettingsState, tasks: UiTasks
) -> None:
    agent.move_to(AgentState.READY, "connected")
    share = ScreenShare(
        agent,
        settings_state,
        tasks,
        grabber=FakeGrabber(quadrants(10, 10)),
        capture_allowed=lambda: "Allow Screen Recording.",
    )
    problems: list[str] = []
    share.problem.connect(problems.append)
    assert not share.start(SCREEN)
    assert problems == ["Allow Screen Recording."]
    assert not share.sharing


def test_press_only_grabbers_say_so_and_send_only_at_presses(
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
    bridge: EventBridge,
    qloop: asyncio.Runner,
) -> None:
    agent.move_to(AgentState.READY, "connected")
    rig = Rig(agent, settings_state, tasks, bridge)

    class PressOnly(FakeGrabber):
        limitation = "Only at a press."

    rig.grabber = PressOnly(quadrants(64, 48), continuous=False)
    rig.share._grabber = rig.grabber

    async def scenario() -> None:
        rig.share.start(SCREEN)
        rig.agent.begin_talk()
        await rig.tick(0)
        rig.grabber.image = paint_corner(rig.grabber.image, "white")
        await rig.tick(1.0)

    qloop.run(scenario())
    assert rig.problems == ["Only at a press."]
    assert len(rig.frames()) == 1
    assert rig.delay() is None
    rig.share.close()


def test_toggle_restarts_the_last_source_and_tokens_are_counted(
    rig: Rig, settings_state: SettingsState, qloop: asyncio.Runner
) -> None:
    settings_state.update(media_resolution=MediaResolution.LOW)
    window = ShareSource("window", "77", "Editor")

    async def scenario() -> None:
        rig.share.start(window)
        rig.agent.begin_talk()
        await rig.tick(0)
        assert rig.share.tokens_per_minute == frame_tokens(MediaResolution.LOW)
        rig.clock.now += 120.0
        assert rig.share.tokens_per_minute == pytest.approx(frame_tokens(MediaResolution.LOW) / 2)
        assert not rig.share.toggle()
        assert rig.share.toggle()

    qloop.run(scenario())
    assert rig.share.source == window
    assert rig.share.frames_sent == 0
    assert rig.sharing == [True, False, True]
