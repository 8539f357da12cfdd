"""The tests' own MCP server (streamable HTTP, and stdio where a restart must start it again):
timeouts and cancellation reach the server, errors go back to the model, nested schemas are
declared, a destructive tool waits for a yes, a crash is answered and recovered, and a
change of tools reaches the conversation."""

from __future__ import annotations

import sys
from typing import Any

from sammy_desktop.core.events import Reconnected, ToolsChanged, TurnStats
from sammy_desktop.sim import (
    CallTools,
    CancelToolCalls,
    FunctionCallSpec,
    OnActivityEnd,
    OnToolResponse,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from sammy_desktop.tools.events import (
    ToolCallCancelled,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallStarted,
)
from sammy_desktop.tools.mcp import McpServerStatusChanged, ServerStatus
from sammy_desktop.tools.results import ToolErrorKind
from tests.core.conftest import Harness, HarnessFactory
from tests.helpers.audio import speech
from tests.helpers.mcp_servers import (  # noqa: F401 - fixtures
    REPO_ROOT,
    TEST_SERVER_MODULE,
    McpHttpServer,
    mcp_http_server_fixture,
)
from tests.mcp.conftest import McpFactory

ANSWER = Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="Done."), TurnComplete()])


def _calling(tool: str, **args: Any) -> Scenario:
    call = CallTools(calls=(FunctionCallSpec(name=f"test__{tool}", args=args),))
    return Scenario(turns=[Turn(OnActivityEnd(), [call]), ANSWER])


def _http(server: McpHttpServer, **extra: Any) -> dict[str, Any]:
    # The core harness has no one to ask (the window's sheet: tests/ui), so every question
    # is a no: these servers are trusted with everything, but where a test says otherwise.
    return {"test": {"url": server.url, "confirm": "never", **extra}}


def _stdio(events: str, **extra: Any) -> dict[str, Any]:
    return {
        "test": {
            "command": sys.executable,
            "args": ["-m", TEST_SERVER_MODULE, "--stdio", "--events", events],
            "cwd": str(REPO_ROOT),
            "confirm": "never",
            **extra,
        }
    }


def _response(h: Harness) -> dict[str, Any]:
    [event] = h.sim.recorder.events(Received.TOOL_RESPONSE)
    [response] = event.data["function_responses"]
    return dict(response["response"])


async def test_a_call_past_its_timeout_is_cancelled_at_the_server(
    core_harness: HarnessFactory, mcp_servers: McpFactory, mcp_http_server: McpHttpServer
) -> None:
    scenario = _calling("slow_echo", text="late", seconds=30)
    async with core_harness(scenario) as h, mcp_servers(h, _http(mcp_http_server, timeout=1)):
        await h.ready()
        await h.say(speech(0.2))
        failed = await h.events.wait_for(ToolCallFailed, within_s=10)
        assert failed.kind is ToolErrorKind.TIMEOUT
        await mcp_http_server.wait_for_event("cancelled slow_echo late", within_s=10)
        await h.events.wait_for(TurnStats, within_s=10)
        assert "did not finish within 1 seconds" in str(_response(h))


async def test_the_services_cancellation_cancels_the_call_at_the_server(
    core_harness: HarnessFactory, mcp_servers: McpFactory, mcp_http_server: McpHttpServer
) -> None:
    scenario = _calling("slow_echo", text="unwanted", seconds=30)
    async with core_harness(scenario) as h, mcp_servers(h, _http(mcp_http_server)):
        await h.ready()
        await h.say(speech(0.2))
        started = await h.events.wait_for(ToolCallStarted, within_s=10)
        await mcp_http_server.wait_for_event("started slow_echo unwanted", within_s=10)
        await h.sim.inject(CancelToolCalls(ids=(started.call_id,)))
        await h.events.wait_for(ToolCallCancelled, within_s=10)
        await mcp_http_server.wait_for_event("cancelled slow_echo unwanted", within_s=10)
        # A cancelled call is not answered (T5).
        assert h.sim.recorder.events(Received.TOOL_RESPONSE) == []


async def test_an_error_result_goes_back_to_the_model_with_the_servers_words(
    core_harness: HarnessFactory, mcp_servers: McpFactory, mcp_http_server: McpHttpServer
) -> None:
    scenario = _calling("fail", reason="the printer is out of paper")
    async with core_harness(scenario) as h, mcp_servers(h, _http(mcp_http_server)):
        await h.ready()
        await h.say(speech(0.2))
        failed = await h.events.wait_for(ToolCallFailed, within_s=10)
        assert failed.kind is ToolErrorKind.TOOL_FAILURE
        await h.events.wait_for(TurnStats, within_s=10)
        error = _response(h)["error"]
        assert "the printer is out of paper" in error["problems"][0]


async def test_a_nested_schema_with_an_enum_is_declared_and_called(
    core_harness: HarnessFactory, mcp_servers: McpFactory, mcp_http_server: McpHttpServer
) -> None:
    trip = {
        "mode": "train",
        "destination": {"city": "Lyon", "country": "France"},
        "travellers": ["Ana"],
        "nights": 2.0,  # a whole number as the model may send it
    }
    async with (
        core_harness(_calling("plan_trip", trip=trip)) as h,
        mcp_servers(h, _http(mcp_http_server)),
    ):
        await h.ready()
        [setup] = h.sim.recorder.events(Received.SETUP)
        declarations = {
            fd["name"]: fd
            for tool in setup.data["tools"]
            for fd in tool.get("functionDeclarations", tool.get("function_declarations", []))
        }
        parameters = declarations["test__plan_trip"]["parameters"]["properties"]["trip"]
        assert parameters["properties"]["mode"]["enum"] == ["train", "car", "plane"]
        assert parameters["properties"]["destination"]["type"] == "OBJECT"
        assert parameters["properties"]["travellers"]["items"]["type"] == "STRING"
        await h.say(speech(0.2))
        await h.events.wait_for(ToolCallFinished, within_s=10)
        await h.events.wait_for(TurnStats, within_s=10)
        value = _response(h)["output"]["value"]["content"]
        assert "Lyon" in value["summary"]


async def test_a_destructive_tool_waits_for_a_yes_and_no_answer_means_no(
    core_harness: HarnessFactory, mcp_servers: McpFactory, mcp_http_server: McpHttpServer
) -> None:
    # No one answers the question here: no answer is no.
    async with (
        core_harness(_calling("delete_file", path="/tmp/x")) as h,
        mcp_servers(h, _http(mcp_http_server, confirm="unless_read_only")),
    ):
        assert h.tools.get("test__delete_file").requires_confirmation
        assert not h.tools.get("test__read_only_lookup").requires_confirmation
        await h.ready()
        await h.say(speech(0.2))
        failed = await h.events.wait_for(ToolCallFailed, within_s=10)
        assert failed.kind is ToolErrorKind.DENIED
        assert not any("delete_file" in line for line in mcp_http_server.events())


async def test_a_server_that_crashes_mid_call_is_answered_restarted_and_works_again(
    core_harness: HarnessFactory, mcp_servers: McpFactory, tmp_path: Any
) -> None:
    events = tmp_path / "stdio-events"
    scenario = _calling("crash", after_s=0.2)
    async with core_harness(scenario) as h, mcp_servers(h, _stdio(str(events))) as running:
        await h.ready()
        await h.say(speech(0.2))
        failed = await h.events.wait_for(ToolCallFailed, within_s=10)
        assert failed.kind is ToolErrorKind.HANDLER_ERROR
        await h.events.wait_for(TurnStats, within_s=10)
        assert "stopped while 'crash' was running" in str(_response(h))
        await h.events.wait_for(
            McpServerStatusChanged, lambda e: e.status is ServerStatus.READY, count=2, within_s=30
        )
        server = running.server("test")
        assert server is not None
        result = await server.call("read_only_lookup", {"key": "colour"})
        assert result.ok


async def test_a_change_of_tools_reaches_the_conversation(
    core_harness: HarnessFactory, mcp_servers: McpFactory, mcp_http_server: McpHttpServer
) -> None:
    scenario = _calling("add_tool", name="water_plants")
    async with core_harness(scenario) as h, mcp_servers(h, _http(mcp_http_server)):
        await h.ready()
        await h.say(speech(0.2))
        changed = await h.events.wait_for(
            ToolsChanged, lambda e: "test__water_plants" in e.enabled, within_s=20
        )
        assert changed.source == "MCP server test"
        await h.events.wait_for(Reconnected, within_s=20)
        setups = h.sim.recorder.events(Received.SETUP)
        names = [
            fd["name"]
            for tool in setups[-1].data["tools"]
            for fd in tool.get("functionDeclarations", tool.get("function_declarations", []))
        ]
        assert "test__water_plants" in names
