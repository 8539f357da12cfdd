"""docs/tools.md: its complete example runs, its JSON is what the model really gets, and its
plugin listings are the real plugin package's files."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import types as pytypes
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import ToolDefinition, ToolManager, ToolServices
from tests.tools.fakes import RecordingResponder

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "tools.md"
PLUGIN = ROOT / "tests" / "plugins" / "sammy-example-plugin"


def example(label: str) -> str:
    """The fenced block right after ``<!-- example: label -->`` in the doc."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(
        rf"<!-- example: {re.escape(label)} -->\n```[a-z]*\n(.*?)\n```", text, re.DOTALL
    )
    assert found, f"docs/tools.md has no example block {label!r}"
    return found.group(1) + "\n"


@pytest.fixture
def doc_module(monkeypatch: pytest.MonkeyPatch) -> pytypes.ModuleType:
    """The complete example, executed as a module of its own."""
    module = pytypes.ModuleType("docs_tools_complete_example")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    code = compile(example("complete"), str(DOC), "exec")
    exec(code, module.__dict__)
    return module


async def test_the_complete_example_runs(
    doc_module: pytypes.ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    sent: list[types.FunctionResponse] = await doc_module.main()

    (response,) = sent
    assert (response.id, response.name) == ("fc-1", "addReminder")
    assert response.response is not None
    output = response.response["output"]
    assert output["ok"] is True
    assert re.fullmatch(r"\d\d:\d\d", output["value"]["due"])
    assert "reminder added: Stretch" in capsys.readouterr().out


async def test_the_json_shown_is_what_the_model_gets(
    doc_module: pytypes.ModuleType, services: ToolServices, bus: EventBus
) -> None:
    nine_fifteen = datetime(2026, 11, 30, 9, 15, tzinfo=timezone(timedelta(hours=1)))
    fixed = dataclasses.replace(services, clock=lambda: nine_fifteen)
    reminder: ToolDefinition[Any, Any] = doc_module.add_reminder
    manager = ToolManager(bus, fixed, tools=[reminder], load_entry_points=False)
    responder = RecordingResponder()
    calls = [
        types.FunctionCall(id="fc-1", name="addReminder", args={"text": "Stretch", "minutes": 30}),
        types.FunctionCall(id="fc-2", name="addReminder", args={"text": "x", "minutes": 5000}),
    ]
    await manager.handle(types.LiveServerToolCall(function_calls=calls), responder)

    success = responder.by_id("fc-1").model_dump(mode="json", exclude_none=True)
    assert success == json.loads(example("success-json"))
    assert responder.by_id("fc-2").response == json.loads(example("failure-json"))
    saved = (services.paths.data_dir / "reminders.jsonl").read_text(encoding="utf-8")
    assert json.loads(saved) == {"text": "Stretch", "due": "2026-11-30T09:45:00+01:00"}


def test_the_plugin_listings_are_the_real_plugin_files() -> None:
    assert example("plugin-pyproject") == (PLUGIN / "pyproject.toml").read_text(encoding="utf-8")
    module = PLUGIN / "src" / "sammy_example_plugin" / "__init__.py"
    assert example("plugin-module") == module.read_text(encoding="utf-8")
