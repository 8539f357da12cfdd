"""Notes that outlive a damaged file, and that nobody else on the computer can read.

Issue 18: a notes file that is not a database, or a note whose labels are not JSON, broke
the notes tools for good (point 10); the notes file was world-readable (point 9).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
from contextlib import closing
from pathlib import Path

import pytest

from sammy_desktop.tools import ToolServices
from sammy_desktop.tools.desktop import NoteStore, notes_folder
from tests.tools.conftest import ManagerFactory
from tests.tools.desktop.conftest import Call, output

posix_only = pytest.mark.skipif(os.name != "posix", reason="Windows keeps the profile private")


def database(services: ToolServices) -> Path:
    return notes_folder(services.paths) / "notes.sqlite3"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_a_file_that_is_not_a_database_is_set_aside_and_the_notes_go_on(
    make_pack_manager: ManagerFactory,
    call: Call,
    services: ToolServices,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = database(services)
    path.parent.mkdir(parents=True)
    garbage = b"this was never an SQLite file " * 100
    path.write_bytes(garbage)
    manager = make_pack_manager()

    added = output(await call(manager, "addNote", {"text": "Plant the tulips"}, "a1"))

    assert added["value"]["id"] == 1
    (notice,) = added["feedback"]
    assert "could not be read" in notice and "kept aside as notes.sqlite3.corrupt-" in notice
    assert added["instructions"]
    (aside,) = path.parent.glob("notes.sqlite3.corrupt-*")
    assert aside.read_bytes() == garbage  # kept for the person, not deleted
    assert any(
        r.levelno == logging.WARNING and "notes database" in r.getMessage() for r in caplog.records
    )
    # From then on the new file just works, and says nothing more.
    found = output(await call(manager, "searchNotes", {"query": "tulips"}, "s1"))
    assert [n["text"] for n in found["value"]["notes"]] == ["Plant the tulips"]
    assert "feedback" not in found


async def test_a_damaged_database_is_set_aside_too(services: ToolServices) -> None:
    store = NoteStore.in_folder(services.paths)
    await store.add("keep me", (), "2026-12-01T10:00:00+00:00")
    # Overwrite the first page's header: SQLite no longer recognises the file.
    with store.path.open("r+b") as handle:
        handle.write(b"\x00" * 100)
    assert await store.count() == 0
    (notice,) = store.notices()
    assert "kept aside" in notice
    assert store.notices() == []  # said once


async def test_a_note_with_unreadable_labels_is_shown_without_them(
    make_pack_manager: ManagerFactory, call: Call, services: ToolServices
) -> None:
    manager = make_pack_manager()
    output(await call(manager, "addNote", {"text": "wifi is on the router", "tags": ["home"]}))
    output(await call(manager, "addNote", {"text": "wifi at work", "tags": ["work"]}, "a2"))
    with closing(sqlite3.connect(database(services))) as db, db:
        db.execute("UPDATE notes SET tags = ? WHERE id = 1", ("{not json" + "[" * 5000,))

    found = output(await call(manager, "searchNotes", {"query": "wifi"}, "s1"))

    notes = {n["id"]: n for n in found["value"]["notes"]}
    assert notes[1]["tags"] == [] and notes[1]["text"] == "wifi is on the router"
    assert notes[2]["tags"] == ["work"]
    assert any("labels of note 1 could not be read" in f for f in found["feedback"])
    # The note can still be deleted.
    store = NoteStore(database(services))
    assert await store.delete(1) is True


@posix_only
async def test_the_notes_file_and_folder_are_private(services: ToolServices) -> None:
    store = NoteStore.in_folder(services.paths)
    old_umask = os.umask(0o022)
    try:
        await store.add("a private thought", (), "2026-12-01T10:00:00+00:00")
    finally:
        os.umask(old_umask)
    assert _mode(store.path) == 0o600
    assert _mode(store.path.parent) == 0o700


@posix_only
async def test_a_notes_file_left_readable_by_an_older_version_is_tightened(
    services: ToolServices,
) -> None:
    store = NoteStore.in_folder(services.paths)
    await store.add("a private thought", (), "2026-12-01T10:00:00+00:00")
    store.path.chmod(0o644)
    store.path.parent.chmod(0o755)
    assert await store.count() == 1
    assert _mode(store.path) == 0o600
    assert _mode(store.path.parent) == 0o700
