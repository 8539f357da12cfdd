"""What the app keeps of the person on disk: private folders and files, and for how long.

The conversation history, the notes and the escalation records say what the person said
and copied; nobody else on the computer may read them. On POSIX systems their folders are
made ``0700`` and their files ``0600`` (:func:`make_private_dir`, :func:`open_private`),
whatever the umask, and folders and files left readable by an older version are tightened
when next used. On Windows the per-user profile's ACLs already keep other users out, so
nothing is changed there.

How long the history is kept is the person's choice (``Settings.history_retention``):
:func:`prune_expired` deletes history and escalation files not written to for longer, at
start-up; :func:`delete_history` deletes them all, for Settings > Privacy.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:
    from sammy_desktop.config.paths import AppPaths

__all__ = [
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "DeletedFiles",
    "delete_history",
    "history_files",
    "make_private_dir",
    "make_private_file",
    "open_private",
    "prune_expired",
    "write_private_text",
]

_log = logging.getLogger(__name__)

PRIVATE_DIR_MODE: Final = 0o700
PRIVATE_FILE_MODE: Final = 0o600

# Where on Windows the profile's ACLs do the work (and chmod could only set read-only).
_POSIX: Final = os.name == "posix"

# What the history and the escalation tool write, and their temporary files.
_HISTORY_PATTERNS: Final = ("*.jsonl",)
SEARCH_INDEX_PATTERNS: Final = ("index.sqlite3", "index.sqlite3-*")
"""The history's search index (sammy_desktop/archive) and SQLite's journal files beside it:
a copy of every word of the history files, so it goes whenever any of them goes (it is
rebuilt from the files that are left the next time it is read)."""
_ESCALATION_PATTERNS: Final = ("esc-*.json", "esc-*.json.tmp")


def _tighten(path: Path, mode: int) -> None:
    """``chmod`` ``path`` to ``mode`` when it allows more (POSIX only)."""
    if not _POSIX:
        return
    current = stat.S_IMODE(path.stat().st_mode)
    if current != mode:
        path.chmod(mode)


def make_private_dir(folder: Path) -> Path:
    """Create ``folder`` (and missing parents) and make it readable by its owner only.

    Missing parents are created with the usual permissions; ``folder`` itself ends up
    ``0700`` even when it existed before.

    Raises:
        OSError: it cannot be created or changed.
    """
    folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
    _tighten(folder, PRIVATE_DIR_MODE)
    return folder


def make_private_file(path: Path) -> None:
    """Make an existing file readable and writable by its owner only (``0600``)."""
    _tighten(path, PRIVATE_FILE_MODE)


def open_private(path: Path, mode: Literal["a", "w"]) -> IO[str]:
    """Open ``path`` for appending or writing as UTF-8 text, created ``0600``.

    The file is created with owner-only permissions from the start (never readable by
    others, not even for a moment), and an existing file is tightened.

    Raises:
        OSError: it cannot be opened.
    """
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
    fd = os.open(path, flags, PRIVATE_FILE_MODE)
    try:
        if _POSIX and stat.S_IMODE(os.fstat(fd).st_mode) != PRIVATE_FILE_MODE:
            os.fchmod(fd, PRIVATE_FILE_MODE)
        return os.fdopen(fd, mode, encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def write_private_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a ``0600`` temporary file, fsync, rename).

    Raises:
        OSError: the folder is not writable.
    """
    make_private_dir(path.parent)
    temporary = path.with_name(f"{path.name}.tmp")
    with open_private(temporary, "w") as stream:
        stream.write(text)
        stream.flush()
        os.fsync(stream.fileno())
    temporary.replace(path)


@dataclass(frozen=True, slots=True)
class DeletedFiles:
    """What a deletion did: how many files went, and the ones that could not be removed."""

    deleted: int = 0
    failed: tuple[Path, ...] = ()


def history_files(paths: AppPaths) -> list[Path]:
    """Every history and escalation file under ``paths`` (not recursive; none is missing)."""
    found: list[Path] = []
    for folder, patterns in (
        (paths.history_dir, _HISTORY_PATTERNS),
        (paths.escalations_dir, _ESCALATION_PATTERNS),
    ):
        for pattern in patterns:
            try:
                found.extend(p for p in folder.glob(pattern) if p.is_file())
            except OSError:
                continue
    return sorted(set(found))


def _delete(files: Iterable[Path]) -> DeletedFiles:
    deleted = 0
    failed: list[Path] = []
    for path in files:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            _log.warning("could not delete %s: %s", path, exc.strerror or exc)
            failed.append(path)
        else:
            deleted += 1
    return DeletedFiles(deleted=deleted, failed=tuple(failed))


def prune_expired(paths: AppPaths, keep_days: int | None, now: datetime) -> DeletedFiles:
    """Delete history and escalation files last written more than ``keep_days`` ago.

    Args:
        paths: the app's folders.
        keep_days: how long to keep them; None keeps them forever (nothing is deleted).
        now: the current time (timezone-aware), compared with each file's modification time.
    """
    if keep_days is None:
        return DeletedFiles()
    cutoff = (now - timedelta(days=keep_days)).timestamp()
    expired: list[Path] = []
    for path in history_files(paths):
        try:
            if path.stat().st_mtime < cutoff:
                expired.append(path)
        except OSError:
            continue
    result = _delete(expired)
    if result.deleted:
        _forget_search_index(paths)
        _log.info(
            "deleted %d history and escalation file(s) older than %d days",
            result.deleted,
            keep_days,
        )
    return result


def delete_history(paths: AppPaths) -> DeletedFiles:
    """Delete every history and escalation file (Settings > Privacy, "Delete all history")."""
    result = _delete(history_files(paths))
    _forget_search_index(paths)
    _log.info("deleted all history: %d file(s), %d failed", result.deleted, len(result.failed))
    return result


def _forget_search_index(paths: AppPaths) -> None:
    """Delete the history's search index: what the deleted files said must not stay in it."""
    for pattern in SEARCH_INDEX_PATTERNS:
        try:
            found = [p for p in paths.history_dir.glob(pattern) if p.is_file()]
        except OSError:
            continue
        failed = _delete(found).failed
        for path in failed:
            _log.warning("the history's search index %s could not be deleted", path)
