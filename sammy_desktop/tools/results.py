"""What a tool call ends in: success or failure, in the tool2agent sense.

A success carries the tool's typed ``value`` and may add ``feedback`` (remarks about the
call the model should notice) and ``instructions`` (what the model should do or say next).
A failure carries ``problems`` (plain sentences) and per-parameter ``validation`` so the model
can correct its arguments and try again by itself: "urgency must be one of low, medium, high".

The same object is shown to the UI (``display``, the full value) and, through
:meth:`ToolResult.to_model_payload` or the tool's own ``to_model_output`` hook, to the model.
Keeping those apart is what Gemini CLI does with ``llmContent`` and ``returnDisplay``.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from sammy_desktop.tools.kinds import ResponseScheduling

__all__ = [
    "ParameterFeedback",
    "ToolErrorKind",
    "ToolResult",
    "feedback_from_validation_error",
]

T = TypeVar("T")


class ToolErrorKind(enum.StrEnum):
    """Why a call failed. The UI shows it; tests assert on it."""

    MISSING_NAME = "missing_name"
    """The call had no function name."""
    MISSING_ID = "missing_id"
    """The call had no id, so no answer can be matched to it (it is not run)."""
    DUPLICATE_ID = "duplicate_id"
    """Another call with the same id is running or came in the same message (not run)."""
    TOO_MANY_CALLS = "too_many_calls"
    """The message held more calls than run at once; this one was not run."""
    UNKNOWN_TOOL = "unknown_tool"
    """No tool of that name is registered."""
    DISABLED = "disabled"
    """The person switched the tool off."""
    INVALID_ARGUMENTS = "invalid_arguments"
    """The arguments did not validate against the tool's input model."""
    DENIED = "denied"
    """The person did not approve the call (said no, or did not answer in time)."""
    TIMEOUT = "timeout"
    """The handler did not finish within the tool's timeout."""
    HANDLER_ERROR = "handler_error"
    """The handler raised an exception."""
    INVALID_OUTPUT = "invalid_output"
    """The handler returned something that does not fit the tool's output model."""
    TOOL_FAILURE = "tool_failure"
    """The handler itself answered with a failure (for example a value it cannot use)."""
    SHUTTING_DOWN = "shutting_down"
    """The tool manager is closing."""


@dataclass(frozen=True, slots=True)
class ParameterFeedback:
    """What is wrong (or right) with one argument, so the model can fix it.

    ``allowed_values`` (a closed set) and ``suggested_values`` (good guesses) exclude each
    other, as in tool2agent. ``normalized_value`` is the value the tool would use instead,
    when there is one.
    """

    valid: bool
    problems: tuple[str, ...] = ()
    allowed_values: tuple[Any, ...] | None = None
    suggested_values: tuple[Any, ...] | None = None
    normalized_value: Any = None

    def __post_init__(self) -> None:
        if self.allowed_values is not None and self.suggested_values is not None:
            raise ValueError("give allowed_values or suggested_values, not both")

    @classmethod
    def invalid(
        cls,
        *problems: str,
        allowed_values: Iterable[Any] | None = None,
        suggested_values: Iterable[Any] | None = None,
    ) -> ParameterFeedback:
        """Feedback for an argument that is wrong, with the reasons as sentences."""
        return cls(
            valid=False,
            problems=tuple(problems),
            allowed_values=None if allowed_values is None else tuple(allowed_values),
            suggested_values=None if suggested_values is None else tuple(suggested_values),
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON object the model sees (empty fields left out)."""
        data: dict[str, Any] = {"valid": self.valid}
        if self.problems:
            data["problems"] = list(self.problems)
        if self.allowed_values is not None:
            data["allowed_values"] = to_jsonable_python(list(self.allowed_values))
        if self.suggested_values is not None:
            data["suggested_values"] = to_jsonable_python(list(self.suggested_values))
        if self.normalized_value is not None:
            data["normalized_value"] = to_jsonable_python(self.normalized_value)
        return data


@dataclass(frozen=True, slots=True)
class ToolResult(Generic[T]):
    """The outcome of one tool call. Build one with :meth:`success` or :meth:`failure`.

    Attributes:
        ok: True for a success, False for a failure.
        value: the tool's output (successes only).
        feedback: remarks about the call the model should take into account.
        instructions: what the model should do or say next.
        problems: why the call failed, as sentences (failures only).
        validation: per-parameter feedback, keyed by parameter name (failures only).
        display: an optional short text for the UI; the model never sees it.
        scheduling: overrides the tool's response scheduling for this answer.
        error_kind: why it failed (set by the manager for its own failures).
    """

    ok: bool
    value: T | None = None
    feedback: tuple[str, ...] = ()
    instructions: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    validation: Mapping[str, ParameterFeedback] = field(default_factory=dict)
    display: str | None = None
    scheduling: ResponseScheduling | None = None
    error_kind: ToolErrorKind | None = None

    @classmethod
    def success(
        cls,
        value: T,
        *,
        feedback: Sequence[str] = (),
        instructions: Sequence[str] = (),
        display: str | None = None,
        scheduling: ResponseScheduling | None = None,
    ) -> ToolResult[T]:
        """A successful result carrying ``value``."""
        return cls(
            ok=True,
            value=value,
            feedback=tuple(feedback),
            instructions=tuple(instructions),
            display=display,
            scheduling=scheduling,
        )

    @classmethod
    def failure(
        cls,
        *problems: str,
        validation: Mapping[str, ParameterFeedback] | None = None,
        display: str | None = None,
        scheduling: ResponseScheduling | None = None,
        error_kind: ToolErrorKind = ToolErrorKind.TOOL_FAILURE,
    ) -> ToolResult[Any]:
        """A failed result: ``problems`` as sentences, ``validation`` per parameter."""
        if not problems and not validation:
            raise ValueError("a failure needs at least one problem or parameter feedback")
        return ToolResult(
            ok=False,
            problems=tuple(problems),
            validation=dict(validation or {}),
            display=display,
            scheduling=scheduling,
            error_kind=error_kind,
        )

    def to_model_payload(self) -> dict[str, Any]:
        """The ``response`` object of the FunctionResponse for this result.

        Successes go under ``output`` and failures under ``error``, the two keys the Live API
        documents for function responses.
        """
        if self.ok:
            body: dict[str, Any] = {"ok": True, "value": to_jsonable_python(self.value)}
            if self.feedback:
                body["feedback"] = list(self.feedback)
            if self.instructions:
                body["instructions"] = list(self.instructions)
            return {"output": body}
        error: dict[str, Any] = {"ok": False}
        if self.problems:
            error["problems"] = list(self.problems)
        if self.validation:
            error["validation"] = {name: fb.to_json() for name, fb in self.validation.items()}
        return {"error": error}


def feedback_from_validation_error(
    error: ValidationError,
    schema: Mapping[str, Any],
) -> dict[str, ParameterFeedback]:
    """Turn pydantic's complaints about a call's arguments into per-parameter feedback.

    Args:
        error: raised by ``input_model.model_validate(arguments)``.
        schema: the parameters JSON schema as declared to the model (refs inlined); its
            ``enum`` lists become ``allowed_values`` and its property names become
            suggestions for misspelt arguments.

    Returns:
        Parameter name (dotted for nested fields, ``(arguments)`` for the whole object) to
        the problems found with it.
    """
    properties: Mapping[str, Any] = schema.get("properties", {})
    problems: dict[str, list[str]] = {}
    allowed: dict[str, tuple[Any, ...]] = {}
    suggested: dict[str, tuple[Any, ...]] = {}
    for item in error.errors(include_url=False):
        location = [str(part) for part in item["loc"]]
        name = ".".join(location) if location else "(arguments)"
        message = item["msg"]
        top = location[0] if location else ""
        prop = properties.get(top, {})
        if item["type"] == "missing":
            description = prop.get("description")
            message = "this parameter is required" + (f": {description}" if description else "")
        elif item["type"] == "extra_forbidden":
            close = difflib.get_close_matches(top, list(properties), n=3)
            message = "this tool has no such parameter"
            if close:
                suggested[name] = tuple(close)
        choices = _enum_values(prop) if len(location) == 1 else None
        if choices is not None:
            allowed[name] = choices
        problems.setdefault(name, []).append(message)
    return {
        name: ParameterFeedback(
            valid=False,
            problems=tuple(messages),
            allowed_values=allowed.get(name),
            suggested_values=suggested.get(name),
        )
        for name, messages in problems.items()
    }


def _enum_values(prop: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """The closed set of values a property accepts, if the schema says so."""
    if "enum" in prop:
        return tuple(prop["enum"])
    if "const" in prop:
        return (prop["const"],)
    values: list[Any] = []
    for option in prop.get("anyOf", ()):
        sub = _enum_values(option)
        if sub is not None:
            values.extend(sub)
        elif option.get("type") == "null":
            values.append(None)
        else:
            return None
    return tuple(values) if values else None
