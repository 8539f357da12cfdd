"""The connection's idle rest: after a quiet stretch it closes, and input brings it back.

A Live connection is closed by the service every ten minutes or so, and the supervisor
reconnects before that (USERS.md 2): left alone all day, an idle app reconnects all day.
:class:`IdleRest` ends that: in push-to-talk, after ``idle_rest_minutes`` of quiet (Ready,
nobody talking, nothing pending; 0 never rests; hands-free streams the open microphone to
the service's voice detection, so it never rests) it asks the supervisor to close the
connection quietly, keeping the resumption handle. The session goes on in the state
Resting. Whatever needs the model next (a talk press, a typed message, a timer's notice, a
remote trigger) is queued in the outbox as always; the first of it wakes the connection,
which resumes with the handle, and what was queued meanwhile (the person's first words,
captured while it connects) goes out after setupComplete, in order. If that reconnection
fails, the supervisor says so as for any other (Reconnecting, then the error).

The timer runs on an injected :class:`~sammy_desktop.scheduling.Scheduler`, so a test moves
the fifteen minutes by hand.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

from sammy_desktop.core.events import AgentState, ConnectionResting, ConnectionWaking
from sammy_desktop.core.outbox import RealtimeOutbox
from sammy_desktop.core.state import AgentStateMachine
from sammy_desktop.eventbus import EventBus
from sammy_desktop.scheduling import Cancellable, LoopScheduler, Scheduler

__all__ = ["IdleRest"]

_log = logging.getLogger(__name__)

_SECONDS_PER_MINUTE: Final = 60.0


class IdleRest:
    """Rests the connection after a quiet stretch, and wakes it for the next input.

    Args:
        bus: where ``ConnectionResting`` and ``ConnectionWaking`` go.
        state: the agent's state (Resting while the connection rests).
        outbox: the realtime input; the first item queued while resting wakes it.
        minutes: the setting's minutes of quiet before resting (0: never).
        is_quiet: whether now is a quiet moment (nobody talks, nothing pending).
        rest: asks the supervisor to close the connection quietly; False if it cannot now.
        scheduler: the clock and timer (the running loop's by default).
    """

    def __init__(
        self,
        *,
        bus: EventBus,
        state: AgentStateMachine,
        outbox: RealtimeOutbox,
        minutes: Callable[[], int],
        is_quiet: Callable[[], bool],
        rest: Callable[[], bool],
        scheduler: Scheduler | None = None,
    ) -> None:
        self._bus = bus
        self._state = state
        self._outbox = outbox
        self._minutes = minutes
        self._is_quiet = is_quiet
        self._rest = rest
        self._scheduler: Scheduler = scheduler if scheduler is not None else LoopScheduler()
        self._timer: Cancellable | None = None
        self._quiet_since = 0.0
        self._resting = False

    @property
    def armed(self) -> bool:
        """Whether the quiet stretch is being timed now."""
        return self._timer is not None

    @property
    def resting(self) -> bool:
        """Whether the connection rests now."""
        return self._resting

    def on_state(self, new: AgentState) -> None:
        """Every state change: entering Ready starts the quiet stretch, anything else ends it."""
        if new is AgentState.READY:
            self._quiet_since = self._scheduler.time()
            self._arm(self._period())
        else:
            self.cancel()

    def settings_changed(self) -> None:
        """The minutes may have changed: time the stretch already under way with them."""
        if self._state.state is not AgentState.READY:
            return
        period = self._period()
        if period is None:
            self.cancel()
            return
        elapsed = self._scheduler.time() - self._quiet_since
        self._arm(max(0.0, period - elapsed))

    def cancel(self) -> None:
        """Stop timing (the session ends, or something happened)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def hold(self) -> None:
        """The supervisor's rest: Resting until input is queued, then Connecting again."""
        self._resting = True
        quiet_s = self._scheduler.time() - self._quiet_since
        self._state.set(AgentState.RESTING, f"resting after {quiet_s / 60:.0f} min of quiet")
        self._bus.emit(ConnectionResting(quiet_s=quiet_s))
        _log.info("the connection rests after %.0f s of quiet", quiet_s)
        # A frame of the shared screen queued just before the rest: out of date, and never
        # a reason to wake (send_video refuses frames while resting).
        self._outbox.drop_video()
        try:
            kind = await self._outbox.wait_for_input()
        finally:
            self._resting = False
        _log.info("waking the connection: %s is waiting to be sent", kind)
        self._bus.emit(ConnectionWaking(woken_by=str(kind)))
        self._state.set(AgentState.CONNECTING, "waking from rest")

    def _period(self) -> float | None:
        minutes = self._minutes()
        return minutes * _SECONDS_PER_MINUTE if minutes > 0 else None

    def _arm(self, delay: float | None) -> None:
        self.cancel()
        if delay is not None:
            self._timer = self._scheduler.call_later(delay, self._due)

    def _due(self) -> None:
        self._timer = None
        if self._state.state is not AgentState.READY:
            return
        if not self._is_quiet() or not self._rest():
            # Something is still going on (a notice on its way, a call unanswered): look
            # again after another stretch.
            self._arm(self._period())
