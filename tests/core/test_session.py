"""Session-level behaviour: watchdog, tool switches, history, shutdown, odd frames."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import datetime
from pathlib import Path

import pytest
from google import genai

from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.core import reconfigure
from sammy_desktop.core.agent import AgentCore, WatchdogPolicy
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.events import (
    AgentState,
    ErrorKind,
    ErrorRaised,
    NoResponse,
    Reconnected,
    StateChanged,
    ToolsChanged,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.core.history import ConversationHistory, read_history
from sammy_desktop.core.live import FailureKind, LiveConnectionError
from sammy_desktop.eventbus import EventBus
from sammy_desktop.sim import (
    CallTools,
    FunctionCallSpec,
    InputTranscription,
    OnActivityEnd,
    OnText,
    OnToolResponse,
    RawMessage,
    Received,
    Scenario,
    Stall,
    Tone,
    Turn,
    TurnComplete,
    Usage,
)
from sammy_desktop.tools import ModelCapabilities, ToolManager, ToolServices, capabilities_for
from tests.core.conftest import FakeSink, HarnessFactory
from tests.helpers.audio import speech

_CORE_TASK_PREFIXES = ("agent-", "live-", "tool-call-", "history-writer")


def _core_tasks() -> list[asyncio.Task[object]]:
    return [
        t
        for t in asyncio.all_tasks()
        if not t.done() and t.get_name().startswith(_CORE_TASK_PREFIXES)
    ]


async def test_stall_raises_no_response_nudges_once_then_gives_up(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(turns=[Turn(OnActivityEnd(), [Stall()])])
    watchdog = WatchdogPolicy(no_response_s=0.2, nudge_text="(nudge)")
    async with core_harness(scenario, watchdog=watchdog) as h:
        await h.ready()
        await h.say(speech(0.2))
        first = await h.events.wait_for(NoResponse)
        assert first.nudged
        assert not first.gave_up
        assert first.turn_id == 1
        nudge = await h.sim.recorder.wait_for(Received.CLIENT_CONTENT)
        assert nudge[0].data["text"] == "(nudge)"
        second = await h.events.wait_for(NoResponse, count=2)
        assert second.gave_up
        # The person is not left looking at "Thinking" forever.
        assert h.events.states()[-1] is AgentState.READY
        assert h.sim.recorder.count(Received.CLIENT_CONTENT) == 1  # exactly one nudge


async def test_watchdog_stays_quiet_when_the_answer_comes(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="Hi."), TurnComplete()])]
    )
    watchdog = WatchdogPolicy(no_response_s=0.3)
    async with core_harness(scenario, watchdog=watchdog) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        # Give a wrongly armed watchdog the chance to fire, by waiting on one that is not.
        with pytest.raises(TimeoutError):
            await h.events.wait_for(NoResponse, within_s=0.6)


def _two_text_turns() -> Scenario:
    return Scenario(
        turns=[
            Turn(
                OnText(contains="hi"), [Tone(duration_s=0.1, transcript="Hello."), TurnComplete()]
            ),
            Turn(
                OnText(contains="again"), [Tone(duration_s=0.1, transcript="Yes."), TurnComplete()]
            ),
        ]
    )


async def test_tool_switch_mid_session_resumes_with_the_new_setup_at_a_quiet_moment(
    core_harness: HarnessFactory,
) -> None:
    """No model is known to apply contextUpdate (live-service.md S4): reconnect, resuming."""
    async with core_harness(_two_text_turns()) as h:
        await h.ready()
        h.core.send_text("hi")
        await h.events.wait_for(TurnStats)
        assert not await h.core.set_tool_enabled("slow_lookup", False)
        changed = await h.events.wait_for(ToolsChanged)
        assert not changed.applied_live
        assert changed.after_this_answer  # the window says when
        assert "slow_lookup" not in changed.enabled
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.resumed  # the same conversation, on a new connection
        assert h.sim.recorder.events(Received.CONTEXT_UPDATE) == []
        setups = h.sim.recorder.events(Received.SETUP)
        assert [s.connection_id for s in setups] == [1, 2]
        assert "slow_lookup" not in h.sim.sessions[0].function_names
        h.core.send_text("again")
        await h.events.wait_for(TurnStats, count=2)
        assert "slow_lookup" not in h.core.snapshot().enabled_tools


async def test_a_context_update_where_the_model_takes_one_and_the_fallback_when_refused(
    core_harness: HarnessFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the capability table says so, contextUpdate; a close on it resumes with the setup."""
    real = capabilities_for

    def with_context_update(model: str) -> ModelCapabilities:
        return dataclasses.replace(real(model), context_update=True)

    monkeypatch.setattr(reconfigure, "capabilities_for", with_context_update)
    # The service's profiles refuse contextUpdate (1007), as the evidence allows.
    async with core_harness(_two_text_turns()) as h:
        await h.ready()
        h.core.send_text("hi")
        await h.events.wait_for(TurnStats)
        assert await h.core.set_tool_enabled("slow_lookup", False)
        update = await h.sim.recorder.wait_for(Received.CONTEXT_UPDATE)
        assert update[0].connection_id == 1
        # Refused: one quiet resume, with the new tools in its setup, and no error.
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.resumed
        assert h.events.of(ErrorRaised) == []
        assert "slow_lookup" not in h.sim.sessions[0].function_names
        h.core.send_text("again")
        await h.events.wait_for(TurnStats, count=2)
        # Not tried again on this session: the next switch reconnects instead.
        assert not await h.core.set_tool_enabled("slow_lookup", True)
        assert len(h.sim.recorder.events(Received.CONTEXT_UPDATE)) == 1


async def test_history_file_after_a_session(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="what time is it"),
                    CallTools(calls=(FunctionCallSpec(name="get_time", id="t"),)),
                ],
            ),
            Turn(
                OnToolResponse(),
                [
                    Tone(duration_s=0.1, transcript="It is noon."),
                    Usage(prompt_tokens=5, response_tokens=6),
                    TurnComplete(),
                ],
            ),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        path = h.history.path
        assert path is not None
        assert path.parent == h.paths.history_dir
        # Written as it happens: the lines are on disk before the session ends.
        await h.history.flush()
        assert [r["type"] for r in read_history(path)][-1] == "turn_stats"
        await h.core.stop()

    records = read_history(path)
    kinds = [r["type"] for r in records]
    assert kinds[0] == "session_started"
    assert kinds[-1] == "session_ended"
    for expected in ("user", "tool_call", "tool_result", "assistant", "turn_stats"):
        assert expected in kinds
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("assistant")
    by_type = {r["type"]: r for r in records}
    # The person's line is written once it is whole: the service's transcription of it may
    # still arrive after the answer has begun (docs/live-service.md R2), so it is kept
    # until the turn completes, and it belongs to the turn of the calls it asked for.
    assert by_type["user"]["turn_id"] == by_type["tool_call"]["turn_id"] == 1
    assert by_type["user"]["text"] == "what time is it"
    assert by_type["assistant"]["text"] == "It is noon."
    assert by_type["tool_result"]["name"] == "get_time"
    assert by_type["turn_stats"]["total_tokens"] == 11
    assert by_type["session_started"]["model"] == h.settings.model
    for record in records:
        assert datetime.fromisoformat(record["at"]).tzinfo is not None
    # The tools see the same conversation (endSession and escalate read it).
    lines = h.history.transcript()
    assert [(line.role, line.text) for line in lines if line.role != "tool"] == [
        ("user", "what time is it"),
        ("assistant", "It is noon."),
    ]


async def test_no_task_left_running_after_stop(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [CallTools(calls=(FunctionCallSpec(name="slow_lookup", args={"topic": "t"}),))],
            )
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        await asyncio.wait_for(h.gate.all_started.wait(), 5)  # a tool hangs
        await h.sim.drop_connections(1011)  # and a reconnection happened
        await h.events.wait_for(Reconnected)
        assert _core_tasks()
        await h.core.stop()
        assert _core_tasks() == []
        assert h.gate.running == 0
        assert h.core.state is AgentState.DISCONNECTED
        # Stopping twice is harmless.
        await h.core.stop()


async def test_malformed_and_unknown_frames_are_survived(
    core_harness: HarnessFactory, caplog: pytest.LogCaptureFixture
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    RawMessage(message={"somethingNew": {"x": 1}}),
                    RawMessage(message={"serverContent": {"modelTurn": {"parts": "nonsense"}}}),
                    Tone(duration_s=0.1, transcript="Still here."),
                    TurnComplete(),
                ],
            )
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        finals = [e.text for e in h.events.of(TranscriptUpdated) if e.final]
        assert finals == ["Still here."]
        assert h.sim.connection_count == 1
        assert caplog.text.count("malformed frame from the service") == 2
        assert h.events.of(ErrorRaised) == []


async def test_connect_timeout_when_setup_never_completes(
    core_harness: HarnessFactory, caplog: pytest.LogCaptureFixture
) -> None:
    policy = ReconnectPolicy(initial_s=0.01, maximum_s=0.01, max_attempts=2, connect_timeout_s=0.3)
    async with core_harness(Scenario(), reconnect=policy) as h:
        h.sim.set_stalled(True)
        await h.core.start()
        error = await h.events.wait_for(ErrorRaised)
        assert error.kind is ErrorKind.CONNECTION
        # What happened for the person, what to do once; the exact cause for the log.
        assert error.message == "Sammy could not reach the service after 2 tries."
        assert error.what_to_do.startswith("Check the internet connection")
        assert "0.3 s" in caplog.text
        assert h.sim.connection_count == 2
        h.sim.set_stalled(False)


async def test_api_without_a_session_is_harmless(core_harness: HarnessFactory) -> None:
    async with core_harness(Scenario()) as h:
        assert not h.core.begin_talk()
        h.core.send_audio(b"\x00\x00" * 160)
        h.core.end_talk()
        assert not h.core.send_text("hello")
        assert not await h.core.set_tool_enabled("slow_lookup", False)
        assert h.events.of(ToolsChanged)[-1].applied_live is False
        assert h.core.state is AgentState.DISCONNECTED
        assert h.events.of(TranscriptUpdated) == []
        assert h.sim.connection_count == 0


async def test_before_connect_holds_the_first_connection_in_connecting(
    core_harness: HarnessFactory,
) -> None:
    # The app's SDK still loading: Connecting shows at once, nothing is dialled until then.
    loaded = asyncio.Event()
    waiting = asyncio.Event()

    async def sdk_loaded() -> None:
        waiting.set()
        await loaded.wait()

    async with core_harness(Scenario(), before_connect=sdk_loaded) as h:
        await h.core.start()
        await asyncio.wait_for(waiting.wait(), 5)
        assert h.core.state is AgentState.CONNECTING
        assert h.sim.connection_count == 0
        loaded.set()
        await h.events.wait_state(AgentState.READY)
        assert h.sim.connection_count == 1


async def test_before_connect_failing_like_the_factory_is_its_error_state(
    core_harness: HarnessFactory,
) -> None:
    async def refuse() -> None:
        raise LiveConnectionError(FailureKind.AUTH, None, "No API key is set.")

    async with core_harness(Scenario(), before_connect=refuse) as h:
        await h.core.start()
        error = await h.events.wait_for(ErrorRaised)
        assert error.kind is ErrorKind.AUTH
        assert "No API key is set." in error.message
        assert h.sim.connection_count == 0


async def test_a_client_factory_that_cannot_build_a_client_is_an_error_state(
    tmp_path: Path,
) -> None:
    def no_key() -> genai.Client:
        raise LiveConnectionError(FailureKind.AUTH, None, "No API key is set.")

    bus = EventBus()
    errors: list[ErrorRaised] = []
    bus.subscribe(ErrorRaised, errors.append)
    core = AgentCore(
        bus=bus,
        settings=Settings(),
        tools=ToolManager(
            bus,
            ToolServices(
                paths=AppPaths.profile(tmp_path),
                settings=Settings,
                transcript=list,
            ),
            load_entry_points=False,
        ),
        sink=FakeSink(),
        client_factory=no_key,
        history=ConversationHistory(tmp_path / "history"),
    )
    reached = asyncio.Event()

    def on_state(event: StateChanged) -> None:
        if event.new is AgentState.ERROR:
            reached.set()

    bus.subscribe(StateChanged, on_state)
    await core.start()
    await asyncio.wait_for(reached.wait(), 5)
    assert errors[-1].kind is ErrorKind.AUTH
    assert "No API key is set." in errors[-1].message
    await core.stop()
