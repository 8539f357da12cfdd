"""The official mcp-server-time over stdio: declared, called through the simulator, real time."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sammy_desktop.config import Settings
from sammy_desktop.core.events import AgentState, Reconnected, ToolsChanged, TurnStats
from sammy_desktop.sim import (
    CallTools,
    FunctionCallSpec,
    OnActivityEnd,
    OnToolResponse,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from sammy_desktop.tools.events import ToolCallFinished
from tests.core.conftest import Harness, HarnessFactory
from tests.helpers.audio import speech
from tests.mcp.conftest import TIME_SERVER, McpFactory

ASK_TIME = Scenario(
    turns=[
        Turn(
            OnActivityEnd(),
            [
                CallTools(
                    calls=(
                        FunctionCallSpec(
                            name="time__get_current_time", args={"timezone": "Europe/Paris"}
                        ),
                    )
                )
            ],
        ),
        Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="It is noon."), TurnComplete()]),
    ]
)


def _declared(h: Harness) -> dict[str, Any]:
    [setup] = h.sim.recorder.events(Received.SETUP)[-1:]
    tools = setup.data["tools"]
    return {
        fd["name"]: fd
        for tool in tools
        for fd in tool.get("functionDeclarations", tool.get("function_declarations", []))
    }


async def test_its_tools_are_declared_with_their_required_arguments(
    core_harness: HarnessFactory, mcp_servers: McpFactory
) -> None:
    async with core_harness(ASK_TIME) as h, mcp_servers(h, {"time": TIME_SERVER}):
        await h.ready()
        declared = _declared(h)
        assert {"time__get_current_time", "time__convert_time"} <= declared.keys()
        current = declared["time__get_current_time"]["parameters"]
        assert current["required"] == ["timezone"]
        assert current["properties"]["timezone"]["type"] == "STRING"
        convert = declared["time__convert_time"]["parameters"]
        assert sorted(convert["required"]) == ["source_timezone", "target_timezone", "time"]


async def test_a_call_from_the_model_is_answered_with_the_real_time(
    core_harness: HarnessFactory, mcp_servers: McpFactory
) -> None:
    async with core_harness(ASK_TIME) as h, mcp_servers(h, {"time": TIME_SERVER}):
        await h.ready()
        await h.say(speech(0.2))
        finished = await h.events.wait_for(ToolCallFinished, within_s=20)
        assert finished.name == "time__get_current_time"
        await h.events.wait_for(TurnStats, within_s=20)
        [event] = h.sim.recorder.events(Received.TOOL_RESPONSE)
        [response] = event.data["function_responses"]
        value = response["response"]["output"]["value"]["content"]
        assert value["timezone"] == "Europe/Paris"
        told = datetime.fromisoformat(value["datetime"])
        now = datetime.now(ZoneInfo("Europe/Paris"))
        assert abs((now - told).total_seconds()) < 120
        assert re.fullmatch(r"[A-Z][a-z]+day", value["day_of_week"])


async def test_servers_ready_after_the_conversation_started_join_it(
    core_harness: HarnessFactory, mcp_servers: McpFactory
) -> None:
    async with core_harness(ASK_TIME, settings=Settings()) as h:
        await h.ready()
        assert "time__get_current_time" not in _declared(h)
        async with mcp_servers(h, {"time": TIME_SERVER}):
            # The new set is declared by a quiet, resuming reconnect at a quiet moment.
            changed = await h.events.wait_for(ToolsChanged, within_s=20)
            assert changed.source == "MCP server time"
            assert "time__get_current_time" in changed.enabled
            reconnected = await h.events.wait_for(Reconnected, within_s=20)
            assert reconnected.planned  # asked for, not a lost connection
            assert "time__get_current_time" in _declared(h)
            assert h.core.state is AgentState.READY
