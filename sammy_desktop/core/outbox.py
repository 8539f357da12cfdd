"""The queue of realtime input on its way to the service, and what it may have to re-send.

Microphone audio and turn markers (activityStart, activityEnd, audioStreamEnd, text) are
queued here in order and taken out by the one sender task, so the audio thread's hand-off
never waits on the network and nothing is lost while disconnected.

Two bounded buffers:

* ``pending``: not sent yet (queued, or captured while disconnected). When it is full the
  oldest *audio* goes first; turn markers are never dropped, so a turn stays well-formed.
* ``unconfirmed``: sent since the newest resumable handle. A resumed session is restored
  to that handle, so these are what the service may not have seen: after a reconnection
  they are re-sent ahead of ``pending``. A new handle, or a completed answer, confirms them.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from sammy_desktop.core.live import RealtimeInput, RealtimeKind

__all__ = ["RealtimeOutbox"]

_log = logging.getLogger(__name__)


class RealtimeOutbox:
    """Ordered, bounded realtime input with replay after a reconnection.

    Args:
        max_bytes: bound on the bytes held by each of the two buffers.
    """

    def __init__(self, max_bytes: int) -> None:
        if max_bytes <= 0:
            raise ValueError("max_bytes must be positive")
        self._max_bytes = max_bytes
        self._pending: deque[RealtimeInput] = deque()
        self._pending_bytes = 0
        self._unconfirmed: deque[RealtimeInput] = deque()
        self._unconfirmed_bytes = 0
        self._ready = asyncio.Event()
        self.dropped_audio_bytes = 0

    def __len__(self) -> int:
        return len(self._pending)

    @property
    def has_unconfirmed(self) -> bool:
        """True when something was sent that the newest handle does not cover."""
        return bool(self._unconfirmed)

    def put(self, item: RealtimeInput) -> None:
        """Queue ``item`` after everything already queued."""
        self._pending.append(item)
        self._pending_bytes += item.size
        while self._pending_bytes > self._max_bytes and self._drop_oldest_audio():
            pass
        self._ready.set()

    async def get(self) -> RealtimeInput:
        """Wait for the next item and take it out (give it back with :meth:`unget`)."""
        while not self._pending:
            self._ready.clear()
            await self._ready.wait()
        item = self._pending.popleft()
        self._pending_bytes -= item.size
        return item

    async def wait_for_input(self) -> RealtimeKind:
        """Return once something is queued (without taking it out): the first one's kind."""
        while not self._pending:
            self._ready.clear()
            await self._ready.wait()
        return self._pending[0].kind

    def unget(self, item: RealtimeInput) -> None:
        """Put back an item that could not be sent; it goes out first next time."""
        self._pending.appendleft(item)
        self._pending_bytes += item.size
        self._ready.set()

    def sent(self, item: RealtimeInput) -> None:
        """Remember that ``item`` went out, until a handle or an answer confirms it."""
        self._unconfirmed.append(item)
        self._unconfirmed_bytes += item.size
        while self._unconfirmed_bytes > self._max_bytes and self._unconfirmed:
            old = self._unconfirmed.popleft()
            self._unconfirmed_bytes -= old.size

    def confirm(self) -> None:
        """The service's state now includes everything sent so far."""
        self._unconfirmed.clear()
        self._unconfirmed_bytes = 0

    def requeue_unconfirmed(self) -> int:
        """After a reconnection: put what may be missing ahead of the queue.

        Returns:
            How many items are now waiting to be sent (re-sent plus queued).
        """
        for item in reversed(self._unconfirmed):
            self._pending.appendleft(item)
            self._pending_bytes += item.size
        self.confirm()
        if self._pending:
            self._ready.set()
        return len(self._pending)

    def clear(self) -> None:
        """Forget everything (a new session)."""
        self._pending.clear()
        self._pending_bytes = 0
        self.confirm()
        self._ready.clear()
        self.dropped_audio_bytes = 0

    def _drop_oldest_audio(self) -> bool:
        for index, old in enumerate(self._pending):
            if old.kind is RealtimeKind.AUDIO:
                del self._pending[index]
                self._pending_bytes -= old.size
                if self.dropped_audio_bytes == 0:
                    _log.warning("realtime input buffer full: dropping the oldest audio")
                self.dropped_audio_bytes += old.size
                return True
        return False
