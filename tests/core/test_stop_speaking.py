"""Stopping the answer (Esc, the tray's Stop speaking): silenced for good, the service told
where it can be (push-to-talk: an activityStart, docs/live-service.md S8), the next turn
carried on in that activity; and the latency the window shows counts the service only."""

from __future__ import annotations

import asyncio

from sammy_desktop.config import TalkMode
from sammy_desktop.core.events import (
    AgentState,
    AnswerStopped,
    Speaker,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.sim import (
    CallTools,
    FunctionCallSpec,
    OnActivityEnd,
    OnAudioStreamEnd,
    OnText,
    OnToolResponse,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from tests.core.conftest import HarnessFactory
from tests.helpers.audio import speech

LONG_S = 6.0  # an answer far longer than any test waits: only a stop ends it early


def _long_then_short(trigger_first: object, trigger_second: object) -> Scenario:
    return Scenario(
        turns=[
            Turn(
                trigger_first,  # type: ignore[arg-type]
                [
                    Tone(duration_s=LONG_S, transcript="A very long story", realtime=True),
                    TurnComplete(),
                ],
            ),
            Turn(trigger_second, [Tone(duration_s=0.1, transcript="Sure."), TurnComplete()]),  # type: ignore[arg-type]
        ]
    )


def _is_interrupted(event: object) -> bool:
    data = getattr(event, "data", {})
    body = data.get("serverContent", data)
    return bool(body.get("interrupted"))


async def test_a_stop_in_push_to_talk_silences_the_answer_and_tells_the_service(
    core_harness: HarnessFactory,
) -> None:
    async with core_harness(_long_then_short(OnActivityEnd(), OnActivityEnd())) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_state(AgentState.ASSISTANT_SPEAKING)
        assert h.sink.played_bytes > 0

        assert h.core.stop_speaking()
        stopped = await h.events.wait_for(AnswerStopped)
        assert stopped.service_told
        assert h.sink.played_bytes == 0  # flushed at once
        # The service hears the interruption it understands, and stops generating.
        await h.sim.recorder.wait_for(Received.ACTIVITY_START, count=2)
        await h.sim.recorder.wait_for("sent.serverContent", predicate=_is_interrupted)
        assert h.core.state is AgentState.READY
        assert h.sink.played_bytes == 0  # nothing more of that answer was played
        final = [
            e for e in h.events.of(TranscriptUpdated) if e.final and e.speaker is Speaker.ASSISTANT
        ]
        assert final[-1].interrupted

        # The next turn goes on in the stop's activity: no second activityStart.
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats, predicate=lambda s: s.turn_id == stopped.turn_id + 1)
        assert h.sim.recorder.count(Received.ACTIVITY_START) == 2
        assert h.sim.recorder.count(Received.ACTIVITY_END) == 2
        answers = [
            e.text
            for e in h.events.of(TranscriptUpdated)
            if e.final and e.speaker is Speaker.ASSISTANT
        ]
        assert answers[-1] == "Sure."


async def test_typed_text_after_a_stop_closes_the_stops_activity_first(
    core_harness: HarnessFactory,
) -> None:
    async with core_harness(_long_then_short(OnActivityEnd(), OnText(contains="joke"))) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_state(AgentState.ASSISTANT_SPEAKING)
        assert h.core.stop_speaking()
        await h.sim.recorder.wait_for("sent.serverContent", predicate=_is_interrupted)
        assert h.core.send_text("tell me a joke")
        await h.sim.recorder.wait_for(Received.CLIENT_CONTENT)
        kinds = [
            e.kind
            for e in h.sim.recorder.events()
            if e.kind in (Received.ACTIVITY_START, Received.ACTIVITY_END, Received.CLIENT_CONTENT)
        ]
        assert kinds == [
            Received.ACTIVITY_START,  # the person's turn
            Received.ACTIVITY_END,
            Received.ACTIVITY_START,  # the stop
            Received.ACTIVITY_END,  # closed before the typed turn
            Received.CLIENT_CONTENT,
        ]


async def test_a_stop_in_hands_free_drops_the_rest_of_the_answer(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnAudioStreamEnd(),
                [
                    Tone(duration_s=LONG_S, transcript="A very long story", realtime=True),
                    TurnComplete(),
                ],
            )
        ]
    )
    async with core_harness(scenario, talk_mode=TalkMode.HANDS_FREE) as h:
        await h.ready()
        h.core.begin_talk()
        for _ in range(5):
            h.core.send_audio(speech(0.1))
        h.core.end_talk()
        await h.events.wait_state(AgentState.ASSISTANT_SPEAKING)
        assert h.core.stop_speaking()
        stopped = await h.events.wait_for(AnswerStopped)
        assert not stopped.service_told  # hands-free has no client interruption
        assert h.sim.recorder.count(Received.ACTIVITY_START) == 0  # it would be refused
        # The service goes on sending the answer; none of it is played.
        chunks = h.sim.recorder.count("sent.serverContent")
        await h.sim.recorder.wait_for("sent.serverContent", count=chunks + 3)
        assert h.sink.played_bytes == 0
        assert h.core.state is AgentState.READY


async def test_nothing_to_stop_is_no_stop(core_harness: HarnessFactory) -> None:
    async with core_harness(_long_then_short(OnActivityEnd(), OnActivityEnd())) as h:
        await h.ready()
        assert not h.core.stop_speaking()
        assert h.events.of(AnswerStopped) == []
        assert h.sim.recorder.count(Received.ACTIVITY_START) == 0


async def test_the_latency_leaves_out_the_time_the_model_waited_for_a_tool(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [CallTools(calls=(FunctionCallSpec(name="slow_lookup", args={"topic": "x"}),))],
            ),
            Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="Found it."), TurnComplete()]),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        await asyncio.wait_for(h.gate.all_started.wait(), 5)
        await asyncio.sleep(0.5)  # the tool takes at least this long (as a person approving)
        h.gate.release.set()
        stats = await h.events.wait_for(TurnStats)
        assert stats.tool_ms >= 500
        assert stats.first_audio_ms is not None
        # Before: the whole wait, tool included (last turn 12957 ms after an approval).
        assert stats.first_audio_ms < stats.tool_ms


async def test_a_typed_turn_has_no_speech_latency(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            Turn(OnText(contains="hi"), [Tone(duration_s=0.1, transcript="Hi."), TurnComplete()])
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        assert h.core.send_text("hi")
        stats = await h.events.wait_for(TurnStats)
        assert stats.first_audio_ms is None
