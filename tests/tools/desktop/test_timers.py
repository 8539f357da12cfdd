"""Timers through the real ToolManager: the NON_BLOCKING second answer, reconnects, the
fallback on synchronous-only models, cancelling, and quitting with timers running.

Time is a manual clock (no sleeps); the one test of the real loop scheduler uses a 10 ms
timer awaited through an event with a timeout.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from google.genai import types

from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import (
    AgentStateSnapshot,
    AnnouncementPending,
    ToolManager,
)
from sammy_desktop.tools.desktop import (
    Earcon,
    TimerFired,
    TimerService,
    TimersRunningAtQuit,
    TimerStatus,
    parse_duration,
)
from tests.helpers.clock import ManualScheduler
from tests.helpers.events import EventLog
from tests.tools.conftest import FIXED_NOW, ManagerFactory
from tests.tools.desktop.conftest import ASYNC_MODEL, SYNC_MODEL, Call, error, output
from tests.tools.desktop.fakes import RecordingNotifier, WaitingResponder

WAIT_S = 5.0


class AgentState:
    """A changeable agent state for ``ToolManager(state=...)``."""

    def __init__(self, snapshot: AgentStateSnapshot) -> None:
        self.snapshot = snapshot

    def set(self, **changes: Any) -> None:
        self.snapshot = dataclasses.replace(self.snapshot, **changes)

    def __call__(self) -> AgentStateSnapshot:
        return self.snapshot


@pytest.fixture
def agent(snapshot: AgentStateSnapshot) -> AgentState:
    return AgentState(dataclasses.replace(snapshot, state="ready", model=ASYNC_MODEL))


@pytest.fixture
def manager_for(
    make_pack_manager: ManagerFactory, agent: AgentState
) -> Callable[[str], ToolManager]:
    def build(model: str) -> ToolManager:
        agent.set(model=model)
        manager = make_pack_manager(state=agent)
        manager.declarations(model)  # what the core does when it connects
        return manager

    return build


def set_timer_call(
    duration: Any = "10m", label: str = "check the oven", call_id: str = "fc-1"
) -> types.LiveServerToolCall:
    return types.LiveServerToolCall(
        function_calls=[
            types.FunctionCall(
                id=call_id, name="setTimer", args={"duration": duration, "label": label}
            )
        ]
    )


async def start_timer(
    manager: ToolManager, responder: WaitingResponder, **call: Any
) -> types.FunctionResponse:
    """Send setTimer; its one answer comes at once, and the call is over."""
    await asyncio.wait_for(manager.handle(set_timer_call(**call), responder), WAIT_S)
    [answer] = responder.responses
    return answer


# -- setting a timer, and its end -------------------------------------------------------


async def test_set_timer_answers_once_and_the_end_is_announced(
    manager_for: Callable[[str], ToolManager],
    scheduler: ManualScheduler,
    notifier: RecordingNotifier,
    events: EventLog,
    timers: TimerService,
) -> None:
    """One answer, no call kept open (live-service.md R9, T7); the end is an announcement."""
    manager = manager_for(ASYNC_MODEL)
    first = await start_timer(manager, WaitingResponder())
    assert not first.will_continue
    assert first.scheduling is types.FunctionResponseScheduling.WHEN_IDLE
    value = output(first)["value"]
    assert value == {
        "id": "1",
        "label": "check the oven",
        "status": "running",
        "duration": "10 minutes",
        "ends_at": "09:25",
        "remaining_s": 600,
    }
    assert "(Timer notice: ...)" in output(first)["instructions"][0]
    assert manager.calls.ids() == []  # nothing stays open
    assert notifier.notifications == []

    scheduler.advance(600)
    assert notifier.notifications == [
        ("Timer finished", "check the oven (10 minutes, set at 09:15)")
    ]
    assert notifier.earcons == [Earcon.TIMER_DONE]
    assert events.one(TimerFired).timer.status is TimerStatus.FINISHED
    pending = events.one(AnnouncementPending)
    assert pending.source == "Timer"
    assert pending.text.startswith("The 10 minutes timer for 'check the oven' ended")


async def test_synchronous_only_model_gets_the_same_one_answer(
    manager_for: Callable[[str], ToolManager],
    scheduler: ManualScheduler,
    notifier: RecordingNotifier,
    events: EventLog,
) -> None:
    manager = manager_for(SYNC_MODEL)
    [tool] = manager.declarations(SYNC_MODEL)
    declaration = next(d for d in tool.function_declarations or () if d.name == "setTimer")
    assert declaration.behavior is None
    assert "(Timer notice: ...)" in (declaration.description or "")

    answer = await start_timer(manager, WaitingResponder())
    assert answer.will_continue is None
    assert answer.scheduling is None
    scheduler.advance(600)
    assert notifier.notifications and notifier.earcons == [Earcon.TIMER_DONE]
    assert events.one(AnnouncementPending).source == "Timer"


async def test_a_cancelled_timer_says_nothing_when_its_time_comes(
    manager_for: Callable[[str], ToolManager],
    scheduler: ManualScheduler,
    notifier: RecordingNotifier,
    call: Call,
    timers: TimerService,
    events: EventLog,
) -> None:
    manager = manager_for(ASYNC_MODEL)
    await start_timer(manager, WaitingResponder())
    cancelled = output(await call(manager, "cancelTimer", {"id": "1"}, "fc-2"))
    assert cancelled["value"]["status"] == "cancelled"
    scheduler.advance(3600)
    assert notifier.notifications == []
    assert events.of(AnnouncementPending) == []
    assert timers.running() == []


async def test_cancel_by_label_and_unknown_ids(
    make_pack_manager: ManagerFactory, call: Call, timers: TimerService
) -> None:
    manager = make_pack_manager()
    empty = error(await call(manager, "cancelTimer", {"id": "1"}, "c0"))
    assert "No timer is running" in empty["problems"][0]
    timers.start(60, "tea")
    timers.start(300, "eggs")
    unknown = error(await call(manager, "cancelTimer", {"id": 7}, "c1"))
    assert unknown["validation"]["id"]["allowed_values"] == ["1", "2"]
    assert "1 (tea); 2 (eggs)" in unknown["problems"][0]
    by_label = output(await call(manager, "cancelTimer", {"id": "Eggs"}, "c2"))
    assert by_label["value"]["id"] == "2"
    assert [info.label for info in timers.running()] == ["tea"]


async def test_list_timers_shows_time_left_and_recent_ones(
    make_pack_manager: ManagerFactory, call: Call, timers: TimerService, scheduler: ManualScheduler
) -> None:
    timers.start(300, "eggs")
    timers.start(60, "tea")
    timers.start(30, "")
    scheduler.advance(40)
    body = output(await call(make_pack_manager(), "listTimers"))
    running = body["value"]["running"]
    assert [(t["label"], t["remaining_s"]) for t in running] == [("tea", 20), ("eggs", 260)]
    assert [t["status"] for t in body["value"]["recently_ended"]] == ["finished"]


async def test_bad_durations_get_parameter_feedback_the_model_hears(
    manager_for: Callable[[str], ToolManager], timers: TimerService
) -> None:
    manager = manager_for(ASYNC_MODEL)
    responder = WaitingResponder()
    await asyncio.wait_for(manager.handle(set_timer_call(duration="soonish"), responder), WAIT_S)
    [answer] = responder.responses
    body = error(answer)
    assert answer.scheduling is types.FunctionResponseScheduling.WHEN_IDLE
    assert "not a duration" in body["validation"]["duration"]["problems"][0]
    assert "10m" in body["validation"]["duration"]["suggested_values"]
    too_long = WaitingResponder()
    await manager.handle(set_timer_call(duration="25h", call_id="fc-2"), too_long)
    assert "at most 24 hours" in error(too_long.responses[0])["problems"][0]
    assert timers.running() == []


async def test_a_number_is_taken_as_seconds(
    manager_for: Callable[[str], ToolManager], scheduler: ManualScheduler
) -> None:
    answer = await start_timer(manager_for(ASYNC_MODEL), WaitingResponder(), duration=90)
    assert output(answer)["value"]["duration"] == "1 minute 30 seconds"


async def test_too_many_timers(bus: EventBus, scheduler: ManualScheduler) -> None:
    service = TimerService(
        bus, None, wall_clock=lambda: FIXED_NOW, scheduler=scheduler, max_running=1
    )
    service.start(10, "one")
    with pytest.raises(RuntimeError, match="1 timers are running"):
        service.start(10, "two")


async def test_quitting_reports_running_timers(
    manager_for: Callable[[str], ToolManager],
    timers: TimerService,
    scheduler: ManualScheduler,
    notifier: RecordingNotifier,
    events: EventLog,
) -> None:
    await start_timer(manager_for(ASYNC_MODEL), WaitingResponder())
    timers.start(3600, "call mum")
    stopped = timers.shutdown()
    assert [(info.label, info.status) for info in stopped] == [
        ("check the oven", TimerStatus.RUNNING),
        ("call mum", TimerStatus.RUNNING),
    ]
    assert events.one(TimersRunningAtQuit).timers == stopped
    assert stopped[1].as_record() == {
        "id": "2",
        "label": "call mum",
        "duration_s": 3600,
        "started_at": "2026-11-30T09:15:00+01:00",
        "ends_at": "2026-11-30T10:15:00+01:00",
        "status": "running",
    }
    scheduler.advance(7200)
    assert notifier.notifications == []
    with pytest.raises(RuntimeError, match="shut down"):
        timers.start(10, "late")


@pytest.mark.logs_errors("showing the notification for timer")
async def test_a_broken_notifier_does_not_lose_the_announcement(
    bus: EventBus, scheduler: ManualScheduler, events: EventLog
) -> None:
    class BrokenNotifier(RecordingNotifier):
        def notify(self, title: str, body: str) -> None:
            raise RuntimeError("no tray")

    service = TimerService(bus, BrokenNotifier(), wall_clock=lambda: FIXED_NOW, scheduler=scheduler)
    service.start(5, "x")
    scheduler.advance(5)
    assert events.one(TimerFired).timer.status is TimerStatus.FINISHED
    assert len(events.of(AnnouncementPending)) == 1


async def test_loop_scheduler_fires_a_real_timer(
    bus: EventBus, notifier: RecordingNotifier
) -> None:
    fired = asyncio.Event()
    bus.subscribe(TimerFired, lambda event: fired.set())
    service = TimerService(bus, notifier, wall_clock=lambda: FIXED_NOW)
    info = service.start(0.01, "quick")
    await asyncio.wait_for(fired.wait(), WAIT_S)
    assert service.recently_ended()[0].id == info.id
    assert notifier.earcons == [Earcon.TIMER_DONE]


# -- durations ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("600", 600),
        ("90.5", 90.5),
        ("10m", 600),
        ("10 min", 600),
        ("1h30m", 5400),
        ("1 hour and 30 minutes", 5400),
        ("2,5 minutes", 150),
        ("45 seconds", 45),
        ("1h, 2m, 3s", 3723),
        ("01:30:00", 5400),
        ("10:00", 600),
        ("PT10M", 600),
        ("pt1h30m", 5400),
        ("P1D", 86400),
    ],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("soon", "not a duration"),
        ("10 parsecs", "not a duration"),
        ("P", "not a duration"),
        ("", "not a duration"),
        ("0", "at least 1 second"),
        ("0.5s", "at least 1 second"),
        ("P2D", "at most 24 hours"),
    ],
)
def test_bad_durations(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_duration(text)


async def test_a_sibling_call_is_answered_while_the_timer_runs(
    manager_for: Callable[[str], ToolManager], scheduler: ManualScheduler
) -> None:
    manager = manager_for(ASYNC_MODEL)
    responder = WaitingResponder()
    both = types.LiveServerToolCall(
        function_calls=[
            *(set_timer_call().function_calls or ()),
            types.FunctionCall(id="fc-2", name="getDateTime", args={}),
        ]
    )
    task = asyncio.create_task(manager.handle(both, responder), name="timer-and-time")
    try:
        answered = await responder.wait_for(2, timeout_s=1.0)
        assert {response.id for response in answered} == {"fc-1", "fc-2"}
    finally:
        scheduler.advance(600)
        await asyncio.wait_for(task, WAIT_S)
