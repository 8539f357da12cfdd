"""What the History window's tests share: a window on a history folder, and signal waits.

The sessions come from :mod:`tests.archive.sessions`, played through the app's own history
writer, so the files are exactly what the app writes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QRect, SignalInstance
from PySide6.QtWidgets import QWidget

from sammy_desktop.archive import HistoryArchive, SearchHit
from sammy_desktop.core.events import SessionStarted, Speaker
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.core.history_recorder import HistoryRecorder
from sammy_desktop.eventbus import Event, EventBus
from tests.archive.sessions import Ticking, Writer

from .conftest import FakeAgent

__all__ = [
    "NOW",
    "ContinuingAgent",
    "CountingArchive",
    "next_emit",
    "showing",
    "shows_in",
    "wait_for",
    "write_with_model",
]

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
"""The window's "now" in these tests: the weather session was yesterday."""


class ContinuingAgent(FakeAgent):
    """The UI tests' fake agent, which can also continue a conversation."""

    async def continue_conversation(
        self, earlier: Sequence[tuple[Speaker, str]], *, continues: str
    ) -> None:
        self._record("continue_conversation", tuple(earlier), continues)
        await self.start()


class CountingArchive(HistoryArchive):
    """The real archive, counting the searches asked of it."""

    def __init__(self, history_dir: Path) -> None:
        super().__init__(history_dir)
        self.searches: list[str] = []

    def search(self, text: str, *, limit: int = 100) -> list[SearchHit]:
        self.searches.append(text)
        return super().search(text, limit=limit)


def next_emit(signal: SignalInstance) -> asyncio.Future[tuple[Any, ...]]:
    """A future for the next emission of ``signal`` (connected now, before the action)."""
    future: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()

    def on_emit(*args: Any) -> None:
        if not future.done():
            future.set_result(args)

    signal.connect(on_emit)
    future.add_done_callback(lambda _f: signal.disconnect(on_emit))
    return future


async def wait_for(future: asyncio.Future[tuple[Any, ...]], timeout_s: float = 10.0) -> Any:
    """The emission's arguments (the first one alone when there is one), at most ``timeout_s``."""
    args = await asyncio.wait_for(future, timeout_s)
    return args[0] if len(args) == 1 else args


def shows_in(widget: QWidget, area: QWidget) -> bool:
    """Whether ``widget`` is (at least partly) inside ``area`` (a scroll area's viewport)."""
    corner = widget.mapTo(area, QPoint(0, 0))
    return QRect(corner, widget.size()).intersects(area.rect())


def showing(widget: QWidget, area: QWidget) -> Callable[[], bool]:
    """A condition for ``wait_until``: ``widget`` shows in ``area``."""
    return lambda: shows_in(widget, area)


async def write_with_model(
    history_dir: Path, session_id: str, start: datetime, model: str, events: list[Event]
) -> Path:
    """A whole session whose model is ``model`` (``open_session``'s use one model)."""
    bus = EventBus()
    history = ConversationHistory(history_dir, clock=Ticking(start))
    recorder = HistoryRecorder(bus, history)
    path = await recorder.open(session_id)
    writer = Writer(bus, history, recorder, path)
    await writer.play([SessionStarted(session_id, path, model=model), *events])
    await writer.end()
    return path
