"""The connection's idle rest (issue 17): closed after a quiet stretch, woken by input.

The real AgentCore and SDK against the simulator; the fifteen minutes pass on a hand-moved
clock (the core's scheduler), everything else in real time.
"""

from __future__ import annotations

import pytest

from sammy_desktop.config import Settings, TalkMode
from sammy_desktop.core.events import (
    AgentState,
    ConnectionResting,
    ConnectionWaking,
    ErrorRaised,
    Reconnected,
    Reconnecting,
    TurnStats,
)
from sammy_desktop.sim import (
    Action,
    OnActivityEnd,
    OnText,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from sammy_desktop.tools.events import AnnouncementPending
from tests.core.conftest import Harness, HarnessFactory, typed_texts
from tests.helpers.audio import speech
from tests.helpers.clock import ManualScheduler

REST_S = 15 * 60


def _scenario(*triggers: OnActivityEnd | OnText) -> Scenario:
    """A short answer to each of ``triggers``, in that order (two spoken turns by default)."""
    answer: list[Action] = [Tone(duration_s=0.1, transcript="Heard you."), TurnComplete()]
    return Scenario(
        turns=[Turn(trigger, answer) for trigger in triggers or (OnActivityEnd(), OnActivityEnd())]
    )


def _state(h: Harness) -> AgentState:
    return h.core.state  # a call, so mypy does not narrow the property between steps


async def _rest(h: Harness, clock: ManualScheduler, *, readies: int = 1, rests: int = 1) -> None:
    """Ready (for the ``readies``-th time) and quiet: fifteen minutes pass, the connection rests."""
    await h.events.wait_state(AgentState.READY, count=readies)
    clock.advance(REST_S)
    await h.events.wait_state(AgentState.RESTING, count=rests)
    await h.events.wait_for(ConnectionResting, count=rests)
    await h.sim.recorder.wait_for(Received.DISCONNECT, count=rests)


async def test_rest_closes_the_connection_and_a_turn_at_the_press_arrives_whole(
    core_harness: HarnessFactory,
) -> None:
    clock = ManualScheduler()
    async with core_harness(_scenario(), core_scheduler=clock) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        # Fourteen minutes of quiet: still connected.
        await h.events.wait_state(AgentState.READY, count=2)
        clock.advance(REST_S - 60)
        assert _state(h) is AgentState.READY
        await _rest(h, clock, readies=2)
        assert h.sim.connection_count == 1
        assert h.core.resumption_handle is not None, "the handle is kept for the wake"
        assert not h.events.of(Reconnecting)
        # Nobody talks: hours pass without a reconnect.
        clock.advance(3 * 3600)
        assert h.sim.connection_count == 1
        assert _state(h) is AgentState.RESTING

        # The person talks right at the press: all of it is captured before setupComplete.
        spoken = speech(0.5)
        await h.say(spoken)
        woke = await h.events.wait_for(ConnectionWaking)
        assert woke.woken_by == "activity_start"
        await h.events.wait_for(TurnStats, count=2)
        setups = h.sim.recorder.events(Received.SETUP)
        assert len(setups) == 2
        assert setups[1].session_id == setups[0].session_id, "resumed, not a new session"
        assert h.sim.recorder.audio_bytes(connection_id=setups[1].connection_id) == spoken
        starts = h.sim.recorder.events(
            Received.ACTIVITY_START, lambda e: e.connection_id == setups[1].connection_id
        )
        assert len(starts) == 1
        reconnected = h.events.one(Reconnected)
        assert reconnected.resumed and reconnected.planned
        assert not h.events.of(Reconnecting), "waking is no 'reconnecting' news"


async def test_a_typed_message_or_a_timer_notice_wakes_it_first(
    core_harness: HarnessFactory,
) -> None:
    clock = ManualScheduler()
    scenario = _scenario(OnActivityEnd(), OnText(contains="hello"), OnText(contains="tea"))
    async with core_harness(scenario, core_scheduler=clock) as h:
        await h.ready()
        await h.say(speech(0.2))  # a turn: the service has given a resumption handle
        await h.events.wait_for(TurnStats)
        await _rest(h, clock, readies=2)
        assert h.core.send_text("hello there")
        await h.events.wait_for(ConnectionWaking)
        await h.events.wait_for(TurnStats, count=2)
        assert "hello there" in typed_texts(h.sim)

        await _rest(h, clock, readies=3, rests=2)
        h.bus.emit(AnnouncementPending(text="Your tea is ready.", source="Timer"))
        await h.events.wait_for(ConnectionWaking, count=2)
        await h.events.wait_for(TurnStats, count=3)
        assert any("Your tea is ready." in text for text in typed_texts(h.sim))
        assert h.sim.connection_count == 3


async def test_zero_minutes_never_rests(core_harness: HarnessFactory) -> None:
    clock = ManualScheduler()
    settings = Settings(idle_rest_minutes=0)
    async with core_harness(_scenario(), core_scheduler=clock, settings=settings) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        await h.events.wait_state(AgentState.READY, count=2)
        clock.advance(24 * 3600)
        assert _state(h) is AgentState.READY
        assert not h.events.of(ConnectionResting)
        assert h.sim.open_connection_count == 1


async def test_changing_the_minutes_applies_to_the_quiet_already_passed(
    core_harness: HarnessFactory,
) -> None:
    clock = ManualScheduler()
    async with core_harness(_scenario(), core_scheduler=clock) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        await h.events.wait_state(AgentState.READY, count=2)
        clock.advance(5 * 60)
        assert _state(h) is AgentState.READY
        await h.core.update_settings(h.settings.model_copy(update={"idle_rest_minutes": 4}))
        clock.advance(0)  # the four minutes have passed already: due now
        await h.events.wait_state(AgentState.RESTING)


@pytest.mark.logs_errors("could not reach the service")
async def test_a_wake_that_cannot_reconnect_says_so(core_harness: HarnessFactory) -> None:
    clock = ManualScheduler()
    async with core_harness(_scenario(), core_scheduler=clock) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        await _rest(h, clock, readies=2)
        await h.sim.stop()
        assert h.core.send_text("hello")
        await h.events.wait_for(Reconnecting)
        error = await h.events.wait_for(ErrorRaised, within_s=15)
        assert "could not reach the service" in error.message


async def test_without_a_resumption_handle_it_stays_connected(
    core_harness: HarnessFactory,
) -> None:
    clock = ManualScheduler()
    async with core_harness(_scenario(), core_scheduler=clock) as h:
        await h.ready()
        assert h.core.resumption_handle is None  # no turn yet: the service gave none
        clock.advance(REST_S)
        assert _state(h) is AgentState.READY
        assert h.sim.open_connection_count == 1
        # After a turn there is one, and the next stretch of quiet rests.
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        await _rest(h, clock, readies=2)


async def test_hands_free_never_rests(core_harness: HarnessFactory) -> None:
    clock = ManualScheduler()
    settings = Settings(talk_mode=TalkMode.HANDS_FREE)
    scenario = _scenario(OnText(contains="hello"))
    async with core_harness(scenario, core_scheduler=clock, settings=settings) as h:
        await h.ready()
        assert h.core.send_text("hello")
        await h.events.wait_for(TurnStats)
        await h.events.wait_state(AgentState.READY, count=2)
        assert h.core.resumption_handle is not None
        clock.advance(REST_S * 4)
        assert _state(h) is AgentState.READY
        assert not h.events.of(ConnectionResting)
