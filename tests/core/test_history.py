"""ConversationHistory: one JSON-lines file per session, written as things happen."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sammy_desktop.core.events import Speaker
from sammy_desktop.core.history import ConversationHistory, read_history

FIXED = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)


async def test_records_are_on_disk_as_soon_as_flushed(tmp_path: Path) -> None:
    history = ConversationHistory(tmp_path / "history", clock=lambda: FIXED)
    path = await history.open("abc/../def")
    assert path.parent == tmp_path / "history"
    assert path.name == "20261130-091500-abc_.._def.jsonl"
    history.record("session_started", model="m")
    history.add_line(Speaker.USER, "hello", 1)
    history.add_line(Speaker.ASSISTANT, "hi there", 1, interrupted=True)
    await history.flush()
    records = read_history(path)
    assert [r["type"] for r in records] == ["session_started", "user", "assistant"]
    assert records[2] == {
        "at": FIXED.isoformat(),
        "type": "assistant",
        "text": "hi there",
        "turn_id": 1,
        "interrupted": True,
    }
    assert [(line.role, line.text) for line in history.transcript()] == [
        ("user", "hello"),
        ("assistant", "hi there"),
    ]
    assert history.transcript_text() == "Person: hello\nAssistant: hi there"
    await history.close()
    history.record("ignored", after="close")
    assert len(read_history(path)) == 3


async def test_a_line_cut_short_by_a_crash_is_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "crashed.jsonl"
    path.write_text('{"type": "user", "text": "ok"}\n{"type": "assis', encoding="utf-8")
    assert read_history(path) == [{"type": "user", "text": "ok"}]
    assert "not valid JSON" in caplog.text


@pytest.mark.logs_errors("cannot create the history folder")
async def test_an_unwritable_folder_does_not_stop_the_conversation(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    history = ConversationHistory(blocker / "history")
    await history.open("s")
    history.add_line(Speaker.USER, "still heard", 1)
    await history.flush()
    await history.close()
    assert [line.text for line in history.transcript()] == ["still heard"]
    assert "cannot create the history folder" in caplog.text
