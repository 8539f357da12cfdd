"""The search index of the conversation history: SQLite FTS5 beside the history files.

Every spoken line and every tool call (its name, its arguments in words, then its answers'
summaries) of every session is a row, with the session, the turn, who said it and the line
of the file it came from; :meth:`SearchIndex.search` finds them ranked by bm25, with a
snippet whose matched words are marked. The index also keeps each session's summary
(:class:`~sammy_desktop.archive.sessions.SessionTally`), so the list of sessions needs no
file read again.

The JSON-lines files stay the source of truth, and the index follows them:

* incrementally: for each file it remembers the size and modification time it saw and how
  far it read (with the last bytes before that point, to tell a file that grew from one
  that was replaced), so a session still being written costs only its new lines, and an
  unchanged one a ``stat``;
* from scratch: an index that is missing, is not a database, is damaged, or was made by
  another version of this schema is deleted and built again from the files; a file that
  shrank or changed is read again, and one that is gone is forgotten.

The index holds what the person said, as the files do: its file is ``0600`` in the
history folder (``0700``). Each operation opens its own short-lived connection, so a call
may come from any thread (the window calls from a worker thread: every call here waits on
the disk), and the app and the command line may use the index at once.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from stat import S_ISREG
from typing import IO, Any, Final, Literal, TypeAlias, TypeVar

from sammy_desktop.archive.records import (
    int_field,
    mapping_field,
    parse_lines,
    parse_time,
    text_field,
)
from sammy_desktop.archive.sessions import (
    HISTORY_SUFFIX,
    SessionSummary,
    SessionTally,
    result_summary,
    tool_search_text,
)
from sammy_desktop.config.private_data import make_private_dir, make_private_file, open_private
from sammy_desktop.os_errors import os_error_reason

__all__ = [
    "INDEX_FILE_NAME",
    "SCHEMA_VERSION",
    "IndexUnavailable",
    "SearchHit",
    "SearchIndex",
    "SnippetPart",
    "SyncReport",
    "search_expression",
]

_log = logging.getLogger(__name__)

T = TypeVar("T")

INDEX_FILE_NAME: Final = "index.sqlite3"
# Raise it whenever the tables below change: an index of another version is built again.
SCHEMA_VERSION: Final = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    session_id TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    tail BLOB NOT NULL,
    tally TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    line INTEGER NOT NULL,
    at TEXT,
    turn_id INTEGER,
    speaker TEXT NOT NULL,
    tool_name TEXT,
    call_id TEXT
);
CREATE INDEX IF NOT EXISTS entries_by_call ON entries (session_id, call_id);
CREATE VIRTUAL TABLE IF NOT EXISTS entries_text USING fts5(
    text, tokenize = 'unicode61 remove_diacritics 2'
);
"""

# How many bytes before the point read to keep: enough to tell an appended file from
# another one, few enough to compare at every look.
_TAIL_BYTES: Final = 64
# The marks snippet() puts around matched words: control characters no line is left with.
_MARK_START: Final = "\x02"
_MARK_END: Final = "\x03"
_MARKS: Final = re.compile(f"[{_MARK_START}{_MARK_END}]")

_WORD: Final = re.compile(r"\w", re.UNICODE)

# SQLite's primary result codes for "this is not a database" and "this one is damaged".
_BROKEN_FILE_CODES: Final = frozenset({sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT})
# What SQLite may keep beside the database file; deleted with it.
_COMPANION_SUFFIXES: Final = ("-journal", "-wal", "-shm")

HitSpeaker: TypeAlias = Literal["user", "assistant", "tool"]


class IndexUnavailable(Exception):
    """The search index cannot be used, even built anew; the message says why, in words."""


class _OutOfStep(Exception):
    """The index file is a database, but not one this version can use."""


@dataclass(frozen=True, slots=True)
class SnippetPart:
    """A piece of a hit's snippet, and whether it is one of the words searched for."""

    text: str
    matched: bool


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A line or a tool call that matched a search.

    Attributes:
        session_id: the session it is in (its file's stem).
        line: its line in the history file (the matching entry of
            :class:`~sammy_desktop.archive.sessions.Session` has the same ``line``).
        turn_id: the exchange it belongs to, when known.
        speaker: ``user`` (the person), ``assistant``, or ``tool`` for a tool call.
        tool_name: the tool's name for a tool call, else None.
        at: when it was recorded.
        snippet: the matching stretch, cut around the matched words, which are marked.
        relevance: bm25's score, higher is better.
    """

    session_id: str
    line: int
    turn_id: int | None
    speaker: HitSpeaker
    tool_name: str | None
    at: datetime | None
    snippet: tuple[SnippetPart, ...]
    relevance: float

    @property
    def text(self) -> str:
        """The snippet without marks."""
        return "".join(part.text for part in self.snippet)

    def marked(self, before: str = "[", after: str = "]") -> str:
        """The snippet with each matched stretch between ``before`` and ``after``."""
        return "".join(
            f"{before}{part.text}{after}" if part.matched else part.text for part in self.snippet
        )

    @property
    def matched_words(self) -> list[str]:
        """The words of the snippet that matched, in order."""
        return [part.text for part in self.snippet if part.matched]


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What bringing the index in step with the files did.

    Attributes:
        rebuilt_because: why the index was built again from the files (it was missing,
            damaged, not a database, of another version, or asked for); None when it was
            only brought up to date.
        files_read: files with something new (or read again from their start).
        bytes_read: how much of them was read.
        records_read: the records taken in.
        sessions_forgotten: sessions whose file is gone, taken out of the index.
        problems: sentences about lines or files that could not be read this time.
    """

    rebuilt_because: str | None = None
    files_read: int = 0
    bytes_read: int = 0
    records_read: int = 0
    sessions_forgotten: int = 0
    problems: tuple[str, ...] = ()


@dataclass(slots=True)
class _Counts:
    files_read: int = 0
    bytes_read: int = 0
    records_read: int = 0
    sessions_forgotten: int = 0
    problems: list[str] = field(default_factory=list)


def search_expression(text: str) -> str | None:
    """An FTS5 query for what a person typed: every word, each quoted, each a prefix.

    Whatever is typed, the expression is valid: each whitespace-separated word becomes a
    quoted phrase (its own quotes doubled), so ``"``, ``*``, ``AND``, ``NEAR(`` or a colon
    are words to look for and never FTS5 syntax. Every word must occur ("tea timer" finds
    the lines with both); a word also finds longer ones it starts ("remind" finds
    "reminder"), so results come while a word is still being typed. None when there is
    nothing to look for (only spaces or punctuation).
    """
    words = [word for word in text.split() if _WORD.search(word)]
    if not words:
        return None
    return " ".join('"' + word.replace('"', '""') + '"*' for word in words)


def _snippet_parts(marked: str) -> tuple[SnippetPart, ...]:
    parts: list[SnippetPart] = []
    matched = False
    for piece in re.split(f"([{_MARK_START}{_MARK_END}])", marked):
        if piece == _MARK_START:
            matched = True
        elif piece == _MARK_END:
            matched = False
        elif piece:
            parts.append(SnippetPart(piece, matched))
    return tuple(parts)


def _is_broken_file(error: sqlite3.DatabaseError) -> bool:
    """Whether SQLite says the file is not a database or is damaged (not busy, not locked)."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(code, int) and (code & 0xFF) in _BROKEN_FILE_CODES


def _broken_words(error: sqlite3.DatabaseError) -> str:
    code = getattr(error, "sqlite_errorcode", 0)
    if isinstance(code, int) and (code & 0xFF) == sqlite3.SQLITE_NOTADB:
        return "was not a database"
    return "was damaged"


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taken at once so two writers never read the same old state."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _clean(text: str) -> str:
    """The text as indexed: without the control characters the snippets are marked with."""
    return _MARKS.sub(" ", text)


@dataclass(frozen=True, slots=True)
class _IndexRow:
    """Where an indexed text comes from: the session, its line, when, whose."""

    session_id: str
    line: int
    at: str | None
    turn_id: int | None
    speaker: str
    tool_name: str | None = None
    call_id: str | None = None


def _insert(db: sqlite3.Connection, row: _IndexRow, text: str) -> None:
    cursor = db.execute(
        "INSERT INTO entries (session_id, line, at, turn_id, speaker, tool_name, call_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (row.session_id, row.line, row.at, row.turn_id, row.speaker, row.tool_name, row.call_id),
    )
    db.execute(
        "INSERT INTO entries_text (rowid, text) VALUES (?, ?)", (cursor.lastrowid, _clean(text))
    )


class SearchIndex:
    """The full-text index of a history folder, kept in step with its files.

    Args:
        path: the index file (``history_dir/index.sqlite3``); created when missing.
        history_dir: the folder of the session files (``*.jsonl``) it follows.
    """

    def __init__(self, path: Path, history_dir: Path) -> None:
        self._path = path
        self._dir = history_dir
        self._rebuilt_because: str | None = None

    @property
    def path(self) -> Path:
        """The index file."""
        return self._path

    # -- the operations -------------------------------------------------------------------

    def sync(self) -> SyncReport:
        """Bring the index in step with the files: read what is new, forget what is gone.

        Raises:
            IndexUnavailable: the index cannot be written, even anew (a full disk, a
                folder that cannot be written to).
        """
        counts = _Counts()
        self._run(lambda db: self._sync(db, counts), sync_after_rebuild=False)
        return self._report(counts)

    def rebuild(self) -> SyncReport:
        """Delete the index and build it again from the files (a fresh start on request).

        Raises:
            IndexUnavailable: the index cannot be deleted or written.
        """
        try:
            self._discard("was rebuilt on request", warn=False)
        except OSError as error:
            raise self._unavailable(error) from error
        return self.sync()

    def search(self, text: str, *, limit: int = 100) -> list[SearchHit]:
        """The lines and tool calls matching ``text``, best first (at most ``limit``).

        What is typed is never FTS5 syntax (see :func:`search_expression`); text with no
        word in it finds nothing. Call :meth:`sync` first to find the newest lines too.

        Raises:
            IndexUnavailable: the index cannot be read, even built anew.
        """
        expression = search_expression(text)
        if expression is None or limit <= 0:
            return []
        return self._run(lambda db: self._search(db, expression, limit))

    def summaries(self) -> list[SessionSummary]:
        """The summary of every session the index knows, in no particular order.

        Raises:
            IndexUnavailable: the index cannot be read, even built anew.
        """
        return self._run(self._summaries)

    def forget(self, session_id: str) -> None:
        """Take a session out of the index (its file was deleted).

        Raises:
            IndexUnavailable: the index cannot be written.
        """

        def forget(db: sqlite3.Connection) -> None:
            with _transaction(db):
                self._forget(db, session_id)

        self._run(forget, sync_after_rebuild=False)

    def remove(self) -> list[Path]:
        """Delete the index file and what SQLite keeps beside it; returns what was there.

        Raises:
            OSError: one of them cannot be deleted (its ``filename`` says which).
        """
        removed = []
        for candidate in self._files():
            if candidate.exists():
                candidate.unlink()
                removed.append(candidate)
        return removed

    # -- connections, and what to do with a broken file -------------------------------------

    def _files(self) -> list[Path]:
        return [
            self._path,
            *(self._path.with_name(self._path.name + s) for s in _COMPANION_SUFFIXES),
        ]

    def _run(
        self, operation: Callable[[sqlite3.Connection], T], *, sync_after_rebuild: bool = True
    ) -> T:
        """Run ``operation``; an index that cannot be used as it is gets built anew first."""
        try:
            try:
                with self._connection() as db:
                    return operation(db)
            except _OutOfStep as stale:
                reason = str(stale)
            except sqlite3.DatabaseError as error:
                if not _is_broken_file(error):
                    raise
                reason = _broken_words(error)
            self._discard(reason, warn=True)
            with self._connection() as db:
                if sync_after_rebuild:
                    self._sync(db, _Counts())
                return operation(db)
        except (sqlite3.Error, _OutOfStep) as error:
            raise IndexUnavailable(
                f"The search index {self._path} cannot be used: {error}."
            ) from error
        except OSError as error:
            raise self._unavailable(error) from error

    def _unavailable(self, error: OSError) -> IndexUnavailable:
        where = error.filename or self._path
        return IndexUnavailable(
            f"The search index cannot be used: {where}: {os_error_reason(error)}."
        )

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        make_private_dir(self._path.parent)
        if not self._path.exists():
            if self._rebuilt_because is None:
                self._rebuilt_because = "was missing"
            # Created owner-only before SQLite opens it (its journal copies its permissions).
            open_private(self._path, "a").close()
        make_private_file(self._path)
        with closing(sqlite3.connect(self._path, timeout=10.0, isolation_level=None)) as db:
            self._check_schema(db)
            yield db

    def _check_schema(self, db: sqlite3.Connection) -> None:
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if version == SCHEMA_VERSION:
            return
        (tables,) = db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        if version != 0 or tables:
            raise _OutOfStep(
                f"was made by another version (schema {version}; this one reads {SCHEMA_VERSION})"
            )
        # A new, empty file. Two processes may get here at once: the second one waits for
        # the first one's transaction, then finds the tables there.
        db.executescript(
            f"BEGIN IMMEDIATE;\n{_SCHEMA}\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;"
        )

    def _discard(self, reason: str, *, warn: bool) -> None:
        if warn:
            _log.warning(
                "the search index %s %s; building it again from the history files",
                self._path,
                reason,
            )
        else:
            _log.info("the search index %s %s", self._path, reason)
        for candidate in self._files():
            candidate.unlink(missing_ok=True)
        self._rebuilt_because = reason

    def _report(self, counts: _Counts) -> SyncReport:
        reason, self._rebuilt_because = self._rebuilt_because, None
        return SyncReport(
            rebuilt_because=reason,
            files_read=counts.files_read,
            bytes_read=counts.bytes_read,
            records_read=counts.records_read,
            sessions_forgotten=counts.sessions_forgotten,
            problems=tuple(counts.problems),
        )

    # -- keeping in step -------------------------------------------------------------------

    def _sync(self, db: sqlite3.Connection, counts: _Counts) -> None:
        on_disk: dict[str, tuple[Path, int, int]] = {}
        for path in sorted(self._dir.glob(f"*{HISTORY_SUFFIX}")):
            try:
                found = path.stat()
            except OSError as error:
                counts.problems.append(
                    f"history file {path.name} could not be read: {os_error_reason(error)}"
                )
                continue
            if S_ISREG(found.st_mode):
                on_disk[path.stem] = (path, found.st_size, found.st_mtime_ns)
        seen = {
            session_id: (size, mtime_ns)
            for session_id, size, mtime_ns in db.execute(
                "SELECT session_id, size, mtime_ns FROM files"
            )
        }
        gone = seen.keys() - on_disk.keys()
        changed = [
            session_id
            for session_id, (_, size, mtime_ns) in on_disk.items()
            if seen.get(session_id) != (size, mtime_ns)
        ]
        if not gone and not changed:
            return  # the usual case: nothing to write, so no write lock taken
        with _transaction(db):
            for session_id in sorted(gone):
                self._forget(db, session_id)
                counts.sessions_forgotten += 1
            for session_id in changed:
                path = on_disk[session_id][0]
                try:
                    self._sync_file(db, session_id, path, counts)
                except OSError as error:
                    counts.problems.append(
                        f"history file {path.name} could not be read: {os_error_reason(error)}"
                    )

    def _sync_file(
        self, db: sqlite3.Connection, session_id: str, path: Path, counts: _Counts
    ) -> None:
        row = db.execute(
            "SELECT offset, lines, tail, tally FROM files WHERE session_id = ?", (session_id,)
        ).fetchone()
        with path.open("rb") as stream:
            seen = path.stat()
            offset, lines, tail, tally = 0, 0, b"", SessionTally()
            if row is not None:
                resumed = _resume_point(stream, seen.st_size, row)
                if resumed is None:
                    self._forget(db, session_id)  # replaced or rewritten: read it again
                else:
                    offset, lines, tail, tally = resumed
            stream.seek(offset)
            data = stream.read()
        skipped = 0
        if tail and not tail.endswith(b"\n") and data.startswith(b"\n"):
            skipped = 1  # the line break after a last record already taken
        parsed = parse_lines(data[skipped:], first_line=lines + 1, file_name=path.name)
        for numbered in parsed.records:
            tally.add(numbered.record)
            self._index_record(db, session_id, numbered.line, numbered.record)
        tally.problems.extend(parsed.problems)
        counts.problems.extend(parsed.problems)
        read = skipped + parsed.consumed
        new_offset = offset + read
        db.execute(
            "INSERT INTO files (session_id, size, mtime_ns, offset, lines, tail, tally) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
            "size = excluded.size, mtime_ns = excluded.mtime_ns, offset = excluded.offset, "
            "lines = excluded.lines, tail = excluded.tail, tally = excluded.tally",
            (
                session_id,
                seen.st_size,
                seen.st_mtime_ns,
                new_offset,
                lines + parsed.lines,
                (tail + data[:read])[-_TAIL_BYTES:],
                tally.to_json(),
            ),
        )
        counts.files_read += 1
        counts.bytes_read += read
        counts.records_read += len(parsed.records)

    def _index_record(
        self, db: sqlite3.Connection, session_id: str, line: int, record: Mapping[str, Any]
    ) -> None:
        kind = record.get("type")
        row = _IndexRow(
            session_id=session_id,
            line=line,
            at=text_field(record, "at") or None,
            turn_id=int_field(record, "turn_id"),
            speaker="tool",
        )
        if kind in ("user", "assistant"):
            text = text_field(record, "text")
            if text.strip():
                _insert(db, replace(row, speaker=str(kind)), text)
        elif kind == "tool_call":
            name = text_field(record, "name") or "unnamed tool"
            called = replace(row, tool_name=name, call_id=text_field(record, "id"))
            _insert(db, called, tool_search_text(name, mapping_field(record, "args")))
        elif kind == "tool_result":
            self._index_answer(db, row, record)

    @staticmethod
    def _index_answer(db: sqlite3.Connection, row: _IndexRow, record: Mapping[str, Any]) -> None:
        """An answer's summary joins its call's row, so a search finds the call by it."""
        summary = result_summary(mapping_field(record, "response"))
        call_id = text_field(record, "id")
        found = db.execute(
            "SELECT e.id, t.text FROM entries AS e JOIN entries_text AS t ON t.rowid = e.id "
            "WHERE e.session_id = ? AND e.call_id = ? AND e.speaker = 'tool' "
            "ORDER BY e.id DESC LIMIT 1",
            (row.session_id, call_id),
        ).fetchone()
        if found is None:  # an answer whose call is not in the file: a row of its own
            name = text_field(record, "name") or "unnamed tool"
            answered = replace(row, tool_name=name, call_id=call_id)
            _insert(db, answered, f"{tool_search_text(name, {})}\n{summary}")
            return
        rowid, text = found
        db.execute(
            "UPDATE entries_text SET text = ? WHERE rowid = ?",
            (f"{text}\n{_clean(summary)}", rowid),
        )

    @staticmethod
    def _forget(db: sqlite3.Connection, session_id: str) -> None:
        db.execute(
            "DELETE FROM entries_text WHERE rowid IN (SELECT id FROM entries WHERE session_id = ?)",
            (session_id,),
        )
        db.execute("DELETE FROM entries WHERE session_id = ?", (session_id,))
        db.execute("DELETE FROM files WHERE session_id = ?", (session_id,))

    # -- reading -------------------------------------------------------------------------------

    def _search(self, db: sqlite3.Connection, expression: str, limit: int) -> list[SearchHit]:
        try:
            rows = db.execute(
                "SELECT e.session_id, e.line, e.turn_id, e.speaker, e.tool_name, e.at, "
                "snippet(entries_text, 0, char(2), char(3), '…', 16), "
                "bm25(entries_text) AS rank "
                "FROM entries_text JOIN entries AS e ON e.id = entries_text.rowid "
                "WHERE entries_text MATCH ? "
                "ORDER BY rank, e.session_id DESC, e.line LIMIT ?",
                (expression, limit),
            ).fetchall()
        except sqlite3.OperationalError as error:
            if "fts5" not in str(error):
                raise
            # search_expression() quotes every word, so this would be our bug, not the
            # person's typing: find nothing rather than fail the window.
            _log.warning("the search %r was refused by FTS5: %s", expression, error)
            return []
        hits = []
        for session_id, line, turn_id, speaker, tool_name, at, snippet, rank in rows:
            hits.append(
                SearchHit(
                    session_id=str(session_id),
                    line=int(line),
                    turn_id=None if turn_id is None else int(turn_id),
                    speaker=speaker if speaker in ("user", "assistant") else "tool",
                    tool_name=None if tool_name is None else str(tool_name),
                    at=parse_time(at),
                    snippet=_snippet_parts(str(snippet)),
                    relevance=-float(rank),
                )
            )
        return hits

    def _summaries(self, db: sqlite3.Connection) -> list[SessionSummary]:
        summaries = []
        for session_id, tally in db.execute("SELECT session_id, tally FROM files"):
            try:
                loaded = SessionTally.from_json(str(tally))
            except (ValueError, TypeError) as error:
                raise _OutOfStep(f"held a session summary it could not read ({error})") from error
            path = self._dir / f"{session_id}{HISTORY_SUFFIX}"
            summaries.append(loaded.summary(str(session_id), path))
        return summaries


def _resume_point(
    stream: IO[bytes], size: int, row: tuple[Any, ...]
) -> tuple[int, int, bytes, SessionTally] | None:
    """Where to go on reading a file seen before; None when it must be read from the start.

    It may go on when the file still holds, just before the point read to, the bytes it
    held then (it grew, or nothing changed but its time); a file that is shorter, or holds
    other bytes there, was replaced.
    """
    offset, lines, tail, tally_json = row
    if not isinstance(offset, int) or not isinstance(tail, bytes) or offset > size:
        return None
    if len(tail) > offset or (offset and not tail):
        return None
    stream.seek(offset - len(tail))
    if stream.read(len(tail)) != tail:
        return None
    try:
        tally = SessionTally.from_json(str(tally_json))
    except (ValueError, TypeError):
        return None
    return offset, int(lines), tail, tally
