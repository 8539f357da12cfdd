"""Test controls: goAway, dropped connections, stalls, injected actions, scripted closes."""

from __future__ import annotations

import asyncio

import pytest
from google.genai import errors

from sammy_desktop.sim import (
    Close,
    ConnectionLimits,
    Delay,
    GoAway,
    LiveSimulator,
    OnAny,
    OnText,
    OnTimer,
    OutputTranscription,
    Received,
    Scenario,
    Stall,
    Turn,
    TurnComplete,
    Usage,
)
from tests.sim.live_client import connect, full_config, receive_messages, receive_turn


async def test_send_go_away_reaches_every_open_session() -> None:
    async with LiveSimulator() as sim, connect(sim) as first, connect(sim) as second:
        assert sim.open_connection_count == 2
        await sim.send_go_away(12.5)
        (away_1,) = await receive_messages(first, 1)
        (away_2,) = await receive_messages(second, 1)
    assert away_1.go_away is not None
    assert away_1.go_away.time_left == "12.5s"
    assert away_2.go_away is not None
    assert away_2.go_away.time_left == "12.5s"


@pytest.mark.parametrize(("code", "expected"), [(1011, 1011), (1000, 1000), (None, 1006)])
async def test_drop_connections_is_seen_by_the_sdk_as_that_code(
    code: int | None, expected: int
) -> None:
    async with LiveSimulator() as sim, connect(sim) as session:
        await sim.drop_connections(code=code)
        with pytest.raises(errors.APIError) as raised:
            await receive_turn(session)
        await sim.recorder.wait_for(Received.DISCONNECT)
    assert raised.value.code == expected
    assert sim.open_connection_count == 0


async def test_connection_count_counts_every_connection() -> None:
    async with LiveSimulator() as sim:
        for _ in range(3):
            async with connect(sim):
                pass
        await sim.recorder.wait_for(Received.DISCONNECT, count=3)
        assert sim.connection_count == 3
        assert len(sim.sessions) == 3


async def test_inject_sends_any_action_now() -> None:
    async with LiveSimulator() as sim, connect(sim) as session:
        await sim.inject(Usage(prompt_tokens=1, response_tokens=2))
        await sim.inject(OutputTranscription(text="injected"))
        await sim.inject(TurnComplete())
        messages = await receive_turn(session)
    assert messages[0].usage_metadata is not None
    assert messages[0].usage_metadata.total_token_count == 3
    assert messages[1].server_content is not None
    assert messages[1].server_content.output_transcription is not None
    assert messages[1].server_content.output_transcription.text == "injected"
    assert messages[2].server_content is not None
    assert messages[2].server_content.turn_complete


async def test_a_stalled_simulator_withholds_setup_complete_until_released() -> None:
    async with LiveSimulator() as sim:
        sim.set_stalled(True)
        assert sim.stalled
        connecting = asyncio.create_task(_connect_and_report(sim))
        await sim.recorder.wait_for(Received.SETUP)
        assert not connecting.done()
        assert sim.recorder.sent("setupComplete") == []
        sim.set_stalled(False)
        session_id = await asyncio.wait_for(connecting, 5)
    assert session_id == "sim-session-1"


async def _connect_and_report(sim: LiveSimulator) -> str | None:
    async with connect(sim) as session:
        return session.session_id


async def test_a_stall_holds_answers_but_still_records_input() -> None:
    scenario = Scenario(turns=[Turn(OnText(), [OutputTranscription(text="late"), TurnComplete()])])
    async with LiveSimulator(scenario) as sim, connect(sim) as session:
        sim.set_stalled(True)
        await session.send_realtime_input(text="hello?")
        await sim.recorder.wait_for(Received.TEXT)
        receiving = asyncio.create_task(receive_turn(session))
        # The turn fired (position moved) but nothing goes out during the stall.
        assert sim.sessions[0].position == 1
        assert sim.recorder.sent("serverContent") == []
        # Test controls still get through.
        await sim.send_go_away(5)
        sim.set_stalled(False)
        messages = await receiving
    assert messages[0].go_away is not None
    texts = [
        m.server_content.output_transcription.text
        for m in messages
        if m.server_content and m.server_content.output_transcription
    ]
    assert texts == ["late"]


async def test_a_stall_action_stops_answering_for_good() -> None:
    scenario = Scenario(
        turns=[
            Turn(OnText(), [OutputTranscription(text="first"), Stall(), TurnComplete()]),
            Turn(OnText(), [TurnComplete()]),
        ]
    )
    async with LiveSimulator(scenario) as sim, connect(sim) as session:
        await session.send_realtime_input(text="one")
        (first,) = await receive_messages(session, 1)
        await session.send_realtime_input(text="two")
        await sim.recorder.wait_for(Received.TEXT, count=2)
        # A test control gets through the stall; had anything else been sent after
        # "first" (the stalled turnComplete, a second turn), it would arrive before it.
        await sim.inject(GoAway(time_left_s=1))
        (marker,) = await receive_messages(session, 1)
    assert marker.go_away is not None
    assert first.server_content is not None
    assert sim.sessions[0].position == 1  # the second turn never fired
    assert sim.recorder.sent("serverContent")[-1].data == {
        "serverContent": {"outputTranscription": {"text": "first"}}
    }


@pytest.mark.parametrize(("code", "expected"), [(1011, 1011), (1008, 1008), (None, 1006)])
async def test_a_scripted_close_is_seen_with_its_code(code: int | None, expected: int) -> None:
    scenario = Scenario(turns=[Turn(OnText(), [Close(code=code, reason="scripted")])])
    async with LiveSimulator(scenario) as sim, connect(sim) as session:
        await session.send_realtime_input(text="x")
        with pytest.raises(errors.APIError) as raised:
            await receive_turn(session)
    assert raised.value.code == expected
    if code is not None:
        assert raised.value.details == "scripted"


async def test_timers_fire_after_the_previous_turn_and_any_of_takes_the_first() -> None:
    scenario = Scenario(
        turns=[
            Turn(OnTimer(after_s=0), [OutputTranscription(text="welcome"), TurnComplete()]),
            Turn(
                OnAny((OnText(), OnTimer(after_s=0.05))),
                [Delay(seconds=0.01), OutputTranscription(text="nudge"), TurnComplete()],
            ),
            Turn(OnAny((OnText(), OnTimer(after_s=30))), [OutputTranscription(text="typed")]),
        ]
    )
    no_resumption = full_config(session_resumption=None)
    async with LiveSimulator(scenario) as sim, connect(sim, no_resumption) as session:
        welcome = await receive_turn(session)
        nudge = await receive_turn(session)
        await session.send_realtime_input(text="hi")
        (typed,) = await receive_messages(session, 1)
    assert [_text(m) for m in welcome] == ["welcome", None]
    assert [_text(m) for m in nudge] == ["nudge", None]
    assert _text(typed) == "typed"
    assert sim.sessions[0].position == 3


def _text(message: object) -> str | None:
    content = getattr(message, "server_content", None)
    if content is None or content.output_transcription is None:
        return None
    return str(content.output_transcription.text)


async def test_connections_get_go_away_then_close_at_the_end_of_their_lifetime() -> None:
    limits = ConnectionLimits(lifetime_s=0.3, go_away_notice_s=0.2, close_code=1011)
    async with LiveSimulator(limits=limits) as sim, connect(sim) as session:
        (away,) = await receive_messages(session, 1)
        with pytest.raises(errors.APIError) as raised:
            await receive_turn(session)
    assert away.go_away is not None
    assert away.go_away.time_left == "0.2s"
    assert raised.value.code == 1011
    assert raised.value.details == limits.close_reason
