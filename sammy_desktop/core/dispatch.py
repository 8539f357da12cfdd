"""Each server message to the part that handles it, one field at a time.

A ``LiveServerMessage`` carries one or more fields (``serverContent``, ``toolCall``,
``goAway`` ...). :class:`MessageDispatcher` calls the handler registered for each field
present, in the table's order, and keeps going when one handler fails: one message the app
cannot handle never ends a conversation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from sammy_desktop.live_sdk import types

__all__ = ["MessageDispatcher"]

_log = logging.getLogger(__name__)


class MessageDispatcher:
    """Routes the fields of server messages to their handlers.

    Args:
        handlers: ``(field name, handler)`` pairs in the order fields are applied; the
            names are ``LiveServerMessage`` attributes (``server_content``, ``tool_call``).
    """

    def __init__(self, handlers: Sequence[tuple[str, Callable[[Any], None]]]) -> None:
        self._handlers = tuple(handlers)

    def dispatch(self, message: types.LiveServerMessage) -> None:
        """Hand each field of ``message`` to its handler."""
        handled = False
        for field, handle in self._handlers:
            value = getattr(message, field)
            if value is None:
                continue
            handled = True
            try:
                handle(value)
            except Exception:  # noqa: BLE001 - one bad message must not end the conversation
                _log.exception("failed to handle a %s message", field)
        if not handled:
            _log.warning("unexpected message from the service, ignored: %r", message)
