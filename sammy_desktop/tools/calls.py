"""The calls in flight: the one record of every tool call id between its arrival and its end.

:class:`ToolCallLedger` is written by the runner only (a call arrives, its task starts and
ends, an answer has gone out through :data:`Respond`, it is cancelled) and read by whoever
must know what the model is waiting for: the agent core asks
:meth:`ToolCallLedger.awaiting_answer` before it reconnects or arms its watchdog,
:meth:`ToolCallLedger.is_live` before it sends an answer (a call the service cancelled
meanwhile must get nothing), :meth:`ToolCallLedger.phase` to tell a call's first answer from
a stream's later ones, and listens for answers with
:meth:`ToolCallLedger.add_answer_listener`. Nothing else keeps per-call state.

:data:`Respond` is how answers leave the tool system: the core hands the runner one per
tool call message and sends what it is given.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeAlias

from sammy_desktop.live_sdk import types

__all__ = ["CallPhase", "Respond", "ToolCallLedger"]

Respond: TypeAlias = "Callable[[list[types.FunctionResponse]], Awaitable[None]]"
"""Sends function responses to the model (``session.send_tool_response``); called one or
more times per tool call message."""

_log = logging.getLogger(__name__)

_EARLY_CANCEL_MEMORY = 256


class CallPhase(enum.StrEnum):
    """Where one call stands."""

    RUNNING = "running"
    """Arrived, not answered yet: the model waits for it."""
    STREAMING = "streaming"
    """Answered once with ``will_continue`` (a running timer): more answers follow on their
    own, and the model is not waiting for them."""


@dataclass(slots=True)
class _Entry:
    name: str
    phase: CallPhase
    task: asyncio.Task[Any] | None = None
    cancel_requested: bool = False
    owed: int = 1  # final answers still due under this id (a refused duplicate owes one)


class ToolCallLedger:
    """Every call between its arrival and its final answer or cancellation."""

    def __init__(self) -> None:
        self._calls: dict[str, _Entry] = {}
        self._early_cancels: OrderedDict[str, None] = OrderedDict()
        self._answer_listeners: list[Callable[[str], None]] = []

    def add_answer_listener(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(call_id)`` after each answer the runner has handed to Respond."""
        self._answer_listeners.append(listener)

    # ------------------------------------------------------------------ reading

    def __contains__(self, call_id: object) -> bool:
        return call_id in self._calls

    def __len__(self) -> int:
        return len(self._calls)

    def awaiting_answer(self) -> bool:
        """True while the model waits for an answer.

        Open streams and cancelled calls do not count: the model is not waiting for them.
        """
        return any(
            entry.phase is CallPhase.RUNNING and not entry.cancel_requested
            for entry in self._calls.values()
        )

    def is_live(self, call_id: str) -> bool:
        """True when an answer may still be sent for ``call_id`` (not ended, not cancelled)."""
        entry = self._calls.get(call_id)
        return entry is not None and not entry.cancel_requested

    def phase(self, call_id: str) -> CallPhase | None:
        """The phase of ``call_id``, or None when it is not in flight."""
        entry = self._calls.get(call_id)
        return entry.phase if entry is not None else None

    def ids(self) -> list[str]:
        """Every call in flight, in order of arrival."""
        return list(self._calls)

    def describe(self) -> str:
        """The calls in flight in a few words (``slowTool (fc-1), getTime (fc-2)``), or "".

        Safe to call from another thread while the loop is blocked (the loop-stall
        watchdog does): it only reads.
        """
        entries = list(self._calls.items())
        return ", ".join(f"{entry.name} ({call_id})" for call_id, entry in entries)

    def tasks(self) -> list[asyncio.Task[Any]]:
        """The handler tasks still running (for a shutdown)."""
        return [entry.task for entry in self._calls.values() if entry.task is not None]

    # ------------------------------------------------------------------ writing (runner)

    def arrive(self, call_id: str, name: str) -> bool:
        """Record a call; False when its id is already in flight (a duplicate).

        A duplicate is not run, but it is answered (with a refusal) under the same id, so
        the ledger counts one more final answer owed for that id.
        """
        entry = self._calls.get(call_id)
        if entry is not None:
            entry.owed += 1
            return False
        self._calls[call_id] = _Entry(name=name, phase=CallPhase.RUNNING)
        return True

    def take_early_cancel(self, call_id: str) -> bool:
        """True (once) when the service cancelled ``call_id`` before it arrived."""
        if call_id in self._early_cancels:
            del self._early_cancels[call_id]
            return True
        return False

    def started(self, call_id: str, task: asyncio.Task[Any]) -> None:
        """The call's handler runs in ``task`` (what a cancellation stops)."""
        entry = self._calls.get(call_id)
        if entry is not None:
            entry.task = task

    def finished(self, call_id: str) -> bool:
        """The handler's task is over; True when the call was cancelled meanwhile.

        A cancelled call leaves the ledger here (nothing is sent for it); any other waits
        for :meth:`answered`.
        """
        entry = self._calls.get(call_id)
        if entry is None:
            return False
        entry.task = None
        if entry.cancel_requested:
            del self._calls[call_id]
            return True
        return False

    def answered(self, call_id: str, *, will_continue: bool) -> None:
        """An answer went out; with ``will_continue`` the call stays open as a stream.

        Recorded once :data:`Respond` has returned, so a Respond that looks at the ledger
        still sees the call as it was before this answer. Then the answer listeners run.
        """
        entry = self._calls.get(call_id)
        if entry is None:
            return
        if will_continue:
            entry.phase = CallPhase.STREAMING
        else:
            entry.owed -= 1
            if entry.owed <= 0:
                del self._calls[call_id]
        for listener in tuple(self._answer_listeners):
            try:
                listener(call_id)
            except Exception:  # noqa: BLE001 - one bad listener must not stop the answers
                _log.exception("tool answer listener %r failed", listener)

    def discard(self, call_id: str) -> None:
        """Forget ``call_id`` without an answer (nothing can or may be sent for it)."""
        self._calls.pop(call_id, None)

    def cancel(self, ids: Iterable[str]) -> None:
        """Stop the calls ``ids``: nothing more may be sent for them.

        A running handler is cancelled (the call leaves the ledger when its task ends); a
        call whose answer is still on its way leaves at once. An id not in flight yet is
        remembered (a bounded memory), so a cancellation that overtakes its call still
        stops it.
        """
        for call_id in ids:
            entry = self._calls.get(call_id)
            if entry is None:
                self._early_cancels[call_id] = None
                while len(self._early_cancels) > _EARLY_CANCEL_MEMORY:
                    self._early_cancels.popitem(last=False)
                continue
            entry.cancel_requested = True
            if entry.task is not None and not entry.task.done():
                entry.task.cancel()
            else:
                del self._calls[call_id]
