"""An MCP tool as a ToolDefinition: declared Live-safe, arguments checked, asked first by policy."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sammy_desktop.config import Settings
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.definition import ToolDefinitionError
from sammy_desktop.tools.events import ToolSetChanged
from sammy_desktop.tools.kinds import ToolBehavior
from sammy_desktop.tools.mcp.config import ConfirmPolicy
from sammy_desktop.tools.mcp.definition import McpToolDefinition, McpToolInfo, build_definition
from sammy_desktop.tools.mcp.results import McpAnswer
from sammy_desktop.tools.registry import ToolRegistry
from sammy_desktop.tools.results import ToolResult, feedback_from_validation_error
from tests.helpers.events import EventLog

TRIP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "plan_tripArguments",
    "$defs": {
        "Mode": {"enum": ["train", "car", "plane"], "title": "Mode", "type": "string"},
        "Place": {
            "type": "object",
            "title": "Place",
            "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
            "required": ["city"],
        },
    },
    "properties": {
        "mode": {"$ref": "#/$defs/Mode", "description": "how to travel"},
        "destination": {"$ref": "#/$defs/Place"},
        "stops": {"type": "array", "items": {"type": "integer"}, "default": []},
        "people": {
            "anyOf": [{"type": "integer", "enum": [1, 2, 3]}, {"type": "null"}],
            "default": None,
        },
    },
    "required": ["mode", "destination"],
    "additionalProperties": False,
}


async def _never(tool: str, arguments: dict[str, Any]) -> ToolResult[McpAnswer]:
    raise AssertionError("not called in these tests")


def _definition(
    schema: dict[str, Any] = TRIP_SCHEMA,
    *,
    read_only: bool = False,
    policy: ConfirmPolicy = ConfirmPolicy.UNLESS_READ_ONLY,
    name: str = "plan_trip",
) -> McpToolDefinition:
    return build_definition(
        server="travel",
        declared_name=f"travel__{name}",
        info=McpToolInfo(
            name=name, description="Plan a trip.", input_schema=schema, read_only=read_only
        ),
        policy=policy,
        timeout_s=5,
        call=_never,
    )


def test_a_nested_schema_with_an_enum_is_declared_live_safe() -> None:
    schema = _definition().live_parameters.model_dump(exclude_none=True)
    properties = schema["properties"]
    assert properties["mode"] == {
        "description": "how to travel",
        "enum": ["train", "car", "plane"],
        "format": "enum",
        "type": "STRING",
    }
    assert properties["destination"]["type"] == "OBJECT"
    assert properties["destination"]["properties"]["city"] == {"type": "STRING"}
    assert properties["stops"] == {"type": "ARRAY", "items": {"type": "INTEGER"}}
    # An enum of numbers is declared as strings; nullable from anyOf [T, null].
    assert properties["people"] == {
        "enum": ["1", "2", "3"],
        "format": "enum",
        "nullable": True,
        "type": "STRING",
    }
    assert schema["required"] == ["mode", "destination"]
    assert "title" not in str(schema)


def test_what_the_model_sends_for_a_declared_enum_is_brought_back_to_its_type() -> None:
    arguments = _definition().parse_arguments(
        {"mode": "car", "destination": {"city": "Lyon"}, "people": "2", "stops": [1.0, 2]}
    )
    assert arguments.as_dict() == {
        "mode": "car",
        "destination": {"city": "Lyon"},
        "people": 2,
        "stops": [1, 2],
    }


def test_bad_arguments_get_per_parameter_feedback() -> None:
    definition = _definition()
    with pytest.raises(ValidationError) as raised:
        definition.parse_arguments({"mode": "boat", "destination": {}, "colour": "red"})
    feedback = feedback_from_validation_error(raised.value, definition.parameters_json_schema)
    assert set(feedback) == {"mode", "destination.city", "colour"}
    assert feedback["mode"].allowed_values == ("train", "car", "plane")
    assert feedback["destination.city"].problems[0].startswith("this parameter is required")
    assert feedback["colour"].problems == ("this tool has no such parameter",)


def test_a_union_the_live_api_cannot_take_is_refused_with_the_field() -> None:
    schema = {
        "type": "object",
        "properties": {"id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
    }
    with pytest.raises(ToolDefinitionError, match=r"travel__plan_trip.*id"):
        _definition(schema)


@pytest.mark.parametrize(
    ("policy", "read_only", "asks"),
    [
        (ConfirmPolicy.UNLESS_READ_ONLY, True, False),
        (ConfirmPolicy.UNLESS_READ_ONLY, False, True),
        (ConfirmPolicy.ALWAYS, True, True),
        (ConfirmPolicy.NEVER, False, False),
    ],
)
def test_who_is_asked_first_follows_the_policy_and_the_annotations(
    policy: ConfirmPolicy, read_only: bool, asks: bool
) -> None:
    assert _definition(policy=policy, read_only=read_only).requires_confirmation is asks


def test_the_card_names_the_server_and_the_call_runs_in_the_background() -> None:
    definition = _definition()
    assert definition.title == "Plan trip (travel)"
    assert definition.behavior is ToolBehavior.NON_BLOCKING
    assert "travel" in definition.prompt_for(
        definition.parse_arguments({"mode": "car", "destination": {"city": "x"}})
    )


def test_a_changing_source_adds_and_removes_tools_once_each() -> None:
    bus = EventBus()
    events = EventLog(bus)
    registry = ToolRegistry(bus, Settings)
    registry.replace_source("MCP server travel", [_definition(name="a"), _definition(name="b")])
    # The same listing again changes nothing.
    registry.replace_source("MCP server travel", [_definition(name="a"), _definition(name="b")])
    registry.replace_source("MCP server travel", [_definition(name="b"), _definition(name="c")])
    registry.remove_source("MCP server travel")
    assert [(e.added, e.removed) for e in events.of(ToolSetChanged)] == [
        (("travel__a", "travel__b"), ()),
        (("travel__c",), ("travel__a",)),
        ((), ("travel__b", "travel__c")),
    ]
    assert registry.tools == ()
