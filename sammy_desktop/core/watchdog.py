"""Noticing silence after the person's turn: one nudge, then giving up visibly.

Answers stall (USERS.md 4): :class:`ResponseWatchdog` is armed when the person finishes and
disarmed by any sign of an answer. If nothing comes within ``no_response_s`` it emits
``NoResponse`` and asks its owner to nudge the model once; a second silence emits
``NoResponse(gave_up=True)`` and asks its owner to give up on the turn. Time comes from an
injected :class:`~sammy_desktop.scheduling.Scheduler`, so its tests move a clock instead of
waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sammy_desktop.core.events import NoResponse
from sammy_desktop.eventbus import EventBus
from sammy_desktop.scheduling import Cancellable, LoopScheduler, Scheduler

__all__ = ["ResponseWatchdog", "WatchdogPolicy"]


@dataclass(frozen=True, slots=True)
class WatchdogPolicy:
    """When silence after the person's turn counts as "no response".

    Attributes:
        no_response_s: seconds without any answer before the first NoResponse and nudge.
        nudge_text: what the nudge says to the model.
        end_session_grace_s: after an endSession tool answer, how long to let the model say
            goodbye before closing anyway.
    """

    no_response_s: float = 10.0
    nudge_text: str = "(The person is still waiting for your answer. Please answer now.)"
    end_session_grace_s: float = 8.0


class ResponseWatchdog:
    """Arms on the end of the person's turn, fires on silence, nudges once, then gives up.

    Args:
        policy: the timing.
        bus: where ``NoResponse`` goes.
        turn_id: the current turn's id (named in the events).
        still_waiting: whether an answer is still due when the time is up (the turn is open,
            no tool is running, the conversation is connected); False makes a firing a no-op.
        nudge: ask the model once more (the first silence).
        give_up: stop waiting for this turn (the second silence).
        scheduler: the clock; the running loop's by default.
    """

    def __init__(
        self,
        policy: WatchdogPolicy,
        bus: EventBus,
        *,
        turn_id: Callable[[], int],
        still_waiting: Callable[[], bool],
        nudge: Callable[[str], None],
        give_up: Callable[[], None],
        scheduler: Scheduler | None = None,
    ) -> None:
        self._policy = policy
        self._bus = bus
        self._turn_id = turn_id
        self._still_waiting = still_waiting
        self._nudge = nudge
        self._give_up = give_up
        self._scheduler = scheduler if scheduler is not None else LoopScheduler()
        self._timer: Cancellable | None = None
        self._nudged = False

    @property
    def policy(self) -> WatchdogPolicy:
        """The timing."""
        return self._policy

    @property
    def armed(self) -> bool:
        """True while a silence is being timed."""
        return self._timer is not None

    def arm(self) -> None:
        """Start (or restart) timing the silence."""
        self.cancel()
        self._timer = self._scheduler.call_later(self._policy.no_response_s, self._fire)

    def cancel(self) -> None:
        """Stop timing (an answer came, or the conversation moved on)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def new_turn(self) -> None:
        """A new exchange begins: it gets its own nudge."""
        self._nudged = False

    def _fire(self) -> None:
        self._timer = None
        if not self._still_waiting():
            return
        waited = self._policy.no_response_s
        turn_id = self._turn_id()
        if not self._nudged:
            self._nudged = True
            self._bus.emit(NoResponse(turn_id=turn_id, waited_s=waited, nudged=True, gave_up=False))
            self._nudge(self._policy.nudge_text)
            self.arm()
            return
        self._bus.emit(NoResponse(turn_id=turn_id, waited_s=waited * 2, nudged=True, gave_up=True))
        self._give_up()
