"""The MCP test servers (tests/helpers/mcp_servers.py) against the real ``mcp`` 2.x client.

These tests pin down what the app's MCP client can rely on: the negotiated protocol
versions, how a tool-list change reaches the client, that a cancelled call is cancelled in
the server, and what a crashed server looks like from the client.
"""

from __future__ import annotations

import base64
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Literal

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client, MCPError
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters
from mcp.client.subscriptions import ToolsListChanged
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

from tests.helpers.mcp_servers import (
    McpHttpServer,
    McpStdioServer,
    mcp_http_server_fixture,  # noqa: F401 - the fixture mcp_http_server
    mcp_stdio_server_fixture,  # noqa: F401 - the fixture mcp_stdio_server
    time_server_params,
)
from tests.helpers.mcp_test_server import PNG_BYTES

MODERN = "2026-07-28"
LEGACY = "2025-11-25"

TEST_SERVER_TOOLS = {
    "slow_echo",
    "fail",
    "raise_tool_error",
    "plan_trip",
    "delete_file",
    "read_only_lookup",
    "crash",
    "add_tool",
    "image",
    "resource",
    "events",
}

Transport = Literal["http", "stdio"]
Mode = Literal["auto", "legacy"]
ERAS: list[tuple[Transport, Mode]] = [
    ("http", "auto"),
    ("http", "legacy"),
    ("stdio", "auto"),
    ("stdio", "legacy"),
]


class Servers:
    """Both fixtures, so one parametrized test can use either transport."""

    def __init__(self, http: McpHttpServer | None, stdio: McpStdioServer | None) -> None:
        self.http = http
        self.stdio = stdio

    def target(self, transport: Transport) -> str | StdioServerParameters:
        if transport == "http":
            assert self.http is not None
            return self.http.url
        assert self.stdio is not None
        return self.stdio.params

    async def wait_for_event(self, transport: Transport, expected: str | re.Pattern[str]) -> str:
        server = self.http if transport == "http" else self.stdio
        assert server is not None
        return await server.wait_for_event(expected)


@pytest.fixture
def servers(request: pytest.FixtureRequest) -> Servers:
    """The fixture the test's ``transport`` parameter names (the other stays unstarted)."""
    transport = request.node.callspec.params["transport"]
    if transport == "http":
        return Servers(request.getfixturevalue("mcp_http_server"), None)
    return Servers(None, request.getfixturevalue("mcp_stdio_server"))


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


# ------------------------------------------------------------------ listing tools


async def test_http_server_lists_its_tools_at_2026_07_28(mcp_http_server: McpHttpServer) -> None:
    async with Client(mcp_http_server.url) as client:
        assert client.protocol_version == MODERN
        assert client.server_info is not None
        assert client.server_info.name == "sammy-mcp-test-server"
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    assert set(tools) == TEST_SERVER_TOOLS
    delete = tools["delete_file"].annotations
    assert delete is not None
    assert (delete.destructive_hint, delete.read_only_hint) == (True, False)
    lookup = tools["read_only_lookup"].annotations
    assert lookup is not None
    assert lookup.read_only_hint is True
    assert lookup.destructive_hint is None  # unset hints stay None (the spec default applies)
    assert tools["slow_echo"].annotations is None

    plan = tools["plan_trip"]
    assert plan.input_schema["required"] == ["trip"]
    assert plan.input_schema["properties"]["trip"] == {"$ref": "#/$defs/Trip"}
    defs = plan.input_schema["$defs"]
    assert defs["TravelMode"]["enum"] == ["train", "car", "plane"]
    assert defs["Trip"]["properties"]["destination"] == {"$ref": "#/$defs/Destination"}
    assert defs["Trip"]["required"] == ["mode", "destination", "travellers"]
    assert defs["Destination"]["required"] == ["city", "country"]
    assert plan.output_schema is not None
    assert plan.output_schema["title"] == "TripPlan"


async def test_http_server_in_legacy_mode_negotiates_2025_11_25(
    mcp_http_server: McpHttpServer,
) -> None:
    async with Client(mcp_http_server.url, mode="legacy") as client:
        assert client.protocol_version == LEGACY
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        tools = (await client.list_tools()).tools
    assert {tool.name for tool in tools} == TEST_SERVER_TOOLS


async def test_stdio_test_server_lists_its_tools(mcp_stdio_server: McpStdioServer) -> None:
    async with Client(mcp_stdio_server.params) as client:
        assert client.protocol_version == MODERN
        tools = (await client.list_tools()).tools
    assert {tool.name for tool in tools} == TEST_SERVER_TOOLS
    assert len(mcp_stdio_server.pids()) == 1


async def test_time_server_over_stdio_lists_its_tools() -> None:
    async with Client(time_server_params()) as client:
        assert client.protocol_version == MODERN
        assert client.server_info is not None
        assert client.server_info.name == "mcp-time"
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    assert set(tools) == {"get_current_time", "convert_time"}
    now = tools["get_current_time"].input_schema
    assert now["type"] == "object"
    assert now["required"] == ["timezone"]
    assert now["properties"]["timezone"]["type"] == "string"
    convert = tools["convert_time"].input_schema
    assert convert["required"] == ["source_timezone", "time", "target_timezone"]
    assert {p["type"] for p in convert["properties"].values()} == {"string"}
    for tool in tools.values():
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        assert tool.output_schema is not None


async def test_time_server_tells_the_time_in_paris() -> None:
    async with Client(time_server_params()) as client:
        result = await client.call_tool("get_current_time", {"timezone": "Europe/Paris"})

    assert result.is_error is False
    assert isinstance(result.structured_content, dict)
    assert result.structured_content["timezone"] == "Europe/Paris"
    when = datetime.fromisoformat(result.structured_content["datetime"])
    assert when.utcoffset() in (timedelta(hours=1), timedelta(hours=2))
    assert abs(when - datetime.now(UTC)) < timedelta(minutes=2)
    # The same result as JSON text, for clients that read only content.
    assert '"timezone": "Europe/Paris"' in text_of(result)


# ------------------------------------------------------------------ results


async def test_fail_gives_an_error_result(mcp_http_server: McpHttpServer) -> None:
    async with Client(mcp_http_server.url) as client:
        failed = await client.call_tool("fail", {"reason": "the printer is on fire"})
        raised = await client.call_tool("raise_tool_error", {"reason": "no paper"})

    assert failed.is_error is True
    assert text_of(failed) == "the printer is on fire"
    assert failed.structured_content is None
    assert raised.is_error is True
    assert text_of(raised) == "Error executing tool raise_tool_error: no paper"


async def test_plan_trip_gives_structured_content(mcp_http_server: McpHttpServer) -> None:
    trip = {
        "mode": "train",
        "destination": {"city": "Lyon", "country": "France"},
        "travellers": ["Ann", "Bo"],
    }
    async with Client(mcp_http_server.url) as client:
        result = await client.call_tool("plan_trip", {"trip": trip})
        invalid = await client.call_tool("plan_trip", {"trip": {**trip, "mode": "bike"}})

    assert result.is_error is False
    assert result.structured_content == {
        "summary": "2 by train to Lyon, France for 1 night(s)",
        "mode": "train",
        "city": "Lyon",
        "country": "France",
        "travellers": 2,
        "nights": 1,
    }
    assert '"city": "Lyon"' in text_of(result)
    # Arguments that fail the schema come back as an error result, not a protocol error.
    assert invalid.is_error is True
    assert text_of(invalid).startswith("Error executing tool plan_trip: ")


async def test_image_and_resource_content_blocks(mcp_http_server: McpHttpServer) -> None:
    async with Client(mcp_http_server.url) as client:
        image = await client.call_tool("image", {})
        resource = await client.call_tool("resource", {})

    picture, caption = image.content
    assert isinstance(picture, types.ImageContent)
    assert picture.mime_type == "image/png"
    assert base64.b64decode(picture.data) == PNG_BYTES
    assert isinstance(caption, types.TextContent)
    assert caption.text == "a 2x2 red square"

    text, notes, blob, link = resource.content
    assert isinstance(text, types.TextContent)
    assert isinstance(notes, types.EmbeddedResource)
    assert isinstance(notes.resource, types.TextResourceContents)
    assert (str(notes.resource.uri), notes.resource.text) == ("test://notes/1", "Buy milk.")
    assert isinstance(blob, types.EmbeddedResource)
    assert isinstance(blob.resource, types.BlobResourceContents)
    assert base64.b64decode(blob.resource.blob) == PNG_BYTES
    assert isinstance(link, types.ResourceLink)
    assert str(link.uri) == "test://notes/2"


# ------------------------------------------------------------------ cancellation


@pytest.mark.parametrize(("transport", "mode"), ERAS)
async def test_a_call_the_client_cancels_is_cancelled_in_the_server(
    servers: Servers, transport: Transport, mode: Mode
) -> None:
    text = f"cancel-{transport}-{mode}"
    async with Client(servers.target(transport), mode=mode) as client:
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, "slow_echo", {"text": text, "seconds": 30})
                await servers.wait_for_event(transport, f"started slow_echo {text}")
                scope.cancel()
        assert scope.cancelled_caught
        await servers.wait_for_event(transport, f"cancelled slow_echo {text}")
        # The connection survives the cancelled call.
        assert text_of(await client.call_tool("slow_echo", {"text": "after", "seconds": 0})) == (
            "after"
        )


@pytest.mark.parametrize(("transport", "mode"), ERAS)
async def test_a_call_that_times_out_is_cancelled_in_the_server(
    servers: Servers, transport: Transport, mode: Mode
) -> None:
    text = f"timeout-{transport}-{mode}"
    async with Client(servers.target(transport), mode=mode) as client:
        started = time.monotonic()
        with pytest.raises(MCPError) as raised:
            await client.call_tool(
                "slow_echo", {"text": text, "seconds": 30}, read_timeout_seconds=0.5
            )
        assert time.monotonic() - started < 5
        assert raised.value.code == REQUEST_TIMEOUT
        assert raised.value.message == "Request 'tools/call' timed out"
        await servers.wait_for_event(transport, f"cancelled slow_echo {text}")


# ------------------------------------------------------------------ list changes


@pytest.mark.parametrize(("transport", "mode"), ERAS)
async def test_add_tool_reaches_the_client_as_a_list_change(
    servers: Servers, transport: Transport, mode: Mode
) -> None:
    notified = anyio.Event()
    notifications: list[types.ToolListChangedNotification] = []

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notifications.append(message)
            notified.set()

    name = f"added_{transport}_{mode}"
    async with Client(servers.target(transport), mode=mode, message_handler=on_message) as client:
        if mode == "auto":
            assert client.protocol_version == MODERN
            # At 2026-07-28 a change reaches only a subscriptions/listen stream.
            async with client.listen(tools_list_changed=True) as subscription:
                assert subscription.honored.tools_list_changed is True
                await client.call_tool("add_tool", {"name": name})
                with anyio.fail_after(10):
                    event = await anext(subscription)
                assert isinstance(event, ToolsListChanged)
                # The listen stream's frame reaches the message handler too (in no set
                # order with the event), stamped with the subscription's id.
                with anyio.fail_after(10):
                    await notified.wait()
            assert notifications[0].params is not None
            assert notifications[0].params.meta == {
                "io.modelcontextprotocol/subscriptionId": subscription.subscription_id
            }
        else:
            assert client.protocol_version == LEGACY
            await client.call_tool("add_tool", {"name": name})
            with anyio.fail_after(10):
                await notified.wait()
            assert notifications[0].params is None
        tools = (await client.list_tools()).tools
        assert name in {tool.name for tool in tools}
        assert text_of(await client.call_tool(name, {})) == f"{name} called"
    await servers.wait_for_event(transport, f"added tool {name}")


# ------------------------------------------------------------------ crashes


@asynccontextmanager
async def client_in_own_task(
    target: str | StdioServerParameters, mode: Mode, failures: list[BaseException]
) -> AsyncIterator[Client]:
    """A client entered in a task of its own, as an app would hold one.

    Whatever ends that task (a transport failure surfaces there) lands in ``failures``.
    """
    ready = anyio.Event()
    done = anyio.Event()
    holder: list[Client] = []

    async def host() -> None:
        try:
            async with Client(target, mode=mode) as client:
                holder.append(client)
                ready.set()
                await done.wait()
        except Exception as exc:
            failures.append(exc)
        finally:
            ready.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(host)
        await ready.wait()
        assert holder, f"the client did not connect: {failures}"
        try:
            yield holder[0]
        finally:
            done.set()


def group_holds(failure: BaseException, kind: type[BaseException]) -> bool:
    if isinstance(failure, BaseExceptionGroup):
        return failure.subgroup(kind) is not None
    return isinstance(failure, kind)


@pytest.mark.parametrize(
    ("transport", "mode", "in_flight_message", "host_failure"),
    [
        # Modern HTTP: the POST of the in-flight call dies before any response header
        # (the server defers the SSE commit), and that error escapes the transport.
        ("http", "auto", "Connection closed", httpx2.RemoteProtocolError),
        # Legacy HTTP: the in-flight call's SSE stream ends; the next call's POST cannot
        # connect (or connects to the dying server and its read fails: the fresh-clone CI
        # saw a ReadError once), and that error escapes the transport.
        ("http", "legacy", "SSE stream ended without a response", httpx2.NetworkError),
        ("stdio", "auto", "Connection closed", None),
        ("stdio", "legacy", "Connection closed", None),
    ],
)
async def test_a_crashed_server_fails_the_call_in_flight_and_the_next(
    servers: Servers,
    transport: Transport,
    mode: Mode,
    in_flight_message: str,
    host_failure: type[BaseException] | None,
) -> None:
    failures: list[BaseException] = []
    async with client_in_own_task(servers.target(transport), mode, failures) as client:
        started = time.monotonic()
        with pytest.raises(MCPError) as in_flight:
            await client.call_tool("crash", {"after_s": 0.2})
        assert time.monotonic() - started < 3
        assert (in_flight.value.code, in_flight.value.message) == (
            CONNECTION_CLOSED,
            in_flight_message,
        )
        await servers.wait_for_event(transport, re.compile(r"^crashing \d+$"))

        started = time.monotonic()
        with pytest.raises(MCPError) as following:
            await client.call_tool("read_only_lookup", {"key": "k"})
        assert time.monotonic() - started < 3
        assert (following.value.code, following.value.message) == (
            CONNECTION_CLOSED,
            "Connection closed",
        )
    if host_failure is None:
        assert failures == []
    else:
        assert len(failures) == 1
        assert isinstance(failures[0], ExceptionGroup)
        assert group_holds(failures[0], host_failure), failures
    if servers.http is not None:
        assert await servers.http.wait_for_exit() == 3


async def test_over_http_a_crash_cancels_the_task_that_holds_the_client(
    mcp_http_server: McpHttpServer,
) -> None:
    """A call made in the task that entered the client is *cancelled*, not failed.

    The transport error escapes the client's task group, which cancels its host task; the
    error itself comes out of ``async with Client(...)`` as an ``ExceptionGroup``.
    """
    cancelled: list[bool] = []

    async def crash_it() -> None:
        async with Client(mcp_http_server.url) as client:
            try:
                await client.call_tool("crash", {"after_s": 0.2})
            except anyio.get_cancelled_exc_class():
                cancelled.append(True)
                raise

    with pytest.raises(ExceptionGroup) as raised:
        await crash_it()
    assert cancelled == [True]
    assert raised.group_contains(httpx2.RemoteProtocolError)
    assert await mcp_http_server.wait_for_exit() == 3


async def test_connecting_to_nothing_raises_an_exception_group(
    mcp_http_server: McpHttpServer,
) -> None:
    mcp_http_server.stop()
    with pytest.raises(ExceptionGroup) as raised:
        async with Client(mcp_http_server.url):
            pass
    assert raised.group_contains(httpx2.ConnectError)


# ------------------------------------------------------------------ the fixtures


async def test_the_http_fixture_records_events_in_order(mcp_http_server: McpHttpServer) -> None:
    async with Client(mcp_http_server.url) as client:
        await client.call_tool("slow_echo", {"text": "one", "seconds": 0})
        recorded = await client.call_tool("events", {})
    assert mcp_http_server.events()[:2] == [
        f"pid {mcp_http_server.process.pid}",
        f"listening {mcp_http_server.port}",
    ]
    assert "finished slow_echo one" in mcp_http_server.events()
    assert recorded.structured_content == {"result": mcp_http_server.events()}
    with pytest.raises(TimeoutError, match="no event 'never'"):
        await mcp_http_server.wait_for_event("never", within_s=0.1)
