"""The check's report: its lines, their order, the exit codes, and how a step becomes a line.

Every line is written as soon as it is known and goes through the app's log filter, so the
key never reaches the terminal. A step is a coroutine that returns what it saw (a short
sentence) or raises: a :class:`Finding` is the service doing something other than what the
app relies on, worded by the step; any other exception is reduced to its type and message,
and its traceback goes to the log file. :class:`CannotStart` is the one line written instead
of a report when the check cannot run at all.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, TextIO

from sammy_desktop.app_logging import RedactingFilter

__all__ = [
    "EXIT_CANNOT_START",
    "EXIT_FAILED",
    "EXIT_OK",
    "STEP_NAMES",
    "CannotStart",
    "Finding",
    "LineResult",
    "Report",
    "Status",
    "count",
    "one_line",
    "quoted",
    "run_step",
]

_log = logging.getLogger(__name__)

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_CANNOT_START: Final = 2

STEP_NAMES: Final = ("connect", "setup", "typed-turn", "tool-call", "resumption", "models-list")
"""Every line of the report, in the order it is printed."""

_DETAIL_CHARS: Final = 70


class Status(enum.StrEnum):
    """The outcome of one line."""

    OK = "ok"
    FAILED = "FAILED"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class LineResult:
    """One line of the report.

    Attributes:
        name: one of :data:`STEP_NAMES`.
        status: ok, FAILED or skipped.
        seconds: how long the step took.
        detail: what it saw.
    """

    name: str
    status: Status
    seconds: float
    detail: str

    def line(self) -> str:
        """The line as printed (before redaction)."""
        return (
            f"  {self.status.value:<8}{self.name:<13}{self.seconds * 1000:7.0f} ms  {self.detail}"
        )


class CannotStart(Exception):
    """The check cannot run at all; the message is the one line the person reads."""


class Finding(Exception):
    """A step saw the service do something other than what the app relies on."""


@dataclass
class Report:
    """Writes each line as soon as it is known, redacted."""

    stream: TextIO
    redactor: RedactingFilter
    results: list[LineResult] = field(default_factory=list)

    def write(self, text: str) -> None:
        """Write one line of text (a header, a note, the verdict), redacted."""
        self.stream.write(self.redactor.redact(text) + "\n")
        self.stream.flush()

    def add(self, name: str, status: Status, started: float, detail: str) -> None:
        """Keep and write the line of a step that began at ``started`` and ends now."""
        self.add_at(name, status, started, time.perf_counter(), detail)

    def add_at(self, name: str, status: Status, started: float, ended: float, detail: str) -> None:
        """Keep and write the line of a step that ran from ``started`` to ``ended``."""
        result = LineResult(name, status, ended - started, one_line(detail))
        self.results.append(result)
        self.write(result.line())

    def skip(self, names: Sequence[str], why: str) -> None:
        """Mark each of ``names`` that has no line yet as skipped, for ``why``."""
        for name in names:
            if all(result.name != name for result in self.results):
                self.add(name, Status.SKIPPED, time.perf_counter(), why)


async def run_step(report: Report, name: str, body: Callable[[], Awaitable[str]]) -> bool:
    """Run one step and write its line; True when it passed.

    The step keeps its own time limit: a limit of the report's would cut the step's own
    sentence about what it was waiting for.
    """
    started = time.perf_counter()
    try:
        detail = await body()
    except Finding as finding:
        report.add(name, Status.FAILED, started, str(finding))
        return False
    except Exception as error:  # noqa: BLE001 - any failure is the line's, then go on
        _log.info("check-live step %s failed", name, exc_info=error)
        report.add(name, Status.FAILED, started, f"{type(error).__name__}: {error}")
        return False
    report.add(name, Status.OK, started, detail)
    return True


def one_line(text: str) -> str:
    """``text`` on one line, its runs of white space made one space."""
    return " ".join(text.split()) or "(no detail)"


def quoted(text: str) -> str:
    """``text`` on one line, cut to a short detail, in quotes."""
    text = " ".join(text.split())
    if len(text) > _DETAIL_CHARS:
        text = text[: _DETAIL_CHARS - 3].rstrip() + "..."
    return f'"{text}"'


def count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
