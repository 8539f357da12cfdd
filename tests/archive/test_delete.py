"""Deleting a session or all of them: the files, and what the index held of them."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from sammy_desktop.archive import INDEX_FILE_NAME, HistoryArchive
from tests.archive.sessions import WEATHER_START, user, weather_session, write_session


async def test_deleting_a_session_removes_its_file_and_what_the_index_held(
    tmp_path: Path,
) -> None:
    weather = await weather_session(tmp_path)
    other = await write_session(
        tmp_path, "other", WEATHER_START + timedelta(hours=1), [user("the umbrella stand", 1)]
    )
    archive = HistoryArchive(tmp_path)
    assert len(archive.search("umbrella")) == 2

    report = archive.delete_session(weather.stem)
    assert report.complete
    assert report.sessions == (weather.stem,)
    assert report.files == (weather,)
    assert not weather.exists()
    assert [hit.session_id for hit in archive.search("umbrella")] == [other.stem]
    assert archive.search("oolong") == []
    assert [s.id for s in archive.sessions().sessions] == [other.stem]


async def test_the_index_rows_go_even_before_the_next_refresh(tmp_path: Path) -> None:
    weather = await weather_session(tmp_path)
    archive = HistoryArchive(tmp_path)
    archive.refresh()
    archive.delete_session(weather.stem)
    # Straight to the index, without the refresh every archive read does first.
    assert archive.index.search("oolong") == []
    assert archive.index.summaries() == []


async def test_deleting_everything_removes_the_files_and_the_index(tmp_path: Path) -> None:
    first = await weather_session(tmp_path)
    second = await write_session(tmp_path, "second", WEATHER_START, [user("hello", 1)])
    archive = HistoryArchive(tmp_path)
    archive.refresh()
    index = tmp_path / INDEX_FILE_NAME
    assert index.exists()

    report = archive.delete_all()
    assert report.complete
    assert set(report.sessions) == {first.stem, second.stem}
    assert set(report.files) == {first, second, index}
    assert not first.exists() and not second.exists() and not index.exists()
    assert archive.sessions().sessions == ()
    assert archive.search("umbrella") == []


async def test_what_cannot_be_deleted_is_said_with_the_reason(tmp_path: Path) -> None:
    kept = await weather_session(tmp_path)
    blocker = tmp_path / "20261201-080000-folder.jsonl"
    blocker.mkdir()  # a folder with a session file's name: unlink refuses it
    archive = HistoryArchive(tmp_path)

    one = archive.delete_session(blocker.stem)
    assert not one.complete and one.sessions == ()
    (failure,) = one.failed
    assert failure.path == blocker
    assert failure.reason == "it is a folder, not a file"
    assert failure.message == f"{blocker} could not be deleted: it is a folder, not a file"

    everything = archive.delete_all()
    assert everything.sessions == (kept.stem,)
    assert [f.path for f in everything.failed] == [blocker]
    assert not kept.exists() and blocker.is_dir()


async def test_an_id_that_names_no_file_of_the_folder_deletes_nothing(tmp_path: Path) -> None:
    path = await weather_session(tmp_path)
    archive = HistoryArchive(tmp_path)
    for bad in ("", "../history/" + path.stem, ".hidden", "a/b"):
        report = archive.delete_session(bad)
        assert report.sessions == () and report.files == () and report.complete
    assert path.exists()
