"""The tool system under abuse (issue 18): calls the model, or a prompt injected into it,
makes to break the one-answer-per-call promise, the person's confirmation, or the app."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from google.genai import types
from pydantic import BaseModel, Field

from sammy_desktop.tools import (
    MAX_CALLS_PER_MESSAGE,
    ConfirmationRequested,
    ToolContext,
    ToolResult,
    tool,
)
from tests.helpers.events import EventLog
from tests.tools.conftest import ManagerFactory
from tests.tools.fakes import RecordingResponder, ScriptedConfirmer


class Nothing(BaseModel):
    pass


class Sized(BaseModel):
    size: int = Field(description="How many characters to answer with.")


class Text(BaseModel):
    text: str


def message(*calls: tuple[str | None, str, dict[str, Any]]) -> types.LiveServerToolCall:
    return types.LiveServerToolCall(
        function_calls=[
            types.FunctionCall(id=call_id, name=name, args=args) for call_id, name, args in calls
        ]
    )


def wire_size(batch: list[types.FunctionResponse]) -> int:
    """The JSON of one tool response message, as the SDK would send it."""
    frame = types.LiveClientToolResponse(function_responses=batch)
    return len(frame.model_dump_json(exclude_none=True, by_alias=True))


class Ran:
    """Counts the runs of the tools below."""

    def __init__(self) -> None:
        self.names: list[str] = []


@pytest.fixture
def ran() -> Ran:
    return Ran()


@pytest.fixture
def tools(ran: Ran) -> list[Any]:
    @tool(name="openLink", description="Open a link.", confirms_in_handler=True)
    async def open_link(args: Nothing, context: ToolContext) -> Nothing:
        if not await context.confirm("Open wikipedia.org?", target="wikipedia.org"):
            return ToolResult.failure("denied")  # type: ignore[return-value]
        ran.names.append("openLink")
        return Nothing()

    @tool(name="readClipboard", description="Read the clipboard.", confirms_in_handler=True)
    async def read_clipboard(args: Nothing, context: ToolContext) -> Text:
        if not await context.confirm("Read your clipboard?"):
            return ToolResult.failure("denied")  # type: ignore[return-value]
        ran.names.append("readClipboard")
        return Text(text="hunter2")

    @tool(name="count", description="Count a run.")
    async def count(args: Nothing, context: ToolContext) -> Nothing:
        ran.names.append("count")
        return Nothing()

    @tool(name="blob", description="Answer with a long text.")
    async def blob(args: Sized, context: ToolContext) -> Text:
        ran.names.append("blob")
        return Text(text="x" * args.size)

    @tool(name="interrupt", description="Raise KeyboardInterrupt.")
    async def interrupt(args: Nothing, context: ToolContext) -> Nothing:
        raise KeyboardInterrupt

    @tool(name="exit", description="Raise SystemExit.")
    async def exit_(args: Nothing, context: ToolContext) -> Nothing:
        raise SystemExit(2)

    return [open_link, read_clipboard, count, blob, interrupt, exit_]


async def test_calls_sharing_an_id_in_one_message_none_runs_and_none_asks(
    make_manager: ManagerFactory, tools: list[Any], ran: Ran, responder: RecordingResponder
) -> None:
    """The bypass: approving "Open wikipedia.org?" ran the clipboard read under the same id."""
    confirmer = ScriptedConfirmer(True)
    manager = make_manager(*tools, confirmer=confirmer)
    await manager.handle(
        message(("x", "openLink", {}), ("x", "readClipboard", {}), ("y", "count", {})),
        responder,
    )
    assert ran.names == ["count"]
    assert confirmer.requests == []
    answers = [(r.id, r.name) for r in responder.responses]
    assert answers == [("x", "openLink"), ("x", "readClipboard"), ("y", "count")]
    for response in responder.responses[:2]:
        problem = (response.response or {})["error"]["problems"][0]
        assert "2 calls in this message share the id 'x' (openLink, readClipboard)" in problem
        assert "none of them was run" in problem
    assert "hunter2" not in json.dumps([r.model_dump(mode="json") for r in responder.responses])
    assert not manager.calls.awaiting_answer()


async def test_a_call_reusing_a_running_id_is_refused_and_the_first_still_answers(
    make_manager: ManagerFactory, tools: list[Any], ran: Ran, events: EventLog
) -> None:
    confirmer = ScriptedConfirmer(None)  # the first call's question stays open
    manager = make_manager(*tools, confirmer=confirmer)
    first = RecordingResponder()
    running = asyncio.ensure_future(manager.handle(message(("x", "openLink", {})), first))
    await asyncio.wait_for(confirmer.asked.wait(), 5)
    second = RecordingResponder()
    await manager.handle(message(("x", "readClipboard", {})), second)
    (refusal,) = second.responses
    assert refusal.name == "readClipboard"
    assert "already running" in (refusal.response or {})["error"]["problems"][0]
    assert ran.names == []
    assert len(confirmer.requests) == 1  # no second question appeared
    manager.cancel(["x"])
    await asyncio.wait_for(running, 5)


async def test_each_question_has_its_own_token_and_the_event_carries_it(
    make_manager: ManagerFactory, tools: list[Any], events: EventLog, responder: RecordingResponder
) -> None:
    confirmer = ScriptedConfirmer(True)
    manager = make_manager(*tools, confirmer=confirmer)
    await manager.handle(message(("a", "openLink", {}), ("b", "readClipboard", {})), responder)
    tokens = [request.token for request in confirmer.requests]
    assert len(set(tokens)) == 2 and all(len(token) >= 16 for token in tokens)
    assert {request.call_id for request in confirmer.requests} == {"a", "b"}
    assert {e.token for e in events.of(ConfirmationRequested)} == set(tokens)
    targets = {request.tool_name: request.target for request in confirmer.requests}
    assert targets == {"openLink": "wikipedia.org", "readClipboard": None}


async def test_a_thousand_calls_in_one_message_run_at_most_the_cap_each_answered_once(
    make_manager: ManagerFactory, tools: list[Any], ran: Ran, responder: RecordingResponder
) -> None:
    manager = make_manager(*tools, frame_budget_bytes=900_000)
    calls = [(f"fc-{n}", "blob", {"size": 27_000}) for n in range(1000)]
    await manager.handle(message(*calls), responder)

    assert len(ran.names) == MAX_CALLS_PER_MESSAGE
    ids = [str(r.id) for r in responder.responses]
    assert sorted(ids) == sorted(f"fc-{n}" for n in range(1000))  # each exactly once
    refused = [r for r in responder.responses if "error" in (r.response or {})]
    assert len(refused) == 1000 - MAX_CALLS_PER_MESSAGE
    problem = (refused[0].response or {})["error"]["problems"][0]
    assert f"at most {MAX_CALLS_PER_MESSAGE} run per message" in problem
    assert len(responder.batches) >= 2  # the answers and refusals together exceed one frame
    assert all(wire_size(batch) <= 900_000 for batch in responder.batches)
    assert not manager.calls.awaiting_answer()


async def test_answers_too_big_for_one_frame_go_in_several_each_under_the_limit(
    make_manager: ManagerFactory, tools: list[Any], responder: RecordingResponder
) -> None:
    manager = make_manager(*tools, frame_budget_bytes=30_000)
    # Each answer is cut to its share of the budget (10,000 bytes); with the envelope of
    # the message they no longer fit in one..
    await manager.handle(
        message(*[(f"fc-{n}", "blob", {"size": 9_990}) for n in range(3)]),
        responder,
    )
    assert [r.id for r in responder.responses] == ["fc-0", "fc-1", "fc-2"]
    assert all("output" in (r.response or {}) for r in responder.responses)
    assert len(responder.batches) >= 2
    assert all(wire_size(batch) <= 30_000 for batch in responder.batches)


async def test_small_answers_still_go_together_in_one_message(
    make_manager: ManagerFactory, tools: list[Any], responder: RecordingResponder
) -> None:
    manager = make_manager(*tools)
    await manager.handle(message(*[(f"fc-{n}", "count", {}) for n in range(5)]), responder)
    assert len(responder.batches) == 1


@pytest.mark.logs_errors("tool interrupt raised", "tool exit raised")
async def test_keyboard_interrupt_and_system_exit_from_a_tool_become_answers(
    make_manager: ManagerFactory, tools: list[Any], ran: Ran, responder: RecordingResponder
) -> None:
    manager = make_manager(*tools)
    await manager.handle(
        message(("1", "interrupt", {}), ("2", "exit", {}), ("3", "count", {})), responder
    )
    errors = {r.id: (r.response or {}).get("error") for r in responder.responses}
    assert "KeyboardInterrupt" in errors["1"]["problems"][0]  # type: ignore[index]
    assert "SystemExit: 2" in errors["2"]["problems"][0]  # type: ignore[index]
    assert errors["3"] is None
    assert ran.names == ["count"]
    # The loop is still running: another message is answered.
    await manager.handle(message(("4", "count", {})), responder)
    assert responder.by_id("4").response is not None
