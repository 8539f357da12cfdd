"""The conversation log on disk: one JSON-lines file per session, written as it happens.

Each line is one record ``{"at": ISO-8601 UTC, "type": ..., ...}``: the session start, every
final transcript line, tool calls and their results, reconnections, missing answers, turn
statistics and the session end. Records are appended by a background writer task (a thread
does the file I/O, so the event loop never waits on the disk) within moments of happening,
so a crash loses at most the last few milliseconds. :func:`read_history` reads a file back,
tolerating a last line cut short by a crash. The folder is ``0700`` and each file ``0600``
(on POSIX; see :mod:`~sammy_desktop.config.private_data`): they hold what the person said.

The same object keeps the transcript in memory for the tools that need it (``endSession``
saves it, ``escalate`` attaches it): :meth:`ConversationHistory.transcript`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from sammy_desktop.config.private_data import make_private_dir, open_private
from sammy_desktop.core.events import Speaker
from sammy_desktop.tools.context import TranscriptLine

__all__ = ["ConversationHistory", "read_history"]

_log = logging.getLogger(__name__)

_SAFE_ID = re.compile(r"[^A-Za-z0-9_.-]+")


def _utc_now() -> datetime:
    return datetime.now(UTC)


class ConversationHistory:
    """Appends a session's records to ``history_dir/<start>-<session>.jsonl``.

    Args:
        history_dir: the folder (``AppPaths.history_dir``); created when needed.
        clock: the wall clock for record times (injected by tests).
    """

    def __init__(self, history_dir: Path, *, clock: Callable[[], datetime] = _utc_now) -> None:
        self._dir = history_dir
        self._clock = clock
        self._path: Path | None = None
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._lines: list[TranscriptLine] = []
        # Lines still growing, by (turn, role): the person's words are only final when the
        # turn completes (the service transcribes late), but a tool may read them before.
        self._partial: dict[tuple[int, str], TranscriptLine] = {}
        self._failed = False

    @property
    def path(self) -> Path | None:
        """The current session's file, or None when no session is open."""
        return self._path

    def transcript(self) -> list[TranscriptLine]:
        """The conversation so far, oldest first: every final line, then those still growing.

        This is what ``ToolServices.transcript`` should return: ``endSession`` and
        ``escalate`` read the conversation from here, in the middle of a turn.
        """
        return [*self._lines, *self._partial.values()]

    def transcript_text(self, max_chars: int = 6000) -> str:
        """The transcript as ``Person: ...`` / ``Assistant: ...`` lines, newest kept."""
        names = {"user": "Person", "assistant": "Assistant", "tool": "Tool", "system": "Note"}
        lines = [f"{names[line.role]}: {line.text}" for line in self._lines]
        text = "\n".join(lines)
        return text[-max_chars:] if len(text) > max_chars else text

    async def open(self, session_id: str) -> Path:
        """Start a new session file and its writer task; returns the file's path."""
        await self.close()
        started = self._clock()
        safe_id = _SAFE_ID.sub("_", session_id)[:64] or "session"
        self._path = self._dir / f"{started:%Y%m%d-%H%M%S}-{safe_id}.jsonl"
        self._lines = []
        self._partial = {}
        self._failed = False
        try:
            await asyncio.to_thread(make_private_dir, self._dir)
        except OSError:
            # No history is better than no conversation: keep going, say it in the log.
            self._failed = True
            _log.exception("cannot create the history folder %s", self._dir)
        self._writer = asyncio.create_task(self._write_forever(self._path), name="history-writer")
        return self._path

    def record(self, kind: str, /, **fields: Any) -> None:
        """Append one record of type ``kind`` (does nothing when no session is open)."""
        if self._writer is None:
            return
        entry = {"at": self._clock().isoformat(), "type": kind, **fields}
        self._queue.put_nowait(json.dumps(entry, ensure_ascii=False, default=str))

    def add_line(self, speaker: Speaker, text: str, turn_id: int, **extra: Any) -> None:
        """Keep one final transcript line in memory and on disk (while a session is open)."""
        if self._writer is None:
            return
        role: Literal["user", "assistant"] = "user" if speaker is Speaker.USER else "assistant"
        self._partial.pop((turn_id, role), None)
        self._lines.append(TranscriptLine(role=role, text=text, at=self._clock()))
        self.record(role, text=text, turn_id=turn_id, **extra)

    def note_partial(self, speaker: Speaker, text: str, turn_id: int) -> None:
        """A line still growing: kept in memory for the tools, not written until final."""
        if self._writer is None:
            return
        role: Literal["user", "assistant"] = "user" if speaker is Speaker.USER else "assistant"
        self._partial[(turn_id, role)] = TranscriptLine(role=role, text=text, at=self._clock())

    def add_tool_line(self, text: str) -> None:
        """Keep a short note of a tool call in the in-memory transcript (escalations show it)."""
        if self._writer is None:
            return
        self._lines.append(TranscriptLine(role="tool", text=text, at=self._clock()))

    async def flush(self) -> None:
        """Wait until everything recorded so far is on disk."""
        if self._writer is not None and not self._writer.done():
            await self._queue.join()

    async def close(self) -> None:
        """Write what is queued, then stop the writer (idempotent)."""
        writer, self._writer = self._writer, None
        if writer is None:
            return
        if not writer.done():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5):
                    await self._queue.join()
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        self._queue = asyncio.Queue()

    async def _write_forever(self, path: Path) -> None:
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                if not self._failed:
                    await asyncio.to_thread(_append_lines, path, batch)
            except OSError:
                # A full disk or a removed folder must not stop the conversation; say it once.
                self._failed = True
                _log.exception("cannot write the conversation history to %s", path)
            finally:
                for _ in batch:
                    self._queue.task_done()


def _append_lines(path: Path, lines: list[str]) -> None:
    with open_private(path, "a") as handle:
        handle.write("".join(f"{line}\n" for line in lines))


def read_history(path: Path) -> list[dict[str, Any]]:
    """Read a history file back; a last line cut short by a crash is skipped.

    Raises:
        OSError: the file cannot be read.
    """
    records: list[dict[str, Any]] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            _log.warning("%s:%d is not valid JSON, skipped", path, number)
            continue
        if isinstance(value, dict):
            records.append(value)
    return records
