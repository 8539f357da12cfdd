"""Session resumption: handles issued as the service does, valid ones continue, others refused."""

from __future__ import annotations

import pytest
from google.genai import errors, types

from sammy_desktop.sim import (
    INVALID_HANDLE_REASON,
    LiveSimulator,
    OnText,
    OutputTranscription,
    Received,
    Scenario,
    Turn,
    TurnComplete,
)
from tests.sim.live_client import connect, full_config, receive_messages, receive_turn

SCENARIO = Scenario(
    turns=[
        Turn(OnText(), [OutputTranscription(text="one"), TurnComplete()]),
        Turn(OnText(), [OutputTranscription(text="two"), TurnComplete()]),
    ]
)


def _resume(handle: str) -> types.LiveConnectConfig:
    return full_config(session_resumption=types.SessionResumptionConfig(handle=handle))


async def _first_turn_and_handle(sim: LiveSimulator) -> tuple[str | None, str]:
    async with connect(sim) as session:
        await session.send_realtime_input(text="first")
        await receive_turn(session)
        (update,) = await receive_messages(session, 1)
        assert update.session_resumption_update is not None
        assert update.session_resumption_update.resumable is True
        handle = update.session_resumption_update.new_handle
        assert handle
        return session.session_id, handle


async def test_a_valid_handle_continues_the_scenario_and_transcript() -> None:
    async with LiveSimulator(SCENARIO) as sim:
        first_id, handle = await _first_turn_and_handle(sim)
        async with connect(sim, _resume(handle)) as session:
            assert session.session_id == first_id
            await session.send_realtime_input(text="second")
            messages = await receive_turn(session)
        setups = sim.recorder.events(Received.SETUP)

    content = messages[0].server_content
    assert content is not None
    assert content.output_transcription is not None
    assert content.output_transcription.text == "two"
    assert len(sim.sessions) == 1
    assert [(e.role, e.text) for e in sim.sessions[0].transcript] == [
        ("user", "first"),
        ("model", "one"),
        ("user", "second"),
        ("model", "two"),
    ]
    assert setups[1].data["sessionResumption"] == {"handle": handle}
    assert setups[1].session_id == setups[0].session_id
    assert setups[1].connection_id == 2


async def test_a_dropped_connection_resumes_where_it_stopped() -> None:
    async with LiveSimulator(SCENARIO) as sim:
        async with connect(sim) as session:
            await session.send_realtime_input(text="first")
            await receive_turn(session)
            (update,) = await receive_messages(session, 1)
            assert update.session_resumption_update is not None
            handle = update.session_resumption_update.new_handle
            assert handle
            await sim.drop_connections(code=1011)
            with pytest.raises(errors.APIError):
                await receive_turn(session)
        async with connect(sim, _resume(handle)) as session:
            await session.send_realtime_input(text="again")
            messages = await receive_turn(session)
    content = messages[0].server_content
    assert content is not None
    assert content.output_transcription is not None
    assert content.output_transcription.text == "two"


async def test_an_unknown_handle_is_refused() -> None:
    async with LiveSimulator(SCENARIO) as sim:
        with pytest.raises(errors.APIError) as raised:
            async with connect(sim, _resume("no-such-handle")):
                pass
        (refused,) = sim.recorder.events(Received.REFUSED)
    assert raised.value.code == 1007
    assert raised.value.details == INVALID_HANDLE_REASON
    assert refused.data["code"] == 1007
    assert sim.sessions == ()


async def test_an_expired_handle_is_refused() -> None:
    async with LiveSimulator(SCENARIO) as sim:
        _, handle = await _first_turn_and_handle(sim)
        sim.expire_resumption_handles()
        with pytest.raises(errors.APIError) as raised:
            async with connect(sim, _resume(handle)):
                pass
    assert raised.value.code == 1007


async def test_handles_expire_after_their_lifetime() -> None:
    async with LiveSimulator(SCENARIO, handle_ttl_s=0) as sim:
        _, handle = await _first_turn_and_handle(sim)
        with pytest.raises(errors.APIError) as raised:
            async with connect(sim, _resume(handle)):
                pass
    assert raised.value.code == 1007


async def test_no_handles_without_resumption_in_setup() -> None:
    async with LiveSimulator(SCENARIO) as sim:
        async with connect(sim, full_config(session_resumption=None)) as session:
            await session.send_realtime_input(text="first")
            await receive_turn(session)
        await sim.recorder.wait_for(Received.DISCONNECT)
    assert sim.recorder.sent("sessionResumptionUpdate") == []
