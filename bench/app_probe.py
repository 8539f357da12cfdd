"""The real app (``sammy-desktop``) with two additions for the benchmarks, nothing changed.

    python bench/app_probe.py [sammy-desktop flags]

* An event-loop lag probe: a task on the app's qasync loop wakes every 10 ms and records
  how late it woke (``time.monotonic()`` stamp, lag in seconds). At exit the samples go to
  the JSON file named by ``SAMMY_BENCH_LAG_FILE``; the runner slices them by time. The
  probe only runs while the file ``SAMMY_BENCH_LAG_FILE`` + ``.on`` exists (it looks twice
  a second): a hundred wake-ups a second are the probe's own load, and would be counted
  as the app's when the runner measures the idle app's CPU.
* ``benchSlowTool``: a tool that takes two seconds waiting on something slow (a blocking
  call on a worker thread, like a slow lookup), registered beside the desktop pack; the
  ``probe`` simulator calls it during an answer to show it does not make the loop lag.

Everything else is ``sammy_desktop.app.main``: the same window, audio engine, agent, tools.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import sammy_desktop.app as app_module
import sammy_desktop.desktop_app as desktop_module
import sammy_desktop.tools.desktop as desktop_tools_module
from sammy_desktop.tools import ToolCategory, ToolContext, ToolDefinition, tool

PROBE_PERIOD_S = 0.010
PROBE_IDLE_CHECK_S = 0.5
SLOW_TOOL_S = 2.0


class SlowInput(BaseModel):
    """No arguments."""


class SlowOutput(BaseModel):
    """What the slow tool found."""

    waited_s: float


@tool(name="benchSlowTool", category=ToolCategory.CONTEXT, timeout_s=30)
async def bench_slow_tool(args: SlowInput, context: ToolContext) -> SlowOutput:
    """Look something up slowly (a benchmark tool: waits on a worker thread)."""
    started = time.monotonic()
    await asyncio.to_thread(time.sleep, SLOW_TOOL_S)
    return SlowOutput(waited_s=time.monotonic() - started)


def install() -> None:
    """Wrap run_app with the lag probe and desktop_tools with the slow tool."""
    original_run_app = app_module.run_app
    original_tools = desktop_tools_module.desktop_tools
    samples: list[tuple[float, float]] = []

    out = os.environ.get("SAMMY_BENCH_LAG_FILE")
    switch = Path(out + ".on") if out else None

    async def probe() -> None:
        while True:
            if switch is None or not switch.exists():
                await asyncio.sleep(PROBE_IDLE_CHECK_S)
                continue
            for _ in range(50):  # then look at the switch again
                before = time.monotonic()
                await asyncio.sleep(PROBE_PERIOD_S)
                after = time.monotonic()
                samples.append((after, after - before - PROBE_PERIOD_S))

    async def run_app_with_probe(*args: Any, **kwargs: Any) -> int:
        task = asyncio.get_running_loop().create_task(probe(), name="bench-loop-lag-probe")
        try:
            return await original_run_app(*args, **kwargs)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            if out:
                # The app has shut down: nothing else waits on this loop any more.
                Path(out).write_text(json.dumps(samples))  # noqa: ASYNC240

    def tools_with_slow(**kwargs: Any) -> list[ToolDefinition[Any, Any]]:
        return [*original_tools(**kwargs), bench_slow_tool]

    app_module.run_app = run_app_with_probe
    # DesktopApp looks desktop_tools up in its module's namespace when it builds the tools.
    desktop_module.desktop_tools = tools_with_slow  # type: ignore[attr-defined]


if __name__ == "__main__":
    install()
    sys.exit(app_module.main(sys.argv[1:]))
