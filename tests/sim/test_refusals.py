"""What the simulator refuses, and how: the same close codes the service uses."""

from __future__ import annotations

import json

import pytest
from google import genai
from google.genai import errors, types
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosedError, InvalidStatus

from sammy_desktop.sim import INVALID_KEY_REASON, LiveSimulator, Received
from tests.sim.live_client import MODEL, connect, receive_turn

PATH = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"


async def test_a_wrong_api_key_is_closed_with_1008() -> None:
    async with LiveSimulator(api_keys=("test-key",)) as sim:
        with pytest.raises(errors.APIError) as raised:
            async with connect(sim, api_key="wrong-key"):
                pass
        (refused,) = await sim.recorder.wait_for(Received.REFUSED)
    assert raised.value.code == 1008
    assert raised.value.details == INVALID_KEY_REASON
    assert refused.data == {"code": 1008, "reason": INVALID_KEY_REASON}
    assert sim.recorder.count(Received.SETUP) == 0
    assert sim.connection_count == 1
    assert sim.open_connection_count == 0


async def test_any_key_is_accepted_when_no_keys_are_configured() -> None:
    async with LiveSimulator() as sim, connect(sim, api_key="whatever") as session:
        assert session.session_id


async def test_ephemeral_tokens_use_the_constrained_method_and_token_header() -> None:
    async with LiveSimulator(api_keys=("auth_tokens/abc",)) as sim:
        client = genai.Client(
            api_key="auth_tokens/abc", http_options=sim.http_options(api_version="v1alpha")
        )
        with pytest.warns(errors.ExperimentalWarning):
            async with client.aio.live.connect(model=MODEL) as session:
                assert session.session_id
    path = sim.recorder.events(Received.CONNECT)[0].data["path"]
    assert path.endswith(".GenerativeService.BidiGenerateContentConstrained")


async def test_an_unknown_path_gets_http_404() -> None:
    async with LiveSimulator() as sim:
        with pytest.raises(InvalidStatus) as raised:
            async with ws_connect(f"wss://127.0.0.1:{sim.port}/ws/other", ssl=sim.ssl_context):
                pass
    assert raised.value.response.status_code == 404
    assert sim.connection_count == 0


async def _raw_session(sim: LiveSimulator, first_frame: str) -> ConnectionClosedError:
    async with ws_connect(
        f"wss://127.0.0.1:{sim.port}{PATH}",
        ssl=sim.ssl_context,
        additional_headers={"x-goog-api-key": "k"},
    ) as websocket:
        await websocket.send(first_frame)
        with pytest.raises(ConnectionClosedError) as raised:
            await websocket.recv()
    return raised.value


async def test_a_first_frame_that_is_not_setup_is_closed_with_1007() -> None:
    async with LiveSimulator() as sim:
        closed = await _raw_session(sim, json.dumps({"realtime_input": {"text": "hi"}}))
    assert closed.rcvd is not None
    assert closed.rcvd.code == 1007
    assert "setup" in closed.rcvd.reason


async def test_invalid_json_is_closed_with_1007() -> None:
    async with LiveSimulator() as sim:
        closed = await _raw_session(sim, "{not json")
    assert closed.rcvd is not None
    assert closed.rcvd.code == 1007
    assert "Invalid JSON" in closed.rcvd.reason


async def test_an_unknown_message_mid_session_closes_with_1007_and_the_sdk_raises() -> None:
    async with LiveSimulator() as sim, connect(sim) as session:
        # A frame the SDK itself cannot produce, sent through its websocket.
        await session._ws.send(json.dumps({"bogus": {}}))
        with pytest.raises(errors.APIError) as raised:
            await receive_turn(session)
    assert raised.value.code == 1007
    assert "bogus" in str(raised.value.details)
    (refused,) = sim.recorder.events(Received.REFUSED)
    assert refused.data["code"] == 1007


async def test_a_tool_response_without_id_is_refused() -> None:
    async with LiveSimulator() as sim, connect(sim) as session:
        await session._ws.send(
            json.dumps({"tool_response": {"functionResponses": [{"name": "x", "response": {}}]}})
        )
        with pytest.raises(errors.APIError) as raised:
            await receive_turn(session)
    assert raised.value.code == 1007
    assert "id is required" in str(raised.value.details)


async def test_the_sdk_cannot_send_a_tool_response_without_id() -> None:
    # Documents the SDK's own guard, which the simulator's check mirrors.
    async with LiveSimulator() as sim, connect(sim) as session:
        with pytest.raises(ValueError, match="must have an `id`"):
            await session.send_tool_response(
                function_responses=types.FunctionResponse(name="x", response={})
            )
