"""ToolDefinition and the @tool decorator: what is inferred, what is refused and why."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import BaseModel

from sammy_desktop.tools import (
    ResponseScheduling,
    ToolBehavior,
    ToolCategory,
    ToolContext,
    ToolDefinition,
    ToolDefinitionError,
    ToolResult,
    tool,
)


class In(BaseModel):
    text: str


class Out(BaseModel):
    text: str


class Other(BaseModel):
    n: int


@tool(category=ToolCategory.CONTEXT)
async def shout(args: In, context: ToolContext) -> Out | ToolResult[Out]:
    """Shout the text.

    Use it when the person
    wants emphasis.
    """
    return Out(text=args.text.upper())


@tool(behavior=ToolBehavior.NON_BLOCKING, scheduling=ResponseScheduling.SILENT)
async def count_up(args: In, context: ToolContext) -> AsyncIterator[Out]:
    """Count up, reporting progress."""
    yield Out(text="1")


def test_decorator_infers_name_description_and_models() -> None:
    assert shout.name == "shout"
    assert shout.description == "Shout the text.\n\nUse it when the person wants emphasis."
    assert (shout.input_model, shout.output_model) == (In, Out)
    assert shout.category is ToolCategory.CONTEXT
    assert shout.behavior is ToolBehavior.BLOCKING
    assert shout.error_scheduling is ResponseScheduling.SILENT
    assert not shout.streams_progress
    assert shout.prompt_for(In(text="x")) == "Sammy wants to use “Shout”. Allow it?"


def test_decorator_understands_async_generators() -> None:
    assert count_up.output_model is Out
    assert count_up.streams_progress
    assert count_up.scheduling is ResponseScheduling.SILENT


def test_non_async_functions_are_refused() -> None:
    def plain(args: In, context: ToolContext) -> Out:
        return Out(text="")

    with pytest.raises(ToolDefinitionError, match="needs an async function"):
        tool()(plain)  # type: ignore[arg-type]


def test_wrong_parameter_count_is_refused() -> None:
    async def lonely(args: In) -> Out:
        return Out(text="")

    with pytest.raises(ToolDefinitionError, match=r"takes \(input, context\), found 1"):
        tool(description="x")(lonely)  # type: ignore[arg-type]


def test_unresolvable_annotations_say_how_to_fix_it() -> None:
    class LocalIn(BaseModel):
        text: str

    async def local(args: LocalIn, context: ToolContext) -> Out:
        return Out(text="")

    with pytest.raises(ToolDefinitionError, match="pass input_model= and output_model="):
        tool(description="x")(local)
    built = tool(description="x", input_model=LocalIn, output_model=Out)(local)
    assert built.input_model is LocalIn


def test_ambiguous_output_is_refused() -> None:
    async def two(args: In, context: ToolContext) -> Out | Other:
        return Out(text="")

    with pytest.raises(ToolDefinitionError, match="cannot tell the output model"):
        tool(description="x")(two)


async def handler(args: In, context: ToolContext) -> Out:
    return Out(text="")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "1abc"}, "is not allowed"),
        ({"name": "has space"}, "is not allowed"),
        ({"name": "x" * 129}, "is not allowed"),
        ({"description": "  "}, "needs a description"),
        ({"input_model": dict}, "input_model must be a pydantic BaseModel"),
        ({"output_model": str}, "output_model must be a pydantic BaseModel"),
        ({"handler": "not callable"}, "handler is not callable"),
        ({"timeout_s": 0}, "timeout_s must be positive"),
        ({"confirmation_timeout_s": -1}, "confirmation_timeout_s must be positive"),
    ],
)
def test_bad_definitions_are_refused_with_a_clear_message(
    changes: dict[str, Any], message: str
) -> None:
    fields: dict[str, Any] = {
        "name": "ok_name.v1:x-y",
        "description": "Does a thing.",
        "input_model": In,
        "output_model": Out,
        "handler": handler,
    }
    ToolDefinition(**fields)  # the base is valid
    with pytest.raises(ToolDefinitionError, match=message):
        ToolDefinition(**{**fields, **changes})
