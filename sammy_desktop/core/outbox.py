"""The queue of realtime input on its way to the service, and what it may have to re-send.

Microphone audio and turn markers (activityStart, activityEnd, audioStreamEnd, text) are
queued here in order and taken out by the one sender task, so the audio thread's hand-off
never waits on the network and nothing is lost while disconnected.

Two bounded buffers:

* ``pending``: not sent yet (queued, or captured while disconnected). When it is full a
  waiting video frame goes first, then the oldest *audio*; turn markers are never dropped,
  so a turn stays well-formed.
* ``unconfirmed``: sent since the newest resumable handle. A resumed session is restored
  to that handle, so these are what the service may not have seen: after a reconnection
  they are re-sent ahead of ``pending``. A new handle, or a completed answer, confirms them.

Video frames (the shared screen) are pictures of now, so they are never kept for later: at
most one waits (a newer frame replaces it where it stood), one that could not be sent is
dropped rather than put back, none is remembered as unconfirmed, and a reconnection drops
any still waiting.
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
        self.dropped_video_frames = 0

    def __len__(self) -> int:
        return len(self._pending)

    @property
    def has_unconfirmed(self) -> bool:
        """True when something was sent that the newest handle does not cover."""
        return bool(self._unconfirmed)

    @property
    def max_bytes(self) -> int:
        """The bound on the bytes each buffer holds."""
        return self._max_bytes

    def put(self, item: RealtimeInput) -> bool:
        """Queue ``item`` after everything already queued.

        A video frame replaces the one still waiting, if any (see the module docstring).

        Returns:
            Whether ``item`` is still queued (a video frame over the bound is not).
        """
        if item.kind is RealtimeKind.VIDEO:
            self.drop_video()
        self._pending.append(item)
        self._pending_bytes += item.size
        while self._pending_bytes > self._max_bytes and (
            self._drop_video_first() or self._drop_oldest_audio()
        ):
            pass
        self._ready.set()
        return item.kind is not RealtimeKind.VIDEO or any(x is item for x in self._pending)

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
        """Put back an item that could not be sent; it goes out first next time.

        Not a video frame: by the next connection it is out of date, and it is dropped.
        """
        if item.kind is RealtimeKind.VIDEO:
            self.dropped_video_frames += 1
            return
        self._pending.appendleft(item)
        self._pending_bytes += item.size
        self._ready.set()

    def sent(self, item: RealtimeInput) -> None:
        """Remember that ``item`` went out, until a handle or an answer confirms it.

        Video frames are not remembered: a reconnection never sends an old picture again.
        """
        if item.kind is RealtimeKind.VIDEO:
            return
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
        self.drop_video()  # pictures of a moment that has passed
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
        self.dropped_video_frames = 0

    def drop_video(self) -> int:
        """Drop every video frame still waiting (out of date, or the connection rests).

        Returns:
            How many were dropped.
        """
        frames = [item for item in self._pending if item.kind is RealtimeKind.VIDEO]
        for item in frames:
            self._pending.remove(item)
            self._pending_bytes -= item.size
        self.dropped_video_frames += len(frames)
        return len(frames)

    def _drop_video_first(self) -> bool:
        return self.drop_video() > 0

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
