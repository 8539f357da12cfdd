"""The self-test's report: one line per step, written as the step ends, and how a step runs.

A step is a function that returns what it found (a short sentence) or raises. Running it
here turns either outcome into a :class:`StepResult` and its report line at once; a
:class:`SelfTestFailure` is a finding the step words itself, any other exception is reduced
to one line for the report and its traceback goes to the log file. Both kinds of step go
through here: the install checks (plain functions) and the end-to-end steps (coroutines,
each under a timeout).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TextIO

__all__ = ["Report", "SelfTestFailure", "StepResult", "run_async_step", "run_check"]

_log = logging.getLogger(__name__)


class SelfTestFailure(Exception):
    """A step found a problem; the message says what, for the report line."""


@dataclass(frozen=True, slots=True)
class StepResult:
    """The outcome of one step.

    Attributes:
        name: the step's name (one of :data:`~sammy_desktop.selftest.STEP_NAMES`).
        ok: whether it passed.
        seconds: how long it took.
        detail: what it found, or what went wrong.
    """

    name: str
    ok: bool
    seconds: float
    detail: str

    def line(self) -> str:
        """The step's line in the report."""
        status = "ok" if self.ok else "FAILED"
        return f"  {status:<7}{self.name:<16}{self.seconds * 1000:7.0f} ms  {self.detail}"


@dataclass
class Report:
    """Collects results and writes each line as soon as its step ends."""

    stream: TextIO
    results: list[StepResult] = field(default_factory=list)

    def add(self, result: StepResult) -> None:
        """Keep a step's result and write its line."""
        self.results.append(result)
        self.stream.write(result.line() + "\n")
        self.stream.flush()


def _record(report: Report, name: str, started: float, outcome: BaseException | str) -> None:
    """Add a step's line to the report; a failure's traceback goes to the log file."""
    if isinstance(outcome, str):
        ok, detail = True, outcome
    elif isinstance(outcome, SelfTestFailure):
        ok, detail = False, str(outcome)
    else:
        ok, detail = False, f"{type(outcome).__name__}: {_last_line(str(outcome))}"
        # INFO, not ERROR: the report already says it on stdout; the log file keeps the
        # traceback for whoever reads the bug report.
        _log.info("self-test step %s failed", name, exc_info=outcome)
    report.add(StepResult(name, ok, time.perf_counter() - started, detail))


def _last_line(message: str) -> str:
    """The last non-empty line of a message: one line per step, and the cause is at the end.

    numpy's ImportError, for one, is a page of advice that ends in "Original error was: ...".
    """
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


def run_check(report: Report, name: str, check: Callable[[], str]) -> None:
    """Run one loading step (plain code that returns quickly or raises)."""
    started = time.perf_counter()
    try:
        outcome: BaseException | str = check()
    except Exception as exc:  # noqa: BLE001 - the report must name any failure, then go on
        outcome = exc
    _record(report, name, started, outcome)


async def run_async_step(
    report: Report, name: str, step: Callable[[], Awaitable[str]], timeout_s: float
) -> None:
    """Run one end-to-end step with a timeout."""
    started = time.perf_counter()
    try:
        outcome: BaseException | str = await asyncio.wait_for(step(), timeout_s)
    except TimeoutError:
        outcome = SelfTestFailure(f"no result within {timeout_s:g} s")
    except Exception as exc:  # noqa: BLE001 - the report must name any failure, then go on
        outcome = exc
    _record(report, name, started, outcome)
