"""The tool system words each call for the person (issue 24, point 10): a title per tool,
a line per result, carried on the tool events; what the model is told stays as it was."""

from __future__ import annotations

import logging

import pytest
from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import (
    ToolContext,
    ToolDefinitionError,
    ToolErrorKind,
    ToolResult,
    tool,
)
from sammy_desktop.tools.desktop import TimerService, desktop_tools
from sammy_desktop.tools.events import (
    ConfirmationRequested,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallStarted,
)
from sammy_desktop.tools.wording import (
    argument_lines,
    failure_sentence,
    invalid_arguments_sentence,
    title_from_name,
)
from tests.helpers.clock import ManualScheduler
from tests.helpers.events import EventLog
from tests.tools.conftest import ManagerFactory
from tests.tools.fakes import RecordingResponder, ScriptedConfirmer


class Units(BaseModel):
    model_config = ConfigDict(extra="forbid")

    amount: float = Field(title="How much")
    unit_from: str


class Converted(BaseModel):
    value: float
    unit_to: str


def _that_is(result: ToolResult[Converted]) -> str | None:
    return f"That is {result.value.value:g}" if result.value is not None else None


@tool(name="convertUnits", title="Convert units", summary=_that_is)
async def convert(args: Units, context: ToolContext) -> Converted:
    """Convert an amount between units."""
    return Converted(value=args.amount * 2, unit_to="cm")


@tool(name="plainTool")
async def plain(args: Units, context: ToolContext) -> Converted:
    """A plugin's tool with no words for people."""
    return Converted(value=1, unit_to="m")


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("convertUnits", "Convert units"),
        ("convert_units", "Convert units"),
        ("my.plugin:convert-units", "Convert units"),
        ("getHTTPStatus", "Get HTTP status"),
        ("openUrl", "Open URL"),
        ("___", "Tool"),
    ],
)
def test_a_tool_without_a_title_gets_one_from_its_name(name: str, title: str) -> None:
    assert title_from_name(name) == title


def test_a_definition_has_its_title_or_a_readable_one() -> None:
    assert convert.title == "Convert units"
    assert plain.title == "Plain tool"
    with pytest.raises(ToolDefinitionError, match="title"):
        tool(name="long", title="x" * 61)(plain.handler)


def test_a_result_is_summed_up_by_its_display_then_the_hook_then_its_kind(
    caplog: pytest.LogCaptureFixture,
) -> None:
    value = Converted(value=3, unit_to="cm")
    assert convert.summarize(ToolResult.success(value)) == "That is 3"
    assert convert.summarize(ToolResult.success(value, display="Three")) == "Three"
    assert plain.summarize(ToolResult.success(value)) == "Done"
    denied = ToolResult.failure("Do not try again.", error_kind=ToolErrorKind.DENIED)
    assert plain.summarize(denied) == "You did not allow it."

    @tool(name="broken", summary=lambda r: str(1 / 0))
    async def broken(args: Units, context: ToolContext) -> Converted:
        """Broken words."""
        return value

    with caplog.at_level(logging.WARNING):
        assert broken.summarize(ToolResult.success(value)) == "Done"
    assert "its summary failed" in caplog.text


def test_every_failure_kind_has_a_sentence_for_the_person() -> None:
    sentences = {kind: failure_sentence(kind) for kind in ToolErrorKind}
    assert len(set(sentences.values())) == len(ToolErrorKind)
    for sentence in sentences.values():
        assert sentence[0].isupper() and sentence.endswith(".")
        assert "_" not in sentence and "{" not in sentence


def test_arguments_read_as_labelled_lines_without_json() -> None:
    lines = argument_lines(
        {
            "url": "https://example.com",
            "tags": ["home", "wifi"],
            "confirmed": True,
            "n": 2.5,
            "category": "technical_support",
            "where": {"city_name": "Paris"},
        },
        {"n": "How many"},
    )
    assert lines == [
        "URL: https://example.com",
        "Tags: home, wifi",
        "Confirmed: yes",
        "How many: 2.5",
        "Category: technical support",
        "Where: city name Paris",
    ]


def test_what_was_wrong_with_the_arguments_in_words() -> None:
    def errors(data: dict[str, object]) -> list[ErrorDetails]:
        try:
            Units.model_validate(data)
        except ValidationError as error:
            return error.errors()
        raise AssertionError("valid")

    titles = convert.argument_titles
    assert titles == {"amount": "How much"}
    assert invalid_arguments_sentence(errors({}), titles) == (
        "Sammy did not say the how much and the unit from, so nothing was done."
    )
    assert invalid_arguments_sentence(errors({"amount": "x", "unit_from": "m"}), titles) == (
        "The how much Sammy gave was not usable, so nothing was done."
    )
    assert invalid_arguments_sentence(
        errors({"amount": 1, "unit_from": "m", "colour": "red"}), titles
    ) == ("Sammy asked in a way this tool does not understand, so nothing was done.")


async def test_the_events_carry_the_title_and_the_line_the_model_keeps_its_answer(
    make_manager: ManagerFactory, events: EventLog, responder: RecordingResponder
) -> None:
    manager = make_manager(convert)
    calls = [
        types.FunctionCall(id="ok", name="convertUnits", args={"amount": 1.5, "unit_from": "m"}),
        types.FunctionCall(id="bad", name="convertUnits", args={}),
        types.FunctionCall(id="nope", name="getWeather", args={}),
    ]
    await manager.handle(types.LiveServerToolCall(function_calls=calls), responder)
    started = {e.call_id: e for e in events.of(ToolCallStarted)}
    assert started["ok"].title == "Convert units"
    assert started["nope"].title == "Get weather"
    (finished,) = events.of(ToolCallFinished)
    assert finished.title == "Convert units"
    assert finished.summary == "That is 3"
    failed = {e.call_id: e for e in events.of(ToolCallFailed)}
    assert failed["bad"].summary == (
        "Sammy did not say the how much and the unit from, so nothing was done."
    )
    assert failed["nope"].summary == "Sammy asked for a tool this app does not have."
    # The model's answer is what it always was: written for the model, with the details.
    bad = responder.by_id("bad").response or {}
    assert bad["error"]["problems"] == [
        "The arguments for 'convertUnits' are not valid. Fix the parameters listed under "
        "'validation' and call again."
    ]
    assert set(bad["error"]["validation"]) == {"amount", "unit_from"}
    assert "Available tools" in (responder.by_id("nope").response or {})["error"]["problems"][0]


async def test_a_question_carries_the_tools_title_and_argument_labels(
    make_manager: ManagerFactory, events: EventLog, responder: RecordingResponder
) -> None:
    confirmer = ScriptedConfirmer(False)

    @tool(name="convertUnitsCarefully", title="Convert units", requires_confirmation=True)
    async def careful(args: Units, context: ToolContext) -> Converted:
        """Convert, asking first."""
        return Converted(value=1, unit_to="m")

    manager = make_manager(careful, confirmer=confirmer)
    call = types.FunctionCall(
        id="c", name="convertUnitsCarefully", args={"amount": 1, "unit_from": "m"}
    )
    await manager.handle(types.LiveServerToolCall(function_calls=[call]), responder)
    (request,) = confirmer.requests
    assert request.title == "Convert units"
    assert request.argument_titles == {"amount": "How much"}
    (asked,) = events.of(ConfirmationRequested)
    assert asked.title == "Convert units"
    (failed,) = events.of(ToolCallFailed)
    assert failed.summary == "You did not allow it."
    assert "Do not call it again" in failed.problems[0]


def test_every_tool_of_the_app_has_words_for_people(make_manager: ManagerFactory) -> None:
    timers = TimerService(EventBus(), None, scheduler=ManualScheduler())
    manager = make_manager(*desktop_tools(timers=timers, clipboard=None))
    for definition in manager.tools:
        assert definition.title != title_from_name(definition.name), definition.name
        assert definition.about.strip(), definition.name
        assert "the person" not in definition.about, definition.name
