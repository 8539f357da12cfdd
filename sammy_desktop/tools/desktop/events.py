"""Events the desktop tool pack publishes on the app's event bus.

The UI shows them; :class:`TimersRunningAtQuit` is a
:class:`~sammy_desktop.tools.events.HistoryEvent`, so the history records it. Telling the
model about a timer that ended goes through the generic
:class:`~sammy_desktop.tools.events.AnnouncementPending`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sammy_desktop.eventbus import Event
from sammy_desktop.tools.events import HistoryEvent

__all__ = [
    "TimerCancelled",
    "TimerFired",
    "TimerInfo",
    "TimerStarted",
    "TimerStatus",
    "TimersRunningAtQuit",
]


class TimerStatus(enum.StrEnum):
    """Where a timer stands."""

    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    STOPPED = "stopped"
    """The app closed while it was running."""


@dataclass(frozen=True, slots=True)
class TimerInfo:
    """A timer as the UI, the history and the model see it.

    Attributes:
        id: short id the model uses to cancel it ("1", "2" ...).
        label: what it is for ("check the oven").
        duration_s: how long it was set for, in seconds.
        started_at: when it was set (aware).
        ends_at: when it ends or ended (aware).
        status: running, finished, cancelled or stopped.
    """

    id: str
    label: str
    duration_s: float
    started_at: datetime
    ends_at: datetime
    status: TimerStatus

    def as_record(self) -> dict[str, str | float]:
        """The timer as plain JSON values, for the history file."""
        return {
            "id": self.id,
            "label": self.label,
            "duration_s": self.duration_s,
            "started_at": self.started_at.isoformat(),
            "ends_at": self.ends_at.isoformat(),
            "status": self.status.value,
        }


@dataclass(frozen=True, slots=True)
class TimerStarted(Event):
    """A timer was set."""

    timer: TimerInfo


@dataclass(frozen=True, slots=True)
class TimerFired(Event):
    """A timer ended; the notification and the earcon have been requested.

    An ``AnnouncementPending`` follows, so that the model tells the person.

    Attributes:
        timer: the timer, status ``finished``.
    """

    timer: TimerInfo


@dataclass(frozen=True, slots=True)
class TimerCancelled(Event):
    """A timer was cancelled before it ended."""

    timer: TimerInfo


@dataclass(frozen=True, slots=True)
class TimersRunningAtQuit(HistoryEvent):
    """The app is closing with these timers still running; the history lists them."""

    timers: tuple[TimerInfo, ...]

    def history_record(self) -> tuple[str, Mapping[str, Any]]:
        """``timers_running_at_quit`` with each timer as plain values."""
        return "timers_running_at_quit", {"timers": [timer.as_record() for timer in self.timers]}
