"""Reconnection: goAway, abrupt closes, repeated failures, a refused key, refused handles."""

from __future__ import annotations

import pytest

from sammy_desktop.config import TalkMode
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.events import (
    AgentState,
    ConnectionLost,
    ErrorKind,
    ErrorRaised,
    Reconnected,
    Reconnecting,
    SessionEnded,
    Speaker,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.core.history import read_history
from sammy_desktop.sim import (
    Close,
    GoAway,
    InputTranscription,
    OnActivityEnd,
    OnSpeechEnd,
    OnText,
    OnTimer,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from tests.core.conftest import Harness, HarnessFactory, wire_field
from tests.helpers.audio import speech


def _finals(h: Harness) -> list[tuple[Speaker, str]]:
    return [(e.speaker, e.text) for e in h.events.of(TranscriptUpdated) if e.final]


def _handle_in_setup(h: Harness, connection_id: int) -> str | None:
    [setup] = h.sim.recorder.events(
        Received.SETUP, predicate=lambda e: e.connection_id == connection_id
    )
    resumption = wire_field(setup.data, "session_resumption")
    handle = resumption.get("handle")
    return None if handle is None else str(handle)


GREETING = Turn(OnText(contains="hi"), [Tone(duration_s=0.1, transcript="Hello."), TurnComplete()])


async def test_go_away_resumes_keeping_transcript_and_scenario_position(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="first question"),
                    Tone(duration_s=0.1, transcript="First answer."),
                    GoAway(time_left_s=30),  # mid-answer: the reconnect waits for quiet
                    Tone(duration_s=0.1),
                    TurnComplete(),
                ],
            ),
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="second question"),
                    Tone(duration_s=0.1, transcript="Second answer."),
                    TurnComplete(),
                ],
            ),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.planned
        assert reconnected.resumed
        # The whole first answer was heard: the reconnect waited for the turn to finish.
        assert h.sink.played_bytes == 2 * int(24000 * 0.1) * 2
        index = h.events.events.index
        assert index(h.events.of(TurnStats)[0]) < index(reconnected)
        assert h.core.resumption_handle is not None
        assert _handle_in_setup(h, 2) is not None
        assert len(h.sim.sessions) == 1  # the same Live session, resumed

        assert h.core.state is AgentState.READY
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats, count=2)
        assert _finals(h) == [
            (Speaker.USER, "first question"),
            (Speaker.ASSISTANT, "First answer."),
            (Speaker.USER, "second question"),
            (Speaker.ASSISTANT, "Second answer."),
        ]
        # Planned reconnects are invisible: no Reconnecting state, no ConnectionLost.
        assert AgentState.RECONNECTING not in h.events.states()
        assert h.events.of(ConnectionLost) == []
        assert h.core.reconnect_count == 1
        assert h.core.snapshot().reconnects == 1


async def test_go_away_deadline_reconnects_and_buffers_the_gap(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            GREETING,
            Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="Heard you."), TurnComplete()]),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        h.core.send_text("hi")
        await h.events.wait_for(TurnStats)
        # The person is talking (not a quiet moment), so only the deadline forces the switch.
        said = speech(0.6)
        assert h.core.begin_talk()
        h.core.send_audio(said[:6400])
        await h.sim.send_go_away(0.05)
        await h.events.wait_for(Reconnected)
        h.core.send_audio(said[6400:])
        h.core.end_talk()
        await h.events.wait_for(TurnStats, count=2)
        # Every byte of the utterance reached the service, in order, across the two
        # connections (what the first may not have kept is re-sent on the second).
        assert h.sim.recorder.audio_bytes(2).endswith(said[6400:])
        assert said in h.sim.recorder.audio_bytes(1) + h.sim.recorder.audio_bytes(2)
        assert _finals(h)[-1] == (Speaker.ASSISTANT, "Heard you.")


async def test_abrupt_close_mid_answer_loses_nothing(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            GREETING,
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="tell me a story"),
                    Tone(duration_s=0.1, transcript="Once upon"),
                    Close(code=None),  # TCP reset mid-answer: the client sees 1006
                ],
            ),
            # What the resumed service does with the re-sent question: answer it.
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="tell me a story"),
                    Tone(duration_s=0.1, transcript="Once upon a time, the end."),
                    TurnComplete(),
                ],
            ),
            Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="Got it."), TurnComplete()]),
        ]
    )
    slow = ReconnectPolicy(initial_s=0.3, maximum_s=0.3, jitter=0, max_attempts=3)
    async with core_harness(scenario, reconnect=slow) as h:
        await h.ready()
        h.core.send_text("hi")
        await h.events.wait_for(TurnStats)
        story = speech(0.3)
        await h.say(story)
        lost = await h.events.wait_for(ConnectionLost)
        assert lost.code == 1006
        await h.events.wait_state(AgentState.RECONNECTING)
        # The person talks during the gap: nothing of it is lost.
        gap = speech(0.2, level=2000)
        await h.say(gap)
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.resumed
        assert not reconnected.planned
        assert reconnected.replayed_messages > 0
        await h.events.wait_for(TurnStats, count=3)

        second = h.sim.recorder.audio_bytes(2)
        assert second == story + gap  # the unanswered question re-sent, then the gap
        assert _finals(h) == [
            (Speaker.USER, "hi"),
            (Speaker.ASSISTANT, "Hello."),
            (Speaker.USER, "tell me a story"),
            (Speaker.ASSISTANT, "Once upon a time, the end."),
            (Speaker.ASSISTANT, "Got it."),
        ]
        await h.history.flush()
        assert h.history.path is not None
        spoken = [
            (r["type"], r["text"])
            for r in read_history(h.history.path)
            if r["type"] in ("user", "assistant")
        ]
        assert spoken == [(str(s), t) for s, t in _finals(h)]
        assert AgentState.RECONNECTING in h.events.states()


async def test_repeated_failures_end_in_an_error(
    core_harness: HarnessFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # Every connection is closed by the service right after setup.
    scenario = Scenario(
        turns=[Turn(OnTimer(after_s=0), [Close(code=1011, reason="Internal error encountered.")])],
        repeat=True,
    )
    async with core_harness(scenario) as h:
        await h.core.start()
        error = await h.events.wait_for(ErrorRaised)
        assert error.kind is ErrorKind.CONNECTION
        # The person reads what happened; the service's own words are in the log.
        assert error.message == "Sammy could not reach the service after 3 tries."
        assert "Internal error" not in error.message
        assert "Internal error encountered." in caplog.text
        assert error.what_to_do
        attempts = [e.attempt for e in h.events.of(Reconnecting)]
        assert attempts == [1, 2]
        assert h.sim.connection_count == 3
        assert h.core.state is AgentState.ERROR
        await h.events.wait_for(SessionEnded)


async def test_bad_key_is_an_auth_error_at_once(core_harness: HarnessFactory) -> None:
    async with core_harness(Scenario(), api_key="wrong-key") as h:
        await h.core.start()
        error = await h.events.wait_for(ErrorRaised)
        assert error.kind is ErrorKind.AUTH
        assert "API key" in error.message
        assert h.sim.connection_count == 1  # no retry loop
        assert h.events.of(Reconnecting) == []
        assert h.events.states() == [AgentState.CONNECTING, AgentState.ERROR]


async def test_a_stable_connection_resets_the_failure_count(
    core_harness: HarnessFactory,
) -> None:
    policy = ReconnectPolicy(initial_s=0.01, maximum_s=0.01, max_attempts=2, stable_after_s=0)
    async with core_harness(Scenario(turns=[GREETING]), reconnect=policy) as h:
        await h.ready()
        for count in range(1, 5):
            await h.sim.drop_connections(1011)
            await h.events.wait_for(Reconnected, count=count)
        assert h.events.of(ErrorRaised) == []
        assert h.core.reconnect_count == 4


async def test_refused_handle_starts_a_fresh_session_with_the_transcript(
    core_harness: HarnessFactory,
) -> None:
    async with core_harness(Scenario(turns=[GREETING])) as h:
        await h.ready()
        h.core.send_text("hi")
        await h.events.wait_for(TurnStats)
        h.sim.expire_resumption_handles()
        await h.sim.drop_connections(1011)
        reconnected = await h.events.wait_for(Reconnected)
        assert not reconnected.resumed
        refused = h.sim.recorder.events(Received.REFUSED)
        assert refused
        assert refused[0].data["code"] == 1007
        latest = h.sim.recorder.events(Received.SETUP)[-1]
        assert wire_field(latest.data, "session_resumption").get("handle") is None
        # The transcript follows as quoted turns (tests/core/test_replay.py), not in the prompt.
        [history] = await h.sim.recorder.wait_for(Received.HISTORY)
        assert [(t["role"], t["text"]) for t in history.data["turns"]] == [
            ("user", "hi"),
            ("model", "Hello."),
        ]
        prompt = wire_field(latest.data, "system_instruction", "parts")[0]["text"]
        assert "Hello." not in prompt
        assert h.core.state is AgentState.READY


async def test_talk_mode_switch_reconnects_with_the_handle_at_a_quiet_moment(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            GREETING,
            Turn(
                OnSpeechEnd(),
                [
                    InputTranscription(text="now hands-free"),
                    Tone(duration_s=0.1, transcript="Got it."),
                    TurnComplete(),
                ],
            ),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        h.core.send_text("hi")
        await h.events.wait_for(TurnStats)
        await h.core.set_talk_mode(TalkMode.HANDS_FREE)
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.planned
        assert reconnected.resumed
        assert h.core.talk_mode is TalkMode.HANDS_FREE
        setup = h.sim.recorder.events(Received.SETUP)[-1].data
        detection = wire_field(setup, "realtime_input_config", "automatic_activity_detection")
        assert detection.get("disabled") in (False, None)
        assert _handle_in_setup(h, 2) is not None
        silence = bytes(3200)
        for chunk in [speech(0.1)] * 4 + [silence] * 12:
            h.core.send_audio(chunk)
        await h.events.wait_for(TurnStats, count=2)
        assert _finals(h)[-2:] == [
            (Speaker.USER, "now hands-free"),
            (Speaker.ASSISTANT, "Got it."),
        ]
        assert len(h.sim.sessions) == 1


async def test_audio_during_a_gap_is_bounded_keeping_the_newest_and_the_turn_markers(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            GREETING,
            Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="Heard."), TurnComplete()]),
        ]
    )
    slow = ReconnectPolicy(initial_s=0.3, maximum_s=0.3, jitter=0, max_attempts=3)
    chunk = 3200
    async with core_harness(scenario, reconnect=slow, buffer_bytes=3 * chunk) as h:
        await h.ready()
        h.core.send_text("hi")
        await h.events.wait_for(TurnStats)
        await h.sim.drop_connections(1011)
        await h.events.wait_state(AgentState.RECONNECTING)
        chunks = [bytes([n]) * chunk for n in range(1, 11)]
        assert h.core.begin_talk()
        for piece in chunks:
            h.core.send_audio(piece)
        h.core.end_talk()
        await h.events.wait_for(TurnStats, count=2)
        assert h.sim.recorder.audio_bytes(2) == b"".join(chunks[-3:])
        kinds = [
            e.kind
            for e in h.sim.recorder.events()
            if e.connection_id == 2 and e.kind in (Received.ACTIVITY_START, Received.ACTIVITY_END)
        ]
        assert kinds == [Received.ACTIVITY_START, Received.ACTIVITY_END]
        assert _finals(h)[-1] == (Speaker.ASSISTANT, "Heard.")
