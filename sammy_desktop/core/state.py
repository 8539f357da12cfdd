"""The agent's state: one value the window renders, changed in one place.

:class:`AgentStateMachine` holds the :class:`~sammy_desktop.core.events.AgentState`, emits a
``StateChanged`` event for every transition, and tells its owner about each transition
right after the event (the agent core does its quiet-moment work on entering Ready). A
progress flag is set on every transition and on every other event worth re-checking a
condition for (the speaker drained), so a coroutine can wait for a condition without
polling (:meth:`AgentStateMachine.wait_until`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sammy_desktop.core.events import AgentState, StateChanged
from sammy_desktop.eventbus import EventBus

__all__ = ["AgentStateMachine"]

_log = logging.getLogger(__name__)


class AgentStateMachine:
    """The current state, its transitions and a way to wait for a condition on it.

    Args:
        bus: where ``StateChanged`` goes.
        on_transition: called with ``(old, new)`` after each transition's event.
    """

    def __init__(
        self,
        bus: EventBus,
        on_transition: Callable[[AgentState, AgentState], None] | None = None,
    ) -> None:
        self._bus = bus
        self._on_transition = on_transition
        self._state = AgentState.DISCONNECTED
        self._progress = asyncio.Event()

    @property
    def state(self) -> AgentState:
        """The current state."""
        return self._state

    def set(self, new: AgentState, reason: str = "") -> None:
        """Move to ``new`` (nothing happens when already there)."""
        old = self._state
        if new is old:
            return
        self._state = new
        self._progress.set()
        _log.debug("state %s -> %s (%s)", old, new, reason)
        self._bus.emit(StateChanged(old=old, new=new, reason=reason))
        if self._on_transition is not None:
            self._on_transition(old, new)

    def progress(self) -> None:
        """Something other than the state changed that a waiting condition may depend on."""
        self._progress.set()

    async def wait_until(self, condition: Callable[[], bool]) -> None:
        """Return once ``condition()`` holds, re-checking it after each change."""
        while not condition():
            self._progress.clear()
            await self._progress.wait()
