"""The core with the desktop tool pack: open timer calls, timer notices, Google Search.

Against the simulator with the real SDK over TLS, the real ToolManager and the real
TimerService (on a clock the test moves), as in the app.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.core.agent import WatchdogPolicy
from sammy_desktop.core.events import (
    AgentState,
    ConnectionLost,
    GroundingSourcesFound,
    NoResponse,
    Reconnected,
    Speaker,
    ToolsChanged,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.core.grounding import GroundingSource
from sammy_desktop.core.history import read_history
from sammy_desktop.sim import (
    CallTools,
    Close,
    FunctionCallSpec,
    OnActivityEnd,
    OnText,
    OnToolResponse,
    RawMessage,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from sammy_desktop.tools import AnnouncementPending
from sammy_desktop.tools.desktop import (
    TimerFired,
    notes_folder,
    search_tools,
)
from tests.core.conftest import Harness, HarnessFactory, typed_texts, wire_field
from tests.helpers.audio import speech

SYNC_MODEL = "gemini-3.1-flash-live-preview"

SET_TIMER = CallTools(
    calls=(
        FunctionCallSpec(
            id="fc-1", name="setTimer", args={"duration": "10m", "label": "check the oven"}
        ),
    )
)
ASK_FOR_TIMER = Turn(OnText(contains="remind me"), [SET_TIMER])
TIMER_NOTICE = Turn(
    OnText(contains="Timer notice"),
    [Tone(duration_s=0.1, transcript="Your oven timer is done."), TurnComplete()],
)


def _texts(h: Harness) -> list[str]:
    return typed_texts(h.sim)


def _finals(h: Harness) -> list[tuple[Speaker, str]]:
    return [(e.speaker, e.text) for e in h.events.of(TranscriptUpdated) if e.final]


async def _records(h: Harness) -> list[dict[str, Any]]:
    await h.history.flush()
    assert h.history.path is not None
    return read_history(h.history.path)


async def test_a_running_timer_lets_go_away_resume_at_once_and_is_told_when_it_ends(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            ASK_FOR_TIMER,
            Turn(
                OnToolResponse(name="setTimer", wait_for_all=False),
                [Tone(duration_s=0.1, transcript="Timer set."), TurnComplete()],
            ),
            TIMER_NOTICE,
        ]
    )
    async with core_harness(scenario, with_timers=True) as h:
        await h.ready()
        h.core.send_text("remind me in ten minutes to check the oven")
        stats = await h.events.wait_for(TurnStats)
        assert stats.tool_calls == 1
        await h.events.wait_state(AgentState.READY, count=2)
        # Answered once: no call stays open for the timer's life, so the session stays
        # resumable (live-service.md R9).
        assert h.sim.sessions[0].pending_calls == {}

        # A goAway with 30 s left: the conversation is quiet, so it resumes at once.
        await h.sim.send_go_away(time_left_s=30)
        reconnected = await h.events.wait_for(Reconnected, within_s=5)
        assert reconnected.planned
        assert reconnected.resumed
        # The timer lives in the timer service and keeps running across connections.
        assert [t.label for t in h.timers.running()] == ["check the oven"]
        assert h.core.state is AgentState.READY  # a planned reconnect goes unnoticed

        # It ends: the core tells the model at once (the conversation is Ready).
        h.scheduler.advance(600)
        await h.events.wait_for(TimerFired)
        await h.events.wait_for(
            TranscriptUpdated, lambda e: e.final and e.text == "Your oven timer is done."
        )
        [notice] = [text for text in _texts(h) if "Timer notice" in text]
        # Framed once: "(Timer notice: ...)", not "(Timer notice: [Timer] ...)".
        assert notice.startswith("(Timer notice: The 10 minutes timer for 'check the oven'")
        assert list(h.core.pending_announcements) == []
        # Model-only context: never a line of the person's in the transcript.
        assert all("Timer notice" not in text for _, text in _finals(h))
        records = await _records(h)
        assert [r for r in records if r["type"] == "tool_calls_abandoned"] == []
        [announced] = [r for r in records if r["type"] == "announcement"]
        assert "check the oven" in announced["texts"][0]
        assert announced["sources"] == ["Timer"]
        assert all("Timer notice" not in r.get("text", "") for r in records if r["type"] == "user")


async def test_the_watchdog_speaks_when_the_model_goes_quiet_after_a_timer_is_set(
    core_harness: HarnessFactory,
) -> None:
    # The model takes the timer's answer and then says nothing at all.
    async with core_harness(
        Scenario(turns=[ASK_FOR_TIMER]),
        with_timers=True,
        watchdog=WatchdogPolicy(no_response_s=0.3),
    ) as h:
        await h.ready()
        h.core.send_text("remind me in ten minutes to check the oven")
        first = await h.events.wait_for(NoResponse)
        assert first.nudged and not first.gave_up
        assert h.sim.sessions[0].pending_calls == {}
        last = await h.events.wait_for(NoResponse, lambda e: e.gave_up)
        assert last.turn_id == first.turn_id
        await h.events.wait_state(AgentState.READY, count=2)
        assert h.core.state is AgentState.READY


async def test_timer_notice_waits_while_the_person_speaks_on_a_synchronous_model(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            ASK_FOR_TIMER,
            Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="Timer set."), TurnComplete()]),
            Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="Sure."), TurnComplete()]),
            TIMER_NOTICE,
        ]
    )
    async with core_harness(scenario, with_timers=True, settings=Settings(model=SYNC_MODEL)) as h:
        await h.ready()
        h.core.send_text("remind me in ten minutes to check the oven")
        await h.events.wait_for(TurnStats)
        await h.events.wait_state(AgentState.READY, count=2)
        # A synchronous model got one answer; nothing stays open.
        assert h.sim.sessions[0].pending_calls == {}

        assert h.core.begin_talk()
        h.scheduler.advance(600)
        pending = await h.events.wait_for(AnnouncementPending)
        # The person is speaking: the notice waits for a quiet moment.
        assert h.core.pending_announcements == (pending.text,)
        h.core.send_audio(speech(0.2))
        h.core.end_talk()

        await h.events.wait_for(
            TranscriptUpdated, lambda e: e.final and e.text == "Your oven timer is done."
        )
        assert list(h.core.pending_announcements) == []
        assert [text for text in _texts(h) if "Timer notice" in text] == [
            f"(Timer notice: {pending.text})"
        ]
        # Sent only after the person's turn and its answer.
        events = h.sim.recorder.events()
        kinds = [e.kind for e in events]
        notice_at = next(
            i
            for i, e in enumerate(events)
            if e.kind in (Received.TEXT, Received.CLIENT_CONTENT)
            and "Timer notice" in str(e.data["text"])
        )
        assert kinds.index(Received.ACTIVITY_END) < notice_at
        assert _finals(h) == [
            (Speaker.USER, "remind me in ten minutes to check the oven"),
            (Speaker.ASSISTANT, "Timer set."),
            (Speaker.ASSISTANT, "Sure."),
            (Speaker.ASSISTANT, "Your oven timer is done."),
        ]


def _tools_of_update(raw: Mapping[str, Any]) -> list[dict[str, Any]]:
    tools = raw["tools"]
    inner: list[dict[str, Any]] = tools["tools"] if isinstance(tools, dict) else tools
    return inner


def _setup_tools(h: Harness, connection_id: int) -> list[dict[str, Any]]:
    [setup] = h.sim.recorder.events(
        Received.SETUP, predicate=lambda e: e.connection_id == connection_id
    )
    tools: list[dict[str, Any]] = setup.data["tools"]
    return tools


def _declared_names(tools: list[dict[str, Any]]) -> set[str]:
    return {
        d["name"]
        for t in tools
        for d in t.get("functionDeclarations", t.get("function_declarations", []))
    }


SEARCH: dict[str, Any] = {"googleSearch": {}}
GREETING = Turn(OnText(contains="hi"), [Tone(duration_s=0.1, transcript="Hello."), TurnComplete()])


async def test_google_search_is_declared_with_the_functions_and_switched_live(
    core_harness: HarnessFactory,
) -> None:
    settings = Settings(google_search=True)
    async with core_harness(
        Scenario(turns=[GREETING, GREETING]), settings=settings, extra_tools=search_tools
    ) as h:
        await h.ready()
        h.core.send_text("hi")  # a turn, so the service has given a handle to resume with
        await h.events.wait_for(TurnStats)
        tools = _setup_tools(h, 1)
        assert SEARCH in tools
        assert "get_time" in h.sim.sessions[0].function_names

        # A tool switch: a quiet reconnect whose new setup keeps Google Search.
        assert not await h.core.set_tool_enabled("slow_lookup", False)
        await h.events.wait_for(Reconnected)
        assert SEARCH in _setup_tools(h, 2)
        assert "slow_lookup" not in _declared_names(_setup_tools(h, 2))

        # Google Search switched off in the settings pane: the next setup goes without it.
        await h.core.update_settings(settings.model_copy(update={"google_search": False}))
        await h.events.wait_for(Reconnected, count=2)
        switched_off = _setup_tools(h, 3)
        assert SEARCH not in switched_off
        assert any(
            "functionDeclarations" in t or "function_declarations" in t for t in switched_off
        )
        changed = await h.events.wait_for(ToolsChanged, count=2)
        assert not changed.applied_live and changed.after_this_answer
        assert "get_time" in changed.enabled

        # The conversation goes on, resumed each time; no context update was ever sent.
        h.core.send_text("hi")
        await h.events.wait_for(TurnStats, count=2)
        assert all(e.resumed for e in h.events.of(Reconnected))
        assert h.sim.recorder.events(Received.CONTEXT_UPDATE) == []
        records = await _records(h)
        assert [r["fields"] for r in records if r["type"] == "settings_changed"] == [["tools"]]


async def test_a_setup_setting_reconnects_at_a_quiet_moment_and_is_used(
    core_harness: HarnessFactory,
) -> None:
    settings = Settings()
    async with core_harness(Scenario(turns=[GREETING]), settings=settings) as h:
        await h.ready()
        h.core.send_text("hi")
        await h.events.wait_for(TurnStats)
        # Unchanged settings: nothing happens.
        await h.core.update_settings(settings.model_copy())
        await h.core.update_settings(settings.model_copy(update={"voice": "Kore"}))
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.planned
        assert reconnected.resumed
        assert (_voice_in_setup(h, 1), _voice_in_setup(h, 2)) == ("Puck", "Kore")
        assert h.sim.recorder.events(Received.CONTEXT_UPDATE) == []
        assert h.core.snapshot().model == settings.model


GROUNDED = RawMessage(
    message={
        "serverContent": {
            "groundingMetadata": {
                "webSearchQueries": ["weather in Oslo today"],
                "groundingChunks": [
                    {"web": {"uri": "https://yr.no/r/1", "title": "Yr", "domain": "yr.no"}},
                    {"web": {"uri": "https://yr.no/r/1", "title": "Yr again"}},
                    {"web": {"uri": "https://met.no/r/2", "domain": "met.no"}},
                ],
            }
        }
    }
)


async def test_grounding_sources_become_an_event_and_a_history_record(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnText(contains="weather"),
                [
                    Tone(duration_s=0.1, transcript="It rains in Oslo."),
                    GROUNDED,
                    GROUNDED,  # the service repeats it: shown once
                    TurnComplete(),
                ],
            )
        ]
    )
    async with core_harness(
        scenario, settings=Settings(google_search=True), extra_tools=search_tools
    ) as h:
        await h.ready()
        h.core.send_text("what is the weather in Oslo")
        stats = await h.events.wait_for(TurnStats)
        [found] = h.events.of(GroundingSourcesFound)
        assert found.turn_id == stats.turn_id
        assert found.sources == (
            GroundingSource(title="Yr", uri="https://yr.no/r/1", domain="yr.no"),
            GroundingSource(title="met.no", uri="https://met.no/r/2", domain="met.no"),
        )
        assert found.queries == ("weather in Oslo today",)
        records = await _records(h)
        [record] = [r for r in records if r["type"] == "grounding_sources"]
        assert record["turn_id"] == stats.turn_id
        assert [s["uri"] for s in record["sources"]] == ["https://yr.no/r/1", "https://met.no/r/2"]
        assert record["queries"] == ["weather in Oslo today"]
        json.dumps(record)


async def test_timers_running_at_quit_are_in_the_history(core_harness: HarnessFactory) -> None:
    async with core_harness(Scenario(turns=[GREETING]), with_timers=True) as h:
        await h.ready()
        h.timers.start(600, "tea")
        # The app's quit order: stop the timers, then the core (which closes the history).
        stopped = h.timers.shutdown()
        await h.core.stop()
        assert h.history.path is not None
        records = read_history(h.history.path)
        [record] = [r for r in records if r["type"] == "timers_running_at_quit"]
        assert record["timers"] == [timer.as_record() for timer in stopped]
        assert record["timers"][0]["label"] == "tea"
        assert [r["type"] for r in records][-2:] == ["timers_running_at_quit", "session_ended"]


def _voice_in_setup(h: Harness, connection_id: int) -> str:
    [setup] = h.sim.recorder.events(
        Received.SETUP, predicate=lambda e: e.connection_id == connection_id
    )
    voice = wire_field(
        setup.data,
        "generation_config",
        "speech_config",
        "voice_config",
        "prebuilt_voice_config",
        "voice_name",
    )
    return str(voice)


async def test_settings_changed_while_the_setup_is_on_its_way_are_not_lost(
    core_harness: HarnessFactory,
) -> None:
    settings = Settings()
    async with core_harness(Scenario(), settings=settings) as h:
        # The service holds setupComplete back, so the change lands mid-handshake.
        h.sim.set_stalled(True)
        await h.core.start()
        await h.sim.recorder.wait_for(Received.SETUP)
        await h.core.update_settings(settings.model_copy(update={"voice": "Kore"}))
        h.sim.set_stalled(False)
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.planned
        assert (_voice_in_setup(h, 1), _voice_in_setup(h, 2)) == ("Puck", "Kore")


def test_the_notes_folder_is_the_app_paths_notes_dir(tmp_path: Path) -> None:
    paths = AppPaths.profile(tmp_path / "profile")
    assert paths.notes_dir == paths.data_dir / "notes"
    assert notes_folder(paths) == paths.notes_dir


async def test_a_timer_that_ended_between_conversations_is_told_once_ready(
    core_harness: HarnessFactory,
) -> None:
    async with core_harness(Scenario(turns=[TIMER_NOTICE]), with_timers=True) as h:
        h.timers.start(60, "tea")
        h.scheduler.advance(60)  # no conversation: the notice waits in the core
        assert len(h.core.pending_announcements) == 1
        await h.ready()
        await h.events.wait_for(
            TranscriptUpdated, lambda e: e.final and e.text == "Your oven timer is done."
        )
        [notice] = [text for text in _texts(h) if "Timer notice" in text]
        assert "'tea'" in notice
        assert list(h.core.pending_announcements) == []


async def test_a_drop_leaves_a_running_timer_alone_and_its_end_is_told_after_it(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            ASK_FOR_TIMER,
            Turn(
                OnToolResponse(name="setTimer", wait_for_all=False),
                [Tone(duration_s=0.1, transcript="Timer set."), TurnComplete(), Close(code=1011)],
            ),
            TIMER_NOTICE,
        ]
    )
    async with core_harness(scenario, with_timers=True) as h:
        await h.ready()
        h.core.send_text("remind me in ten minutes to check the oven")
        await h.events.wait_for(ConnectionLost)
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.resumed
        await h.events.wait_state(AgentState.READY, count=3)
        assert [t.label for t in h.timers.running()] == ["check the oven"]
        h.scheduler.advance(600)
        await h.events.wait_for(
            TranscriptUpdated, lambda e: e.final and e.text == "Your oven timer is done."
        )
        records = await _records(h)
        # The call had been answered before the drop: nothing was left to abandon.
        assert [r for r in records if r["type"] == "tool_calls_abandoned"] == []
