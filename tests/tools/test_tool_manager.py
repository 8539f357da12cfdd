"""ToolManager.handle: every way a call can go, and what reaches the model and the bus."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any, Literal

import pytest
from google.genai import types
from pydantic import BaseModel, Field, model_validator

from sammy_desktop.config import Settings
from sammy_desktop.core.ports import ToolRunner
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import (
    ConfirmationRequested,
    ConfirmationResolved,
    DuplicateToolError,
    ParameterFeedback,
    ResponseScheduling,
    ToolBehavior,
    ToolCallCancelled,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
    ToolContext,
    ToolDefinition,
    ToolEnabledChanged,
    ToolErrorKind,
    ToolManager,
    ToolResult,
    ToolServices,
    UnknownToolError,
    tool,
)
from tests.helpers.events import EventLog
from tests.tools.conftest import ManagerFactory
from tests.tools.fakes import RecordingResponder, ScriptedConfirmer

WAIT_S = 5.0  # generous bound for waits on events; reaching it means the test failed


class EchoInput(BaseModel):
    text: str = Field(description="What to echo back.")
    mood: Literal["calm", "loud"] = Field("calm", description="How to echo it.")


class EchoOutput(BaseModel):
    echoed: str


class Empty(BaseModel):
    pass


@tool(description="Echo the text back.")
async def echo(args: EchoInput, context: ToolContext) -> EchoOutput:
    text = args.text.upper() if args.mood == "loud" else args.text
    return EchoOutput(echoed=text)


def call(call_id: str | None, name: str | None, **args: Any) -> types.FunctionCall:
    return types.FunctionCall(id=call_id, name=name, args=args)


def message(*calls: types.FunctionCall) -> types.LiveServerToolCall:
    return types.LiveServerToolCall(function_calls=list(calls))


def error_of(response: types.FunctionResponse) -> dict[str, Any]:
    assert response.response is not None
    assert "error" in response.response, response.response
    error: dict[str, Any] = response.response["error"]
    return error


def output_of(response: types.FunctionResponse) -> dict[str, Any]:
    assert response.response is not None
    assert "output" in response.response, response.response
    output: dict[str, Any] = response.response["output"]
    return output


async def test_success_is_answered_with_id_name_value_and_events(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    manager = make_manager(echo)
    before = time.monotonic()
    await manager.handle(message(call("c1", "echo", text="hi", mood="loud")), responder)
    elapsed = time.monotonic() - before

    assert len(responder.batches) == 1
    answer = responder.by_id("c1")
    assert answer.name == "echo"
    assert output_of(answer) == {"ok": True, "value": {"echoed": "HI"}}
    started = events.one(ToolCallStarted)
    assert (started.call_id, started.name, started.arguments) == (
        "c1",
        "echo",
        {"text": "hi", "mood": "loud"},
    )
    finished = events.one(ToolCallFinished)
    assert finished.result.ok
    assert finished.result.value == EchoOutput(echoed="HI")
    assert finished.model_output == answer.response
    assert 0 < finished.duration_s <= elapsed


async def test_calls_of_one_message_run_in_parallel(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    # Each handler waits until the other has started: this finishes only if they overlap.
    arrived = {"a": asyncio.Event(), "b": asyncio.Event()}

    class Side(BaseModel):
        me: Literal["a", "b"]

    async def meet(args: Side, context: ToolContext) -> EchoOutput:
        arrived[args.me].set()
        other = "b" if args.me == "a" else "a"
        await asyncio.wait_for(arrived[other].wait(), WAIT_S)
        return EchoOutput(echoed=f"{args.me} met {other}")

    meeting = ToolDefinition(
        name="meet",
        description="Wait for the other call.",
        input_model=Side,
        output_model=EchoOutput,
        handler=meet,
    )
    manager = make_manager(meeting)
    await manager.handle(message(call("1", "meet", me="a"), call("2", "meet", me="b")), responder)

    assert [r.id for r in responder.batches[0]] == ["1", "2"]
    assert output_of(responder.by_id("1"))["value"] == {"echoed": "a met b"}
    assert output_of(responder.by_id("2"))["value"] == {"echoed": "b met a"}


async def test_missing_name_unknown_and_disabled_tools_are_refused_without_running(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    ran: list[str] = []

    @tool(name="secret", description="Never runs while disabled.", enabled_by_default=False)
    async def secret(args: EchoInput, context: ToolContext) -> EchoOutput:
        ran.append(args.text)
        return EchoOutput(echoed="ran")

    manager = make_manager(echo, secret)
    await manager.handle(
        message(call("1", None), call("2", "ehco", text="x"), call("3", "secret", text="x")),
        responder,
    )

    assert ran == []
    no_name = error_of(responder.by_id("1"))
    assert "no name" in no_name["problems"][0]
    assert responder.by_id("1").name == ""
    unknown = error_of(responder.by_id("2"))["problems"][0]
    assert "no tool named 'ehco'. Did you mean 'echo'?" in unknown
    assert "echo" in unknown and "escalate" in unknown  # lists what is available
    assert "secret" not in unknown  # disabled tools are not offered
    disabled = error_of(responder.by_id("3"))["problems"][0]
    assert "disabled by the user" in disabled
    kinds = {event.call_id: event.kind for event in events.of(ToolCallFailed)}
    assert kinds == {
        "1": ToolErrorKind.MISSING_NAME,
        "2": ToolErrorKind.UNKNOWN_TOOL,
        "3": ToolErrorKind.DISABLED,
    }


async def test_invalid_arguments_come_back_as_per_parameter_feedback(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    manager = make_manager(echo)
    await manager.handle(message(call("1", "echo", mood="angry")), responder)

    error = error_of(responder.by_id("1"))
    assert error["ok"] is False
    assert error["validation"]["text"]["valid"] is False
    assert error["validation"]["text"]["problems"] == [
        "this parameter is required: What to echo back."
    ]
    assert error["validation"]["mood"]["allowed_values"] == ["calm", "loud"]
    assert events.one(ToolCallFailed).kind is ToolErrorKind.INVALID_ARGUMENTS


@pytest.mark.logs_errors("tool broken raised")
async def test_handler_exception_tells_type_and_message_and_logs_the_traceback(
    make_manager: ManagerFactory,
    responder: RecordingResponder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    @tool(name="broken", description="Always raises.")
    async def broken(args: EchoInput, context: ToolContext) -> EchoOutput:
        raise ConnectionRefusedError("printer offline")

    manager = make_manager(broken)
    with caplog.at_level(logging.ERROR, logger="sammy_desktop.tools.manager"):
        await manager.handle(message(call("1", "broken", text="x")), responder)

    problem = error_of(responder.by_id("1"))["problems"][0]
    assert problem == "The tool 'broken' failed: ConnectionRefusedError: printer offline"
    assert "Traceback" not in str(responder.by_id("1").response)
    assert any(record.exc_info for record in caplog.records)


async def test_timeout_stops_the_handler_and_says_so(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    stopped = asyncio.Event()

    @tool(name="slow", description="Never finishes.", timeout_s=0.05)
    async def slow(args: EchoInput, context: ToolContext) -> EchoOutput:
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()
        raise AssertionError("unreachable")

    manager = make_manager(slow)
    await asyncio.wait_for(manager.handle(message(call("1", "slow", text="x")), responder), WAIT_S)

    assert stopped.is_set()
    assert "did not finish within 0.05 seconds" in error_of(responder.by_id("1"))["problems"][0]
    assert events.one(ToolCallFailed).kind is ToolErrorKind.TIMEOUT


@pytest.mark.logs_errors("tool net raised")
async def test_a_timeout_raised_by_the_handler_itself_is_a_handler_error(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    @tool(name="net", description="Its own network call times out.")
    async def net(args: EchoInput, context: ToolContext) -> EchoOutput:
        raise TimeoutError("upstream did not answer")

    manager = make_manager(net)
    await manager.handle(message(call("1", "net", text="x")), responder)

    assert events.one(ToolCallFailed).kind is ToolErrorKind.HANDLER_ERROR
    assert "TimeoutError: upstream did not answer" in error_of(responder.by_id("1"))["problems"][0]


@pytest.mark.logs_errors("returned output that does not fit")
async def test_tool_reported_failure_and_bad_output(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    @tool(name="picky", description="Refuses unknown cities.")
    async def picky(args: EchoInput, context: ToolContext) -> EchoOutput | ToolResult[EchoOutput]:
        return ToolResult.failure(
            "I do not know that city.",
            validation={"text": ParameterFeedback.invalid("unknown", suggested_values=["Paris"])},
        )

    async def sloppy(args: EchoInput, context: ToolContext) -> Any:
        return {"echoed": 42, "extra": "?"}

    sloppy_tool = ToolDefinition(
        name="sloppy",
        description="Returns the wrong shape.",
        input_model=EchoInput,
        output_model=EchoOutput,
        handler=sloppy,
    )
    manager = make_manager(picky, sloppy_tool)
    await manager.handle(
        message(call("1", "picky", text="Pariss"), call("2", "sloppy", text="x")), responder
    )

    picky_error = error_of(responder.by_id("1"))
    assert picky_error["validation"]["text"] == {
        "valid": False,
        "problems": ["unknown"],
        "suggested_values": ["Paris"],
    }
    assert "bug in the tool" in error_of(responder.by_id("2"))["problems"][0]
    kinds = {event.call_id: event.kind for event in events.of(ToolCallFailed)}
    assert kinds == {"1": ToolErrorKind.TOOL_FAILURE, "2": ToolErrorKind.INVALID_OUTPUT}


@pytest.mark.logs_errors("has no id")
async def test_a_call_without_id_is_not_run_and_not_answered(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    manager = make_manager(echo)
    await manager.handle(
        message(call(None, "echo", text="x"), call("2", "echo", text="y")), responder
    )

    assert [r.id for r in responder.responses] == ["2"]
    assert events.one(ToolCallFailed).kind is ToolErrorKind.MISSING_ID


@pytest.mark.logs_errors("tool (later|loud_errors) raised")
async def test_scheduling_follows_behavior_and_model_capabilities(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    @tool(
        name="later",
        description="Non-blocking.",
        behavior=ToolBehavior.NON_BLOCKING,
        scheduling=ResponseScheduling.INTERRUPT,
    )
    async def later(args: EchoInput, context: ToolContext) -> EchoOutput:
        if args.text == "fail":
            raise ValueError("asked to fail")
        return EchoOutput(echoed=args.text)

    @tool(
        name="loud_errors",
        description="Non-blocking, errors must be heard.",
        behavior=ToolBehavior.NON_BLOCKING,
        error_scheduling=ResponseScheduling.WHEN_IDLE,
    )
    async def loud_errors(args: EchoInput, context: ToolContext) -> EchoOutput:
        raise ValueError("nope")

    manager = make_manager(echo, later, loud_errors)
    manager.declarations("gemini-2.5-flash-native-audio-preview-12-2025")
    await manager.handle(
        message(
            call("ok", "later", text="x"),
            call("err", "later", text="fail"),
            call("loud", "loud_errors", text="x"),
            call("blocking", "echo", text="x"),
            call("unknown", "nothing"),
        ),
        responder,
    )
    scheduling = {r.id: r.scheduling for r in responder.responses}
    assert scheduling == {
        "ok": types.FunctionResponseScheduling.INTERRUPT,
        "err": types.FunctionResponseScheduling.SILENT,
        "loud": types.FunctionResponseScheduling.WHEN_IDLE,
        "blocking": None,
        "unknown": types.FunctionResponseScheduling.SILENT,
    }

    # A synchronous-only model is never sent scheduling.
    manager.declarations("gemini-3.1-flash-live-preview")
    sync_responder = RecordingResponder()
    await manager.handle(message(call("ok", "later", text="x")), sync_responder)
    assert sync_responder.by_id("ok").scheduling is None


async def test_result_scheduling_overrides_the_tool_default(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    @tool(name="urgent", description="Sometimes urgent.", behavior=ToolBehavior.NON_BLOCKING)
    async def urgent(args: EchoInput, context: ToolContext) -> ToolResult[EchoOutput]:
        return ToolResult.success(EchoOutput(echoed="!"), scheduling=ResponseScheduling.INTERRUPT)

    manager = make_manager(urgent)
    await manager.handle(message(call("1", "urgent", text="x")), responder)
    assert responder.by_id("1").scheduling is types.FunctionResponseScheduling.INTERRUPT


async def test_server_cancellation_stops_the_handler_and_sends_nothing_for_it(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()

    @tool(name="wait", description="Waits until cancelled.", timeout_s=None)
    async def wait(args: EchoInput, context: ToolContext) -> EchoOutput:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        raise AssertionError("unreachable")

    manager = make_manager(echo, wait)
    handling = asyncio.create_task(
        manager.handle(message(call("w", "wait", text="x"), call("e", "echo", text="y")), responder)
    )
    await asyncio.wait_for(started.wait(), WAIT_S)
    manager.cancel(["w", "not-a-call"])
    await asyncio.wait_for(handling, WAIT_S)

    assert cancelled.is_set()
    assert manager.calls.ids() == []  # nothing kept once the call is gone
    assert [r.id for r in responder.responses] == ["e"]
    assert [(e.call_id, e.name) for e in events.of(ToolCallCancelled)] == [("w", "wait")]
    assert not [e for e in events.of(ToolCallFailed) if e.call_id == "w"]


async def test_a_cancellation_that_overtakes_its_call_still_stops_it(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    manager = make_manager(echo)
    manager.cancel(["early"])
    await manager.handle(message(call("early", "echo", text="x")), responder)
    assert responder.batches == []
    assert events.one(ToolCallCancelled).call_id == "early"


async def test_aclose_cancels_running_calls_and_later_calls_are_ignored(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    started = asyncio.Event()

    @tool(name="forever", description="Never ends.", timeout_s=None)
    async def forever(args: EchoInput, context: ToolContext) -> EchoOutput:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    manager = make_manager(forever)
    handling = asyncio.create_task(
        manager.handle(message(call("f", "forever", text="x")), responder)
    )
    await asyncio.wait_for(started.wait(), WAIT_S)
    await asyncio.wait_for(manager.aclose(), WAIT_S)
    await asyncio.wait_for(handling, WAIT_S)

    assert responder.batches == []
    assert events.one(ToolCallCancelled).call_id == "f"
    await manager.handle(message(call("later", "forever", text="x")), responder)
    assert responder.batches == []


async def test_cancelling_handle_itself_propagates(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    started = asyncio.Event()

    @tool(name="forever", description="Never ends.", timeout_s=None)
    async def forever(args: EchoInput, context: ToolContext) -> EchoOutput:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    manager = make_manager(forever)
    handling = asyncio.create_task(
        manager.handle(message(call("f", "forever", text="x")), responder)
    )
    await asyncio.wait_for(started.wait(), WAIT_S)
    handling.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(handling, WAIT_S)
    assert responder.batches == []


class DeleteInput(BaseModel):
    path: str


@tool(
    name="deleteFile",
    description="Delete a file.",
    requires_confirmation=True,
    confirmation_prompt=lambda args: f"Delete {args.path}?",
    confirmation_timeout_s=0.05,
)
async def delete_file(args: DeleteInput, context: ToolContext) -> EchoOutput:
    return EchoOutput(echoed=f"deleted {args.path}")


@pytest.mark.parametrize(
    ("confirmer", "approved", "reason"),
    [
        (ScriptedConfirmer(True), True, "approved"),
        (ScriptedConfirmer(False), False, "denied"),
        (ScriptedConfirmer(None), False, "timed out"),
        (ScriptedConfirmer(True, error=RuntimeError("dialog broke")), False, "confirmation failed"),
        (None, False, "no confirmation available"),
    ],
    ids=["approve", "deny", "timeout", "dialog-error", "no-ui"],
)
@pytest.mark.logs_errors("confirmation for .* failed")
async def test_confirmation_approve_deny_and_timeout_as_deny(
    make_manager: ManagerFactory,
    responder: RecordingResponder,
    events: EventLog,
    confirmer: ScriptedConfirmer | None,
    approved: bool,
    reason: str,
) -> None:
    manager = make_manager(delete_file, confirmer=confirmer)
    await asyncio.wait_for(
        manager.handle(message(call("1", "deleteFile", path="/tmp/x")), responder), WAIT_S
    )

    requested = events.one(ConfirmationRequested)
    assert (requested.call_id, requested.name, requested.prompt) == (
        "1",
        "deleteFile",
        "Delete /tmp/x?",
    )
    assert requested.arguments == {"path": "/tmp/x"}
    resolved = events.one(ConfirmationResolved)
    assert (resolved.call_id, resolved.approved, resolved.reason) == ("1", approved, reason)
    if confirmer is not None:
        assert confirmer.requests[0].prompt == "Delete /tmp/x?"
        assert confirmer.requests[0].timeout_s == pytest.approx(0.05)
    if approved:
        assert output_of(responder.by_id("1"))["value"] == {"echoed": "deleted /tmp/x"}
    else:
        assert "did not allow 'deleteFile'" in error_of(responder.by_id("1"))["problems"][0]
        assert events.one(ToolCallFailed).kind is ToolErrorKind.DENIED
    if reason == "timed out":
        assert confirmer is not None and confirmer.cancelled  # the dialog is told to close


async def test_a_handler_can_ask_for_confirmation_itself(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    @tool(name="maybe", description="Asks only sometimes.")
    async def maybe(args: EchoInput, context: ToolContext) -> EchoOutput:
        if args.mood == "loud" and not await context.confirm("Shout it?", timeout_s=1.0):
            return EchoOutput(echoed="kept quiet")
        return EchoOutput(echoed=args.text.upper())

    confirmer = ScriptedConfirmer(False)
    manager = make_manager(maybe, confirmer=confirmer)
    await manager.handle(message(call("1", "maybe", text="hey", mood="loud")), responder)
    assert output_of(responder.by_id("1"))["value"] == {"echoed": "kept quiet"}
    assert confirmer.requests[0].timeout_s == 1.0
    assert events.one(ConfirmationResolved).reason == "denied"


class Steps(BaseModel):
    count: int = Field(ge=1, le=5)
    fail_at: int | None = None


class Progress(BaseModel):
    step: int
    of: int


@tool(name="work", description="Long work with progress.", behavior=ToolBehavior.NON_BLOCKING)
async def work(args: Steps, context: ToolContext) -> AsyncIterator[Progress]:
    for step in range(1, args.count + 1):
        if step == args.fail_at:
            raise OSError("disk full")
        yield Progress(step=step, of=args.count)


async def test_non_blocking_stream_sends_each_item_with_will_continue(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    manager = make_manager(work)
    manager.declarations("gemini-2.5-flash-native-audio-preview-12-2025")
    await manager.handle(message(call("1", "work", count=3)), responder)

    assert [len(batch) for batch in responder.batches] == [1, 1, 1, 1]
    sent = responder.responses
    assert [r.will_continue for r in sent] == [True, True, True, False]
    assert [output_of(r)["value"]["step"] for r in sent[:3]] == [1, 2, 3]
    assert sent[-1].response == {}
    assert sent[-1].scheduling is types.FunctionResponseScheduling.SILENT
    assert all(r.id == "1" and r.name == "work" for r in sent)
    assert len(events.of(ToolCallProgress)) == 3
    assert events.one(ToolCallFinished).result.value == Progress(step=3, of=3)


@pytest.mark.logs_errors("tool work raised")
async def test_a_stream_failing_midway_ends_with_a_final_failure(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    manager = make_manager(work)
    manager.declarations("gemini-2.5-flash-native-audio-preview-12-2025")
    await manager.handle(message(call("1", "work", count=3, fail_at=2)), responder)

    sent = responder.responses
    assert [r.will_continue for r in sent] == [True, None]
    assert "OSError: disk full" in error_of(sent[-1])["problems"][0]
    assert events.one(ToolCallFailed).kind is ToolErrorKind.HANDLER_ERROR


async def test_a_stream_on_a_synchronous_model_stops_at_a_yielded_failure(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    @tool(name="steps", description="Fails at step two.")
    async def steps(args: EchoInput, context: ToolContext) -> AsyncIterator[ToolResult[EchoOutput]]:
        yield ToolResult.success(EchoOutput(echoed="one"))
        yield ToolResult.failure("step two failed")
        yield ToolResult.success(EchoOutput(echoed="three"))

    manager = make_manager(steps)
    manager.declarations("gemini-3.1-flash-live-preview")
    await manager.handle(message(call("1", "steps", text="x")), responder)
    assert error_of(responder.by_id("1"))["problems"] == ["step two failed"]


async def test_a_sync_handler_in_a_hand_built_definition_is_reported(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    def not_async(args: EchoInput, context: ToolContext) -> EchoOutput:
        return EchoOutput(echoed="")

    definition = ToolDefinition(
        name="syncy",
        description="Wrongly synchronous.",
        input_model=EchoInput,
        output_model=EchoOutput,
        handler=not_async,  # type: ignore[arg-type]
    )
    manager = make_manager(definition)
    await manager.handle(message(call("1", "syncy", text="x")), responder)
    assert "its handler is not async" in error_of(responder.by_id("1"))["problems"][0]


async def test_a_stream_on_a_synchronous_model_answers_once_with_the_last_item(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    manager = make_manager(work)
    manager.declarations("gemini-3.1-flash-live-preview")
    await manager.handle(message(call("1", "work", count=3)), responder)

    assert len(responder.responses) == 1
    answer = responder.by_id("1")
    assert answer.will_continue is None
    assert output_of(answer)["value"] == {"step": 3, "of": 3}


async def test_output_too_large_for_a_frame_is_cut_with_a_note(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    @tool(name="big", description="Returns a lot.")
    async def big(args: EchoInput, context: ToolContext) -> EchoOutput:
        return EchoOutput(echoed="x" * 50_000)

    manager = make_manager(big, frame_budget_bytes=10_000)
    await manager.handle(message(call("1", "big", text="x")), responder)

    output = output_of(responder.by_id("1"))
    assert output["truncated"] is True
    assert "was cut" in output["note"]
    assert output["partial_json"].startswith('{"output": {"ok": true, "value": {"echoed": "xxx')
    assert len(str(responder.by_id("1").response)) < 10_000
    assert events.one(ToolCallFinished).model_output == responder.by_id("1").response


async def test_output_full_of_characters_json_escapes_still_fits(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    @tool(name="quotes", description="Returns text that JSON escaping doubles.")
    async def quotes(args: EchoInput, context: ToolContext) -> EchoOutput:
        return EchoOutput(echoed='"\\' * 20_000)

    manager = make_manager(quotes, frame_budget_bytes=8_000)
    await manager.handle(message(call("1", "quotes", text="x")), responder)

    response = responder.by_id("1").response
    assert response is not None
    assert response["output"]["truncated"] is True
    assert len(json.dumps(response).encode()) <= 8_000


async def test_hooks_on_input_available_and_to_model_output(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    seen: list[str] = []

    async def before(args: EchoInput, context: ToolContext) -> None:
        seen.append(f"input {args.text} for {context.call_id}")

    def for_model(result: ToolResult[EchoOutput]) -> dict[str, Any]:
        assert result.value is not None
        return {"output": result.value.echoed}

    @tool(
        name="hooked",
        description="Has hooks.",
        on_input_available=before,
        to_model_output=for_model,
    )
    async def hooked(args: EchoInput, context: ToolContext) -> ToolResult[EchoOutput]:
        seen.append("handler")
        return ToolResult.success(EchoOutput(echoed=args.text), display="Echoed for the UI")

    manager = make_manager(hooked)
    await manager.handle(message(call("1", "hooked", text="hi")), responder)

    assert seen == ["input hi for 1", "handler"]
    assert responder.by_id("1").response == {"output": "hi"}
    finished = events.one(ToolCallFinished)
    assert finished.model_output == {"output": "hi"}
    assert finished.result.display == "Echoed for the UI"


@pytest.mark.logs_errors("to_model_output of hooked failed")
async def test_a_broken_to_model_output_falls_back_to_the_plain_result(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    def broken(result: ToolResult[EchoOutput]) -> dict[str, Any]:
        raise KeyError("oops")

    @tool(name="hooked", description="Has a broken hook.", to_model_output=broken)
    async def hooked(args: EchoInput, context: ToolContext) -> EchoOutput:
        return EchoOutput(echoed="plain")

    manager = make_manager(hooked)
    await manager.handle(message(call("1", "hooked", text="x")), responder)
    assert output_of(responder.by_id("1"))["value"] == {"echoed": "plain"}


@pytest.mark.logs_errors("sending 1 tool response")
async def test_a_failing_respond_is_logged_not_raised(
    make_manager: ManagerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    responder = RecordingResponder(fail_with=ConnectionResetError("socket closed"))
    manager = make_manager(echo)
    with caplog.at_level(logging.ERROR, logger="sammy_desktop.tools.manager"):
        await manager.handle(message(call("1", "echo", text="x")), responder)
    assert "sending 1 tool response(s) failed (ids 1)" in caplog.text


async def test_empty_message_sends_nothing(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    manager = make_manager(echo)
    await manager.handle(types.LiveServerToolCall(), responder)
    assert responder.batches == []


def test_enabled_set_from_settings_constructor_and_run_time(
    make_manager: ManagerFactory, events: EventLog, settings: Any
) -> None:
    settings.enabled_tools = {"escalate": False}
    manager = make_manager(echo, enabled={"echo": False})
    assert not manager.is_enabled("escalate")
    assert not manager.is_enabled("echo")
    assert manager.is_enabled("endSession")
    assert not manager.is_enabled("no-such-tool")

    manager.set_enabled("echo", True)
    manager.set_enabled("echo", True)  # no change, no second event
    manager.set_enabled("endSession", False)
    assert [(e.name, e.enabled) for e in events.of(ToolEnabledChanged)] == [
        ("echo", True),
        ("endSession", False),
    ]
    assert manager.enabled_names() == ("getCurrentContext", "echo")
    with pytest.raises(UnknownToolError, match="no tool named 'nope'"):
        manager.set_enabled("nope", True)


@pytest.mark.logs_errors("tool registration problem")
def test_duplicate_names_are_refused_naming_both_sources(make_manager: ManagerFactory) -> None:
    @tool(name="endSession", description="An impostor.")
    async def impostor(args: EchoInput, context: ToolContext) -> EchoOutput:
        return EchoOutput(echoed="")

    manager = make_manager(impostor, echo)
    (problem,) = manager.registration_problems
    assert problem.tool_name == "endSession"
    assert "from the application is refused" in problem.message
    assert "taken by the tool from built-in" in problem.message
    assert manager.source_of("endSession") == "built-in"
    assert manager.get("echo") is echo
    with pytest.raises(DuplicateToolError, match="from test is refused"):
        manager.register(echo, source="test")
    with pytest.raises(TypeError, match="not a ToolDefinition"):
        manager.register("echo", source="test")  # type: ignore[arg-type]


def test_the_settings_pane_can_list_tools(make_manager: ManagerFactory) -> None:
    manager = make_manager(echo, delete_file)
    listing = [(t.name, t.category.value, t.requires_confirmation) for t in manager.tools]
    assert listing == [
        ("endSession", "action", False),
        ("getCurrentContext", "context", False),
        ("escalate", "system", False),
        ("echo", "action", False),
        ("deleteFile", "action", True),
    ]


def test_manager_satisfies_the_core_port(make_manager: ManagerFactory) -> None:
    runner: ToolRunner = make_manager()  # checked by mypy; the assert keeps it honest at run time
    assert isinstance(runner, ToolManager)


def test_definitions_type_check(make_manager: ManagerFactory) -> None:
    typed: ToolDefinition[EchoInput, EchoOutput] = echo
    streaming: ToolDefinition[Steps, Progress] = work
    assert typed.output_model is EchoOutput
    assert streaming.streams_progress and not typed.streams_progress


async def test_unused_empty_model_tool_accepts_no_arguments(
    make_manager: ManagerFactory, responder: RecordingResponder
) -> None:
    @tool(name="ping", description="No arguments.", input_model=Empty, output_model=EchoOutput)
    async def ping(args: Empty, context: ToolContext) -> EchoOutput:
        return EchoOutput(echoed="pong")

    manager = make_manager(ping)
    await manager.handle(
        types.LiveServerToolCall(function_calls=[types.FunctionCall(id="1", name="ping")]),
        responder,
    )
    assert output_of(responder.by_id("1"))["value"] == {"echoed": "pong"}


class Fussy(BaseModel):
    text: str

    @model_validator(mode="after")
    def _explode(self) -> Fussy:
        if self.text == "boom":
            raise KeyError("validator bug")  # not a ValueError: pydantic lets it through
        return self


@pytest.mark.logs_errors("tool fussy raised")
async def test_a_validator_bug_is_answered_and_siblings_still_run(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    @tool(name="fussy", description="Has a buggy validator.")
    async def fussy(args: Fussy, context: ToolContext) -> EchoOutput:
        return EchoOutput(echoed=args.text)

    manager = make_manager(fussy, echo)
    await manager.handle(
        message(call("1", "fussy", text="boom"), call("2", "echo", text="fine")), responder
    )
    assert "KeyError" in error_of(responder.by_id("1"))["problems"][0]
    assert output_of(responder.by_id("2"))["value"] == {"echoed": "fine"}
    assert events.one(ToolCallFailed).kind is ToolErrorKind.HANDLER_ERROR


@pytest.mark.logs_errors(
    "cannot tell the current model", "internal error while answering tool call"
)
async def test_an_app_callable_failing_still_answers_every_call(
    bus: EventBus, services: ToolServices, responder: RecordingResponder, events: EventLog
) -> None:
    def broken_settings() -> Settings:
        raise RuntimeError("settings store unreadable")

    manager = ToolManager(
        bus,
        dataclasses.replace(services, settings=broken_settings),
        tools=[echo],
        load_entry_points=False,
        enabled={},
    )
    await manager.handle(message(call("1", "echo", text="x"), call("2", "nope")), responder)
    assert {r.id for r in responder.responses} == {"1", "2"}
    assert "The app failed while running 'echo': RuntimeError." in str(
        responder.by_id("1").response
    )
    failed = {event.call_id: event.kind for event in events.of(ToolCallFailed)}
    assert failed == {"1": ToolErrorKind.HANDLER_ERROR, "2": ToolErrorKind.HANDLER_ERROR}


async def test_cancelling_a_call_while_the_person_is_asked_closes_the_question(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    confirmer = ScriptedConfirmer(None)

    @tool(name="risky", description="Asks first.", requires_confirmation=True)
    async def risky(args: EchoInput, context: ToolContext) -> EchoOutput:
        return EchoOutput(echoed="done")

    manager = make_manager(risky, confirmer=confirmer)
    handling = asyncio.create_task(manager.handle(message(call("1", "risky", text="x")), responder))
    await asyncio.wait_for(confirmer.asked.wait(), WAIT_S)
    manager.cancel(["1"])
    await asyncio.wait_for(handling, WAIT_S)

    assert confirmer.cancelled
    assert events.one(ConfirmationResolved).reason == "cancelled"
    assert responder.batches == []
    assert events.one(ToolCallCancelled).call_id == "1"
