"""The Live-safe ``parameters`` converter: every shipped tool, the SDK's wire, nasty schemas."""

from __future__ import annotations

import datetime as dt
import enum
import json
import uuid
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from google import genai
from google.genai import _common, _live_converters, live, types
from pydantic import BaseModel, ConfigDict, Field, conint, constr

from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import ToolDefinition
from sammy_desktop.tools.builtins import builtin_tools
from sammy_desktop.tools.desktop import TimerService, desktop_tools
from sammy_desktop.tools.live_schema import (
    LiveSchemaError,
    convert_json_schema,
    convert_model,
    describe_losses,
    live_parameters,
)
from sammy_desktop.tools.schema import SchemaError, parameters_schema

# Keywords that must never reach the declaration, in both spellings the SDK knows (the
# wire carries snake_case field names; by_alias dumps give camelCase).
DROPPED = frozenset(
    {
        "title",
        "default",
        "additionalProperties",
        "additional_properties",
        "$schema",
        "$ref",
        "$defs",
        "ref",
        "defs",
        "const",
        "anyOf",
        "any_of",
        "oneOf",
        "allOf",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "uniqueItems",
        "prefixItems",
        "examples",
        "example",
        "property_ordering",
        "propertyOrdering",
    }
)


def shipped_tools() -> list[ToolDefinition[Any, Any]]:
    # The pack as the app builds it, minus the UI: no notifier, no clipboard.
    timers = TimerService(EventBus(), None)
    return [*builtin_tools(), *desktop_tools(timers=timers, clipboard=None)]


SHIPPED = shipped_tools()


def nodes(schema: dict[str, Any], path: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema node of a dumped ``types.Schema`` (not the keys of ``properties``)."""
    yield path, schema
    for name, child in (schema.get("properties") or {}).items():
        yield from nodes(child, f"{path}.{name}")
    if schema.get("items") is not None:
        yield from nodes(schema["items"], f"{path}[]")


def dumped(schema: types.Schema) -> dict[str, Any]:
    """The schema as the SDK puts it in the setup frame (snake_case, no None fields)."""
    value: dict[str, Any] = json.loads(
        json.dumps(schema.model_dump(mode="json", exclude_none=True))
    )
    return value


def required_names(model: type[BaseModel]) -> set[str]:
    return {
        field.alias or name for name, field in model.model_fields.items() if field.is_required()
    }


async def setup_frame(*declarations: types.FunctionDeclaration) -> dict[str, Any]:
    """The ``setup`` message exactly as AsyncLive.connect() builds it (google-genai 3.6)."""
    client = genai.Client(api_key="not-a-real-key")
    config = types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        tools=[types.Tool(function_declarations=list(declarations))],
    )
    api_client = client.aio._api_client
    parameter_model = await live._t_live_connect_config(api_client, config)
    request: dict[str, Any] = _common.convert_to_dict(
        _live_converters._LiveConnectParameters_to_mldev(
            api_client=api_client,
            from_object=types.LiveConnectParameters(
                model="gemini-3.8-live", config=parameter_model
            ).model_dump(exclude_none=True),
        )
    )
    del request["config"]
    request = _common.encode_unserializable_types(request)
    setup: dict[str, Any] = json.loads(json.dumps(request))["setup"]
    return setup


def wire_parameters(setup: dict[str, Any]) -> dict[str, dict[str, Any]]:
    (tools_entry,) = setup["tools"]
    return {d["name"]: d for d in tools_entry["functionDeclarations"]}


def convert(model: type[BaseModel]) -> dict[str, Any]:
    return dumped(live_parameters(model))


# ---------------------------------------------------------------- every shipped tool


def test_every_shipped_tool_is_covered() -> None:
    names = [definition.name for definition in SHIPPED]
    assert len(names) == len(set(names))
    # The built-ins and the desktop pack, so a tool added to either is checked below too.
    assert {"endSession", "escalate", "getDateTime", "setTimer", "addNote", "openUrl"} <= set(names)


@pytest.mark.parametrize("definition", SHIPPED, ids=lambda d: d.name)
def test_shipped_tool_converts_to_a_valid_schema(definition: ToolDefinition[Any, Any]) -> None:
    schema = live_parameters(definition.input_model)
    assert isinstance(schema, types.Schema)
    assert types.Schema.model_validate(schema.model_dump(exclude_none=True)) == schema
    assert schema.type is types.Type.OBJECT
    assert schema.properties is not None
    assert set(schema.properties) == set(definition.input_model.model_json_schema()["properties"])
    assert set(schema.required or []) == required_names(definition.input_model)


@pytest.mark.parametrize("definition", SHIPPED, ids=lambda d: d.name)
def test_shipped_tool_has_a_type_everywhere_and_no_dropped_keyword(
    definition: ToolDefinition[Any, Any],
) -> None:
    schema = live_parameters(definition.input_model)
    for dump in (dumped(schema), schema.model_dump(mode="json", by_alias=True, exclude_none=True)):
        for path, node in nodes(dump):
            assert node.get("type") in {
                "STRING",
                "NUMBER",
                "INTEGER",
                "BOOLEAN",
                "ARRAY",
                "OBJECT",
            }, path
            assert not DROPPED & node.keys(), (path, DROPPED & node.keys())
            if "enum" in node:
                assert node["type"] == "STRING"
                assert all(isinstance(value, str) for value in node["enum"])


@pytest.mark.parametrize("definition", SHIPPED, ids=lambda d: d.name)
async def test_shipped_tool_survives_the_sdk_setup_serialisation(
    definition: ToolDefinition[Any, Any],
) -> None:
    schema = live_parameters(definition.input_model)
    declaration = types.FunctionDeclaration(
        name=definition.name, description=definition.description, parameters=schema
    )
    setup = await setup_frame(declaration)
    wire = wire_parameters(setup)[definition.name]
    assert "parameters_json_schema" not in wire and "parametersJsonSchema" not in wire
    assert wire["parameters"] == dumped(schema)
    assert wire["parameters"]["type"] == "OBJECT"
    assert set(wire["parameters"].get("required", [])) == required_names(definition.input_model)


def test_shipped_tools_lose_nothing_the_model_needs() -> None:
    for definition in SHIPPED:
        conversion = convert_model(definition.input_model)
        assert conversion.losses == (), conversion.describe()


def test_escalate_declares_its_enums_as_string_enums() -> None:
    (escalate,) = [d for d in SHIPPED if d.name == "escalate"]
    params = convert(escalate.input_model)
    assert params["required"] == ["reason", "category"]
    category = params["properties"]["category"]
    assert category == {
        "type": "STRING",
        "format": "enum",
        "enum": ["technical_support", "account", "billing", "safety", "complaint", "other"],
        "description": "What kind of help is needed.",
    }
    assert params["properties"]["urgency"]["enum"] == ["low", "medium", "high"]


def test_pack_constraints_survive() -> None:
    by_name = {d.name: convert(d.input_model) for d in SHIPPED}
    timezone = by_name["getDateTime"]["properties"]["timezone"]
    assert timezone["type"] == "STRING" and timezone["nullable"] is True
    assert timezone["max_length"] == 100
    assert "required" not in by_name["getDateTime"]
    tags = by_name["addNote"]["properties"]["tags"]
    assert tags["type"] == "ARRAY" and tags["max_items"] == 10
    assert tags["items"] == {"type": "STRING", "min_length": 1, "max_length": 40}
    limit = by_name["searchNotes"]["properties"]["limit"]
    assert (limit["type"], limit["minimum"], limit["maximum"]) == ("INTEGER", 1, 20)
    assert by_name["listTimers"] == {
        "type": "OBJECT",
        "description": "listTimers takes no arguments.",
        "properties": {},
    }


# ---------------------------------------------------------------- the args={} bug


class Place(BaseModel):
    """A place on Earth."""

    city: str = Field(min_length=1, description="City name.")
    country: str | None = Field(None, description="ISO country code.")


class WeatherInput(BaseModel):
    place: Place = Field(description="Where.")
    days: int = Field(1, ge=1, le=7)


async def test_a_required_argument_reaches_the_wire_with_its_required_entry() -> None:
    declaration = types.FunctionDeclaration(
        name="getWeather", description="Weather.", parameters=live_parameters(WeatherInput)
    )
    config = types.LiveConnectConfig(tools=[types.Tool(function_declarations=[declaration])])
    assert config.tools is not None
    wire = wire_parameters(await setup_frame(declaration))["getWeather"]
    # parameters, not parameters_json_schema: the field Live models have been seen to honour.
    assert set(wire) == {"name", "description", "parameters"}
    parameters = wire["parameters"]
    assert parameters["required"] == ["place"]
    place = parameters["properties"]["place"]
    assert place["type"] == "OBJECT" and place["required"] == ["city"]
    assert place["description"] == "Where."
    assert place["properties"]["city"] == {
        "type": "STRING",
        "description": "City name.",
        "min_length": 1,
    }
    assert place["properties"]["country"]["nullable"] is True
    # The SDK sends its own (snake_case) field names inside parameters, upper-case types.
    assert parameters["properties"]["days"] == {"type": "INTEGER", "minimum": 1, "maximum": 7}


# ---------------------------------------------------------------- nasty schemas


class Colour(enum.StrEnum):
    """A paint colour."""

    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Item(BaseModel):
    name: str
    amount: int = 1


class Kitchen(BaseModel):
    colour: Colour
    level: Level = Level.LOW
    shade: Colour = Field(Colour.RED, description="The shade to use.")
    mode: Literal["fast", "slow"] = "fast"
    kind: Literal["order"]
    maybe: int | None = None
    maybe_place: Place | None = None
    maybe_mode: Literal["a", "b"] | None = None
    items: list[Item] = Field(description="What to buy.")
    grid: list[list[int]] = []
    code: constr(min_length=2, max_length=8, pattern=r"^[A-Z]+$")  # type: ignore[valid-type]
    count: conint(ge=0, le=99) = 0  # type: ignore[valid-type]
    when: dt.datetime | None = None
    flag: bool = False


def test_nasty_but_declarable_model() -> None:
    params = convert(Kitchen)
    props = params["properties"]
    assert set(params["required"]) == {"colour", "kind", "items", "code"} == required_names(Kitchen)
    # A StrEnum: strings, its docstring as the description; a field description wins.
    assert props["colour"] == {
        "type": "STRING",
        "format": "enum",
        "enum": ["red", "green"],
        "description": "A paint colour.",
    }
    assert props["shade"]["description"] == "The shade to use."
    # An IntEnum: values as strings, type STRING.
    assert props["level"]["type"] == "STRING" and props["level"]["enum"] == ["1", "2"]
    assert props["mode"]["enum"] == ["fast", "slow"] and props["mode"]["type"] == "STRING"
    # const -> one-value enum.
    assert props["kind"] == {"type": "STRING", "format": "enum", "enum": ["order"]}
    # Optional -> the inner type, nullable.
    assert props["maybe"] == {"type": "INTEGER", "nullable": True}
    assert props["maybe_place"]["type"] == "OBJECT" and props["maybe_place"]["nullable"] is True
    assert props["maybe_place"]["required"] == ["city"]
    assert props["maybe_place"]["description"] == "A place on Earth."
    assert props["maybe_mode"] == {
        "type": "STRING",
        "format": "enum",
        "enum": ["a", "b"],
        "nullable": True,
    }
    # A list of models keeps the item model's properties and required.
    assert props["items"]["type"] == "ARRAY" and props["items"]["description"] == "What to buy."
    assert props["items"]["items"] == {
        "type": "OBJECT",
        "properties": {"name": {"type": "STRING"}, "amount": {"type": "INTEGER"}},
        "required": ["name"],
    }
    assert props["grid"] == {
        "type": "ARRAY",
        "items": {"type": "ARRAY", "items": {"type": "INTEGER"}},
    }
    assert props["code"] == {
        "type": "STRING",
        "min_length": 2,
        "max_length": 8,
        "pattern": "^[A-Z]+$",
    }
    assert props["count"] == {"type": "INTEGER", "minimum": 0, "maximum": 99}
    assert props["when"] == {"type": "STRING", "format": "date-time", "nullable": True}
    assert props["flag"] == {"type": "BOOLEAN"}
    for path, node in nodes(params):
        assert "type" in node, path
        assert not DROPPED & node.keys(), path


def test_an_int_enum_declared_as_strings_is_reported_and_still_validates() -> None:
    conversion = convert_model(Kitchen)
    (loss,) = [loss for loss in conversion.losses if loss.path == "Kitchen.level"]
    assert loss.keyword == "enum" and "'1'" in loss.detail
    # The string the model sends back validates into the IntEnum (lax mode).
    assert (
        Kitchen.model_validate(
            {"colour": "red", "kind": "order", "items": [], "code": "AB", "level": "2"}
        ).level
        is Level.HIGH
    )


def test_a_non_string_literal_is_stringified_and_reported() -> None:
    class Pick(BaseModel):
        size: Literal[4, 6, 8]
        on: Literal[True] = True
        mixed: Literal[1, "a"] = "a"

    params = convert(Pick)
    assert params["properties"]["size"] == {
        "type": "STRING",
        "format": "enum",
        "enum": ["4", "6", "8"],
    }
    assert params["properties"]["on"]["enum"] == ["true"]
    # No type from pydantic at all: inferred from the enum.
    assert params["properties"]["mixed"]["type"] == "STRING"
    assert params["properties"]["mixed"]["enum"] == ["1", "a"]
    report = describe_losses(Pick)
    assert "Pick.size: enum:" in report and "Literal[1, 2] does not" in report
    assert "Pick.on: enum:" in report and "Pick.mixed: enum:" in report


def test_a_union_is_refused_naming_the_field() -> None:
    class Either(BaseModel):
        value: str | int

    with pytest.raises(LiveSchemaError, match=r"Either\.value: a union \(string \| integer\)"):
        live_parameters(Either)


def test_a_nested_union_is_refused_with_its_path() -> None:
    class Inner(BaseModel):
        value: list[str | float]

    class Outer(BaseModel):
        inner: list[Inner]

    with pytest.raises(LiveSchemaError, match=r"Outer\.inner\[\]\.value\[\]: a union"):
        live_parameters(Outer)


def test_a_discriminated_union_is_refused() -> None:
    class Cat(BaseModel):
        pet: Literal["cat"]

    class Dog(BaseModel):
        pet: Literal["dog"]

    class Owner(BaseModel):
        animal: Cat | Dog = Field(discriminator="pet")

    with pytest.raises(LiveSchemaError, match=r"Owner\.animal: a union \(Cat \| Dog\)"):
        live_parameters(Owner)


class Node(BaseModel):
    name: str
    children: list[Node] = []


class Ping(BaseModel):
    pong: Pong | None = None


class Pong(BaseModel):
    ping: Ping


class Game(BaseModel):
    start: Ping


def test_recursion_is_refused_naming_the_model_and_path() -> None:
    with pytest.raises(LiveSchemaError, match=r"Node\.children\[\]: Node refers to itself"):
        live_parameters(Node)
    with pytest.raises(
        LiveSchemaError,
        match=r"Game\.start\.pong\.ping: Ping refers to itself \(Ping -> Pong -> Ping\)",
    ):
        live_parameters(Game)
    # Still a SchemaError / ValueError, so ToolDefinition's error handling covers it.
    with pytest.raises(SchemaError, match="recursive input models cannot be declared"):
        describe_losses(Node)


def test_a_model_used_twice_is_not_mistaken_for_recursion() -> None:
    class Trip(BaseModel):
        start: Place
        end: Place

    props = convert(Trip)["properties"]
    assert props["start"] == props["end"]
    assert props["start"]["required"] == ["city"]


def test_dicts_are_refused() -> None:
    class Counts(BaseModel):
        counts: dict[str, int]

    class Free(BaseModel):
        data: dict[str, Any] = {}

    with pytest.raises(LiveSchemaError, match=r"Counts\.counts: a dict \(free-form keys\)"):
        live_parameters(Counts)
    with pytest.raises(LiveSchemaError, match=r"Free\.data: a dict .* str holding JSON"):
        live_parameters(Free)


def test_an_empty_nested_model_is_refused_but_an_empty_top_level_is_fine() -> None:
    class Nothing(BaseModel):
        pass

    class Holder(BaseModel):
        nothing: Nothing

    with pytest.raises(LiveSchemaError, match=r"Holder\.nothing: an object without fields"):
        live_parameters(Holder)
    assert live_parameters(Nothing) == types.Schema(type=types.Type.OBJECT, properties={})
    assert convert(Nothing) == {"type": "OBJECT", "properties": {}}


async def test_a_model_without_fields_reaches_the_wire_as_an_empty_object() -> None:
    class NoArgs(BaseModel):
        model_config = ConfigDict(extra="forbid")

    declaration = types.FunctionDeclaration(
        name="lightsOn", description="Turns the lights on.", parameters=live_parameters(NoArgs)
    )
    wire = wire_parameters(await setup_frame(declaration))["lightsOn"]
    # The shape the SDK's own real-backend Live test declares.
    assert wire["parameters"] == {"type": "OBJECT", "properties": {}}
    assert convert_model(NoArgs).losses == ()


def test_untyped_values_are_refused() -> None:
    class Loose(BaseModel):
        anything: Any

    class LooseList(BaseModel):
        things: list[Any]

    class Bare(BaseModel):
        things: list  # type: ignore[type-arg]

    with pytest.raises(LiveSchemaError, match=r"Loose\.anything: cannot tell the type"):
        live_parameters(Loose)
    with pytest.raises(LiveSchemaError, match=r"LooseList\.things\[\]: cannot tell the type"):
        live_parameters(LooseList)
    with pytest.raises(LiveSchemaError, match=r"Bare\.things\[\]: cannot tell the type"):
        live_parameters(Bare)


def test_tuples_and_null_only_values_are_refused() -> None:
    class Pair(BaseModel):
        pair: tuple[int, str]

    class Nil(BaseModel):
        nothing: None = None

    with pytest.raises(LiveSchemaError, match=r"Pair\.pair: a fixed-length tuple"):
        live_parameters(Pair)
    with pytest.raises(LiveSchemaError, match=r"Nil\.nothing: the value can only be null"):
        live_parameters(Nil)


def test_a_homogeneous_tuple_is_a_list() -> None:
    class Many(BaseModel):
        values: tuple[int, ...]

    assert convert(Many)["properties"]["values"] == {"type": "ARRAY", "items": {"type": "INTEGER"}}


def test_exclusive_bounds_and_other_constraints() -> None:
    class Bounds(BaseModel):
        whole: int = Field(gt=0, lt=10)
        ratio: float = Field(0.5, gt=0, lt=1)
        step: float = Field(1.0, multiple_of=0.5)
        unique: set[int] = set()
        loose: conint(gt=-1, ge=2) = 3  # type: ignore[valid-type]

    conversion = convert_model(Bounds)
    props = dumped(conversion.to_schema())["properties"]
    # Integers: the exact next integer, nothing lost.
    assert props["whole"] == {"type": "INTEGER", "minimum": 1, "maximum": 9}
    # The tighter of the two bounds wins.
    assert props["loose"]["minimum"] == 2
    # Numbers: the inclusive bound (a little looser), reported.
    assert props["ratio"] == {"type": "NUMBER", "minimum": 0, "maximum": 1}
    assert props["step"] == {"type": "NUMBER"}
    assert props["unique"] == {"type": "ARRAY", "items": {"type": "INTEGER"}}
    lost = {(loss.path, loss.keyword) for loss in conversion.losses}
    assert lost == {
        ("Bounds.ratio", "exclusiveMinimum"),
        ("Bounds.ratio", "exclusiveMaximum"),
        ("Bounds.step", "multipleOf"),
        ("Bounds.unique", "uniqueItems"),
    }


def test_defaults_and_titles_go_without_a_report() -> None:
    class Defaults(BaseModel):
        label: str = Field("", title="The label")
        limit: int = 5
        urgency: Colour = Colour.GREEN

    conversion = convert_model(Defaults)
    params = dumped(conversion.to_schema())
    assert "required" not in params
    for path, node in nodes(params):
        assert "default" not in node and "title" not in node, path
    assert conversion.losses == ()
    assert describe_losses(Defaults) == (
        "Defaults: the Live declaration says everything the model says."
    )


def test_formats_the_gemini_api_does_not_list_are_dropped_and_reported() -> None:
    class Formats(BaseModel):
        day: dt.date
        ident: uuid.UUID
        stamp: dt.datetime

    conversion = convert_model(Formats)
    props = dumped(conversion.to_schema())["properties"]
    assert props["day"] == {"type": "STRING"}
    assert props["ident"] == {"type": "STRING"}
    assert props["stamp"] == {"type": "STRING", "format": "date-time"}
    assert [(loss.path, loss.keyword) for loss in conversion.losses] == [
        ("Formats.day", "format"),
        ("Formats.ident", "format"),
    ]
    assert "'date' is not a format the Gemini API lists for STRING" in conversion.describe()


def test_unknown_keywords_and_extra_keys_are_reported() -> None:
    class Extras(BaseModel):
        model_config = ConfigDict(extra="allow")

        name: str = Field(examples=["Ada"], json_schema_extra={"deprecated": True})

    conversion = convert_model(Extras)
    assert dumped(conversion.to_schema())["properties"]["name"] == {"type": "STRING"}
    assert {(loss.path, loss.keyword) for loss in conversion.losses} == {
        ("Extras", "additionalProperties"),
        ("Extras.name", "examples"),
        ("Extras.name", "deprecated"),
    }
    report = describe_losses(Extras)
    assert report.startswith("Extras: the Live declaration leaves out 3 thing(s):")
    assert "  - Extras.name: examples: types.Schema has no such field" in report


def test_aliases_name_the_properties_and_required_entries() -> None:
    class Mail(BaseModel):
        sender: str = Field(alias="from")

    params = convert(Mail)
    assert params["required"] == ["from"] and set(params["properties"]) == {"from"}


def test_the_inlined_parameters_schema_converts_the_same() -> None:
    # schema.py's inlined form is accepted too: one converter for both inputs.
    models: list[type[BaseModel]] = [Kitchen, WeatherInput, *(d.input_model for d in SHIPPED)]
    for model in models:
        inlined = convert_json_schema(parameters_schema(model), owner=model.__name__)
        assert inlined == convert_model(model)


def test_raw_json_schemas_other_generators_write() -> None:
    raw = {
        "type": "object",
        "properties": {
            "n": {"type": ["integer", "null"], "minimum": 0, "exclusiveMinimum": True},
            "ref": {"$ref": "#/definitions/Mode"},
            "all": {"allOf": [{"$ref": "#/definitions/Mode"}], "description": "All of one."},
            "opt": {"type": "string", "nullable": True},
        },
        "required": ["ref"],
        "definitions": {"Mode": {"enum": ["x", "y", None]}},
    }
    original = json.dumps(raw, sort_keys=True)
    props = dumped(convert_json_schema(raw, owner="mcp_tool").to_schema())["properties"]
    assert json.dumps(raw, sort_keys=True) == original  # the input is not modified
    # Draft 4 boolean exclusiveMinimum on an integer: exactly minimum 1.
    assert props["n"] == {"type": "INTEGER", "minimum": 1, "nullable": True}
    assert props["ref"] == {
        "type": "STRING",
        "format": "enum",
        "enum": ["x", "y"],
        "nullable": True,
    }
    assert props["all"]["description"] == "All of one." and props["all"]["enum"] == ["x", "y"]
    assert props["opt"] == {"type": "STRING", "nullable": True}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"type": "string"}, r"t: the parameters must be an object .* not STRING"),
        (
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/Gone"}}},
            r"t\.a: cannot resolve",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "date"}}},
            r"t\.a: unknown JSON Schema type",
        ),
        (
            {"type": "object", "properties": {"a": {"type": ["string", "integer"]}}},
            r"t\.a: a union",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"allOf": [{"type": "string"}, {"minLength": 1}]}},
            },
            r"t\.a: allOf with several parts",
        ),
        ({"type": "object", "properties": {}, "required": ["a"]}, r"t: required names 'a'"),
        (
            {"type": "object", "properties": {"a": {"type": "integer", "minimum": "0"}}},
            r"minimum must be",
        ),
        ({"type": "object", "properties": {"a": True}}, r"t\.a: expected a schema object"),
    ],
)
def test_malformed_raw_schemas_are_refused(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(LiveSchemaError, match=message):
        convert_json_schema(raw, owner="t")


def test_converting_does_not_need_the_sdk_until_the_schema_is_built() -> None:
    # fields are plain data for types.Schema; nothing in them is an SDK object.
    conversion = convert_model(Kitchen)
    assert json.loads(json.dumps(conversion.fields)) == conversion.fields
    assert types.Schema.model_validate(conversion.fields) == conversion.to_schema()


def test_the_converted_schema_round_trips_through_the_sdk_models() -> None:
    schema = live_parameters(Kitchen)
    declaration = types.FunctionDeclaration(name="cook", description="Cooks.", parameters=schema)
    config = types.LiveConnectConfig(tools=[types.Tool(function_declarations=[declaration])])
    again = types.LiveConnectConfig.model_validate(
        config.model_dump(mode="json", exclude_none=True)
    )
    assert again == config
    assert again.tools is not None
