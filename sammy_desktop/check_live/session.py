"""The check's session: the app's connection read into a queue, its sends, and ``resumption``.

:class:`Session` drives the :class:`~sammy_desktop.core.live.LiveConnection` the connect
step opened, as the app does: one reader over :meth:`~sammy_desktop.core.live.
LiveConnection.messages` (frames the SDK cannot read skipped and counted there), typed text
as the app's ``client_content`` turn (:attr:`~sammy_desktop.core.live.RealtimeKind.
TEXT_TURN`, docs/live-service.md S1), tool answers through the app's tool system. The steps
read the messages one by one (:meth:`Session.next`); a close reaches every later read as a
:class:`~.report.Finding`. The reader also notes every ``sessionResumptionUpdate``, whichever
step was reading, for line ``resumption`` (R9).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import websockets

from sammy_desktop.check_live.report import Finding
from sammy_desktop.core.failures import FailureKind, LiveConnectionError
from sammy_desktop.core.live import LiveConnection, RealtimeInput, RealtimeKind
from sammy_desktop.live_sdk import types
from sammy_desktop.tools import Respond, ToolManager

__all__ = ["Session", "resumption"]

_log = logging.getLogger(__name__)


class _Closed:
    """Put in the message queue when the connection ended."""

    def __init__(self, error: LiveConnectionError) -> None:
        self.error = error


class Session:
    """One open connection of the check, read by :meth:`read` until it closes.

    Args:
        connection: the open connection.
        tools: the app's tool system, which answers every call.
    """

    def __init__(self, connection: LiveConnection, tools: ToolManager) -> None:
        self._connection = connection
        self._tools = tools
        self._queue: asyncio.Queue[types.LiveServerMessage | _Closed] = asyncio.Queue()
        self.closed: LiveConnectionError | None = None
        """How the connection ended, once it has."""
        self.resumable = asyncio.Event()
        """Set by the first resumable update with a handle."""
        self.resumption_updates = 0
        self.handle_chars = 0
        self.other_calls: list[str] = []
        """The calls of tools the check did not ask for, by name."""

    @property
    def malformed_frames(self) -> int:
        """Frames the SDK could not read, skipped as the app skips them."""
        return self._connection.malformed_frames

    async def read(self) -> None:
        """Every server message into the queue, across turns, until the connection ends."""
        try:
            async for message in self._connection.messages():
                self._note(message)
                self._queue.put_nowait(message)
        except LiveConnectionError as error:
            self._end(error)
        except (OSError, websockets.WebSocketException) as error:
            self._end(LiveConnectionError(FailureKind.TRANSIENT, None, str(error)))

    def _note(self, message: types.LiveServerMessage) -> None:
        update = message.session_resumption_update
        if update is None:
            return
        self.resumption_updates += 1
        if update.resumable and update.new_handle:
            self.handle_chars = len(update.new_handle)
            self.resumable.set()

    def _end(self, error: LiveConnectionError) -> None:
        self.closed = error
        self._queue.put_nowait(_Closed(error))

    async def next(self) -> types.LiveServerMessage:
        """The next server message.

        Raises:
            Finding: the connection closed.
        """
        item = await self._queue.get()
        if isinstance(item, _Closed):
            self._queue.put_nowait(item)  # every later read sees the close too
            raise Finding(f"the service closed the connection: {item.error}")
        return item

    async def send_text_turn(self, text: str) -> None:
        """Send typed text as the app sends it with activity detection off.

        Raises:
            Finding: the connection closed.
        """
        try:
            await self._connection.send_realtime(RealtimeInput(RealtimeKind.TEXT_TURN, text=text))
        except LiveConnectionError as error:
            raise Finding(f"the service closed the connection: {error}") from error

    async def handle(self, tool_call: types.LiveServerToolCall, respond: Respond) -> None:
        """Run a tool call through the app's tool system; ``respond`` sends its answers."""
        await self._tools.handle(tool_call, respond)

    async def answer_other(self, tool_call: types.LiveServerToolCall) -> None:
        """A call the check did not ask for: answered by the app's tool system all the same."""
        self.other_calls += [call.name or "?" for call in tool_call.function_calls or ()]
        await self.handle(tool_call, self.send_responses)

    async def send_responses(self, responses: list[types.FunctionResponse]) -> None:
        """Send tool answers; a closed connection is the reader's to report."""
        try:
            await self._connection.send_tool_response(responses)
        except LiveConnectionError as error:
            # The reader reports the close on the step's line; the runner need not log it.
            _log.info("check-live: the tool answer could not be sent: %s", error)


async def resumption(session: Session, limit_s: float) -> str:
    """Line ``resumption``: a ``sessionResumptionUpdate`` with ``resumable=true`` and a handle.

    One that came during the turns counts at once; otherwise it is waited for, at most
    ``limit_s``, unless the connection has closed.
    """
    if not session.resumable.is_set() and session.closed is None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(limit_s):
                await session.resumable.wait()
    if not session.resumable.is_set():
        how = "and the connection closed" if session.closed is not None else f"in {limit_s:g} s"
        raise Finding(
            f"no sessionResumptionUpdate with resumable=true and a handle {how} "
            f"({session.resumption_updates} updates, none resumable)"
        )
    return (
        f"sessionResumptionUpdate resumable=true with a handle of {session.handle_chars} "
        f"characters ({session.resumption_updates} updates)"
    )
