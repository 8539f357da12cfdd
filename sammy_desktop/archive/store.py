"""The conversation history as a person uses it: list, read, search, export, delete.

:class:`HistoryArchive` is what the History window and ``sammy-desktop history`` both use.
It reads the session files (:mod:`sammy_desktop.core.history` writes them; they are the
source of truth) and keeps the search index (:mod:`~sammy_desktop.archive.index`) in
step with them before it answers, so the list and the search include a session still
being written, up to its last whole line.

Every call waits on the disk: the window calls it from a worker thread
(``asyncio.to_thread``). Each call stands alone (its own database connection), so calls
from several threads, and from the command line while the app runs, are safe.

What cannot be read is said, never raised, where the rest can still be shown: a damaged
line of a file is a sentence in ``problems``, and an index that cannot be used even built
anew leaves the list read from the files themselves (only the search needs the index).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Final

from sammy_desktop.archive.export import ExportFormat, copy_text, export_session
from sammy_desktop.archive.index import (
    INDEX_FILE_NAME,
    IndexUnavailable,
    SearchHit,
    SearchIndex,
    SyncReport,
)
from sammy_desktop.archive.sessions import HISTORY_SUFFIX, Session, SessionSummary, read_session
from sammy_desktop.config.paths import AppPaths
from sammy_desktop.os_errors import os_error_reason

__all__ = [
    "LATEST",
    "DeletionFailure",
    "DeletionReport",
    "HistoryArchive",
    "SessionList",
    "UnknownSession",
]

_log = logging.getLogger(__name__)

LATEST: Final = "latest"
"""What :meth:`HistoryArchive.resolve` takes for the newest session."""

# How many sessions an unknown id's message suggests.
_SUGGESTED: Final = 5

_OLDEST: Final = datetime.min.replace(tzinfo=UTC)


class UnknownSession(LookupError):
    """No session has the id asked for (or several match a part of one).

    Attributes:
        reference: what was asked for.
        candidates: the sessions to suggest instead, newest first: the latest ones, or
            those the reference matches when it matches several; empty when there is no
            session at all.
        ambiguous: the reference matches every one of ``candidates``.
    """

    def __init__(
        self, reference: str, candidates: Sequence[SessionSummary], *, ambiguous: bool = False
    ) -> None:
        self.reference = reference
        self.candidates = tuple(candidates)
        self.ambiguous = ambiguous
        if not self.candidates:
            message = "No conversations yet."
        elif ambiguous:
            message = f"“{reference}” matches several conversations."
        else:
            message = f"There is no conversation “{reference}”."
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class SessionList:
    """Every session, newest first, and what could not be read of them.

    Attributes:
        sessions: the summaries, newest first.
        problems: sentences for the person (a damaged line skipped, a file or the index
            that could not be read).
    """

    sessions: tuple[SessionSummary, ...]
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DeletionFailure:
    """A file that could not be deleted, and why, in words (``os_error_reason``)."""

    path: Path
    reason: str

    @property
    def message(self) -> str:
        """The sentence to show: "… could not be deleted: you do not have permission"."""
        return f"{self.path} could not be deleted: {self.reason}"


@dataclass(frozen=True, slots=True)
class DeletionReport:
    """What a deletion did.

    Attributes:
        sessions: the sessions deleted (their ids).
        files: every file deleted (the session files, the index and its journal).
        failed: what could not be deleted, each with the reason.
    """

    sessions: tuple[str, ...] = ()
    files: tuple[Path, ...] = ()
    failed: tuple[DeletionFailure, ...] = ()

    @property
    def complete(self) -> bool:
        """Whether everything asked for went."""
        return not self.failed


def _newest_first(summaries: Sequence[SessionSummary]) -> tuple[SessionSummary, ...]:
    return tuple(sorted(summaries, key=lambda s: (s.started or _OLDEST, s.id), reverse=True))


class HistoryArchive:
    """The sessions of a history folder and their search index.

    Args:
        history_dir: the folder of the session files (``AppPaths.history_dir``).
        index_path: the index file; by default ``index.sqlite3`` in that folder.
    """

    def __init__(self, history_dir: Path, *, index_path: Path | None = None) -> None:
        self._dir = history_dir
        self._index = SearchIndex(index_path or history_dir / INDEX_FILE_NAME, history_dir)

    @classmethod
    def for_paths(cls, paths: AppPaths) -> HistoryArchive:
        """The archive of the app's history folder (the one ``--config-dir`` chose)."""
        return cls(paths.history_dir)

    @property
    def history_dir(self) -> Path:
        """The folder of the session files."""
        return self._dir

    @property
    def index(self) -> SearchIndex:
        """The search index."""
        return self._index

    # -- reading ---------------------------------------------------------------------------

    def refresh(self) -> SyncReport:
        """Bring the index in step with the files now (every read below does it too).

        Raises:
            IndexUnavailable: the index cannot be written, even anew.
        """
        return self._index.sync()

    def sessions(self) -> SessionList:
        """Every session, newest first, with what could not be read."""
        problems: list[str] = []
        try:
            report = self._index.sync()
            summaries = self._index.summaries()
        except IndexUnavailable as error:
            _log.warning("%s; the sessions are read from the files", error)
            problems.append(f"{error} The conversations were read from their files.")
            summaries = self._summaries_from_files(problems)
        else:
            problems += [p for s in summaries for p in s.problems]
            problems += [p for p in report.problems if p not in problems]
        present = [s for s in summaries if s.path.exists()]
        return SessionList(sessions=_newest_first(present), problems=tuple(problems))

    def _summaries_from_files(self, problems: list[str]) -> list[SessionSummary]:
        summaries = []
        for path in sorted(self._dir.glob(f"*{HISTORY_SUFFIX}")):
            if not path.is_file():
                continue
            try:
                session = read_session(path)
            except OSError as error:
                problems.append(
                    f"history file {path.name} could not be read: {os_error_reason(error)}"
                )
                continue
            problems += session.problems
            summaries.append(session.summary)
        return summaries

    def resolve(self, reference: str) -> SessionSummary:
        """The session ``reference`` names: ``latest``, its id, its short id, or a start of one.

        Raises:
            UnknownSession: none matches (with the latest sessions to suggest), or several
                do (with those).
        """
        sessions = self.sessions().sessions
        wanted = reference.strip()
        if not sessions:
            raise UnknownSession(wanted, ())
        if wanted.lower() == LATEST:
            return sessions[0]
        for matches in (
            [s for s in sessions if wanted in (s.id, s.short_id)],
            [s for s in sessions if wanted and s.id.startswith(wanted)],
            [s for s in sessions if wanted and s.short_id.startswith(wanted)],
        ):
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                raise UnknownSession(wanted, matches, ambiguous=True)
        raise UnknownSession(wanted, sessions[:_SUGGESTED])

    def session(self, session_id: str) -> Session:
        """One session read whole from its file: its lines and tool cards in order.

        Raises:
            UnknownSession: there is no file for ``session_id``.
            OSError: its file cannot be read.
        """
        path = self._path_of(session_id)
        if path is None or not path.is_file():
            raise UnknownSession(session_id, self.sessions().sessions[:_SUGGESTED])
        return read_session(path)

    def search(self, text: str, *, limit: int = 100) -> list[SearchHit]:
        """What every session said matching ``text``, best first (see ``SearchIndex``).

        Raises:
            IndexUnavailable: the index cannot be used, even built anew.
        """
        self._index.sync()
        return self._index.search(text, limit=limit)

    def export_session(
        self, session_id: str, fmt: ExportFormat, *, tz: tzinfo | None = None
    ) -> str:
        """One session as Markdown, plain text or JSON (see ``export_session``).

        Raises:
            UnknownSession: there is no such session.
            OSError: its file cannot be read.
        """
        return export_session(self.session(session_id), fmt, tz=tz)

    def copy_text(self, session_id: str, *, tz: tzinfo | None = None) -> str:
        """What "Copy" puts on the clipboard for one session: its plain-text export.

        Raises:
            UnknownSession: there is no such session.
            OSError: its file cannot be read.
        """
        return copy_text(self.session(session_id), tz=tz)

    def rebuild(self) -> SyncReport:
        """Build the index again from the files, from nothing.

        Raises:
            IndexUnavailable: the index cannot be deleted or written.
        """
        return self._index.rebuild()

    # -- deleting --------------------------------------------------------------------------

    def delete_session(self, session_id: str) -> DeletionReport:
        """Delete one session: its file, then its rows in the index.

        A file already gone counts as deleted. When the index cannot be written, it is
        deleted whole (it is built again from the other files), so nothing of the session
        is left in it either way.
        """
        path = self._path_of(session_id)
        if path is None:
            return DeletionReport()
        try:
            existed = path.exists()
            path.unlink(missing_ok=True)
        except OSError as error:
            _log.warning("could not delete %s: %s", path, error.strerror or error)
            return DeletionReport(failed=(DeletionFailure(path, os_error_reason(error)),))
        files = [path] if existed else []
        failed: list[DeletionFailure] = []
        try:
            self._index.forget(session_id)
        except IndexUnavailable as error:
            _log.warning("%s; deleting the index instead", error)
            files += self._remove_index(failed)
        return DeletionReport(sessions=(session_id,), files=tuple(files), failed=tuple(failed))

    def delete_all(self) -> DeletionReport:
        """Delete every session file of the folder and the whole index."""
        sessions: list[str] = []
        files: list[Path] = []
        failed: list[DeletionFailure] = []
        for path in sorted(self._dir.glob(f"*{HISTORY_SUFFIX}")):
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            except OSError as error:
                _log.warning("could not delete %s: %s", path, error.strerror or error)
                failed.append(DeletionFailure(path, os_error_reason(error)))
                continue
            sessions.append(path.stem)
            files.append(path)
        files += self._remove_index(failed)
        _log.info("deleted %d conversation(s); %d could not be", len(sessions), len(failed))
        return DeletionReport(sessions=tuple(sessions), files=tuple(files), failed=tuple(failed))

    def _remove_index(self, failed: list[DeletionFailure]) -> list[Path]:
        try:
            return self._index.remove()
        except OSError as error:
            where = Path(error.filename) if error.filename else self._index.path
            failed.append(DeletionFailure(where, os_error_reason(error)))
            return []

    def _path_of(self, session_id: str) -> Path | None:
        """The file of ``session_id``, or None when it cannot name one of this folder's."""
        if not session_id or Path(session_id).name != session_id or session_id.startswith("."):
            return None
        return self._dir / f"{session_id}{HISTORY_SUFFIX}"
