"""The search index: what it finds, how it follows the files, and how it mends itself."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from datetime import timedelta
from pathlib import Path

import pytest

from sammy_desktop.archive import (
    INDEX_FILE_NAME,
    HistoryArchive,
    IndexUnavailable,
    SearchHit,
    search_expression,
)
from sammy_desktop.archive.index import SCHEMA_VERSION
from tests.archive.sessions import (
    WEATHER_LINES,
    WEATHER_START,
    assistant,
    open_session,
    user,
    weather_session,
    write_session,
)


def _only(hits: list[SearchHit]) -> SearchHit:
    assert len(hits) == 1, hits
    return hits[0]


async def test_it_finds_the_person_s_words_the_assistant_s_and_a_tool_s(tmp_path: Path) -> None:
    path = await weather_session(tmp_path)
    archive = HistoryArchive(tmp_path)
    session = archive.session(path.stem)
    line_of = {entry.line: entry for entry in session.entries}

    said = _only(archive.search("umbrella"))
    assert (said.session_id, said.speaker, said.turn_id) == (path.stem, "user", 1)
    assert said.marked() == "Will I need an [umbrella] in Lisbon tomorrow?"
    assert said.matched_words == ["umbrella"]
    assert said.text == WEATHER_LINES[0]
    assert line_of[said.line] == session.lines[0]

    answered = _only(archive.search("spells"))
    assert answered.speaker == "assistant"
    assert "sunny [spells] over" in answered.marked()
    assert line_of[answered.line] == session.lines[1]

    argument = _only(archive.search("oolong"))
    assert (argument.speaker, argument.tool_name, argument.turn_id) == ("tool", "startTimer", 2)
    assert "Label: [oolong]" in argument.marked()
    assert line_of[argument.line] == session.tool_cards[1]

    result = _only(archive.search("asleep"))
    assert (result.speaker, result.tool_name, result.line) == ("tool", "startTimer", argument.line)
    assert "The clock is [asleep]" in result.marked()

    by_name = archive.search("weather")  # the tool's name and its title are words too
    assert [(hit.speaker, hit.tool_name) for hit in by_name] == [("tool", "getWeather")]


async def test_every_word_must_match_and_a_word_matches_longer_ones(tmp_path: Path) -> None:
    await weather_session(tmp_path)
    archive = HistoryArchive(tmp_path)
    assert {h.speaker for h in archive.search("lisbon")} == {"user", "assistant", "tool"}
    assert _only(archive.search("lisbon sunny")).speaker == "assistant"
    assert _only(archive.search("umbr tomo")).speaker == "user"  # prefixes, as while typing
    assert archive.search("lisbon oolong") == []
    assert archive.search("") == [] and archive.search("  ?! ") == []


@pytest.mark.parametrize(
    ("typed", "finds"),
    [
        ('"', False),
        ('"umbrella', True),
        ('umbrella"', True),
        ('"an umbrella" OR "', False),  # every word must be there: "or" is not
        ("AND", False),
        ("umbrella AND", False),
        ("NOT umbrella", False),
        ("NEAR(umbrella lisbon)", False),
        ("*", False),
        ("umbrella*", True),
        ("-umbrella", True),
        ("+", False),
        ("(", False),
        (")", False),
        ("^umbrella", True),
        ("city:Lisbon", True),
        ("{city}", True),
        ("umbrella's", False),
        ("'", False),
        ("\x02 umbrella \x03", True),
        ("umbrella OR spells", False),
        ("did not", True),
    ],
)
async def test_search_syntax_in_what_is_typed_never_raises(
    tmp_path: Path, typed: str, finds: bool
) -> None:
    await weather_session(tmp_path)
    hits = HistoryArchive(tmp_path).search(typed)
    assert bool(hits) is finds, hits


def test_the_expression_quotes_every_word() -> None:
    assert search_expression('say "hi" AND *') == '"say"* """hi"""* "AND"*'
    assert search_expression("  ") is None
    assert search_expression("* ( )") is None


async def test_the_index_is_owner_only_beside_the_files(tmp_path: Path) -> None:
    await weather_session(tmp_path)
    HistoryArchive(tmp_path).refresh()
    index = tmp_path / INDEX_FILE_NAME
    assert index.is_file()
    if os.name == "posix":
        assert stat.S_IMODE(index.stat().st_mode) == 0o600


async def test_a_missing_index_is_built_from_the_files(tmp_path: Path) -> None:
    await weather_session(tmp_path)
    archive = HistoryArchive(tmp_path)
    first = archive.refresh()
    assert first.rebuilt_because == "was missing" and first.files_read == 1
    assert archive.refresh().files_read == 0  # nothing new: nothing read

    (tmp_path / INDEX_FILE_NAME).unlink()
    assert _only(archive.search("spells")).speaker == "assistant"
    assert archive.refresh().rebuilt_because is None


async def test_an_index_that_is_not_a_database_is_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    await weather_session(tmp_path)
    archive = HistoryArchive(tmp_path)
    archive.refresh()
    (tmp_path / INDEX_FILE_NAME).write_bytes(b"this is not SQLite at all\x00" * 400)

    assert _only(archive.search("umbrella")).speaker == "user"
    assert "was not a database" in caplog.text
    assert len(archive.sessions().sessions) == 1


async def test_garbage_over_the_index_is_rebuilt_by_a_refresh(tmp_path: Path) -> None:
    await weather_session(tmp_path)
    archive = HistoryArchive(tmp_path)
    archive.refresh()
    (tmp_path / INDEX_FILE_NAME).write_bytes(os.urandom(8192))
    report = archive.refresh()
    assert report.rebuilt_because in ("was not a database", "was damaged")
    assert report.files_read == 1
    assert _only(archive.search("oolong")).tool_name == "startTimer"


async def test_a_damaged_page_inside_the_index_is_rebuilt(tmp_path: Path) -> None:
    for number in range(20):  # enough rows for the index to span many pages
        await write_session(
            tmp_path,
            f"s{number:02d}",
            WEATHER_START + timedelta(hours=number),
            [user(f"line {number} " + "about the harbour " * 40, 1)],
        )
    archive = HistoryArchive(tmp_path)
    archive.refresh()
    index = tmp_path / INDEX_FILE_NAME
    data = bytearray(index.read_bytes())
    page = 4096
    assert len(data) > 4 * page
    data[2 * page :] = bytes(len(data) - 2 * page)  # every page after the second: zeros
    index.write_bytes(bytes(data))

    hits = archive.search("harbour", limit=100)
    assert len(hits) == 20


async def test_an_index_of_another_schema_version_is_rebuilt(tmp_path: Path) -> None:
    await weather_session(tmp_path)
    archive = HistoryArchive(tmp_path)
    archive.refresh()
    with sqlite3.connect(tmp_path / INDEX_FILE_NAME) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    report = archive.refresh()
    assert report.rebuilt_because is not None and "another version" in report.rebuilt_because
    assert _only(archive.search("spells")).speaker == "assistant"


async def test_a_growing_session_is_read_from_where_it_was_left(tmp_path: Path) -> None:
    writer = await open_session(tmp_path, "growing", WEATHER_START)
    await writer.play([user("remind me about the plumber", 1)])
    archive = HistoryArchive(tmp_path)
    assert _only(archive.search("plumber")).speaker == "user"
    size_before = writer.path.stat().st_size

    await writer.play([assistant("I will remind you about the plumber at noon.", 1)])
    await writer.play([user("and the electrician", 2)])
    report = archive.refresh()
    assert report.files_read == 1
    assert report.records_read == 2  # only the new lines were read
    assert report.bytes_read == writer.path.stat().st_size - size_before
    assert _only(archive.search("electrician")).turn_id == 2
    assert {h.speaker for h in archive.search("plumber")} == {"user", "assistant"}
    assert archive.sessions().sessions[0].spoken_lines == 3

    await writer.end()
    assert archive.refresh().records_read == 1  # session_ended
    assert archive.sessions().sessions[0].finished


async def test_a_line_half_written_is_taken_once_it_is_whole(tmp_path: Path) -> None:
    path = await write_session(tmp_path, "halves", WEATHER_START, [user("one", 1)], end_reason=None)
    archive = HistoryArchive(tmp_path)
    archive.refresh()
    record = json.dumps({"at": "2026-11-30T09:16:00+00:00", "type": "user", "text": "pelican"})
    with path.open("a", encoding="utf-8") as stream:
        stream.write(record[:20])  # the writer is in the middle of this line
    assert archive.refresh().records_read == 0
    assert archive.search("pelican") == []
    with path.open("a", encoding="utf-8") as stream:
        stream.write(record[20:])  # whole, its line break still to come
    assert archive.refresh().records_read == 1
    hit = _only(archive.search("pelican"))
    with path.open("a", encoding="utf-8") as stream:
        stream.write("\n" + json.dumps({"type": "user", "text": "flamingo"}) + "\n")
    assert archive.refresh().records_read == 1
    again = _only(archive.search("pelican"))  # not taken twice
    assert (again.session_id, again.line) == (hit.session_id, hit.line)
    flamingo = _only(archive.search("flamingo"))
    assert flamingo.line == hit.line + 1
    assert [line.text for line in archive.session(path.stem).lines] == [
        "one",
        "pelican",
        "flamingo",
    ]


async def test_a_file_replaced_by_another_is_read_again(tmp_path: Path) -> None:
    path = await write_session(tmp_path, "swap", WEATHER_START, [user("walrus", 1)])
    archive = HistoryArchive(tmp_path)
    assert len(archive.search("walrus")) == 1
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for record in records:
        if record["type"] == "user":
            record["text"] = "an otter, swimming on and on across the bay"  # longer
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert archive.search("walrus") == []
    assert len(archive.search("otter")) == 1
    assert archive.sessions().sessions[0].first_said.startswith("an otter")


async def test_a_deleted_file_is_forgotten(tmp_path: Path) -> None:
    path = await write_session(tmp_path, "gone", WEATHER_START, [user("narwhal", 1)])
    await weather_session(tmp_path)
    archive = HistoryArchive(tmp_path)
    assert len(archive.search("narwhal")) == 1
    path.unlink()
    report = archive.refresh()
    assert report.sessions_forgotten == 1
    assert archive.search("narwhal") == []
    assert len(archive.sessions().sessions) == 1


async def test_thousands_of_lines_are_searched_best_first(tmp_path: Path) -> None:
    writer = await open_session(tmp_path, "long", WEATHER_START)
    events = []
    for turn in range(1, 1501):
        events.append(user(f"question {turn} about the garden", turn))
        events.append(assistant(f"answer {turn} about the garden and the roses", turn))
    events.append(user("only once: the roses roses roses", 1501))
    await writer.play(events)
    await writer.end()
    archive = HistoryArchive(tmp_path)
    report = archive.refresh()
    assert report.records_read == 3003
    hits = archive.search("roses", limit=5)
    assert len(hits) == 5
    assert hits[0].turn_id == 1501  # the line that says it most, first
    assert [h.relevance for h in hits] == sorted((h.relevance for h in hits), reverse=True)
    assert len(archive.search("garden", limit=10_000)) == 3000


async def test_an_index_that_cannot_be_used_leaves_the_list_read_from_the_files(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = await weather_session(tmp_path)
    (tmp_path / INDEX_FILE_NAME).mkdir()  # SQLite cannot open a folder, however often asked
    archive = HistoryArchive(tmp_path)

    listed = archive.sessions()
    assert [s.id for s in listed.sessions] == [path.stem]
    assert listed.sessions[0].tokens == 300
    (problem,) = listed.problems
    assert problem.startswith(f"The search index {tmp_path / INDEX_FILE_NAME} cannot be used")
    assert problem.endswith("The conversations were read from their files.")
    with pytest.raises(IndexUnavailable, match="cannot be used"):
        archive.search("umbrella")
    assert archive.session(path.stem).lines[0].text == WEATHER_LINES[0]

    report = archive.delete_session(path.stem)  # the file goes; the index cannot be mended
    assert report.sessions == (path.stem,) and not path.exists()
    assert [failure.path for failure in report.failed] == [tmp_path / INDEX_FILE_NAME]
