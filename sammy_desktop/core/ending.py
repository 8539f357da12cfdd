"""Ending a conversation the model asked to end, once its goodbye has been heard.

The ``endSession`` tool emits ``EndSessionRequested`` while its call runs. :class:`SessionEnding`
remembers the wish; once the call's answer is out and the conversation is quiet, it lets
the model finish speaking (Ready again, the speaker drained) for at most a grace period,
then ends the session.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from sammy_desktop.core.events import END_SESSION_DEFAULT_REASON, AgentState
from sammy_desktop.core.ports import AudioSink
from sammy_desktop.core.state import AgentStateMachine
from sammy_desktop.eventbus import EventBus, Subscription
from sammy_desktop.tools.events import EndSessionRequested

__all__ = ["SessionEnding"]


class SessionEnding:
    """The model's wish to end the session, and the wait for its goodbye.

    Args:
        bus: where ``EndSessionRequested`` comes from.
        state: the agent's state.
        sink: the speaker (the goodbye must have been heard).
        grace_s: the longest wait for the goodbye.
        end: ends the session with the reason given.
    """

    def __init__(
        self,
        bus: EventBus,
        state: AgentStateMachine,
        sink: AudioSink,
        *,
        grace_s: float,
        end: Callable[[str], Awaitable[None]],
    ) -> None:
        self._bus = bus
        self._state = state
        self._sink = sink
        self._grace_s = grace_s
        self._end = end
        self._reason: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._subscription: Subscription | None = None

    @property
    def requested(self) -> bool:
        """The model asked to end this session."""
        return self._reason is not None

    def open(self) -> None:
        """A session starts: no wish yet; listen for one."""
        self._reason = None
        self._task = None
        if self._subscription is None:
            self._subscription = self._bus.subscribe(EndSessionRequested, self._on_requested)

    def close(self) -> None:
        """The session ended: stop listening."""
        if self._subscription is not None:
            self._subscription.cancel()
            self._subscription = None
        self._task = None

    def task(self) -> asyncio.Task[None] | None:
        """The wait for the goodbye, while it runs."""
        task = self._task
        return task if task is not None and not task.done() else None

    def _on_requested(self, event: EndSessionRequested) -> None:
        if self._state.state.is_running:
            self._reason = event.reason or END_SESSION_DEFAULT_REASON

    def schedule(self) -> None:
        """If the model asked to end: wait for its goodbye, then end (once)."""
        if self._reason is None or self._task is not None:
            return
        reason = self._reason

        async def end_after_goodbye() -> None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._grace_s):
                    await self._state.wait_until(
                        lambda: self._state.state is AgentState.READY and not self._sink.is_playing
                    )
            await self._end(reason)

        self._task = asyncio.create_task(end_after_goodbye(), name="agent-end-session")
