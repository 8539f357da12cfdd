"""The history is the person's alone, and keeps no clipboard text (issue 18, point 9).

The files are ``0600`` in a ``0700`` folder whatever the umask; a tool that declares its
answer or its arguments private (readClipboard, writeClipboard) is recorded without them:
the clipboard's text as its length only, from the recorder alone and through the whole core
against the simulator.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from sammy_desktop.core.events import (
    SentToolAnswer,
    ToolAnswersSent,
    ToolCallsReceived,
    TurnStats,
)
from sammy_desktop.core.history import ConversationHistory, read_history
from sammy_desktop.core.history_recorder import HistoryRecorder
from sammy_desktop.eventbus import EventBus
from sammy_desktop.sim import (
    CallTools,
    FunctionCallSpec,
    OnActivityEnd,
    OnToolResponse,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from sammy_desktop.tools import ToolContext, ToolDefinition, tool
from sammy_desktop.tools.definition import withhold
from sammy_desktop.tools.desktop import clipboard_tools
from tests.core.conftest import HarnessFactory
from tests.helpers.audio import speech

AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
PASSWORD = "hunter2-correct-horse-battery-staple"

posix_only = pytest.mark.skipif(os.name != "posix", reason="Windows keeps the profile private")


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """The usual desktop umask, under which plain files come out world-readable."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@posix_only
@pytest.mark.usefixtures("loose_umask")
async def test_the_history_file_and_folder_are_owner_only(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "history"
    history = ConversationHistory(folder, clock=lambda: AT)
    path = await history.open("s1")
    history.record("note", text="something private")
    await history.close()
    assert _mode(path) == 0o600
    assert _mode(folder) == 0o700


@posix_only
async def test_a_history_folder_left_open_by_an_older_version_is_tightened(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "history"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    history = ConversationHistory(folder, clock=lambda: AT)
    await history.open("s1")
    await history.close()
    assert _mode(folder) == 0o700


async def test_the_clipboard_text_is_recorded_as_its_length_only(tmp_path: Path) -> None:
    bus = EventBus()
    history = ConversationHistory(tmp_path, clock=lambda: AT)
    definitions = {d.name: d for d in clipboard_tools(None)}
    recorder = HistoryRecorder(bus, history, tools=definitions.__getitem__)
    path = await recorder.open("s1")
    read_answer = {
        "output": {
            "ok": True,
            "value": {"has_text": True, "text": PASSWORD, "truncated": False, "length": 36},
        }
    }
    bus.emit(
        ToolCallsReceived(
            turn_id=1,
            calls=(
                ("c1", "readClipboard", {}),
                ("c2", "writeClipboard", {"text": PASSWORD}),
                ("c3", "noSuchTool", {"text": "kept: not a tool we know"}),
            ),
        )
    )
    bus.emit(
        ToolAnswersSent(
            answers=(
                SentToolAnswer("c1", "readClipboard", read_answer, False),
                SentToolAnswer("c2", "writeClipboard", {"output": {"ok": True}}, False),
            )
        )
    )
    await recorder.close("done")

    text = path.read_text(encoding="utf-8")
    assert PASSWORD not in text
    records = read_history(path)
    calls = {r["id"]: r for r in records if r["type"] == "tool_call"}
    assert calls["c2"]["args"] == {"text": {"withheld_chars": len(PASSWORD)}}
    assert calls["c3"]["args"] == {"text": "kept: not a tool we know"}
    (result, _) = [r for r in records if r["type"] == "tool_result"]
    assert result["response"]["output"]["value"] == {
        "has_text": True,
        "text": {"withheld_chars": len(PASSWORD)},
        "truncated": False,
        "length": 36,
    }


class _SecretInput(BaseModel):
    pass


class _SecretOutput(BaseModel):
    secret: str
    shown: str


def _secret_tool() -> ToolDefinition[Any, Any]:
    @tool(name="revealSecret", private_output=withhold("secret"))
    async def reveal_secret(args: _SecretInput, context: ToolContext) -> _SecretOutput:
        """Say the secret (a test tool)."""
        return _SecretOutput(secret=PASSWORD, shown="fine to keep")

    return reveal_secret


async def test_the_core_records_a_private_answer_without_it(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            Turn(OnActivityEnd(), [CallTools(calls=(FunctionCallSpec(name="revealSecret"),))]),
            Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="Done."), TurnComplete()]),
        ]
    )
    async with core_harness(scenario) as h:
        h.tools.register(_secret_tool(), source="test")
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        # The model got the whole answer...
        (sent,) = h.sim.recorder.events(Received.TOOL_RESPONSE)
        assert PASSWORD in json.dumps(sent.data, default=str)
        path = h.history.path
        assert path is not None
        await h.core.stop()

    # ...the history only its length.
    assert PASSWORD not in path.read_text(encoding="utf-8")
    (result,) = [r for r in read_history(path) if r["type"] == "tool_result"]
    assert result["response"]["output"]["value"] == {
        "secret": {"withheld_chars": len(PASSWORD)},
        "shown": "fine to keep",
    }
