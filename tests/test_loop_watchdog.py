"""The loop-stall watchdog: a handler that blocks the event loop is named in the log."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from sammy_desktop.loop_watchdog import LoopStallWatchdog

WAIT_S = 10.0


def blocking_tool_handler(seconds: float) -> None:
    """Stands for a tool that calls blocking code on the loop."""
    time.sleep(seconds)


async def test_a_blocked_loop_is_reported_with_the_blocking_function_and_what_ran(
    caplog: pytest.LogCaptureFixture,
) -> None:
    watchdog = LoopStallWatchdog(
        threshold_s=0.3, beat_s=0.05, describe=lambda: "tool calls: slowTool (fc-1)"
    )
    watchdog.start()
    try:
        await asyncio.sleep(0)  # one beat
        assert watchdog.stalls == []
        with caplog.at_level(logging.WARNING, logger="sammy_desktop.loop_watchdog"):
            # Blocks the loop until the watchdog has seen it (bounded: never a hang).
            deadline = time.monotonic() + WAIT_S
            while not watchdog.noticed.is_set() and time.monotonic() < deadline:
                blocking_tool_handler(0.05)
            assert watchdog.noticed.is_set()
            await asyncio.to_thread(watchdog.recovered.wait, WAIT_S)
        (stall,) = watchdog.stalls
        assert "blocking_tool_handler" in stall.stack
        assert stall.running == "tool calls: slowTool (fc-1)"
        assert stall.seconds is not None and stall.seconds >= 0.3
        messages = [record.getMessage() for record in caplog.records]
        assert any(
            "has not run for" in m and "slowTool" in m and "blocking_tool_handler" in m
            for m in messages
        )
        assert any("ran again after" in m for m in messages)
    finally:
        watchdog.stop()
