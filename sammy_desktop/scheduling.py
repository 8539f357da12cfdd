"""Time as the app's parts see it: a clock and timers, the running loop's unless a test says.

The agent core's watchdog, the timer tools and the audio parts (the jitter buffer's
waits, the half-duplex gate's hangover, the stream supervisor's watchdog and retries) all
wait for time to pass. Each takes a :class:`Scheduler`, so its rules can be tested by
moving a hand-driven clock instead of sleeping; in the app it is :class:`LoopScheduler`,
the running asyncio loop's timers with ``time.perf_counter`` as the clock (the clock the
PortAudio callbacks stamp their blocks with).

This module sits at the bottom of the layer stack, beside the event bus: every layer may
use it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol

__all__ = ["Cancellable", "LoopScheduler", "Scheduler", "sleep", "wait_for_event"]


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
    the loop runs (the app builds the audio engine first, then starts it on the loop).
    """

    def time(self) -> float:
        """``time.perf_counter()``: the clock the device callbacks stamp their blocks with."""
        return time.perf_counter()

    def call_later(self, delay: float, callback: Callable[[], object]) -> asyncio.TimerHandle:
        """``call_later`` on the running loop."""
        return asyncio.get_running_loop().call_later(delay, callback)


async def sleep(scheduler: Scheduler, seconds: float) -> None:
    """Wait ``seconds`` on ``scheduler``'s clock (like ``asyncio.sleep`` on the loop's)."""
    done = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not done.done():
            done.set_result(None)

    handle = scheduler.call_later(seconds, wake)
    try:
        await done
    finally:
        handle.cancel()


async def wait_for_event(
    scheduler: Scheduler, event: asyncio.Event, within_s: float | None
) -> bool:
    """Wait until ``event`` is set, or ``within_s`` seconds on ``scheduler``'s clock have passed.

    Not ``asyncio.timeout``: that counts on the loop's own clock, which a test cannot move.

    Args:
        scheduler: whose clock the wait is counted on.
        event: what to wait for.
        within_s: the longest wait; ``None`` waits as long as it takes.

    Returns:
        Whether the event is set (``False``: the time ran out first).
    """
    if event.is_set():
        return True
    if within_s is None:
        await event.wait()
        return True
    waiter = asyncio.ensure_future(event.wait())
    expired = asyncio.get_running_loop().create_future()

    def expire() -> None:
        if not expired.done():
            expired.set_result(None)

    handle = scheduler.call_later(within_s, expire)
    try:
        # asyncio.wait, not wait_for: a cancellation of the caller stays a cancellation.
        await asyncio.wait({waiter, expired}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        handle.cancel()
        waiter.cancel()
        expired.cancel()
    return event.is_set()
