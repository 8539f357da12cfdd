"""The response watchdog alone, on a clock the test moves: no real waiting."""

from __future__ import annotations

from dataclasses import dataclass, field

from sammy_desktop.core.events import NoResponse
from sammy_desktop.core.watchdog import ResponseWatchdog, WatchdogPolicy
from sammy_desktop.eventbus import EventBus
from tests.helpers.clock import ManualScheduler
from tests.helpers.events import EventLog


@dataclass
class Owner:
    waiting: bool = True
    nudges: list[str] = field(default_factory=list)
    gave_up: int = 0


def make(owner: Owner, scheduler: ManualScheduler, bus: EventBus) -> ResponseWatchdog:
    return ResponseWatchdog(
        WatchdogPolicy(no_response_s=10, nudge_text="please answer"),
        bus,
        turn_id=lambda: 7,
        still_waiting=lambda: owner.waiting,
        nudge=owner.nudges.append,
        give_up=lambda: setattr(owner, "gave_up", owner.gave_up + 1),
        scheduler=scheduler,
    )


def test_silence_nudges_once_then_gives_up() -> None:
    bus, scheduler, owner = EventBus(), ManualScheduler(), Owner()
    events = EventLog(bus)
    watchdog = make(owner, scheduler, bus)
    watchdog.arm()
    scheduler.advance(9.9)
    assert events.of(NoResponse) == []
    scheduler.advance(0.1)
    assert events.of(NoResponse) == [NoResponse(turn_id=7, waited_s=10, nudged=True, gave_up=False)]
    assert owner.nudges == ["please answer"]
    assert watchdog.armed  # re-armed for the second silence
    scheduler.advance(10)
    assert events.of(NoResponse)[-1] == NoResponse(
        turn_id=7, waited_s=20, nudged=True, gave_up=True
    )
    assert owner.gave_up == 1
    assert not watchdog.armed


def test_an_answer_disarms_it_and_a_new_turn_gets_its_own_nudge() -> None:
    bus, scheduler, owner = EventBus(), ManualScheduler(), Owner()
    events = EventLog(bus)
    watchdog = make(owner, scheduler, bus)
    watchdog.arm()
    scheduler.advance(5)
    watchdog.cancel()  # the answer began
    scheduler.advance(60)
    assert events.of(NoResponse) == []
    assert scheduler.pending == []

    watchdog.arm()
    scheduler.advance(10)
    assert len(owner.nudges) == 1
    watchdog.new_turn()
    watchdog.arm()
    scheduler.advance(10)
    assert len(owner.nudges) == 2  # nudged again, not given up
    assert owner.gave_up == 0


def test_firing_when_no_answer_is_due_does_nothing() -> None:
    bus, scheduler, owner = EventBus(), ManualScheduler(), Owner(waiting=False)
    events = EventLog(bus)
    watchdog = make(owner, scheduler, bus)
    watchdog.arm()
    scheduler.advance(30)
    assert events.of(NoResponse) == []
    assert owner.nudges == [] and owner.gave_up == 0
