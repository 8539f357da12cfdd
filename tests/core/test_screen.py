"""Sharing the screen (issue 20): the core's frames against the simulator, and their record.

Real parts: the core and the google-genai client against the strict simulator over TLS. The
frames are real JPEG files Qt wrote once (``tests/data/make_screen_jpegs.py``): core tests
never import Qt.
"""

from __future__ import annotations

import base64
import logging
from pathlib import Path

import pytest

from sammy_desktop.config import MediaResolution, Settings
from sammy_desktop.core.events import (
    AgentState,
    Reconnected,
    ScreenShared,
    ScreenSharingChanged,
    SettingsApplied,
    Speaker,
    TranscriptUpdated,
    TurnStats,
    UsageUpdated,
)
from sammy_desktop.core.history import read_history
from sammy_desktop.core.live import RealtimeInput, RealtimeKind
from sammy_desktop.core.outbox import RealtimeOutbox
from sammy_desktop.core.screen import (
    FRAME_MIME,
    MAX_FRAME_JPEG_BYTES,
    VideoFrame,
    frame_tokens,
    live_media_resolution,
)
from sammy_desktop.live_sdk import types
from sammy_desktop.sim import (
    OnActivityEnd,
    OnText,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
    demo_scenario,
)
from sammy_desktop.sim.actions import Action
from sammy_desktop.tools.runner import DEFAULT_FRAME_BUDGET_BYTES
from tests.core.conftest import Harness, HarnessFactory, wire_field
from tests.helpers.audio import speech
from tests.helpers.clock import ManualScheduler

DATA = Path(__file__).resolve().parents[1] / "data"
SCREEN = (DATA / "screen_1024x640.jpg").read_bytes()
SMALL = (DATA / "screen_300x200_progressive.jpg").read_bytes()
FRAME = VideoFrame(jpeg=SCREEN, width=1024, height=640)
SMALL_FRAME = VideoFrame(jpeg=SMALL, width=300, height=200)

ANSWER: list[Action] = [Tone(duration_s=0.1, transcript="Heard you."), TurnComplete()]


def _state(h: Harness) -> AgentState:
    return h.core.state  # a call, so mypy does not narrow the property between steps


async def _send_frames(h: Harness, frame: VideoFrame, count: int) -> None:
    """Send ``count`` frames, each once the one before it has arrived (no frame replaced)."""
    already = h.sim.recorder.count(Received.VIDEO)
    for n in range(1, count + 1):
        assert h.core.send_video(frame)
        await h.sim.recorder.wait_for(Received.VIDEO, count=already + n)


def _setup_field(h: Harness, connection_id: int, *path: str) -> object:
    [setup] = h.sim.recorder.events(
        Received.SETUP, predicate=lambda e: e.connection_id == connection_id
    )
    return wire_field(setup.data, *path)


# ------------------------------------------------------------------ on the wire


async def test_a_frame_goes_out_as_realtime_video_jpeg_with_its_dimensions(
    core_harness: HarnessFactory,
) -> None:
    async with core_harness(Scenario()) as h:
        await h.ready()
        assert h.core.send_video(FRAME)
        [video] = await h.sim.recorder.wait_for(Received.VIDEO)
        assert video.data["mime_type"] == FRAME_MIME == "image/jpeg"
        assert video.data["byte_count"] == len(SCREEN)
        assert video.data["jpeg"] is True
        assert (video.data["width"], video.data["height"]) == (1024, 640)
        assert video.data["progressive"] is False
        assert h.core.send_video(SMALL_FRAME)
        [_, small] = await h.sim.recorder.wait_for(Received.VIDEO, count=2)
        assert (small.data["width"], small.data["height"], small.data["progressive"]) == (
            300,
            200,
            True,
        )
        # Context window compression is on whenever frames go (L2: ~2 minutes without it).
        compression = _setup_field(h, 1, "context_window_compression")
        assert isinstance(compression, dict)
        assert wire_field(compression, "sliding_window")
        assert wire_field(compression, "trigger_tokens")


async def test_frames_keep_their_place_among_the_audio(core_harness: HarnessFactory) -> None:
    async with core_harness(Scenario(turns=[Turn(OnActivityEnd(), ANSWER)])) as h:
        await h.ready()
        assert h.core.begin_talk()
        h.core.send_audio(speech(0.1))
        assert h.core.send_video(FRAME)
        h.core.send_audio(speech(0.1))
        h.core.end_talk()
        await h.events.wait_for(TurnStats)
        wanted = (Received.ACTIVITY_START, Received.AUDIO, Received.VIDEO, Received.ACTIVITY_END)
        kinds = [e.kind for e in h.sim.recorder.events() if e.kind in wanted]
        assert kinds == ["activity_start", "audio", "video", "audio", "activity_end"]


async def test_no_frame_is_sent_again_after_a_reconnect(core_harness: HarnessFactory) -> None:
    async with core_harness(Scenario(turns=[Turn(OnActivityEnd(), ANSWER)])) as h:
        await h.ready()
        spoken = speech(0.2)
        assert h.core.begin_talk()
        h.core.send_audio(spoken)
        assert h.core.send_video(FRAME)
        await h.sim.recorder.wait_for(Received.VIDEO)
        # Nothing of this turn is confirmed yet: the drop makes the core re-send it.
        await h.sim.drop_connections()
        reconnected = await h.events.wait_for(Reconnected)
        h.core.end_talk()
        await h.events.wait_for(TurnStats)
        assert reconnected.replayed_messages >= 2  # activityStart and the audio
        second = h.sim.recorder.events(predicate=lambda e: e.connection_id == 2)
        assert h.sim.recorder.audio_bytes(connection_id=2) == spoken, "the audio is re-sent"
        assert [e for e in second if e.kind == Received.VIDEO] == [], "the picture is not"
        assert len(h.sim.recorder.video_frames()) == 1


async def test_frames_are_refused_without_a_connection_up(core_harness: HarnessFactory) -> None:
    async with core_harness(Scenario()) as h:
        assert not h.core.send_video(FRAME), "no session"
        h.sim.set_stalled(True)  # setupComplete held back: Connecting
        await h.core.start()
        await h.sim.recorder.wait_for(Received.SETUP)
        assert _state(h) is AgentState.CONNECTING
        assert not h.core.send_video(FRAME), "still connecting"
        h.sim.set_stalled(False)
        await h.events.wait_state(AgentState.READY)
        assert h.core.send_video(FRAME)
        await h.sim.recorder.wait_for(Received.VIDEO)
        await h.core.stop()
        assert not h.core.send_video(FRAME), "stopped"
        assert len(h.sim.recorder.video_frames()) == 1


async def test_a_frame_never_wakes_a_resting_connection(core_harness: HarnessFactory) -> None:
    clock = ManualScheduler()
    scenario = Scenario(turns=[Turn(OnActivityEnd(), ANSWER), Turn(OnActivityEnd(), ANSWER)])
    async with core_harness(scenario, core_scheduler=clock) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        await h.events.wait_state(AgentState.READY, count=2)
        clock.advance(15 * 60)
        await h.events.wait_state(AgentState.RESTING)
        await h.sim.recorder.wait_for(Received.DISCONNECT)
        assert not h.core.send_video(FRAME)
        assert _state(h) is AgentState.RESTING
        assert h.sim.connection_count == 1
        # The person's next words wake it; frames go again once it is up.
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats, count=2)
        assert h.core.send_video(FRAME)
        await h.sim.recorder.wait_for(Received.VIDEO)
        assert h.sim.recorder.video_frames()[0].connection_id == 2


async def test_a_frame_over_the_budget_is_refused_and_said_in_the_log(
    core_harness: HarnessFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # The budget keeps the base64 message within the tool answers' 900,000 bytes of JSON.
    assert MAX_FRAME_JPEG_BYTES * 4 // 3 + 128 <= DEFAULT_FRAME_BUDGET_BYTES < 1024 * 1024
    huge = VideoFrame(jpeg=SCREEN + bytes(MAX_FRAME_JPEG_BYTES), width=1024, height=640)
    async with core_harness(Scenario()) as h:
        await h.ready()
        with caplog.at_level(logging.INFO, logger="sammy_desktop.core.agent"):
            assert not h.core.send_video(huge)
        assert not h.core.send_video(VideoFrame(jpeg=b"", width=0, height=0))
        [record] = [r for r in caplog.records if "screen frame refused" in r.getMessage()]
        assert record.levelno == logging.INFO
        assert h.core.send_video(FRAME)
        await h.sim.recorder.wait_for(Received.VIDEO)
        assert len(h.sim.recorder.video_frames()) == 1


# ------------------------------------------------------------------ the record of a sharing


async def test_the_history_says_how_much_was_shared_and_never_holds_a_frame(
    core_harness: HarnessFactory,
) -> None:
    async with core_harness(Scenario()) as h:
        await h.ready()
        h.core.set_screen_sharing(True, "Screen 1")
        assert h.core.screen_shared
        await _send_frames(h, FRAME, 3)
        h.core.set_screen_sharing(False)
        shared = h.events.one(ScreenShared)
        assert (shared.frames, shared.width, shared.height, shared.source) == (
            3,
            1024,
            640,
            "Screen 1",
        )
        assert shared.seconds >= 0
        changes = [(e.active, e.source) for e in h.events.of(ScreenSharingChanged)]
        assert changes == [(True, "Screen 1"), (False, "Screen 1")]
        # Sharing again, then the session ends while it goes on: its own record.
        h.core.set_screen_sharing(True, "Firefox")
        await _send_frames(h, SMALL_FRAME, 1)
        path = h.history.path
        assert path is not None
        await h.core.stop()
        records = read_history(path)
        shared_records = [r for r in records if r["type"] == "screen_shared"]
        assert [r["text"] for r in shared_records] == [
            "screen shared: 3 frames, 1024 x 640",
            "screen shared: 1 frame, 300 x 200",
        ]
        assert [(r["frames"], r["width"], r["height"], r["source"]) for r in shared_records] == [
            (3, 1024, 640, "Screen 1"),
            (1, 300, 200, "Firefox"),
        ]
        assert records[-1]["type"] == "session_ended"
        raw = path.read_bytes()
        for picture in (SCREEN, SMALL):
            assert picture[:64] not in raw
            assert base64.b64encode(picture)[:64] not in raw
        for start in (b"/9j/", b"_9j_"):  # a JPEG's first bytes in base64, either alphabet
            assert start not in raw, "no base64 JPEG anywhere in the file"
        assert len(raw) < len(SMALL), "a few lines of words, nothing like a picture"


async def test_the_frames_cost_image_tokens_at_the_chosen_resolution(
    core_harness: HarnessFactory,
) -> None:
    settings = Settings(media_resolution=MediaResolution.LOW)
    scenario = Scenario(turns=[Turn(OnText(), ANSWER), Turn(OnText(), ANSWER)])
    async with core_harness(scenario, settings=settings) as h:
        await h.ready()
        assert h.core.send_text("hello")
        first = await h.events.wait_for(UsageUpdated)
        assert "IMAGE" not in first.prompt_by_modality
        await h.events.wait_state(AgentState.READY, count=2)
        await _send_frames(h, FRAME, 2)
        assert h.core.send_text("and now?")
        usage = await h.events.wait_for(UsageUpdated, count=2)
        assert usage.prompt_by_modality["IMAGE"] == 2 * frame_tokens(MediaResolution.LOW) == 132


# ------------------------------------------------------------------ media resolution


def test_frame_tokens_and_the_setup_enum_follow_the_evidence() -> None:
    assert frame_tokens(MediaResolution.LOW) == 66
    assert frame_tokens(MediaResolution.MEDIUM) == 258
    assert frame_tokens(MediaResolution.HIGH) == 258
    assert [live_media_resolution(r) for r in MediaResolution] == [
        types.MediaResolution.MEDIA_RESOLUTION_LOW,
        types.MediaResolution.MEDIA_RESOLUTION_MEDIUM,
        types.MediaResolution.MEDIA_RESOLUTION_HIGH,
    ]


async def test_media_resolution_is_in_the_setup_and_a_change_resumes_quietly(
    core_harness: HarnessFactory,
) -> None:
    settings = Settings(media_resolution=MediaResolution.LOW)
    scenario = Scenario(turns=[Turn(OnText(), ANSWER)])
    async with core_harness(scenario, settings=settings) as h:
        await h.ready()
        assert _setup_field(h, 1, "generation_config", "media_resolution") == (
            "MEDIA_RESOLUTION_LOW"
        )
        assert h.core.send_text("hello")
        await h.events.wait_for(TurnStats)
        await h.events.wait_state(AgentState.READY, count=2)
        handle = h.core.resumption_handle
        assert handle is not None
        await h.core.update_settings(
            settings.model_copy(update={"media_resolution": MediaResolution.HIGH})
        )
        applied = h.events.one(SettingsApplied)
        assert (applied.fields, applied.applied_live) == (("media_resolution",), False)
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.planned and reconnected.resumed
        assert _setup_field(h, 2, "generation_config", "media_resolution") == (
            "MEDIA_RESOLUTION_HIGH"
        )
        resumption = _setup_field(h, 2, "session_resumption")
        assert isinstance(resumption, dict)
        assert resumption["handle"] == handle
        assert _setup_field(h, 2, "context_window_compression")


# ------------------------------------------------------------------ the offline demo


async def test_the_demo_says_what_it_sees_of_the_shared_screen(
    core_harness: HarnessFactory,
) -> None:
    async with core_harness(demo_scenario()) as h:
        await h.ready()
        assert h.core.send_text("what's on my screen")
        nothing = await h.events.wait_for(
            TranscriptUpdated, lambda e: e.final and e.speaker is Speaker.ASSISTANT
        )
        assert nothing.text == (
            "I can't see your screen: nothing is shared. Press Ctrl+Shift+S to share it."
        )
        await h.events.wait_state(AgentState.READY, count=2)
        h.core.set_screen_sharing(True, "Screen 1")
        await _send_frames(h, FRAME, 3)
        assert h.core.send_text("can you see my screen?")
        seen = await h.events.wait_for(
            TranscriptUpdated, lambda e: e.final and e.speaker is Speaker.ASSISTANT, count=2
        )
        assert seen.text == "I can see a 1024 by 640 picture of your screen, 3 frames so far."


# ------------------------------------------------------------------ the outbox's rules


def _video(data: bytes = SMALL) -> RealtimeInput:
    return RealtimeInput(RealtimeKind.VIDEO, video=data)


async def test_the_outbox_keeps_one_frame_waiting_and_never_keeps_one_for_later() -> None:
    outbox = RealtimeOutbox(max_bytes=len(SMALL) * 3)
    audio = RealtimeInput(RealtimeKind.AUDIO, audio=b"\x01" * 100)
    start = RealtimeInput(RealtimeKind.ACTIVITY_START)
    newer = _video(SMALL + b"newer")
    assert outbox.put(start)
    assert outbox.put(_video())
    assert outbox.put(audio)
    assert outbox.put(newer)  # replaces the frame still waiting, where it stands now
    assert [await outbox.get() for _ in range(3)] == [start, audio, newer]
    # Sent frames are not re-sent after a reconnect; a frame that could not go is dropped.
    outbox.sent(start)
    outbox.sent(newer)
    outbox.unget(_video())
    assert len(outbox) == 0
    assert outbox.put(_video())
    assert outbox.requeue_unconfirmed() == 1  # activityStart again, the waiting frame dropped
    assert await outbox.get() == start
    assert outbox.dropped_video_frames == 3


async def test_under_the_bound_a_frame_goes_before_any_audio_or_turn_marker() -> None:
    outbox = RealtimeOutbox(max_bytes=len(SMALL) + 50)
    start = RealtimeInput(RealtimeKind.ACTIVITY_START)
    audio = RealtimeInput(RealtimeKind.AUDIO, audio=b"\x01" * 100)
    assert outbox.put(start)
    assert outbox.put(_video())
    assert outbox.put(audio)  # over the bound: the frame goes, the audio stays
    assert outbox.dropped_video_frames == 1
    assert outbox.dropped_audio_bytes == 0
    assert not outbox.put(RealtimeInput(RealtimeKind.VIDEO, video=bytes(len(SMALL) * 2)))
    assert [await outbox.get() for _ in range(2)] == [start, audio]
    assert outbox.drop_video() == 0
