"""Noticing a blocked event loop: who held it, for how long, in the log.

Everything the app does runs on one asyncio loop (qasync's, which is also Qt's): a tool
handler that calls blocking code (``time.sleep``, a synchronous HTTP request, a long
computation) freezes the window, the audio and the connection's keepalive alike, and the
person only sees a frozen app. :class:`LoopStallWatchdog` makes that visible: the loop
beats a heart every ``beat_s``; a watcher thread checks the beat, and when it is older than
``threshold_s`` it logs a warning with the stack the loop's thread is in at that moment
(the blocking function, by name and line) and what the ``describe`` callable says is
running (the tool calls in flight). When the loop runs again, it logs how long it was
stopped. The watchdog only reports: it cannot unblock a loop, and it never interrupts one.

This module sits at the bottom of the layer stack, beside the scheduler: any part may use it.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

__all__ = ["LoopStallWatchdog", "Stall"]

_log = logging.getLogger(__name__)

_STACK_FRAMES: Final = 12  # the innermost frames: the blocking call and who made it


@dataclass(frozen=True, slots=True)
class Stall:
    """One time the loop did not run for longer than the threshold.

    Attributes:
        stack: where the loop's thread was when the stall was noticed (innermost last).
        running: what ``describe`` said was running then ("" without a describe).
        seconds: how long the loop did not run, once it ran again (None while it is stuck).
    """

    stack: str
    running: str
    seconds: float | None = None


class LoopStallWatchdog:
    """Logs a warning, with the loop thread's stack, when the event loop stops running.

    Args:
        threshold_s: a loop that has not run for this long counts as blocked.
        beat_s: how often the loop beats, and the watcher looks.
        describe: says what is running (for example the tool calls in flight), in a few
            words; called from the watcher thread while the loop is blocked.
        clock: a monotonic clock in seconds.
    """

    def __init__(
        self,
        *,
        threshold_s: float = 1.0,
        beat_s: float = 0.25,
        describe: Callable[[], str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._threshold = threshold_s
        self._beat_interval = beat_s
        self._describe = describe
        self._clock = clock
        self._last_beat = clock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self._lock = threading.Lock()
        self._current: Stall | None = None
        self.stalls: list[Stall] = []
        """Every stall seen, oldest first (their ``seconds`` filled in once over)."""
        self.noticed = threading.Event()
        """Set each time a stall is noticed (tests wait on it)."""
        self.recovered = threading.Event()
        """Set each time the loop runs again after a stall."""

    def start(self) -> None:
        """Start beating on the running loop and watching from a thread."""
        if self._watcher is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._stop.clear()
        self._beat()
        self._watcher = threading.Thread(target=self._watch, name="loop-watchdog", daemon=True)
        self._watcher.start()

    def stop(self) -> None:
        """Stop watching (at quit); a stall in progress is not reported further."""
        self._stop.set()
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.join(timeout=2 * self._beat_interval + 1.0)

    # ------------------------------------------------------------------ on the loop

    def _beat(self) -> None:
        now = self._clock()
        with self._lock:
            stopped_at, self._last_beat = self._last_beat, now
            stall, self._current = self._current, None
            if stall is not None:
                over = Stall(stack=stall.stack, running=stall.running, seconds=now - stopped_at)
                self.stalls[self.stalls.index(stall)] = over
        if stall is not None:
            _log.warning("the event loop ran again after %.1f s", now - stopped_at)
            self.recovered.set()
        if self._loop is not None and not self._stop.is_set():
            self._handle = self._loop.call_later(self._beat_interval, self._beat)

    # ------------------------------------------------------------------ on the watcher

    def _watch(self) -> None:
        while not self._stop.wait(self._beat_interval):
            with self._lock:
                late = self._clock() - self._last_beat
                if late < self._threshold or self._current is not None:
                    continue
                stall = Stall(stack=self._loop_stack(), running=self._running())
                self._current = stall
                self.stalls.append(stall)
            running = f"; running: {stall.running}" if stall.running else ""
            _log.warning(
                "the event loop has not run for %.1f s (the window and the audio are frozen)"
                "%s; it is busy in:\n%s",
                late,
                running,
                stall.stack,
            )
            self.noticed.set()

    def _loop_stack(self) -> str:
        frame = sys._current_frames().get(self._loop_thread or -1)
        if frame is None:
            return "(the loop's thread is gone)"
        summary = traceback.extract_stack(frame)[-_STACK_FRAMES:]
        return "".join(traceback.format_list(summary)).rstrip()

    def _running(self) -> str:
        if self._describe is None:
            return ""
        try:
            return self._describe()
        except Exception:  # noqa: BLE001 - the report matters more than its detail
            return "(could not tell)"
