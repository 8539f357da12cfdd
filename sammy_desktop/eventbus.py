"""A small typed event bus shared by every layer.

Events are frozen dataclasses deriving from :class:`Event`. Producers call
:meth:`EventBus.emit`; consumers call :meth:`EventBus.subscribe` with the event class they
want, and mypy checks that the handler accepts exactly that class. A subscription to a base
class receives every subclass too, so ``bus.subscribe(Event, handler)`` sees everything
(the Qt bridge and the history writer do this).

Delivery is synchronous, in subscription order, on the caller's thread. Handlers must be
quick; one that needs to do I/O schedules it. A handler that raises is logged and the others
still run: one broken listener never breaks the producer.

This module lives at the bottom of the layer stack (beside ``config``) because both
``tools`` and ``core`` emit events and ``ui`` listens to them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["Event", "EventBus", "Subscription"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every event. Subclasses are frozen dataclasses."""


E = TypeVar("E", bound=Event)


class Subscription:
    """A handle returned by :meth:`EventBus.subscribe`; call :meth:`cancel` to unsubscribe."""

    __slots__ = ("_bus", "_event_type", "_handler")

    def __init__(self, bus: EventBus, event_type: type[Event], handler: Callable[[Any], object]):
        self._bus = bus
        self._event_type = event_type
        self._handler = handler

    def cancel(self) -> None:
        """Stop delivering events to this handler. Calling it twice is harmless."""
        self._bus._remove(self._event_type, self._handler)


class EventBus:
    """Typed publish/subscribe for :class:`Event` subclasses."""

    def __init__(self) -> None:
        self._handlers: dict[type[Event], list[Callable[[Any], object]]] = {}

    def subscribe(self, event_type: type[E], handler: Callable[[E], object]) -> Subscription:
        """Call ``handler(event)`` for every emitted instance of ``event_type`` (or a subclass).

        Args:
            event_type: the event class to listen to; ``Event`` listens to all.
            handler: called synchronously with the event. Its return value is ignored.

        Returns:
            A :class:`Subscription` whose ``cancel()`` removes the handler.
        """
        self._handlers.setdefault(event_type, []).append(handler)
        return Subscription(self, event_type, handler)

    def emit(self, event: Event) -> None:
        """Deliver ``event`` to every handler subscribed to its class or a base class."""
        for cls in type(event).__mro__:
            handlers = self._handlers.get(cls)
            if not handlers:
                continue
            for handler in tuple(handlers):
                try:
                    handler(event)
                except Exception:  # noqa: BLE001 - one bad listener must not break the rest
                    _log.exception("event listener %r failed on %s", handler, type(event).__name__)

    def _remove(self, event_type: type[Event], handler: Callable[[Any], object]) -> None:
        handlers = self._handlers.get(event_type)
        if handlers and handler in handlers:
            handlers.remove(handler)
