"""Sessions read back from the files the app writes: summaries, lines and tool cards."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from sammy_desktop.archive import HistoryArchive, SpokenLine, ToolCard, ToolUse, read_session
from sammy_desktop.core.history import read_history
from tests.archive.sessions import (
    MODEL,
    WEATHER_LINES,
    WEATHER_START,
    answer,
    assistant,
    call,
    open_session,
    user,
    weather_session,
    write_session,
)


async def test_the_list_says_when_how_long_what_was_said_first_the_tools_and_tokens(
    tmp_path: Path,
) -> None:
    path = await weather_session(tmp_path)
    listed = HistoryArchive(tmp_path).sessions()
    assert listed.problems == ()
    (summary,) = listed.sessions
    assert summary.id == path.stem == "20261130-091501-weather0001"
    assert summary.short_id == "weather0001"
    assert summary.path == path
    assert summary.first_said == "Will I need an umbrella in Lisbon tomorrow?"
    assert summary.tools == (ToolUse("getWeather", 1), ToolUse("startTimer", 1))
    assert summary.tool_calls == 2
    assert summary.tokens == 300
    assert (summary.prompt_tokens, summary.response_tokens) == (180, 120)
    assert summary.prompt_by_modality == {"AUDIO": 140, "TEXT": 40}
    assert summary.response_by_modality == {"AUDIO": 120}
    assert summary.continues is None
    assert summary.model == MODEL
    assert summary.spoken_lines == 4
    records = read_history(path)
    assert (records[0]["type"], records[-1]["type"]) == ("session_started", "session_ended")
    assert summary.started == datetime.fromisoformat(records[0]["at"])
    assert summary.ended == datetime.fromisoformat(records[-1]["at"])
    assert summary.started > WEATHER_START
    assert summary.duration == summary.ended - summary.started > timedelta(seconds=10)
    assert summary.finished and summary.ended_reason == "the person said goodbye"


async def test_sessions_are_listed_newest_first(tmp_path: Path) -> None:
    await write_session(tmp_path, "older", WEATHER_START, [user("first one", 1)])
    later = WEATHER_START + timedelta(days=1)
    await write_session(tmp_path, "newer", later, [user("second one", 1)])
    listed = HistoryArchive(tmp_path).sessions()
    assert [s.short_id for s in listed.sessions] == ["newer", "older"]
    assert [s.first_said for s in listed.sessions] == ["second one", "first one"]


async def test_a_session_reads_back_its_lines_and_tool_cards_in_order(tmp_path: Path) -> None:
    path = await weather_session(tmp_path)
    session = HistoryArchive(tmp_path).session(path.stem)
    kinds = [
        entry.speaker if isinstance(entry, SpokenLine) else entry.name for entry in session.entries
    ]
    assert kinds == ["user", "getWeather", "assistant", "user", "startTimer", "assistant"]
    assert [line.text for line in session.lines] == WEATHER_LINES
    weather, timer = session.tool_cards
    assert isinstance(weather, ToolCard)
    assert weather.turn_id == 1 and weather.call_id == "c1"
    assert weather.arguments == {"city": "Lisbon", "day": "tomorrow"}
    assert weather.argument_lines == ["City: Lisbon", "Day: tomorrow"]
    assert weather.title == "Get weather"
    assert weather.result is not None and weather.result.ok
    assert weather.result_summary == "forecast clear skies"
    assert timer.result is not None and not timer.result.ok
    assert timer.result_summary == "Failed: The clock is asleep"
    assert session.problems == ()


async def test_a_session_still_being_written_is_listed_without_an_end(tmp_path: Path) -> None:
    writer = await open_session(tmp_path, "live", WEATHER_START)
    await writer.play([user("are you there", 1)])
    (summary,) = HistoryArchive(tmp_path).sessions().sessions
    assert summary.first_said == "are you there"
    assert not summary.finished and summary.ended_reason is None
    await writer.end()


async def test_a_damaged_line_in_the_middle_is_skipped_with_a_notice(tmp_path: Path) -> None:
    path = await weather_session(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(3, '{"at": "2026-11-30T09:15:04+00:00", "type": "user", "te\x00xt: \n')
    path.write_text("".join(lines), encoding="utf-8")

    listed = HistoryArchive(tmp_path).sessions()
    notice = f"history file {path.name} line 4 is not valid JSON; skipped"
    assert listed.problems == (notice,)
    assert listed.sessions[0].problems == (notice,)
    session = read_session(path)
    assert session.problems == (notice,)
    assert [line.text for line in session.lines] == WEATHER_LINES
    assert len(session.tool_cards) == 2


async def test_a_last_line_cut_short_by_a_crash_is_left_out_quietly(tmp_path: Path) -> None:
    path = await write_session(
        tmp_path, "crash", WEATHER_START, [user("hello", 1), assistant("hi", 1)], end_reason=None
    )
    with path.open("a", encoding="utf-8") as stream:
        stream.write('{"at": "2026-11-30T09:15:09+00:00", "type": "assis')
    session = read_session(path)
    assert [line.text for line in session.lines] == ["hello", "hi"]
    assert session.problems == ()
    listed = HistoryArchive(tmp_path).sessions()
    assert listed.problems == ()
    assert listed.sessions[0].spoken_lines == 2
    assert not listed.sessions[0].finished


def test_an_empty_history_lists_nothing(tmp_path: Path) -> None:
    listed = HistoryArchive(tmp_path / "history").sessions()
    assert listed.sessions == () and listed.problems == ()


async def test_a_continued_session_names_the_one_it_continues(tmp_path: Path) -> None:
    earlier = await weather_session(tmp_path)
    writer = await open_session(
        tmp_path, "again", WEATHER_START + timedelta(days=1), continues=earlier.stem
    )
    await writer.play([user("and the day after?", 1)])
    await writer.end()
    newest = HistoryArchive(tmp_path).sessions().sessions[0]
    assert (newest.short_id, newest.continues) == ("again", earlier.stem)


async def test_what_the_history_withheld_is_said_so(tmp_path: Path) -> None:
    withheld = {"text": {"withheld_chars": 12}}
    path = await write_session(
        tmp_path,
        "private",
        WEATHER_START,
        [
            call(1, "c1", "writeClipboard", withheld),
            answer("c1", "readClipboard", {"output": {"ok": True, "value": withheld}}),
        ],
    )
    (card,) = read_session(path).tool_cards
    assert card.argument_lines == ["Text: (12 characters, not kept)"]
    assert card.result_summary == "text (12 characters, not kept)"
