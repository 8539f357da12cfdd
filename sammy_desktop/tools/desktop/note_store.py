"""The notes database: one SQLite file with a full-text index (FTS5), ranked by bm25.

Every operation opens its own short-lived connection on a worker thread
(``asyncio.to_thread``), so the event loop never waits for the disk and no connection is
shared between threads. Note rows and their index rows are written in one transaction, so a
note is never stored without being findable, or the other way round.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from sammy_desktop.config import AppPaths

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

    # -- worker-thread side -------------------------------------------------------------

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with closing(sqlite3.connect(self._path, timeout=5.0)) as connection:
                connection.executescript(_SCHEMA)
                with connection:  # one transaction, committed on success
                    yield connection
        except (sqlite3.Error, OSError) as error:
            raise NoteStoreError(f"the notes database {self._path} failed: {error}") from error

    def _add(self, text: str, tags: tuple[str, ...], created_at: str) -> Note:
        with self._connection() as db:
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

    def _get(self, note_id: int) -> Note | None:
        with self._connection() as db:
            row = db.execute(
                "SELECT id, text, tags, created_at FROM notes WHERE id = ?", (note_id,)
            ).fetchone()
        return None if row is None else _note(row)

    def _search(self, expression: str, limit: int) -> list[NoteHit]:
        with self._connection() as db:
            rows = db.execute(
                "SELECT n.id, n.text, n.tags, n.created_at, bm25(notes_index, ?, ?) AS rank "
                "FROM notes_index JOIN notes AS n ON n.id = notes_index.rowid "
                "WHERE notes_index MATCH ? ORDER BY rank, n.id DESC LIMIT ?",
                (_TEXT_WEIGHT, _TAGS_WEIGHT, expression, limit),
            ).fetchall()
        # bm25() is lower for better matches; relevance reads the other way round.
        return [NoteHit(note=_note(row[:4]), relevance=round(-float(row[4]), 4)) for row in rows]

    def _delete(self, note_id: int) -> bool:
        with self._connection() as db:
            deleted = db.execute("DELETE FROM notes WHERE id = ?", (note_id,)).rowcount
            db.execute("DELETE FROM notes_index WHERE rowid = ?", (note_id,))
        return deleted > 0

    def _count(self) -> int:
        with self._connection() as db:
            (count,) = db.execute("SELECT count(*) FROM notes").fetchone()
        return int(count)


def _note(row: Sequence[object]) -> Note:
    note_id, text, tags, created_at = row
    decoded = json.loads(str(tags))
    return Note(
        id=int(str(note_id)),
        text=str(text),
        tags=tuple(str(tag) for tag in decoded) if isinstance(decoded, list) else (),
        created_at=str(created_at),
    )
