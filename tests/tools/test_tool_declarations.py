"""Declarations: per-model capabilities, schema shape, and acceptance by the real SDK."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest
from google import genai
from google.genai import _common, _live_converters, live, types
from pydantic import BaseModel, Field

from sammy_desktop.tools import (
    ToolBehavior,
    ToolContext,
    ToolDefinitionError,
    ToolManager,
    capabilities_for,
    tool,
)
from tests.tools.conftest import ManagerFactory

NATIVE_AUDIO = "gemini-2.5-flash-native-audio-preview-12-2025"
SYNC_ONLY = "gemini-3.1-flash-live-preview"
NON_BLOCKING_DEFAULT = "gemini-3.8-live"


class Unit(enum.StrEnum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Place(BaseModel):
    city: str = Field(description="City name.")
    country: str | None = Field(None, description="ISO country code.")


class WeatherInput(BaseModel):
    place: Place = Field(description="Where.")
    unit: Unit = Field(Unit.CELSIUS, description="Temperature unit.")


class WeatherOutput(BaseModel):
    temperature: float


@tool(name="getWeather", behavior=ToolBehavior.NON_BLOCKING)
async def get_weather(args: WeatherInput, context: ToolContext) -> WeatherOutput:
    """Current weather for a place."""
    return WeatherOutput(temperature=21.0)


def declared(manager: ToolManager, model: str) -> dict[str, types.FunctionDeclaration]:
    (declared_tool,) = manager.declarations(model)
    assert declared_tool.function_declarations is not None
    return {d.name or "": d for d in declared_tool.function_declarations}


@pytest.mark.parametrize(
    ("model", "is_async", "default"),
    [
        (NATIVE_AUDIO, True, ToolBehavior.BLOCKING),
        ("models/" + NATIVE_AUDIO, True, ToolBehavior.BLOCKING),
        ("gemini-2.5-flash-native-audio-latest", True, ToolBehavior.BLOCKING),
        # Shut down 2025-12-09 (docs/live-service.md C6): unknown now, so the safe default.
        ("gemini-live-2.5-flash-preview", False, ToolBehavior.BLOCKING),
        (SYNC_ONLY, False, ToolBehavior.BLOCKING),
        (NON_BLOCKING_DEFAULT, True, ToolBehavior.NON_BLOCKING),
        ("some-future-model", False, ToolBehavior.BLOCKING),
    ],
)
def test_capability_table(model: str, is_async: bool, default: ToolBehavior) -> None:
    capabilities = capabilities_for(model)
    assert capabilities.async_function_calling is is_async
    assert capabilities.default_behavior is default


def test_behavior_is_declared_only_for_models_with_async_calls(
    make_manager: ManagerFactory,
) -> None:
    manager = make_manager(get_weather)

    for model in (NATIVE_AUDIO, NON_BLOCKING_DEFAULT):
        by_name = declared(manager, model)
        assert by_name["getWeather"].behavior is types.Behavior.NON_BLOCKING
        # Explicit BLOCKING, which matters where the model's default is non-blocking.
        assert by_name["escalate"].behavior is types.Behavior.BLOCKING

    by_name = declared(manager, SYNC_ONLY)
    assert all(d.behavior is None for d in by_name.values())


def test_parameters_are_a_self_contained_live_schema(make_manager: ManagerFactory) -> None:
    """Declared with ``parameters`` (types.Schema): Live models ignore parameters_json_schema."""
    declaration = declared(make_manager(get_weather), NATIVE_AUDIO)["getWeather"]
    assert declaration.parameters_json_schema is None
    assert declaration.parameters is not None
    schema = declaration.parameters.model_dump(mode="json", exclude_none=True)
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema
    assert schema["type"] == "OBJECT"
    assert schema["required"] == ["place"]
    place = schema["properties"]["place"]
    assert place["description"] == "Where."
    assert place["properties"]["city"]["type"] == "STRING"
    unit = schema["properties"]["unit"]
    assert unit["enum"] == ["celsius", "fahrenheit"]
    assert "default" not in unit  # not part of the Live subset
    assert declared(make_manager(get_weather), NATIVE_AUDIO)["getWeather"].description == (
        "Current weather for a place."
    )


def test_disabled_tools_are_not_declared_and_none_gives_no_tool(
    make_manager: ManagerFactory,
) -> None:
    manager = make_manager(get_weather, enabled={"getWeather": False, "escalate": False})
    assert set(declared(manager, NATIVE_AUDIO)) == {"endSession", "getCurrentContext"}
    manager.set_enabled("endSession", False)
    manager.set_enabled("getCurrentContext", False)
    assert manager.declarations(NATIVE_AUDIO) == []


@pytest.mark.parametrize("model", [NATIVE_AUDIO, SYNC_ONLY, NON_BLOCKING_DEFAULT])
def test_declarations_validate_as_sdk_function_declarations(
    make_manager: ManagerFactory, model: str
) -> None:
    for declaration in declared(make_manager(get_weather), model).values():
        dumped = declaration.model_dump(mode="json", exclude_none=True)
        again = types.FunctionDeclaration.model_validate(dumped)
        assert again == declaration


@pytest.mark.parametrize("model", [NATIVE_AUDIO, SYNC_ONLY, NON_BLOCKING_DEFAULT])
async def test_declarations_survive_the_sdk_setup_serialisation(
    make_manager: ManagerFactory, model: str
) -> None:
    # The same steps AsyncLive.connect() takes to build the setup frame (google-genai 3.6).
    client = genai.Client(api_key="not-a-real-key")
    config = types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        # list is invariant: unpack into the SDK's list[ToolUnion].
        tools=[*make_manager(get_weather).declarations(model)],
    )
    api_client = client.aio._api_client
    parameter_model = await live._t_live_connect_config(api_client, config)
    request: dict[str, Any] = _common.convert_to_dict(
        _live_converters._LiveConnectParameters_to_mldev(
            api_client=api_client,
            from_object=types.LiveConnectParameters(model=model, config=parameter_model).model_dump(
                exclude_none=True
            ),
        )
    )
    del request["config"]
    request = _common.encode_unserializable_types(request)
    setup = json.loads(json.dumps(request))["setup"]
    (tools_entry,) = setup["tools"]
    names = [d["name"] for d in tools_entry["functionDeclarations"]]
    assert names == ["endSession", "getCurrentContext", "escalate", "getWeather"]
    weather = tools_entry["functionDeclarations"][-1]
    assert "parameters_json_schema" not in weather
    assert weather["parameters"]["required"] == ["place"]
    assert weather["parameters"]["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert ("behavior" in weather) is capabilities_for(model).async_function_calling


class Node(BaseModel):
    name: str
    children: list[Node] = []


def test_recursive_input_models_are_refused_when_defined() -> None:
    with pytest.raises(ToolDefinitionError, match="Node refers to itself"):

        @tool(name="tree", description="Walks a tree.")
        async def tree(args: Node, context: ToolContext) -> WeatherOutput:
            return WeatherOutput(temperature=0)
