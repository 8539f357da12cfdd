"""From a handler's return value to the ``FunctionResponse`` the model gets.

The steps the runner applies to every answer, each of which turns a tool's mistake into a
clear failure instead of an exception: the value is checked against the output model, the
tool's ``to_model_output`` hook is applied (falling back to the plain payload when it
breaks), the payload is checked to be JSON, an answer too large for one Live API message is
cut with a note saying so, and the response gets the scheduling and ``will_continue`` the
model's capabilities allow (:func:`function_response`). :func:`outcome_event` is the one
event that ends a call for the UI (finished or failed).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from sammy_desktop.live_sdk import types
from sammy_desktop.tools.capabilities import ModelCapabilities
from sammy_desktop.tools.definition import ToolDefinition
from sammy_desktop.tools.events import ToolCallFailed, ToolCallFinished
from sammy_desktop.tools.kinds import ResponseScheduling, ToolBehavior
from sammy_desktop.tools.results import ToolErrorKind, ToolResult

__all__ = [
    "checked_result",
    "fit_to_frame",
    "function_response",
    "handler_error",
    "model_output",
    "outcome_event",
]

_log = logging.getLogger(__name__)


def checked_result(definition: ToolDefinition[Any, Any], produced: object) -> ToolResult[Any]:
    """Make a handler's return value a result whose value fits the output model."""
    result: ToolResult[Any] = (
        produced if isinstance(produced, ToolResult) else ToolResult.success(produced)
    )
    if not result.ok:
        if result.error_kind is None:
            return dataclasses.replace(result, error_kind=ToolErrorKind.TOOL_FAILURE)
        return result
    model = definition.output_model
    if isinstance(result.value, model):
        return result
    try:
        value = model.model_validate(result.value)
    except ValidationError as error:
        _log.error(
            "tool %s returned output that does not fit %s: %s",
            definition.name,
            model.__name__,
            error,
        )
        return ToolResult.failure(
            f"The tool {definition.name!r} produced output that does not match its output "
            f"model {model.__name__}; this is a bug in the tool, not in your call.",
            error_kind=ToolErrorKind.INVALID_OUTPUT,
        )
    return dataclasses.replace(result, value=value)


def handler_error(definition: ToolDefinition[Any, Any], error: BaseException) -> ToolResult[Any]:
    """A failure telling the model the exception's type and message (traceback: log only)."""
    _log.error("tool %s raised", definition.name, exc_info=error)
    return ToolResult.failure(
        f"The tool {definition.name!r} failed: {type(error).__name__}: {error}",
        error_kind=ToolErrorKind.HANDLER_ERROR,
    )


def model_output(
    definition: ToolDefinition[Any, Any] | None, result: ToolResult[Any]
) -> dict[str, Any]:
    """What the model is told: the tool's ``to_model_output`` or the default payload."""
    if definition is not None and definition.to_model_output is not None:
        try:
            payload = dict(definition.to_model_output(result))
            json.dumps(payload)
        except Exception:  # noqa: BLE001 - a broken hook falls back to the plain result
            _log.exception("to_model_output of %s failed; sent the plain result", definition.name)
        else:
            return payload
    try:
        payload = result.to_model_payload()
        json.dumps(payload)
    except (TypeError, ValueError) as error:
        name = definition.name if definition is not None else "?"
        _log.error("result of %s cannot be sent as JSON: %s", name, error)
        return ToolResult.failure(
            f"The tool {name!r} produced a result that cannot be sent as JSON; this is a bug "
            "in the tool.",
            error_kind=ToolErrorKind.INVALID_OUTPUT,
        ).to_model_payload()
    return payload


def fit_to_frame(payload: dict[str, Any], budget: int) -> dict[str, Any]:
    """Cut an answer that would not fit one Live API message, saying so."""
    text = json.dumps(payload)
    size = len(text.encode())
    if size <= budget:
        return payload
    key = "error" if "error" in payload else "output"
    note = (
        f"The result was {size} bytes, more than fits one Live API message ({budget} bytes "
        "for this answer), so it was cut: 'partial_json' holds only its beginning. Tell the "
        "person the answer was too long to read in full."
    )
    room = budget
    while True:
        # Quoting the cut text as a JSON string escapes it again and makes it longer, so
        # shrink until the whole answer fits.
        cut = text.encode()[: max(0, room)].decode(errors="ignore")
        cut_payload = {key: {"ok": key == "output", "truncated": True, "note": note}}
        cut_payload[key]["partial_json"] = cut
        overflow = len(json.dumps(cut_payload).encode()) - budget
        if overflow <= 0 or not cut:
            return cut_payload
        room = min(room, len(cut.encode())) - overflow


def function_response(
    definition: ToolDefinition[Any, Any] | None,
    call_id: str,
    name: str,
    result: ToolResult[Any],
    capabilities: ModelCapabilities,
    budget: int,
    *,
    will_continue: bool | None,
) -> tuple[types.FunctionResponse, dict[str, Any]]:
    """The response for ``result`` and exactly the payload it carries.

    ``scheduling`` and ``will_continue`` are only set where the model has asynchronous
    function calls and the tool is NON_BLOCKING; a call to a tool that was never declared
    (unknown, disabled) is answered SILENT there, as any error of an unknown behaviour.
    """
    payload = fit_to_frame(model_output(definition, result), budget)
    scheduling: types.FunctionResponseScheduling | None = None
    if capabilities.async_function_calling:
        if definition is None:
            scheduling = ResponseScheduling.SILENT.to_genai()
        elif definition.behavior is ToolBehavior.NON_BLOCKING:
            default = definition.scheduling if result.ok else definition.error_scheduling
            scheduling = (result.scheduling or default).to_genai()
        else:
            will_continue = None
    else:
        will_continue = None
    response = types.FunctionResponse(
        id=call_id,
        name=name,
        response=payload,
        scheduling=scheduling,
        will_continue=will_continue,
    )
    return response, payload


def outcome_event(
    call_id: str,
    name: str,
    result: ToolResult[Any],
    payload: Mapping[str, Any],
    duration_s: float,
    *,
    definition: ToolDefinition[Any, Any] | None = None,
) -> ToolCallFinished | ToolCallFailed:
    """The event that ends a call for the UI: finished for a success, failed otherwise.

    It carries the tool's title and the result in a line for the person
    (:meth:`ToolDefinition.summarize`); without a definition (an unknown tool) both come
    from the name and the result.
    """
    title = definition.title if definition is not None else ""
    summary = definition.summarize(result) if definition is not None else ""
    if result.ok:
        return ToolCallFinished(
            call_id=call_id,
            name=name,
            result=result,
            model_output=payload,
            duration_s=duration_s,
            title=title,
            summary=summary,
        )
    return ToolCallFailed(
        call_id=call_id,
        name=name,
        kind=result.error_kind or ToolErrorKind.TOOL_FAILURE,
        problems=result.problems,
        duration_s=duration_s,
        result=result,
        model_output=payload,
        title=title,
        summary=summary,
    )
