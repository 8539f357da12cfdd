"""The simulator's clock: real time for clients, virtual time for exact pacing tests.

Audio pacing (burst or real time), the wait before ``turnComplete`` while the answer plays,
and the ``Delay`` action all ask the clock, and the recorder stamps events with it. With the
:class:`VirtualClock` time passes only when the simulator sleeps, so a test can check that
two seconds of answer audio went out in 0.67 virtual seconds without waiting for any of it.
Scenario timers (``OnTimer``) and connection lifetimes stay on the event loop's real time.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

__all__ = ["Clock", "RealClock", "VirtualClock"]


class Clock(Protocol):
    """Where the simulator reads the time and waits."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (nothing for zero or less)."""
        ...


class RealClock:
    """``time.monotonic`` and ``asyncio.sleep``."""

    def monotonic(self) -> float:
        """Seconds on the system's monotonic clock."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """Wait on the event loop."""
        await asyncio.sleep(max(0.0, seconds))


class VirtualClock:
    """Time that moves only when the simulator sleeps on it.

    A sleep moves the time forward by its length at once and yields to the event loop, so
    other tasks (the client, the reader) still run in between. Meant for one connection at
    a time: two connections sleeping on it share one timeline.

    Args:
        start: The time it starts at.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self.slept: list[float] = []

    def monotonic(self) -> float:
        """The virtual time."""
        return self._now

    async def sleep(self, seconds: float) -> None:
        """Move the time forward by ``seconds`` and yield once."""
        if seconds > 0:
            self._now += seconds
            self.slept.append(seconds)
        await asyncio.sleep(0)

    def advance(self, seconds: float) -> None:
        """Move the time forward without sleeping."""
        self._now += max(0.0, seconds)
