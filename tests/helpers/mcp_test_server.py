"""A real MCP server for the tests, built on the SDK's ``MCPServer`` (mcp 2.x).

Run it from the repository root, over streamable HTTP on 127.0.0.1 or over stdio::

    python -m tests.helpers.mcp_test_server --port 8123 --events /tmp/events.txt
    python -m tests.helpers.mcp_test_server --port 0 --events /tmp/events.txt  # a free port
    python -m tests.helpers.mcp_test_server --stdio --events /tmp/events.txt

The HTTP endpoint is ``http://127.0.0.1:<port>/mcp``. What happens inside the server is
appended to the ``--events`` file, one line each, so a test can wait for it even after the
call that caused it is gone (see ``tests/helpers/mcp_servers.py``):

- ``pid <pid>`` when the process starts, ``listening <port>`` once HTTP accepts connections;
- ``started slow_echo <text>``, then ``finished slow_echo <text>`` or
  ``cancelled slow_echo <text>`` when the client abandoned the call;
- ``crashing <pid>`` just before ``crash`` kills the process;
- ``added tool <name>`` when ``add_tool`` registered a tool.

The tools:

- ``slow_echo(text, seconds)``: sleeps, then returns ``text``; records its cancellation.
- ``fail(reason)``: an ``is_error`` result whose only text is ``reason``.
- ``raise_tool_error(reason)``: raises ``ToolError``; the SDK turns it into an ``is_error``
  result reading ``Error executing tool raise_tool_error: <reason>``.
- ``plan_trip(trip)``: nested pydantic input (an enum, an object, a list); returns a model,
  so the result has ``structured_content`` and the tool an ``output_schema``.
- ``delete_file(path)``: annotated destructive; deletes nothing.
- ``read_only_lookup(key)``: annotated read-only.
- ``crash(after_s)``: the process exits with status 3 after ``after_s`` seconds, mid-call.
- ``add_tool(name)``: registers tool ``name`` (it returns ``"<name> called"``) and announces
  the change both ways: ``subscriptions/listen`` streams (2026-07-28 connections) and a
  ``notifications/tools/list_changed`` (handshake-era connections).
- ``image()``: a small PNG image block and a text block.
- ``resource()``: a text block, embedded text and blob resources, and a resource link.
- ``events()``: the event lines so far (the same as the file).
"""

from __future__ import annotations

import argparse
import base64
import os
import socket
import sys
import zlib
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.models import InitializationOptions
from pydantic import BaseModel, Field

HOST = "127.0.0.1"
PATH = "/mcp"
CRASH_EXIT_CODE = 3


class EventRecorder:
    """Appends event lines to a file (when given) and keeps them in memory."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lines: list[str] = []

    def record(self, line: str) -> None:
        self.lines.append(line)
        if self.path is not None:
            # One short write per line, flushed on close: a reader never sees half a line.
            with self.path.open("a", encoding="utf-8") as f:
                f.write(line + "\n")


def _png(width: int = 2, height: int = 2, rgb: tuple[int, int, int] = (255, 0, 0)) -> bytes:
    """A tiny valid PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    row = b"\x00" + bytes(rgb) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


PNG_BYTES = _png()


class TravelMode(StrEnum):
    """How the trip is made."""

    TRAIN = "train"
    CAR = "car"
    PLANE = "plane"


class Destination(BaseModel):
    """Where the trip goes."""

    city: str
    country: str


class Trip(BaseModel):
    """A trip to plan."""

    mode: TravelMode
    destination: Destination
    travellers: list[str] = Field(min_length=1, description="Who travels")
    nights: int = Field(default=1, ge=1, le=30)


class TripPlan(BaseModel):
    """The plan ``plan_trip`` returns (structured content)."""

    summary: str
    mode: TravelMode
    city: str
    country: str
    travellers: int
    nights: int


def build_server(recorder: EventRecorder) -> MCPServer:
    """The test server with all its tools."""
    server = MCPServer(
        "sammy-mcp-test-server", version="1.0", instructions="A server for the tests."
    )

    @server.tool(description="Wait `seconds`, then return `text`.")
    async def slow_echo(text: str, seconds: float) -> str:
        recorder.record(f"started slow_echo {text}")
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            recorder.record(f"cancelled slow_echo {text}")
            raise
        recorder.record(f"finished slow_echo {text}")
        return text

    @server.tool(description="Return an error result whose text is `reason`.")
    def fail(reason: str) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(text=reason)], is_error=True)

    @server.tool(description="Raise ToolError(reason).")
    def raise_tool_error(reason: str) -> str:
        raise ToolError(reason)

    @server.tool(description="Plan a trip.")
    def plan_trip(trip: Trip) -> TripPlan:
        return TripPlan(
            summary=(
                f"{len(trip.travellers)} by {trip.mode.value} to {trip.destination.city}, "
                f"{trip.destination.country} for {trip.nights} night(s)"
            ),
            mode=trip.mode,
            city=trip.destination.city,
            country=trip.destination.country,
            travellers=len(trip.travellers),
            nights=trip.nights,
        )

    @server.tool(
        description="Delete a file (pretends to).",
        annotations=types.ToolAnnotations(
            title="Delete a file", read_only_hint=False, destructive_hint=True
        ),
    )
    def delete_file(path: str) -> str:
        return f"deleted {path}"

    @server.tool(
        description="Look a key up.",
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    def read_only_lookup(key: str) -> str:
        return f"value of {key}"

    @server.tool(description="Exit the server process (status 3) after `after_s` seconds.")
    async def crash(after_s: float) -> str:
        await anyio.sleep(after_s)
        recorder.record(f"crashing {os.getpid()}")
        os._exit(CRASH_EXIT_CODE)

    @server.tool(description="Register a new tool called `name` and announce the change.")
    async def add_tool(
        name: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")], ctx: Context
    ) -> str:
        def added() -> str:
            return f"{name} called"

        server.add_tool(added, name=name, description=f"Added at runtime by add_tool({name!r}).")
        recorder.record(f"added tool {name}")
        # 2026-07-28: change events reach clients only on their subscriptions/listen streams.
        await ctx.notify_tools_changed()
        # Handshake era: a notifications/tools/list_changed on the session's standalone
        # channel (the GET stream over HTTP, stdout over stdio). At 2026-07-28 the SDK drops
        # this one (logged at DEBUG), so sending both is right for either era.
        await ctx.session.send_tool_list_changed()
        return f"added {name}"

    @server.tool(description="A small PNG and a caption.")
    def image() -> list[types.ContentBlock]:
        return [
            types.ImageContent(data=base64.b64encode(PNG_BYTES).decode(), mime_type="image/png"),
            types.TextContent(text="a 2x2 red square"),
        ]

    @server.tool(description="Embedded resources and a resource link.")
    def resource() -> list[types.ContentBlock]:
        return [
            types.TextContent(text="here are the notes"),
            types.EmbeddedResource(
                resource=types.TextResourceContents(
                    uri="test://notes/1", mime_type="text/plain", text="Buy milk."
                )
            ),
            types.EmbeddedResource(
                resource=types.BlobResourceContents(
                    uri="test://images/red.png",
                    mime_type="image/png",
                    blob=base64.b64encode(PNG_BYTES).decode(),
                )
            ),
            types.ResourceLink(uri="test://notes/2", name="notes-2", mime_type="text/plain"),
        ]

    @server.tool(description="The events recorded so far.")
    def events() -> list[str]:
        return list(recorder.lines)

    _advertise_tools_list_changed(server)
    return server


def _advertise_tools_list_changed(server: MCPServer) -> None:
    """Claim ``tools.listChanged`` in the handshake-era ``initialize`` result too.

    ``MCPServer`` builds its ``initialize`` capabilities with default ``NotificationOptions``
    (``listChanged: false``); at 2026-07-28 the flag follows from serving
    ``subscriptions/listen`` and is already true. This server does send the notification,
    so it says so in both eras.
    """
    lowlevel = server._lowlevel_server
    build = lowlevel.create_initialization_options

    def create_initialization_options(
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return build(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )

    lowlevel.create_initialization_options = create_initialization_options  # type: ignore[method-assign]


async def _serve_http(server: MCPServer, recorder: EventRecorder, port: int) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    bound_port = sock.getsockname()[1]
    config = uvicorn.Config(
        server.streamable_http_app(streamable_http_path=PATH, host=HOST),
        log_level="warning",
        # Open SSE streams would otherwise hold a SIGTERM'd server up indefinitely.
        timeout_graceful_shutdown=1,
        lifespan="on",
    )
    http = uvicorn.Server(config)

    async def announce() -> None:
        while not http.started:
            if http.should_exit:
                return
            await anyio.sleep(0.01)
        recorder.record(f"listening {bound_port}")

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await http.serve(sockets=[sock])
        tg.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.helpers.mcp_test_server")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", type=int, help="serve streamable HTTP on 127.0.0.1:PORT (0: any)")
    where.add_argument("--stdio", action="store_true", help="serve over stdin/stdout")
    parser.add_argument("--events", type=Path, help="append event lines to this file")
    args = parser.parse_args(argv)

    recorder = EventRecorder(args.events)
    recorder.record(f"pid {os.getpid()}")
    server = build_server(recorder)
    if args.stdio:
        anyio.run(server.run_stdio_async)
    else:
        anyio.run(_serve_http, server, recorder, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
