"""From the service's ``toolCall`` to the tool system and back, for one connection at a time.

:class:`ToolCallRouter` hands each tool call message to the tool runner in a task of its
own (the receive loop never waits for a tool) with a :data:`~sammy_desktop.tools.calls.Respond`
that sends on the connection the call came in on. A connection counts as a generation:
answers produced for an older one are dropped, never sent on its successor. It also passes
on cancellations, abandons the calls of a connection that closed, and counts tool time
into the turn that asked. What is in flight is the runner's ledger's business; the router
keeps no per-call state of its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sammy_desktop.core.events import (
    SentToolAnswer,
    ToolAnswersDropped,
    ToolAnswersSent,
    ToolCallsAbandoned,
    ToolCallsCancelled,
    ToolCallsReceived,
)
from sammy_desktop.core.live import LiveConnection, LiveConnectionError
from sammy_desktop.core.ports import ToolRunner
from sammy_desktop.core.turns import TurnTracker
from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import types
from sammy_desktop.tools.calls import CallPhase, Respond

__all__ = ["ToolCallRouter"]

_log = logging.getLogger(__name__)


class ToolCallRouter:
    """Runs each tool call message and delivers its answers on the right connection.

    Args:
        bus: where the calls' comings and goings are announced (the history records them).
        tools: the tool runner.
        turns: the turn the calls belong to (tool time and call counts go there).
        connection: the open connection, or None.
        clock: monotonic seconds.
        on_settled: called once the model waits for no tool answer any more (after the
            last answer of a batch went out).
    """

    def __init__(
        self,
        *,
        bus: EventBus,
        tools: ToolRunner,
        turns: TurnTracker,
        connection: Callable[[], LiveConnection | None],
        clock: Callable[[], float],
        on_settled: Callable[[], None],
    ) -> None:
        self._bus = bus
        self._tools = tools
        self._turns = turns
        self._connection = connection
        self._clock = clock
        self._on_settled = on_settled
        self._generation = 0  # counts connections; answers for an old one are dropped
        self._tasks: set[asyncio.Task[None]] = set()
        tools.calls.add_answer_listener(self._on_answered)

    def awaiting_answer(self) -> bool:
        """True while the model waits for a tool answer (open streams do not count)."""
        return self._tools.calls.awaiting_answer()

    def new_connection(self) -> None:
        """A connection opened: answers from now on are for it."""
        self._generation += 1

    def handle_call(self, call: types.LiveServerToolCall) -> None:
        """Start answering every call of ``call`` (returns at once)."""
        turn = self._turns.turn
        calls = tuple(
            (fc.id or "", fc.name or "", dict(fc.args or {})) for fc in call.function_calls or ()
        )
        turn.tool_calls += len(calls)
        self._bus.emit(ToolCallsReceived(turn_id=turn.turn_id, calls=calls))
        generation, started, turn_id = self._generation, self._clock(), turn.turn_id

        async def respond(responses: list[types.FunctionResponse]) -> None:
            await self._deliver(responses, generation, started, turn_id)

        task = asyncio.create_task(
            self._run(call, respond),
            name=f"tool-call-{'-'.join(fc.id or '?' for fc in call.function_calls or ())}",
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def handle_cancellation(self, cancellation: types.LiveServerToolCallCancellation) -> None:
        """The service withdrew calls: stop them; nothing may be sent for them."""
        ids = tuple(i for i in cancellation.ids or () if i)
        self._tools.cancel(ids)
        self._bus.emit(ToolCallsCancelled(ids=ids))

    def abandon(self) -> None:
        """The connection closed: its calls can no longer be answered; stop them.

        A resumed session asks again if it still needs them.
        """
        ids = tuple(self._tools.calls.ids())
        if ids:
            self._tools.cancel(ids)
            self._bus.emit(ToolCallsAbandoned(ids=ids))

    def tasks(self) -> list[asyncio.Task[None]]:
        """The message tasks still running (for a shutdown)."""
        return [task for task in self._tasks if not task.done()]

    async def _run(self, call: types.LiveServerToolCall, respond: Respond) -> None:
        try:
            await self._tools.handle(call, respond)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the runner answers every call; a bug is logged
            _log.exception(
                "the tool runner failed on %s", [fc.id for fc in call.function_calls or ()]
            )

    async def _deliver(
        self,
        responses: list[types.FunctionResponse],
        generation: int,
        started: float,
        turn_id: int,
    ) -> None:
        connection = self._connection()
        if generation != self._generation or connection is None:
            self._bus.emit(
                ToolAnswersDropped(
                    ids=tuple(r.id or "" for r in responses),
                    reason="the connection it was for has closed",
                )
            )
            return
        calls = self._tools.calls
        live = [r for r in responses if calls.is_live(r.id or "")]
        if not live:
            return  # cancelled by the service: nothing may be sent for those
        # Read before sending: the runner records the answers once this returns.
        first_answers = [r for r in live if calls.phase(r.id or "") is CallPhase.RUNNING]
        try:
            await connection.send_tool_response(live)
        except LiveConnectionError as exc:
            _log.info("tool response not delivered: %s", exc)
            return
        if first_answers and turn_id == self._turns.turn.turn_id:
            # The first answer is what the model waited for; a stream's later ones come
            # on their own (a timer ending), so only this one counts as tool time.
            waited_ms = (self._clock() - started) * 1000
            self._turns.turn.tool_ms += waited_ms * len(first_answers)
            self._turns.tools_waited(waited_ms)
        self._bus.emit(
            ToolAnswersSent(
                answers=tuple(
                    SentToolAnswer(
                        call_id=r.id or "",
                        name=r.name or "",
                        response=dict(r.response or {}),
                        will_continue=bool(r.will_continue),
                    )
                    for r in live
                )
            )
        )

    def _on_answered(self, call_id: str) -> None:
        if not self.awaiting_answer():
            self._on_settled()
