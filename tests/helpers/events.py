"""One :class:`EventLog` for every test that watches an event bus."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from sammy_desktop.core.events import AgentState, StateChanged
from sammy_desktop.eventbus import Event, EventBus

__all__ = ["EventLog"]

E = TypeVar("E", bound=Event)


class EventLog:
    """Every event on the bus, in order, with waits that resolve as soon as a match arrives.

    Attributes:
        events: every event so far, oldest first.
    """

    def __init__(self, bus: EventBus) -> None:
        self.events: list[Event] = []
        self._waiters: list[tuple[Callable[[Event], bool], int, asyncio.Future[Event]]] = []
        bus.subscribe(Event, self._on_event)

    @property
    def all(self) -> list[Event]:
        """Every event so far (the same list as :attr:`events`)."""
        return self.events

    def _on_event(self, event: Event) -> None:
        self.events.append(event)
        for matches, count, future in list(self._waiters):
            if not future.done() and sum(1 for e in self.events if matches(e)) >= count:
                future.set_result(event)

    def of(self, kind: type[E]) -> list[E]:
        """The events of ``kind`` (or a subclass) so far."""
        return [e for e in self.events if isinstance(e, kind)]

    def one(self, kind: type[E]) -> E:
        """The only event of ``kind``; fails when there is none or more than one."""
        found = self.of(kind)
        assert len(found) == 1, f"expected one {kind.__name__}, got {found}"
        return found[0]

    def states(self) -> list[AgentState]:
        """The states the agent moved to, in order."""
        return [e.new for e in self.of(StateChanged)]

    def clear(self) -> None:
        """Forget the events so far (waits in progress keep waiting)."""
        self.events.clear()

    async def wait_for(
        self,
        kind: type[E],
        predicate: Callable[[E], bool] | None = None,
        *,
        count: int = 1,
        within_s: float = 5.0,
    ) -> E:
        """The ``count``-th event of ``kind`` matching ``predicate`` (already seen or coming).

        Raises:
            TimeoutError: it did not come within ``within_s`` seconds; the message lists the
                last events that did.
        """

        def matches(event: Event) -> bool:
            return isinstance(event, kind) and (predicate is None or predicate(event))

        def found() -> E:
            event = [e for e in self.events if matches(e)][count - 1]
            assert isinstance(event, kind)
            return event

        if sum(1 for e in self.events if matches(e)) >= count:
            return found()
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        entry = (matches, count, future)
        self._waiters.append(entry)
        try:
            await asyncio.wait_for(future, within_s)
        except TimeoutError:
            names = [type(e).__name__ for e in self.events[-15:]]
            raise TimeoutError(
                f"no {kind.__name__} #{count} within {within_s} s; last: {names}"
            ) from None
        finally:
            self._waiters.remove(entry)
        return found()

    async def wait_state(self, state: AgentState, *, count: int = 1, within_s: float = 5.0) -> None:
        """Wait until the agent has moved to ``state`` ``count`` times."""
        await self.wait_for(StateChanged, lambda e: e.new is state, count=count, within_s=within_s)


async def next_event(
    bus: EventBus, kind: type[E], match: Callable[[E], bool] = lambda _e: True
) -> E:
    """The next ``kind`` event that matches (at most 10 s); subscribe before acting.

    For tests that have no :class:`EventLog` of their own (wrap it in
    ``asyncio.ensure_future`` before doing what should cause it).
    """
    future: asyncio.Future[E] = asyncio.get_running_loop().create_future()

    def on_event(event: E) -> None:
        if match(event) and not future.done():
            future.set_result(event)

    subscription = bus.subscribe(kind, on_event)
    try:
        return await asyncio.wait_for(future, 10)
    finally:
        subscription.cancel()
