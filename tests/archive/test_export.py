"""Exports: Markdown, plain text and JSON hold every line, the tool calls and their results."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sammy_desktop.archive import (
    EXPORT_FORMATS,
    ExportFormat,
    HistoryArchive,
    copy_text,
    export_hits,
    export_session,
)
from tests.archive.sessions import (
    MODEL,
    WEATHER_LINES,
    WEATHER_START,
    assistant,
    user,
    weather_session,
    write_session,
)


@pytest.mark.parametrize("fmt", ["md", "txt"])
async def test_markdown_and_text_hold_every_line_and_every_tool_call(
    tmp_path: Path, fmt: ExportFormat
) -> None:
    path = await weather_session(tmp_path)
    session = HistoryArchive(tmp_path).session(path.stem)
    text = export_session(session, fmt, tz=UTC)
    for line in WEATHER_LINES:
        assert line in text
    for expected in (
        "Get weather",
        "getWeather",
        "City: Lisbon",
        "Day: tomorrow",
        "Result: forecast clear skies",
        "Start timer",
        "Label: oolong",
        "Minutes: 4",
        "Result: Failed: The clock is asleep",
        MODEL,
        "300 tokens",
        path.stem,
        "2026-11-30",
    ):
        assert expected in text, expected
    # Each line at its time, on the clock asked for.
    first = session.lines[0]
    assert first.at is not None
    assert f"{first.at.astimezone(UTC):%H:%M:%S}" in text
    # In the order they were said.
    positions = [text.index(line) for line in WEATHER_LINES]
    assert positions == sorted(positions)
    assert text.index("City: Lisbon") < text.index(WEATHER_LINES[1])


async def test_json_parses_back_to_every_entry_with_its_arguments_and_answers(
    tmp_path: Path,
) -> None:
    path = await weather_session(tmp_path)
    session = HistoryArchive(tmp_path).session(path.stem)
    document = json.loads(export_session(session, "json"))
    assert document["format"] == "sammy-desktop conversation" and document["version"] == 1
    assert document["session"]["id"] == path.stem
    assert document["session"]["tokens"] == 300
    assert document["session"]["first_said"] == WEATHER_LINES[0]
    assert document["session"]["tools"] == [
        {"name": "getWeather", "count": 1},
        {"name": "startTimer", "count": 1},
    ]
    entries = document["entries"]
    assert [e["type"] for e in entries] == [
        "user",
        "tool_call",
        "assistant",
        "user",
        "tool_call",
        "assistant",
    ]
    assert [e["text"] for e in entries if e["type"] != "tool_call"] == WEATHER_LINES
    weather, timer = (e for e in entries if e["type"] == "tool_call")
    assert weather["name"] == "getWeather"
    assert weather["arguments"] == {"city": "Lisbon", "day": "tomorrow"}
    assert weather["answers"][0]["response"] == {
        "output": {"ok": True, "value": {"forecast": "clear skies"}}
    }
    assert weather["answers"][0]["ok"] is True
    assert timer["arguments"] == {"minutes": 4, "label": "oolong"}
    assert timer["answers"][0]["ok"] is False
    assert timer["answers"][0]["summary"] == "Failed: The clock is asleep"
    for entry in entries:
        assert datetime.fromisoformat(entry["at"]).tzinfo is not None
    assert document["problems"] == []


async def test_copy_is_the_plain_text_export(tmp_path: Path) -> None:
    path = await weather_session(tmp_path)
    archive = HistoryArchive(tmp_path)
    session = archive.session(path.stem)
    assert copy_text(session, tz=UTC) == export_session(session, "txt", tz=UTC)
    assert archive.copy_text(path.stem, tz=UTC) == copy_text(session, tz=UTC)


async def test_markdown_shows_what_was_said_as_written_never_as_formatting(
    tmp_path: Path,
) -> None:
    said = "# not a heading, *not bold* and [not](a link)"
    path = await write_session(
        tmp_path, "md", WEATHER_START, [user(said, 1), assistant("1. ok", 1)]
    )
    text = export_session(HistoryArchive(tmp_path).session(path.stem), "md", tz=UTC)
    assert r"\# not a heading, \*not bold\* and \[not\](a link)" in text
    assert "\n1\\. ok" in text


async def test_search_results_export_in_every_format(tmp_path: Path) -> None:
    await weather_session(tmp_path)
    hits = HistoryArchive(tmp_path).search("lisbon")
    assert len(hits) == 3
    assert set(EXPORT_FORMATS) == {"md", "txt", "json"}
    text = export_hits(hits, "lisbon", "txt", tz=UTC)
    assert text.startswith("3 matches for “lisbon”:")
    assert "You: Will I need an umbrella in [Lisbon] tomorrow?" in text
    assert "Sammy: " in text and "Tool getWeather: " in text
    markdown = export_hits(hits, "lisbon", "md", tz=UTC)
    assert "umbrella in **Lisbon** tomorrow" in markdown
    document = json.loads(export_hits(hits, "lisbon", "json"))
    assert document["query"] == "lisbon"
    assert {hit["speaker"] for hit in document["hits"]} == {"user", "assistant", "tool"}
    assert all(hit["matched"] == ["Lisbon"] for hit in document["hits"])
    assert export_hits([], "nothing", "txt") == "No matches for “nothing”\n"


async def test_an_unknown_format_is_refused(tmp_path: Path) -> None:
    path = await weather_session(tmp_path)
    session = HistoryArchive(tmp_path).session(path.stem)
    with pytest.raises(ValueError, match="unknown export format 'pdf'"):
        export_session(session, "pdf", tz=UTC)  # type: ignore[arg-type]
