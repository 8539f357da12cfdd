"""Tools from installed packages (entry point group ``sammy_desktop.tools``).

``tests/plugins/sammy-example-plugin`` is installed into the test venv (``make test`` does
it); broken plugins are real ``EntryPoint`` objects whose targets fail in each possible way.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint
from typing import Any

import pytest
from google.genai import types

from sammy_desktop.config import Settings
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import ENTRY_POINT_GROUP, ToolManager, ToolServices
from sammy_desktop.tools.plugins import PLUGIN_MAX_TIMEOUT_S
from tests.tools.conftest import ManagerFactory
from tests.tools.fakes import RecordingResponder
from tests.tools.hostile_plugin import unbounded


def entry_point(name: str, target: str) -> EntryPoint:
    return EntryPoint(name=name, value=target, group=ENTRY_POINT_GROUP)


def convert(**args: Any) -> types.LiveServerToolCall:
    return types.LiveServerToolCall(
        function_calls=[types.FunctionCall(id="1", name="convertUnits", args=args)]
    )


async def test_the_installed_example_plugin_is_registered_off_and_works_once_switched_on(
    bus: EventBus, services: ToolServices, responder: RecordingResponder, settings: Settings
) -> None:
    manager = ToolManager(bus, services)  # loads installed entry points by default

    assert manager.registration_problems == ()
    assert manager.source_of("convertUnits") == (
        "plugin sammy-example-plugin (entry point convert_units = "
        "sammy_example_plugin:convert_units)"
    )
    assert manager.plugin_of("convertUnits") == "sammy-example-plugin"
    assert manager.plugin_of("endSession") is None
    # A plugin's tool starts off: it is code the person did not choose with the app.
    assert not manager.is_enabled("convertUnits")
    assert "convertUnits" not in manager.enabled_names()

    settings.enabled_tools["convertUnits"] = True  # the person switches it on
    await manager.handle(convert(value=100, from_unit="celsius", to_unit="fahrenheit"), responder)
    response = responder.by_id("1").response
    assert response == {"output": {"ok": True, "value": {"value": 212.0, "unit": "fahrenheit"}}}


async def test_the_plugin_corrects_the_model(
    bus: EventBus, services: ToolServices, responder: RecordingResponder, settings: Settings
) -> None:
    settings.enabled_tools["convertUnits"] = True
    manager = ToolManager(bus, services)
    await manager.handle(convert(value=1, from_unit="km", to_unit="celsius"), responder)
    response = responder.by_id("1").response
    assert response is not None
    assert response["error"]["validation"]["to_unit"]["allowed_values"] == ["m", "km", "ft", "mi"]


def test_plugins_can_be_left_out(bus: EventBus, services: ToolServices) -> None:
    manager = ToolManager(bus, services, load_entry_points=False)
    assert "convertUnits" not in [t.name for t in manager.tools]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("no_such_module_for_sammy:tool", "failed to load: ModuleNotFoundError"),
        ("sammy_example_plugin:no_such_attribute", "failed to load: AttributeError"),
        ("sys:version", "gave str, not a ToolDefinition"),
        ("sys:path", "gave list, not a ToolDefinition"),
        ("builtins:ValueError", "gave ValueError, not a ToolDefinition"),
        ("os:getcwd", "gave str, not a ToolDefinition"),
        ("json:dumps", "failed to load: TypeError"),
        # What Ctrl+C and sys.exit raise: a plugin's import must not end the app either.
        ("tests.tools.hostile_plugin:interrupts", "failed to load: KeyboardInterrupt"),
        ("tests.tools.hostile_plugin:exits", "failed to load: SystemExit: 3"),
    ],
)
@pytest.mark.logs_errors("tool registration problem")
def test_a_broken_plugin_is_reported_and_skipped(
    make_manager: ManagerFactory, target: str, message: str
) -> None:
    manager = make_manager(
        plugin_entry_points=[
            entry_point("broken", target),
            entry_point("good", "sammy_example_plugin:convert_units"),
        ]
    )
    (problem,) = manager.registration_problems
    assert problem.source == f"plugin unknown package (entry point broken = {target})"
    assert message in problem.message
    assert manager.plugin_of("convertUnits") == "unknown package"  # the good one still loads


def test_a_plugin_may_return_a_list_or_a_factory(make_manager: ManagerFactory) -> None:
    manager = make_manager(
        plugin_entry_points=[entry_point("builtins", "sammy_desktop.tools.builtins:builtin_tools")],
        include_builtins=False,
    )
    assert [t.name for t in manager.tools] == ["endSession", "getCurrentContext", "escalate"]
    assert manager.registration_problems == ()


@pytest.mark.logs_errors("tool registration problem")
def test_a_plugin_tool_with_a_taken_name_is_refused_naming_both(
    make_manager: ManagerFactory,
) -> None:
    manager = make_manager(
        plugin_entry_points=[
            entry_point("first", "sammy_example_plugin:convert_units"),
            entry_point("again", "sammy_example_plugin:convert_units"),
            entry_point("clash", "sammy_desktop.tools.builtins:end_session"),
        ]
    )
    messages = [problem.message for problem in manager.registration_problems]
    assert messages == [
        "tool 'convertUnits' from plugin unknown package (entry point again = "
        "sammy_example_plugin:convert_units) is refused: the name is already taken by the "
        "tool from plugin unknown package (entry point first = "
        "sammy_example_plugin:convert_units)",
        "tool 'endSession' from plugin unknown package (entry point clash = "
        "sammy_desktop.tools.builtins:end_session) is refused: the name is already taken by "
        "the tool from built-in",
    ]


def test_a_plugin_tool_runs_within_the_plugins_time_limit(make_manager: ManagerFactory) -> None:
    manager = make_manager(
        plugin_entry_points=[entry_point("slow", "tests.tools.hostile_plugin:unbounded")]
    )
    assert manager.get("waitsForever").timeout_s == PLUGIN_MAX_TIMEOUT_S
    assert manager.get("waitsAnHour").timeout_s == PLUGIN_MAX_TIMEOUT_S
    assert manager.get("quick").timeout_s == 5.0
    messages = [problem.message for problem in manager.registration_problems]
    assert messages == [
        "tool 'waitsForever' from plugin unknown package (entry point slow = "
        "tests.tools.hostile_plugin:unbounded) asked for no time limit; plugins' tools run "
        "for at most 300 s, so it is stopped after that",
        "tool 'waitsAnHour' from plugin unknown package (entry point slow = "
        "tests.tools.hostile_plugin:unbounded) asked for 3600 s; plugins' tools run for at "
        "most 300 s, so it is stopped after that",
    ]


def test_an_application_tool_may_still_run_without_a_time_limit(
    make_manager: ManagerFactory,
) -> None:
    manager = make_manager(*unbounded())
    assert manager.get("waitsForever").timeout_s is None
    assert manager.is_enabled("waitsForever")  # not a plugin's: its own default holds
