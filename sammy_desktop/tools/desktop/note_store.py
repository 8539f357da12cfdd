"""The notes database: one SQLite file with a full-text index (FTS5), ranked by bm25.

Every operation opens its own short-lived connection on a worker thread
(``asyncio.to_thread``), so the event loop never waits for the disk and no connection is
shared between threads. Note rows and their index rows are written in one transaction, so a
note is never stored without being findable, or the other way round.

The file and its folder are the person's alone (``0600`` and ``0700`` on POSIX). A file that
is not an SQLite database, or is damaged, does not break the notes for good: it is moved
aside as ``notes.sqlite3.corrupt-<time>``, a new empty database takes its place, and the
operation runs on that; a note whose labels are not valid JSON is returned without them.
Each time, :meth:`NoteStore.notices` says so in a sentence for the person, and the log has a
warning.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, TypeVar

from sammy_desktop.config import AppPaths
from sammy_desktop.config.private_data import make_private_dir, make_private_file, open_private

__all__ = ["Note", "NoteHit", "NoteStore", "NoteStoreError", "notes_folder", "search_terms"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    text TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS notes_index USING fts5(
    text, tags, tokenize = 'unicode61 remove_diacritics 2'
);
"""

# bm25 column weights: a word in the tags says more about a note than one in its text.
_TEXT_WEIGHT = 1.0
_TAGS_WEIGHT = 2.0

_WORD = re.compile(r"\w+", re.UNICODE)

_log = logging.getLogger(__name__)

T = TypeVar("T")

# SQLite's primary result codes for "this is not a database" and "this one is damaged".
_BROKEN_FILE_CODES: Final = frozenset({sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT})
# What SQLite may keep beside the database file; moved aside with it.
_COMPANION_SUFFIXES: Final = ("-journal", "-wal", "-shm")


class NoteStoreError(Exception):
    """The notes database cannot be opened, read or written; the message says why."""


@dataclass(frozen=True, slots=True)
class Note:
    """One stored note.

    Attributes:
        id: the note's number, used to delete it.
        text: what was noted.
        tags: lower-case labels, possibly none.
        created_at: when it was noted, ISO 8601 with offset.
    """

    id: int
    text: str
    tags: tuple[str, ...]
    created_at: str


@dataclass(frozen=True, slots=True)
class NoteHit:
    """A note found by a search, with its relevance (higher is better)."""

    note: Note
    relevance: float


def notes_folder(paths: AppPaths) -> Path:
    """The folder that holds the notes database (the settings pane offers to open it)."""
    return paths.notes_dir


def search_terms(query: str) -> list[str]:
    """The words of ``query`` that a search looks for (lower case, duplicates removed)."""
    return list(dict.fromkeys(word.lower() for word in _WORD.findall(query)))


class NoteStore:
    """Adds, finds and deletes notes in one SQLite file.

    Args:
        path: the database file; its folder is created on first use.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._notices: list[str] = []

    @classmethod
    def in_folder(cls, paths: AppPaths) -> NoteStore:
        """The store at its standard place under the app's data folder."""
        return cls(notes_folder(paths) / "notes.sqlite3")

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    async def add(self, text: str, tags: Sequence[str], created_at: str) -> Note:
        """Store a note and index it; returns it with its new id."""
        return await asyncio.to_thread(self._add, text, tuple(tags), created_at)

    async def get(self, note_id: int) -> Note | None:
        """The note ``note_id``, or None when there is none."""
        return await asyncio.to_thread(self._get, note_id)

    async def search(self, query: str, limit: int) -> list[NoteHit]:
        """Notes containing any word of ``query`` (or a word starting with it), best first.

        Ranked by bm25: notes that contain more of the words, rarer words, and words in
        their tags come first. A query without words finds nothing.
        """
        terms = search_terms(query)
        if not terms:
            return []
        # Each word quoted (so FTS5 operators in the person's words are plain text) and
        # used as a prefix ("pass" finds "password"); any word may match.
        expression = " OR ".join(f'"{term}"*' for term in terms)
        return await asyncio.to_thread(self._search, expression, limit)

    async def delete(self, note_id: int) -> bool:
        """Delete the note ``note_id``; False when there was none."""
        return await asyncio.to_thread(self._delete, note_id)

    async def count(self) -> int:
        """How many notes are stored."""
        return await asyncio.to_thread(self._count)

    def notices(self) -> list[str]:
        """What went wrong but was mended since the last call, in sentences for the person.

        A damaged database set aside, a note's unreadable labels left out. The notes tools
        put these in their answer; each is said once.
        """
        notices, self._notices = self._notices, []
        return notices

    # -- worker-thread side -------------------------------------------------------------

    def _run(self, operation: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``operation`` in one transaction; a broken file is set aside and it runs again."""
        try:
            try:
                with self._connection() as db:
                    return operation(db)
            except sqlite3.DatabaseError as error:
                if not _is_broken_file(error):
                    raise
                self._set_aside(error)
            with self._connection() as db:
                return operation(db)
        except (sqlite3.Error, OSError) as error:
            raise NoteStoreError(f"the notes database {self._path} failed: {error}") from error

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        make_private_dir(self._path.parent)
        if not self._path.exists():
            # Created owner-only before SQLite opens it (its journals copy its permissions).
            open_private(self._path, "a").close()
        make_private_file(self._path)
        with closing(sqlite3.connect(self._path, timeout=5.0)) as connection:
            connection.executescript(_SCHEMA)
            with connection:  # one transaction, committed on success
                yield connection

    def _set_aside(self, error: sqlite3.DatabaseError) -> None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        aside = self._path.with_name(f"{self._path.name}.corrupt-{stamp}")
        self._path.replace(aside)
        for suffix in _COMPANION_SUFFIXES:
            companion = self._path.with_name(self._path.name + suffix)
            if companion.exists():
                companion.replace(aside.with_name(aside.name + suffix))
        _log.warning(
            "the notes database %s is broken (%s); moved aside as %s", self._path, error, aside
        )
        self._notices.append(
            f"The notes file was damaged and could not be read, so it was kept aside as "
            f"{aside.name} in the notes folder and a new, empty notes file was started. The "
            "earlier notes are not lost, but the assistant cannot see them."
        )

    def _note(self, row: Sequence[object]) -> Note:
        note_id, text, tags, created_at = row
        number = int(str(note_id))
        try:
            decoded = json.loads(str(tags))
        except (ValueError, RecursionError):
            _log.warning("notes: the labels of note %d are not valid JSON; left out", number)
            self._notices.append(
                f"The labels of note {number} could not be read, so it is shown without them."
            )
            decoded = []
        return Note(
            id=number,
            text=str(text),
            tags=tuple(str(tag) for tag in decoded) if isinstance(decoded, list) else (),
            created_at=str(created_at),
        )

    def _add(self, text: str, tags: tuple[str, ...], created_at: str) -> Note:
        def insert(db: sqlite3.Connection) -> Note:
            cursor = db.execute(
                "INSERT INTO notes (text, tags, created_at) VALUES (?, ?, ?)",
                (text, json.dumps(list(tags)), created_at),
            )
            note_id = cursor.lastrowid
            assert note_id is not None  # an INSERT into a rowid table always has one
            db.execute(
                "INSERT INTO notes_index (rowid, text, tags) VALUES (?, ?, ?)",
                (note_id, text, " ".join(tags)),
            )
            return Note(id=note_id, text=text, tags=tags, created_at=created_at)

        return self._run(insert)

    def _get(self, note_id: int) -> Note | None:
        row = self._run(
            lambda db: db.execute(
                "SELECT id, text, tags, created_at FROM notes WHERE id = ?", (note_id,)
            ).fetchone()
        )
        return None if row is None else self._note(row)

    def _search(self, expression: str, limit: int) -> list[NoteHit]:
        rows = self._run(
            lambda db: db.execute(
                "SELECT n.id, n.text, n.tags, n.created_at, bm25(notes_index, ?, ?) AS rank "
                "FROM notes_index JOIN notes AS n ON n.id = notes_index.rowid "
                "WHERE notes_index MATCH ? ORDER BY rank, n.id DESC LIMIT ?",
                (_TEXT_WEIGHT, _TAGS_WEIGHT, expression, limit),
            ).fetchall()
        )
        # bm25() is lower for better matches; relevance reads the other way round.
        return [
            NoteHit(note=self._note(row[:4]), relevance=round(-float(row[4]), 4)) for row in rows
        ]

    def _delete(self, note_id: int) -> bool:
        def delete(db: sqlite3.Connection) -> bool:
            deleted = db.execute("DELETE FROM notes WHERE id = ?", (note_id,)).rowcount
            db.execute("DELETE FROM notes_index WHERE rowid = ?", (note_id,))
            return deleted > 0

        return self._run(delete)

    def _count(self) -> int:
        (count,) = self._run(lambda db: db.execute("SELECT count(*) FROM notes").fetchone())
        return int(count)


def _is_broken_file(error: sqlite3.DatabaseError) -> bool:
    """Whether SQLite says the file is not a database or is damaged (not busy, not locked)."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(code, int) and (code & 0xFF) in _BROKEN_FILE_CODES
