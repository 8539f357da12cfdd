"""The pack as the app registers it: one factory, beside the built-ins, each tool switchable."""

from __future__ import annotations

from sammy_desktop.config import Settings
from sammy_desktop.tools import ToolBehavior, ToolCallFailed, ToolCategory, ToolErrorKind
from tests.helpers.events import EventLog
from tests.tools.conftest import ManagerFactory
from tests.tools.desktop.conftest import ASYNC_MODEL, SYNC_MODEL, Call, error

ASK_FIRST = {"deleteNote", "readClipboard", "writeClipboard", "openUrl", "openApplication"}

PACK = [
    "getDateTime",
    "setTimer",
    "listTimers",
    "cancelTimer",
    "addNote",
    "searchNotes",
    "deleteNote",
    "readClipboard",
    "writeClipboard",
    "openUrl",
    "openApplication",
]


def test_registers_beside_the_built_ins_without_problems(make_pack_manager: ManagerFactory) -> None:
    manager = make_pack_manager()
    assert manager.registration_problems == ()
    names = [tool.name for tool in manager.tools]
    assert names == ["endSession", "getCurrentContext", "escalate", *PACK]
    assert all(manager.source_of(name) == "the application" for name in PACK)
    assert set(manager.enabled_names()) >= set(PACK)  # all on until the person decides


def test_categories_and_asking_first_for_the_settings_pane(
    make_pack_manager: ManagerFactory,
) -> None:
    tools = {tool.name: tool for tool in make_pack_manager().tools}
    context = {name for name in PACK if tools[name].category is ToolCategory.CONTEXT}
    assert context == {"getDateTime", "listTimers", "searchNotes", "readClipboard"}
    for name in PACK:
        assert tools[name].description.strip()
        assert tools[name].parameters_json_schema["type"] == "object"
    # Tools that ask the person leave time for the answer before their own timeout.
    assert {name for name in PACK if tools[name].asks_first} == ASK_FIRST
    # They ask from inside their handler, after checking what they were asked.
    assert all(tools[name].confirms_in_handler for name in ASK_FIRST)
    for name in ASK_FIRST:
        timeout = tools[name].timeout_s
        assert timeout is not None and timeout > tools[name].confirmation_timeout_s


def test_declarations_follow_the_model(make_pack_manager: ManagerFactory) -> None:
    manager = make_pack_manager()
    [async_tool] = manager.declarations(ASYNC_MODEL)
    behaviors = {d.name: d.behavior for d in async_tool.function_declarations or ()}
    assert behaviors["setTimer"] is ToolBehavior.NON_BLOCKING.to_genai()
    assert behaviors["getDateTime"] is ToolBehavior.BLOCKING.to_genai()
    [sync_tool] = manager.declarations(SYNC_MODEL)
    assert all(d.behavior is None for d in sync_tool.function_declarations or ())


async def test_each_tool_can_be_switched_off_in_settings(
    make_pack_manager: ManagerFactory, settings: Settings, call: Call, events: EventLog
) -> None:
    settings.enabled_tools = dict.fromkeys(PACK, False)
    manager = make_pack_manager()
    assert not set(PACK) & set(manager.enabled_names())
    assert not any(
        d.name in PACK
        for tool in manager.declarations(ASYNC_MODEL)
        for d in tool.function_declarations or ()
    )
    body = error(await call(manager, "addNote", {"text": "x"}))
    assert "disabled" in body["problems"][0]
    assert events.one(ToolCallFailed).kind is ToolErrorKind.DISABLED
