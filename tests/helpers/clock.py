"""A clock the test moves by hand (qutebrowser's FakeTimer): no waiting for real time."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable

__all__ = ["ManualScheduler"]


class _Handle:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualScheduler:
    """A :class:`~sammy_desktop.scheduling.Scheduler` whose clock moves only on :meth:`advance`."""

    def __init__(self) -> None:
        self._now = 0.0
        self._order = itertools.count()
        self._queue: list[tuple[float, int, _Handle, Callable[[], object]]] = []

    def time(self) -> float:
        """Now, on the manual clock."""
        return self._now

    def now(self) -> float:
        """The same as :meth:`time` (the timer service's name for it)."""
        return self._now

    def call_later(self, delay_s: float, callback: Callable[[], object]) -> _Handle:
        handle = _Handle()
        heapq.heappush(self._queue, (self._now + delay_s, next(self._order), handle, callback))
        return handle

    def advance(self, seconds: float) -> None:
        """Move the clock on, running every callback that falls due, in order."""
        target = self._now + seconds
        while self._queue and self._queue[0][0] <= target:
            due, _, handle, callback = heapq.heappop(self._queue)
            self._now = due
            if not handle.cancelled:
                callback()
        self._now = target

    @property
    def pending(self) -> int:
        """Callbacks still due (cancelled ones do not count)."""
        return sum(1 for *_, handle, _cb in self._queue if not handle.cancelled)
