"""``sammy-desktop --self-test``: prove that this install (frozen or not) has all its parts.

A frozen app most often breaks because something that is loaded by name at run time did not
make it into the bundle: the PortAudio library, keyring's backends (found through entry
points), the CA bundle, the echo canceller's native library, a Qt plugin. The self-test
loads each of them and then runs the app's real path end to end, headless: it starts the
embedded Live simulator on loopback, connects through the real google-genai SDK over TLS,
sends a push-to-talk turn of audio (activityStart, audio, activityEnd), decodes the answer
audio, and runs a tool call through the :class:`~sammy_desktop.tools.ToolManager`. SQLite's
full-text index (the notes tool) is checked too. Last, the person's MCP servers (``mcp.json``)
are started and their tools listed.

It prints one line per step (``ok`` or ``FAILED``, the time it took, and what it found) and
returns 0, or 1 with the names of the steps that failed. Nothing is written to the person's
settings or keyring; the tool services get a throwaway profile folder.

The parts: :mod:`.install_checks` (what is loaded by name), :mod:`.end_to_end` (the run
against the simulator), :mod:`.mcp_servers` (the MCP servers), :mod:`.report` (a step's
outcome and its line); this module runs them in order and writes the report's first and last
lines.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, TextIO

from sammy_desktop import __version__
from sammy_desktop.selftest.end_to_end import END_TO_END_STEPS, run_end_to_end
from sammy_desktop.selftest.install_checks import LOAD_CHECK_NAMES, LOAD_CHECKS
from sammy_desktop.selftest.install_checks import (
    _resources_dir as _resources_dir,  # where the icon is looked for; tests check it
)
from sammy_desktop.selftest.report import (
    Report,
    SelfTestFailure,
    StepResult,
    run_async_step,
    run_check,
)

__all__ = [
    "LOAD_CHECKS",
    "STEP_NAMES",
    "SelfTestFailure",
    "StepResult",
    "run_self_test",
    "run_steps",
]

STEP_TIMEOUT_S: Final = 20.0

MCP_STEP: Final = "mcp-servers"

STEP_NAMES: Final = (*LOAD_CHECK_NAMES, *END_TO_END_STEPS, MCP_STEP)
"""Every step, in the order they run and appear in the report."""


def run_steps(
    stream: TextIO,
    *,
    timeout_s: float = STEP_TIMEOUT_S,
    checks: Sequence[tuple[str, Callable[[], str]]] = LOAD_CHECKS,
    mcp_config: Path | None = None,
) -> list[StepResult]:
    """Run every step, writing each report line as it ends; return the results.

    The loading checks run first, on this thread (Qt wants the main thread); the
    end-to-end steps then run on a fresh asyncio loop, each within ``timeout_s``.

    Args:
        stream: where the report lines go.
        timeout_s: the most each end-to-end step may take.
        checks: the loading checks, as (name, function) pairs; the default is
            :data:`LOAD_CHECKS`.
        mcp_config: the ``mcp.json`` whose servers are started; None checks only that the
            MCP SDK loads.
    """
    report = Report(stream)
    for name, check in checks:
        run_check(report, name, check)
    asyncio.run(run_end_to_end(report, timeout_s))
    asyncio.run(_run_mcp_step(report, mcp_config, timeout_s))
    return report.results


async def _run_mcp_step(report: Report, mcp_config: Path | None, timeout_s: float) -> None:
    from sammy_desktop.config.secrets import SecretStore
    from sammy_desktop.selftest.mcp_servers import check_mcp_servers

    with tempfile.TemporaryDirectory(prefix="sammy-self-test-mcp-") as profile:
        config = mcp_config if mcp_config is not None else Path(profile) / "no-mcp.json"
        await run_async_step(
            report,
            MCP_STEP,
            lambda: check_mcp_servers(config, Path(profile), SecretStore(environ={})),
            timeout_s,
        )


def run_self_test(
    stream: TextIO,
    *,
    timeout_s: float = STEP_TIMEOUT_S,
    checks: Sequence[tuple[str, Callable[[], str]]] = LOAD_CHECKS,
    mcp_config: Path | None = None,
) -> int:
    """Run the self-test, print the report to ``stream``, return the process exit code.

    Args:
        stream: where the report goes (stdout for ``--self-test``).
        timeout_s: the most each end-to-end step may take.
        checks: the loading checks (tests pass their own).
        mcp_config: the ``mcp.json`` whose servers are started (the settings folder's).

    Returns:
        0 when every step passed, 1 when any failed (the last line names them).
    """
    frozen = "frozen" if getattr(sys, "frozen", False) else "not frozen"
    stream.write(f"sammy-desktop {__version__} self-test ({frozen}, {sys.platform})\n")
    started = time.perf_counter()
    results = run_steps(stream, timeout_s=timeout_s, checks=checks, mcp_config=mcp_config)
    elapsed = time.perf_counter() - started
    failed = [r.name for r in results if not r.ok]
    if failed:
        stream.write(f"self-test FAILED: {', '.join(failed)} ({elapsed:.2f} s)\n")
        stream.flush()
        return 1
    stream.write(f"self-test passed: {len(results)} steps in {elapsed:.2f} s\n")
    stream.flush()
    return 0
