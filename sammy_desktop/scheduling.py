"""Time as the app's parts see it: a clock and timers, the running loop's unless a test says.

The agent core's watchdog, the timer tools and the audio parts all wait for time to pass.
Each takes a :class:`Scheduler`, so a test can move a hand-driven clock instead of
sleeping; in the app it is :class:`LoopScheduler`, the running asyncio loop's timers.

This module sits at the bottom of the layer stack, beside the event bus: every layer may
use it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol

__all__ = ["Cancellable", "LoopScheduler", "Scheduler"]


class Cancellable(Protocol):
    """A pending timer (``asyncio.TimerHandle`` is one)."""

    def cancel(self) -> None:
        """Do not run the callback after all; nothing if it ran."""


class Scheduler(Protocol):
    """A clock and timers on it. Only ever used from the asyncio loop's thread."""

    def time(self) -> float:
        """Now, in seconds on a monotonic clock."""

    def call_later(self, delay: float, callback: Callable[[], object]) -> Cancellable:
        """Run ``callback`` once ``delay`` seconds have passed on :meth:`time`'s clock."""


class LoopScheduler:
    """The running asyncio loop's timers, with ``time.perf_counter`` as the clock.

    The loop is looked up at each call, so the parts that hold one can be built before
    the loop runs.
    """

    def time(self) -> float:
        """``time.perf_counter()``: the clock the device callbacks stamp their blocks with."""
        return time.perf_counter()

    def call_later(self, delay: float, callback: Callable[[], object]) -> asyncio.TimerHandle:
        """``call_later`` on the running loop."""
        return asyncio.get_running_loop().call_later(delay, callback)
