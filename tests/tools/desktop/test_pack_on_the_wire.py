"""The pack against the Live simulator, spoken to by the real google-genai client over TLS.

The timer's one answer travels on the wire exactly as the service would get it, and leaves
no call open (a call kept open for the timer's life would keep the session unresumable:
docs/live-service.md R9); Google Search is in the setup frame only when the person switched
it on.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from google import genai
from google.genai import live, types

from sammy_desktop.config import Settings
from sammy_desktop.core.endpoint import DEFAULT_API_VERSION
from sammy_desktop.sim import (
    CallTools,
    FunctionCallSpec,
    LiveSimulator,
    OnText,
    Received,
    Scenario,
    Turn,
)
from sammy_desktop.tools import ToolManager
from sammy_desktop.tools.desktop import search_tools
from tests.helpers.clock import ManualScheduler
from tests.tools.conftest import ManagerFactory
from tests.tools.desktop.conftest import ASYNC_MODEL
from tests.tools.desktop.fakes import RecordingNotifier

WAIT_S = 10.0

TIMER_SCENARIO = Scenario(
    turns=[
        Turn(
            OnText(),
            [
                CallTools(
                    calls=(
                        FunctionCallSpec(
                            id="fc-1",
                            name="setTimer",
                            args={"duration": "10m", "label": "check the oven"},
                        ),
                    )
                )
            ],
        )
    ]
)


@contextlib.asynccontextmanager
async def answering_session(
    sim: LiveSimulator, manager: ToolManager, settings: Settings
) -> AsyncIterator[live.AsyncSession]:
    """A real SDK session whose tool calls the manager answers, as the core does."""
    client = genai.Client(api_key="test-key", http_options=sim.http_options(DEFAULT_API_VERSION))
    config = types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        tools=[*manager.declarations(ASYNC_MODEL), *search_tools(settings)],
    )
    calls: set[asyncio.Task[None]] = set()

    async with client.aio.live.connect(model=ASYNC_MODEL, config=config) as session:

        async def respond(responses: list[types.FunctionResponse]) -> None:
            await session.send_tool_response(function_responses=responses)

        async def receive_forever() -> None:
            while True:
                async for message in session.receive():
                    if message.tool_call is not None:
                        # Its own task, so the receive loop keeps reading (as the core does).
                        task = asyncio.create_task(
                            manager.handle(message.tool_call, respond), name="tool-call"
                        )
                        calls.add(task)
                        task.add_done_callback(calls.discard)

        receiver = asyncio.create_task(receive_forever(), name="receive")
        try:
            yield session
        finally:
            for task in (receiver, *calls):
                task.cancel()
            await asyncio.gather(receiver, *calls, return_exceptions=True)


def responses(sim: LiveSimulator) -> list[dict[str, Any]]:
    return [
        response
        for event in sim.recorder.events(Received.TOOL_RESPONSE)
        for response in event.data["function_responses"]
    ]


async def test_timer_answers_once_on_the_wire_and_leaves_nothing_open(
    make_pack_manager: ManagerFactory,
    scheduler: ManualScheduler,
    notifier: RecordingNotifier,
    settings: Settings,
) -> None:
    manager = make_pack_manager()
    async with (
        LiveSimulator(TIMER_SCENARIO, api_keys=("test-key",)) as sim,
        answering_session(sim, manager, settings) as session,
    ):
        await session.send_client_content(
            turns=types.Content(
                role="user", parts=[types.Part(text="remind me in ten minutes to check the oven")]
            ),
            turn_complete=True,
        )
        await sim.recorder.wait_for(Received.TOOL_RESPONSE, 1, timeout=WAIT_S)
        assert sim.sessions[0].pending_calls == {}  # answered and closed
        scheduler.advance(600)
        assert len(notifier.notifications) == 1

    [first] = responses(sim)
    assert first["id"] == "fc-1"
    assert not first.get("will_continue")
    assert first["scheduling"] == "WHEN_IDLE"
    assert first["response"]["output"]["value"]["ends_at"] == "09:25"


def declared_tools(sim: LiveSimulator) -> list[dict[str, Any]]:
    (setup,) = sim.recorder.events(Received.SETUP)
    tools: list[dict[str, Any]] = setup.data["tools"]
    return tools


@pytest.mark.parametrize("switched_on", [False, True])
async def test_google_search_is_in_the_setup_only_when_switched_on(
    make_pack_manager: ManagerFactory, settings: Settings, switched_on: bool
) -> None:
    settings.google_search = switched_on
    manager = make_pack_manager()
    async with (
        LiveSimulator(api_keys=("test-key",)) as sim,
        answering_session(sim, manager, settings),
    ):
        await sim.recorder.wait_for(Received.SETUP, timeout=WAIT_S)

    tools = declared_tools(sim)
    assert ({"googleSearch": {}} in tools) is switched_on
    assert all("googleSearch" not in tool or tool == {"googleSearch": {}} for tool in tools)
    names = sim.sessions[0].function_names
    assert {"getDateTime", "setTimer", "addNote", "openUrl"} <= set(names)
    declarations = next(
        tool["functionDeclarations"] for tool in tools if "functionDeclarations" in tool
    )
    behaviors = {d["name"]: d.get("behavior") for d in declarations}
    assert behaviors["setTimer"] == "NON_BLOCKING"
    assert behaviors["getDateTime"] == "BLOCKING"
