"""The manager on the wire: the real google-genai client, a TLS websocket on loopback.

A few lines of server stand in for the Live API here (the project's full simulator lives in
``sammy_desktop.sim``): it records the setup frame, sends one ``toolCall`` with a good call,
a call with bad arguments and a call to a tool that does not exist, and records the
``tool_response`` the SDK's ``send_tool_response`` puts on the wire.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from typing import Any

import trustme
from google import genai
from google.genai import types
from websockets.asyncio.server import ServerConnection, serve

from sammy_desktop.tools import ToolManager
from tests.tools.conftest import ManagerFactory

WAIT_S = 10.0
MODEL = "gemini-2.5-flash-native-audio-preview-12-2025"

TOOL_CALL = {
    "toolCall": {
        "functionCalls": [
            {"id": "fc-1", "name": "getCurrentContext", "args": {"reason": "time"}},
            {"id": "fc-2", "name": "escalate", "args": {"reason": "help", "category": "x"}},
            {"id": "fc-3", "name": "launchRocket", "args": {}},
        ]
    }
}


async def run_session(manager: ToolManager) -> tuple[dict[str, Any], dict[str, Any]]:
    """Connect the real client to a one-shot server; return (setup, tool_response) frames."""
    ca = trustme.CA()
    server_ssl = ca.issue_cert("127.0.0.1")
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ssl.configure_cert(server_context)
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)

    frames: dict[str, dict[str, Any]] = {}

    async def live_api(connection: ServerConnection) -> None:
        frames["setup"] = json.loads(await connection.recv())
        await connection.send(json.dumps({"setupComplete": {"sessionId": "s-1"}}))
        await connection.send(json.dumps(TOOL_CALL))
        frames["tool_response"] = json.loads(await connection.recv())
        await connection.send(json.dumps({"serverContent": {"turnComplete": True}}))
        await connection.wait_closed()

    async with serve(live_api, "127.0.0.1", 0, ssl=server_context) as server:
        port = server.sockets[0].getsockname()[1]
        client = genai.Client(
            api_key="test-key",
            http_options=types.HttpOptions(
                base_url=f"https://127.0.0.1:{port}",
                async_client_args={"ssl": client_context},
            ),
        )
        config = types.LiveConnectConfig(
            response_modalities=[types.Modality.AUDIO], tools=[*manager.declarations(MODEL)]
        )
        async with client.aio.live.connect(model=MODEL, config=config) as session:

            async def respond(responses: list[types.FunctionResponse]) -> None:
                await session.send_tool_response(function_responses=responses)

            async for message in session.receive():
                if message.tool_call is not None:
                    await manager.handle(message.tool_call, respond)
    return frames["setup"], frames["tool_response"]


async def test_real_sdk_round_trip(make_manager: ManagerFactory) -> None:
    setup, tool_response = await asyncio.wait_for(run_session(make_manager()), WAIT_S)

    declarations = setup["setup"]["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declarations] == ["endSession", "getCurrentContext", "escalate"]
    assert {d["behavior"] for d in declarations} == {"NON_BLOCKING", "BLOCKING"}

    answers = {a["id"]: a for a in tool_response["tool_response"]["functionResponses"]}
    assert set(answers) == {"fc-1", "fc-2", "fc-3"}
    context = answers["fc-1"]
    assert context["name"] == "getCurrentContext"
    assert context["scheduling"] == "WHEN_IDLE"
    assert context["response"]["output"]["value"]["time_zone"] == "CET (UTC+01:00)"
    validation = answers["fc-2"]["response"]["error"]["validation"]
    assert "technical_support" in validation["category"]["allowed_values"]
    assert "no tool named 'launchRocket'" in answers["fc-3"]["response"]["error"]["problems"][0]
    assert answers["fc-3"]["scheduling"] == "SILENT"
