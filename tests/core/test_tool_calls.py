"""Tool calls through the agent core: round trip, parallel calls, cancellation, endSession."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from sammy_desktop.core.events import (
    AgentState,
    SessionEnded,
    Speaker,
    TranscriptUpdated,
    TurnStats,
    UsageUpdated,
)
from sammy_desktop.core.history import read_history
from sammy_desktop.sim import (
    CallTools,
    CancelToolCalls,
    FunctionCallSpec,
    InputTranscription,
    OnActivityEnd,
    OnToolResponse,
    RawMessage,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from sammy_desktop.tools import ToolCallCancelled
from tests.core.conftest import HarnessFactory
from tests.helpers.audio import speech


def _responses(h: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for event in h.sim.recorder.events(Received.TOOL_RESPONSE):
        out.extend(event.data["function_responses"])
    return out


async def test_tool_call_round_trip(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    CallTools(
                        calls=(FunctionCallSpec(name="get_time", args={"zone": "CET"}, id="t-1"),)
                    )
                ],
            ),
            Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="Noon."), TurnComplete()]),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        asked_at = time.monotonic()
        await h.say(speech(0.2))
        stats = await h.events.wait_for(TurnStats)
        turn_ms = (time.monotonic() - asked_at) * 1000
        [response] = _responses(h)
        assert response["id"] == "t-1"
        assert response["name"] == "get_time"
        assert "12:00 CET" in json.dumps(response["response"])
        assert stats.tool_calls == 1
        # The call's own time: some, and less than the whole exchange around it.
        assert 0 < stats.tool_ms < turn_ms
        assert AgentState.THINKING in h.events.states()
        assert [e.text for e in h.events.of(TranscriptUpdated) if e.final] == ["Noon."]
        await h.history.flush()
        assert h.history.path is not None
        records = read_history(h.history.path)
        assert [r["name"] for r in records if r["type"] == "tool_call"] == ["get_time"]
        assert [r["id"] for r in records if r["type"] == "tool_result"] == ["t-1"]


async def test_parallel_calls_in_one_message_do_not_block_the_receive_loop(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    CallTools(
                        calls=(
                            FunctionCallSpec(name="slow_lookup", args={"topic": "a"}, id="a"),
                            FunctionCallSpec(name="slow_lookup", args={"topic": "b"}, id="b"),
                            FunctionCallSpec(name="get_time", args={}, id="c"),
                        )
                    )
                ],
            ),
            Turn(
                OnToolResponse(wait_for_all=True),
                [Tone(duration_s=0.1, transcript="Here you go."), TurnComplete()],
            ),
        ]
    )
    async with core_harness(scenario, gate_expected=2) as h:
        await h.ready()
        await h.say(speech(0.2))
        # Both slow calls run at once: each sees the other running.
        await asyncio.wait_for(h.gate.all_started.wait(), 5)
        assert h.gate.max_running == 2
        # While they hang, the receive loop still handles what the service sends (a usage
        # report on its own frame, as 3.1 sends one before a model turn: live-service.md R4).
        await h.sim.inject(
            RawMessage(message={"usageMetadata": {"promptTokenCount": 1, "responseTokenCount": 2}})
        )
        await h.events.wait_for(UsageUpdated)
        assert {r["id"] for r in _responses(h)} <= {"c"}
        h.gate.release.set()
        await h.events.wait_for(TurnStats)
        responses = _responses(h)
        assert sorted(r["id"] for r in responses) == ["a", "b", "c"]
        by_id = {r["id"]: r for r in responses}
        assert "all about a" in json.dumps(by_id["a"]["response"])
        assert "all about b" in json.dumps(by_id["b"]["response"])


async def test_cancellation_cancels_the_handler_and_sends_nothing(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    CallTools(
                        calls=(FunctionCallSpec(name="slow_lookup", args={"topic": "x"}, id="x"),)
                    )
                ],
            ),
            Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="Okay."), TurnComplete()]),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        await asyncio.wait_for(h.gate.all_started.wait(), 5)
        await h.sim.inject(CancelToolCalls(ids=("x",)))
        cancelled = await h.events.wait_for(ToolCallCancelled)
        assert cancelled.call_id == "x"
        assert h.gate.cancelled == ["x"]
        # The conversation goes on; by the time the next answer is in, nothing was sent for x.
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        assert _responses(h) == []
        await h.history.flush()
        assert h.history.path is not None
        records = read_history(h.history.path)
        assert any(r["type"] == "tool_calls_cancelled" and r["ids"] == ["x"] for r in records)


async def test_state_snapshot_is_served_to_tools(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    CallTools(
                        calls=(
                            FunctionCallSpec(
                                name="getCurrentContext", args={"reason": "test"}, id="ctx"
                            ),
                        )
                    )
                ],
            ),
            Turn(OnToolResponse(), [TurnComplete()]),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        [response] = _responses(h)
        text = json.dumps(response["response"])
        assert "push_to_talk" in text
        assert "slow_lookup" in text
        snapshot = h.core.snapshot()
        assert snapshot.talk_mode == "push_to_talk"
        assert snapshot.reconnects == 0
        assert "get_time" in snapshot.enabled_tools


async def test_end_session_tool_closes_after_the_goodbye(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    CallTools(
                        calls=(
                            FunctionCallSpec(
                                name="endSession",
                                args={"reason": "the person is done", "confirmed": True},
                                id="end",
                            ),
                        )
                    )
                ],
            ),
            Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="Goodbye!"), TurnComplete()]),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        ended = await h.events.wait_for(SessionEnded)
        assert h.core.state is AgentState.ENDED
        assert [r["id"] for r in _responses(h)] == ["end"]
        # The goodbye was heard before the session closed.
        finals = [e.text for e in h.events.of(TranscriptUpdated) if e.final]
        assert finals[-1] == "Goodbye!"
        assert ended.history_file is not None
        records = read_history(ended.history_file)
        assert records[-1]["type"] == "session_ended"
        assert records[-1]["reason"] == "the person is done"
        lines = [r for r in records if r["type"] in (Speaker.USER, Speaker.ASSISTANT)]
        assert lines[-1]["text"] == "Goodbye!"


@pytest.mark.logs_errors("internal error while answering tool call")
async def test_a_call_the_tool_system_fails_on_is_answered_once_by_its_safety_net(
    core_harness: HarnessFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Answering every call is the runner's contract, kept in one place (its safety net).

    The core keeps no call state of its own and never answers on the runner's behalf: the
    model gets exactly one answer, the runner's, and goes on.
    """
    scenario = Scenario(
        turns=[
            Turn(OnActivityEnd(), [CallTools(calls=(FunctionCallSpec(name="get_time", id="q"),))]),
            Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="Sorry."), TurnComplete()]),
        ]
    )

    def is_enabled(name: str) -> bool:
        raise RuntimeError("settings store unreadable")

    async with core_harness(scenario) as h:
        await h.ready()
        # Broken only now: the setup declared the tools; the call itself hits the bug.
        monkeypatch.setattr(h.tools.registry, "is_enabled", is_enabled)
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        [response] = _responses(h)
        assert response["id"] == "q"
        assert "The app failed while running 'get_time'" in json.dumps(response["response"])
        assert h.tools.calls.ids() == []


async def test_escalate_attaches_the_transcript_the_core_keeps(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="my screen is broken"),
                    Tone(duration_s=0.1, transcript="Let me get a human."),
                    CallTools(
                        calls=(
                            FunctionCallSpec(
                                name="escalate",
                                args={"reason": "broken screen", "category": "technical_support"},
                                id="esc",
                            ),
                        )
                    ),
                ],
            ),
            Turn(OnToolResponse(), [TurnComplete()]),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        [response] = _responses(h)
        assert "error" not in response["response"]
        [record_path] = list(h.paths.escalations_dir.glob("*.json"))
        record = json.loads(record_path.read_text(encoding="utf-8"))
        spoken = [(line["role"], line["text"]) for line in record["transcript"]]
        assert ("user", "my screen is broken") in spoken
        assert record["app_state"]["talk_mode"] == "push_to_talk"
