"""A hand-moved clock (qutebrowser's FakeTimer): a ``Scheduler`` for every part's timers.

Time stands still until the test calls :meth:`ManualScheduler.advance`, so a rule such as
"the queue waits this long" or "a paused stream is not watched" is checked by moving the
clock exactly, never by sleeping and hoping nothing happened meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

_SLACK_S: Final = 1e-9


class ManualTimer:
    """A timer of :class:`ManualScheduler`."""

    def __init__(self, deadline: float, callback: Callable[[], object]) -> None:
        self.deadline = deadline
        self.callback = callback
        self.cancelled = False
        self.fired = False

    def cancel(self) -> None:
        self.cancelled = True

    @property
    def pending(self) -> bool:
        return not (self.cancelled or self.fired)


class ManualScheduler:
    """A clock that moves only in :meth:`advance`, with timers that fire as it passes them."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now
        self._timers: list[ManualTimer] = []
        self._armed: asyncio.Event | None = None

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], object]) -> ManualTimer:
        timer = ManualTimer(self.now + max(0.0, delay), callback)
        self._timers.append(timer)
        if self._armed is not None:
            self._armed.set()
        return timer

    @property
    def pending(self) -> list[float]:
        """The delays from now of the timers still to fire, soonest first."""
        return sorted(t.deadline - self.now for t in self._timers if t.pending)

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` on, firing every timer it passes in deadline order.

        A timer set by a callback that falls due within the same stretch fires too; the
        clock reads each timer's deadline while its callback runs. A nanosecond of slack
        keeps steps such as 10 x 5 ms from missing a timer at 50 ms by a rounding error.
        """
        end = self.now + seconds
        while True:
            due = [t for t in self._timers if t.pending and t.deadline <= end + _SLACK_S]
            if not due:
                break
            timer = min(due, key=lambda t: t.deadline)
            self.now = max(self.now, timer.deadline)
            timer.fired = True
            timer.callback()
        self.now = end
        self._timers = [t for t in self._timers if t.pending]

    async def timer_set(self, *, within_s: float = 5.0) -> float:
        """Wait until a timer is pending (code on the loop got as far as setting one).

        Returns:
            The delay from now of the soonest pending timer.
        """

        async def armed() -> None:
            while not self.pending:
                self._armed = asyncio.Event()
                await self._armed.wait()

        try:
            await asyncio.wait_for(armed(), within_s)
        finally:
            self._armed = None
        return self.pending[0]
