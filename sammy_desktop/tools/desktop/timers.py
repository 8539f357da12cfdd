"""Timers: ``setTimer``, ``listTimers`` and ``cancelTimer``, the pack's NON_BLOCKING showcase.

"Remind me in ten minutes to check the oven": ``setTimer`` answers at once ("set, ends at
10:42"). When the timer ends, the person gets a desktop notification and an earcon through
the UI's :class:`~sammy_desktop.tools.desktop.ports.DesktopNotifier`, and the model is told
at the next quiet moment (:class:`~sammy_desktop.tools.events.AnnouncementPending`), on
every model. The call is not kept open (``will_continue``) for the timer's life: an
unanswered call can keep the service from issuing resumable handles and, on 3.x models,
hold the microphone back (docs/live-service.md R9, T7), for as long as the timer runs.

The timers belong to a :class:`TimerService` the app creates once, not to a call or a
connection: a reconnect never touches them. Timers still running when the app quits are
reported by :meth:`TimerService.shutdown` for the history.
"""

from __future__ import annotations

import logging
import math
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sammy_desktop.eventbus import EventBus
from sammy_desktop.scheduling import Cancellable, LoopScheduler, Scheduler
from sammy_desktop.tools.context import ToolContext, local_now
from sammy_desktop.tools.definition import ToolDefinition, tool
from sammy_desktop.tools.desktop.events import (
    TimerCancelled,
    TimerFired,
    TimerInfo,
    TimersRunningAtQuit,
    TimerStarted,
    TimerStatus,
)
from sammy_desktop.tools.desktop.ports import DesktopNotifier, Earcon
from sammy_desktop.tools.events import AnnouncementPending
from sammy_desktop.tools.kinds import ResponseScheduling, ToolBehavior, ToolCategory
from sammy_desktop.tools.results import ParameterFeedback, ToolResult
from sammy_desktop.tools.wording import human_duration

__all__ = [
    "MAX_TIMER_S",
    "CancelTimerInput",
    "DurationError",
    "ListTimersInput",
    "ListTimersOutput",
    "SetTimerInput",
    "TimerLimitError",
    "TimerOutput",
    "TimerService",
    "parse_duration",
    "timer_tools",
]

_log = logging.getLogger(__name__)

MAX_TIMER_S = 24 * 3600.0
MIN_TIMER_S = 1.0
MAX_RUNNING_TIMERS = 20
_RECENT_KEPT = 10

# Agent states (core.events.AgentState values) in which someone is talking: a timer that
# ends then waits for the pause instead of cutting in.

_DURATION_EXAMPLES = ("10m", "1h30m", "90s", "00:10:00", "PT10M")


# -- durations ----------------------------------------------------------------------------

_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0}
_UNIT_WORDS = {
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "h"),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), "m"),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "s"),
}
_NUMBER = r"\d+(?:[.,]\d+)?"
_UNIT_PART = re.compile(rf"({_NUMBER})\s*([a-z]+)")
_UNIT_SEPARATORS = re.compile(r"(?:\s|,|\band\b)+")
_CLOCK = re.compile(r"(?:(\d+):)?(\d{1,2}):(\d{1,2})")
_ISO = re.compile(rf"p(?:({_NUMBER})d)?(?:t(?:({_NUMBER})h)?(?:({_NUMBER})m)?(?:({_NUMBER})s)?)?")


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def parse_duration(text: str) -> float:
    """Seconds in ``text``: "600", "10m", "1h 30m", "2.5 minutes", "1:30:00", "PT10M".

    Raises:
        DurationError: not a duration, or outside 1 second to 24 hours; the message says
            which (to the model), ``for_person`` says it to the person.
    """
    cleaned = text.strip().lower()
    seconds: float | None = None
    if re.fullmatch(_NUMBER, cleaned):
        seconds = _number(cleaned)
    elif match := _CLOCK.fullmatch(cleaned):
        hours, minutes, secs = (int(part or 0) for part in match.groups())
        seconds = hours * 3600.0 + minutes * 60.0 + secs
    elif cleaned.startswith("p") and (match := _ISO.fullmatch(cleaned)) and any(match.groups()):
        days, hours_text, minutes_text, secs_text = (
            _number(part) if part else 0.0 for part in match.groups()
        )
        seconds = days * 86400 + hours_text * 3600 + minutes_text * 60 + secs_text
    else:
        seconds = _unit_phrase(cleaned)
    if seconds is None:
        raise DurationError(
            f"{text!r} is not a duration; write it like {', '.join(_DURATION_EXAMPLES)}",
            f"“{text.strip()}” is not a length of time",
        )
    if not math.isfinite(seconds) or seconds < MIN_TIMER_S:
        too_short = "a timer must run for at least 1 second"
        raise DurationError(too_short, too_short)
    if seconds > MAX_TIMER_S:
        too_long = "a timer can run for at most 24 hours"
        raise DurationError(too_long, too_long)
    return seconds


def _unit_phrase(text: str) -> float | None:
    """Seconds in a phrase like "1h30m", "1 hour and 30 minutes"; None when it is not one."""
    total = 0.0
    position = 0
    found = False
    while position < len(text):
        separator = _UNIT_SEPARATORS.match(text, position)
        if separator and separator.end() > position:
            position = separator.end()
            continue
        part = _UNIT_PART.match(text, position)
        if part is None or part.group(2) not in _UNIT_WORDS:
            return None
        total += _number(part.group(1)) * _UNIT_SECONDS[_UNIT_WORDS[part.group(2)]]
        position = part.end()
        found = True
    return total if found else None


# -- the service --------------------------------------------------------------------------


class DurationError(ValueError):
    """Not a duration a timer can run for; ``for_person`` says why in their words."""

    def __init__(self, message: str, for_person: str) -> None:
        super().__init__(message)
        self.for_person = for_person


class TimerLimitError(RuntimeError):
    """Too many timers are running already."""


@dataclass(slots=True)
class _Timer:
    info: TimerInfo
    deadline: float
    handle: Cancellable | None = None


class TimerService:
    """Owns every timer for the life of the app, across sessions and reconnects.

    Args:
        bus: where timer events go.
        notifier: shows the desktop notification and plays the earcon; None without a UI.
        wall_clock: the local time, aware (for "ends at 10:42").
        scheduler: when timers end; the running loop by default, a manual one in tests.
        max_running: how many timers may run at once.
    """

    def __init__(
        self,
        bus: EventBus,
        notifier: DesktopNotifier | None,
        *,
        wall_clock: Callable[[], datetime] = local_now,
        scheduler: Scheduler | None = None,
        max_running: int = MAX_RUNNING_TIMERS,
    ) -> None:
        self._bus = bus
        self._notifier = notifier
        self._wall_clock = wall_clock
        self._scheduler: Scheduler = scheduler if scheduler is not None else LoopScheduler()
        self._max_running = max_running
        self._running: dict[str, _Timer] = {}
        self._recent: deque[TimerInfo] = deque(maxlen=_RECENT_KEPT)
        self._next_id = 1
        self._closed = False

    def start(self, duration_s: float, label: str) -> TimerInfo:
        """Start a timer; it fires after ``duration_s`` seconds.

        Raises:
            TimerLimitError: ``max_running`` timers are running already.
            RuntimeError: the service has been shut down.
        """
        if self._closed:
            raise RuntimeError("the timer service has been shut down")
        if len(self._running) >= self._max_running:
            raise TimerLimitError(f"{self._max_running} timers are running already")
        timer_id = str(self._next_id)
        self._next_id += 1
        started = self._wall_clock()
        info = TimerInfo(
            id=timer_id,
            label=label,
            duration_s=duration_s,
            started_at=started,
            ends_at=started + timedelta(seconds=duration_s),
            status=TimerStatus.RUNNING,
        )
        timer = _Timer(info=info, deadline=self._scheduler.time() + duration_s)
        timer.handle = self._scheduler.call_later(duration_s, lambda: self._fire(timer_id))
        self._running[timer_id] = timer
        self._bus.emit(TimerStarted(timer=info))
        return info

    def running(self) -> list[TimerInfo]:
        """The running timers, the one ending first first."""
        return [t.info for t in sorted(self._running.values(), key=lambda t: t.deadline)]

    def recently_ended(self) -> list[TimerInfo]:
        """The last few timers that finished, were cancelled or stopped, newest first."""
        return list(reversed(self._recent))

    def remaining_s(self, timer_id: str) -> float:
        """Seconds until the running timer ``timer_id`` ends; 0 when it is not running."""
        timer = self._running.get(timer_id)
        if timer is None:
            return 0.0
        return max(0.0, timer.deadline - self._scheduler.time())

    def find(self, id_or_label: str) -> list[TimerInfo]:
        """Running timers whose id is ``id_or_label``, else whose label it is (any case)."""
        wanted = id_or_label.strip()
        if wanted in self._running:
            return [self._running[wanted].info]
        folded = wanted.casefold()
        return [info for info in self.running() if info.label.casefold() == folded]

    def cancel(self, timer_id: str) -> TimerInfo | None:
        """Cancel a running timer; returns it, or None when no such timer is running."""
        timer = self._running.pop(timer_id, None)
        if timer is None:
            return None
        if timer.handle is not None:
            timer.handle.cancel()
        self._end(timer, TimerStatus.CANCELLED)
        self._bus.emit(TimerCancelled(timer=timer.info))
        return timer.info

    def shutdown(self) -> tuple[TimerInfo, ...]:
        """Stop every timer because the app quits; returns those that were still running.

        Emits :class:`TimersRunningAtQuit` (also when none ran, so the history can say so).
        """
        self._closed = True
        stopped = tuple(self.running())
        for timer in list(self._running.values()):
            if timer.handle is not None:
                timer.handle.cancel()
            self._end(timer, TimerStatus.STOPPED)
        self._running.clear()
        self._bus.emit(TimersRunningAtQuit(timers=stopped))
        return stopped

    def _end(self, timer: _Timer, status: TimerStatus) -> None:
        timer.info = replace(timer.info, status=status)
        self._recent.append(timer.info)

    def _fire(self, timer_id: str) -> None:
        timer = self._running.pop(timer_id, None)
        if timer is None:
            return  # cancelled in the same loop iteration
        self._end(timer, TimerStatus.FINISHED)
        info = timer.info
        if self._notifier is not None:
            try:
                self._notifier.notify("Timer finished", _notification_text(info))
                self._notifier.play_earcon(Earcon.TIMER_DONE)
            except Exception:  # noqa: BLE001 - a broken notifier must not lose the timer
                _log.exception("showing the notification for timer %s failed", info.id)
        self._bus.emit(TimerFired(timer=info))
        # The model is told at the next quiet moment (a setTimer call is not kept open for
        # the timer's whole life: an open call can keep the session from being resumable
        # and, on 3.x models, the microphone waiting; docs/live-service.md R9, T7).
        self._bus.emit(AnnouncementPending(text=_announcement_text(info), source="Timer"))


def _label_phrase(info: TimerInfo) -> str:
    return f"the {human_duration(info.duration_s)} timer" + (
        f" for '{info.label}'" if info.label else ""
    )


def _notification_text(info: TimerInfo) -> str:
    what = info.label or "Your timer"
    return f"{what} ({human_duration(info.duration_s)}, set at {info.started_at:%H:%M})"


def _announcement_text(info: TimerInfo) -> str:
    return (
        f"{_label_phrase(info).capitalize()} ended at {info.ends_at:%H:%M}. "
        "Tell the person now, briefly."
    )


# -- the tools ----------------------------------------------------------------------------


class SetTimerInput(BaseModel):
    """Arguments of setTimer."""

    # The model sometimes sends 600 for "600 seconds"; accept it as text.
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)

    duration: str = Field(
        min_length=1,
        max_length=60,
        description="How long: '10m', '1h30m', '45s', '2.5 minutes', '00:10:00' or ISO 8601 "
        "'PT10M'; from 1 second to 24 hours.",
    )
    label: str = Field(
        "",
        max_length=200,
        description="What the timer is for, in the person's words, e.g. 'check the oven'.",
    )


class TimerOutput(BaseModel):
    """A timer as the model sees it."""

    id: str = Field(description="The timer's id; cancelTimer needs it.")
    label: str = Field(description="What it is for ('' when not given).")
    status: str = Field(description="running, finished, cancelled or stopped.")
    duration: str = Field(description="How long it was set for, in words.")
    ends_at: str = Field(description="Local time it ends or ended, HH:MM.")
    remaining_s: int = Field(description="Seconds left (0 unless running).")

    @classmethod
    def of(cls, info: TimerInfo, remaining_s: float = 0.0) -> TimerOutput:
        """The model's view of ``info``."""
        return cls(
            id=info.id,
            label=info.label,
            status=info.status.value,
            duration=human_duration(info.duration_s),
            ends_at=f"{info.ends_at:%H:%M}",
            remaining_s=math.ceil(remaining_s),
        )


class ListTimersInput(BaseModel):
    """listTimers takes no arguments."""

    model_config = ConfigDict(extra="forbid")


class ListTimersOutput(BaseModel):
    """What listTimers answers."""

    running: list[TimerOutput] = Field(description="Running timers, ending soonest first.")
    recently_ended: list[TimerOutput] = Field(
        description="The last timers that finished or were cancelled, newest first."
    )


class CancelTimerInput(BaseModel):
    """Arguments of cancelTimer."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)

    id: str = Field(
        min_length=1,
        max_length=200,
        description="The timer's id from setTimer or listTimers (its label also works).",
    )


def _timer_words(info: TimerInfo, done: str) -> str:
    """What became of a timer, as the card says it: "Timer for 5 minutes set: check the oven"."""
    label = f": {info.label}" if info.label else ""
    return f"Timer for {human_duration(info.duration_s)} {done}{label}"


def _list_summary(result: ToolResult[ListTimersOutput]) -> str | None:
    """The running timers as the card says them: "No timers running", "1 timer running: ..."."""
    value = result.value
    if not result.ok or value is None:
        return None
    if not value.running:
        return "No timers running"
    if len(value.running) > 1:
        return f"{len(value.running)} timers running"
    only = value.running[0]
    what = only.label or f"{only.duration} timer"
    return f"1 timer running: {what}, {human_duration(only.remaining_s)} left"


def timer_tools(service: TimerService) -> list[ToolDefinition[Any, Any]]:
    """setTimer, listTimers and cancelTimer over ``service``."""

    @tool(
        name="setTimer",
        title="Timer",
        about="Sets timers and reminders; a notification tells you when one ends.",
        category=ToolCategory.ACTION,
        behavior=ToolBehavior.NON_BLOCKING,
        scheduling=ResponseScheduling.WHEN_IDLE,
        # A wrong duration must reach the model so it can ask again.
        error_scheduling=ResponseScheduling.WHEN_IDLE,
        timeout_s=5.0,
    )
    async def set_timer(
        args: SetTimerInput, context: ToolContext
    ) -> TimerOutput | ToolResult[TimerOutput]:
        """Set a countdown timer or a reminder ("remind me in ten minutes to check the oven").

        It answers at once that the timer is set. When it ends, the person gets a desktop
        notification with a sound, and a message '(Timer notice: ...)' arrives at the next
        quiet moment: tell the person then.
        """
        try:
            seconds = parse_duration(args.duration)
        except DurationError as error:
            return ToolResult.failure(
                f"The timer was not set: {error}.",
                display=f"The timer was not set: {error.for_person}.",
                validation={
                    "duration": ParameterFeedback.invalid(
                        str(error), suggested_values=_DURATION_EXAMPLES
                    )
                },
            )
        label = " ".join(args.label.split())
        try:
            info = service.start(seconds, label)
        except (TimerLimitError, RuntimeError) as error:
            why = str(error) if isinstance(error, TimerLimitError) else "the app is closing"
            return ToolResult.failure(
                f"The timer was not set: {error}. Cancel one first (see listTimers).",
                display=f"The timer was not set: {why}.",
            )
        set_answer = TimerOutput.of(info, seconds)
        return ToolResult.success(
            set_answer,
            display=_timer_words(info, "set"),
            instructions=(
                f"Confirm briefly that the timer is set and ends at {set_answer.ends_at}. "
                "When it ends, a notification appears and you get a '(Timer notice: ...)' "
                "message: tell the person then.",
            ),
        )

    @tool(
        name="listTimers",
        title="Timers",
        about="Tells Sammy which timers are running and how long they have left.",
        summary=_list_summary,
        category=ToolCategory.CONTEXT,
        behavior=ToolBehavior.BLOCKING,
        timeout_s=5.0,
    )
    async def list_timers(args: ListTimersInput, context: ToolContext) -> ListTimersOutput:
        """List the running timers with the time left, and the ones that ended recently."""
        return ListTimersOutput(
            running=[
                TimerOutput.of(info, service.remaining_s(info.id)) for info in service.running()
            ],
            recently_ended=[TimerOutput.of(info) for info in service.recently_ended()],
        )

    @tool(
        name="cancelTimer",
        title="Cancel a timer",
        about="Cancels a running timer.",
        category=ToolCategory.ACTION,
        behavior=ToolBehavior.BLOCKING,
        timeout_s=5.0,
    )
    async def cancel_timer(
        args: CancelTimerInput, context: ToolContext
    ) -> TimerOutput | ToolResult[TimerOutput]:
        """Cancel a running timer by its id (from setTimer or listTimers)."""
        matches = service.find(args.id)
        if len(matches) == 1:
            cancelled = service.cancel(matches[0].id)
            if cancelled is not None:
                return ToolResult.success(
                    TimerOutput.of(cancelled),
                    display=_timer_words(cancelled, "cancelled"),
                )
        running = service.running()
        if not running:
            return ToolResult.failure(
                "No timer is running, so there is nothing to cancel.",
                display="No timer is running, so nothing was cancelled.",
                validation={"id": ParameterFeedback.invalid("no timer is running")},
            )
        listing = "; ".join(
            f"{info.id} ({info.label or human_duration(info.duration_s)})" for info in running
        )
        problem = (
            f"several running timers are labelled {args.id!r}; use the id"
            if len(matches) > 1
            else f"no running timer has the id {args.id!r}"
        )
        shown = " ".join(args.id.split())
        return ToolResult.failure(
            f"Nothing was cancelled: {problem}. Running timers: {listing}.",
            display=f"Nothing was cancelled: several timers are called “{shown}”."
            if len(matches) > 1
            else f"Nothing was cancelled: no running timer is called “{shown}”.",
            validation={
                "id": ParameterFeedback.invalid(
                    problem, allowed_values=[info.id for info in running]
                )
            },
        )

    return [set_timer, list_timers, cancel_timer]
