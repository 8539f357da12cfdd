"""Every frame the simulator sends on one connection, and how a connection is closed.

:class:`Outbound` holds each frame back while the simulator (``LiveSimulator.set_stalled``)
or the connection (a :class:`~sammy_desktop.sim.actions.Stall`) is stalled, except in tasks
that called :func:`bypass_stall` (the test controls); refuses a frame the client's 1 MiB
limit would reject; and records what it sent, with audio payloads replaced by their size.
:func:`close_websocket` closes with a reason cut to what a close frame carries, or drops the
TCP link the way a crashed server would.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from sammy_desktop.sim.wire import MAX_FRAME_BYTES, CloseCode

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

__all__ = [
    "INTERNAL_ERROR_REASON",
    "Outbound",
    "SimulatorScenarioError",
    "bypass_stall",
    "close_websocket",
    "truncate_reason",
]

INTERNAL_ERROR_REASON = "Internal error encountered."
# Close reasons are limited to 123 bytes by the websocket protocol.
_MAX_REASON_BYTES = 123

# Set inside tasks started by test controls, so they get through a stall.
_bypass_stall: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "sammy_sim_bypass_stall", default=False
)


class SimulatorScenarioError(RuntimeError):
    """A scenario action that cannot be carried out (e.g. a frame that would exceed 1 MiB)."""


def bypass_stall() -> None:
    """Let the frames of the current task through any stall (call it inside a new task)."""
    _bypass_stall.set(True)


def truncate_reason(reason: str) -> str:
    """Cut a close reason to the 123 bytes a close frame carries, on a character boundary."""
    encoded = reason.encode("utf-8")[:_MAX_REASON_BYTES]
    return encoded.decode("utf-8", errors="ignore")


async def close_websocket(websocket: ServerConnection, code: int | None, reason: str = "") -> None:
    """Close with ``code``; None or 1006 drops the TCP link with no close frame.

    Args:
        websocket: The server side of a connection.
        code: A websocket close code, or None / 1006 for an abrupt close.
        reason: The close reason (cut to the protocol's 123 bytes).
    """
    if code is None or code == CloseCode.ABNORMAL:
        websocket.transport.abort()
        return
    await websocket.close(code, truncate_reason(reason))


class Outbound:
    """The sending side of one connection.

    Args:
        websocket: The server side of the connection.
        simulator_running: Set while the simulator is not stalled.
        record: Records one sent frame's kind (``"sent.<key>"``) and data.
    """

    def __init__(
        self,
        websocket: ServerConnection,
        *,
        simulator_running: asyncio.Event,
        record: Callable[[str, Mapping[str, Any]], None],
    ) -> None:
        self._websocket = websocket
        self._simulator_running = simulator_running
        self._record = record
        self._connection_running = asyncio.Event()
        self._connection_running.set()
        self._stalled = False
        self._lock = asyncio.Lock()

    @property
    def stalled(self) -> bool:
        """True after :meth:`stall`: this connection never answers again."""
        return self._stalled

    def stall(self) -> None:
        """Hold back every later frame of this connection, except the test controls'."""
        self._stalled = True
        self._connection_running.clear()

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send one frame, waiting while the simulator or this connection is stalled.

        Raises:
            SimulatorScenarioError: The frame would exceed the client's 1 MiB limit.
        """
        if not _bypass_stall.get():
            await self._simulator_running.wait()
            await self._connection_running.wait()
        frame = json.dumps(message, separators=(",", ":"))
        size = len(frame.encode("utf-8"))
        if size >= MAX_FRAME_BYTES:
            raise SimulatorScenarioError(
                f"a {next(iter(message), '?')} frame of {size} bytes would exceed the client's "
                "1 MiB limit"
            )
        async with self._lock:
            await self._websocket.send(frame)
        for key, body in message.items():
            self._record(f"sent.{key}", {key: _summarise(body)})


def _summarise(body: Any) -> Any:
    """Replace audio payloads by their size so the recorder stays small."""
    if not isinstance(body, Mapping):
        return body
    turn = body.get("modelTurn")
    if not isinstance(turn, Mapping):
        return body
    parts = []
    for part in turn.get("parts", []):
        inline = part.get("inlineData") if isinstance(part, Mapping) else None
        if isinstance(inline, Mapping):
            data = inline.get("data", "")
            parts.append(
                {"inlineData": {"mimeType": inline.get("mimeType"), "base64_chars": len(data)}}
            )
        else:
            parts.append(part)
    return {**body, "modelTurn": {"parts": parts}}
