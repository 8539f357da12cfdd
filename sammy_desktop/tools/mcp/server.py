"""One MCP server: started in the background, watched, restarted; its tools and their calls.

:class:`McpServer` owns one entry of ``mcp.json`` for as long as the app runs it:

* **Start.** A stdio server is started as a child process (``mcp.Client`` with
  ``StdioServerParameters``: its own session, so its whole process tree is stopped with it;
  the environment is the SDK's short safe list plus the entry's ``env``, never the app's API
  key); an HTTP server is connected to with the entry's ``headers``. ``keyring:NAME``
  values are read from the keyring first, off the event loop. The handshake and the first
  ``tools/list`` must finish within :attr:`ServerPolicy.start_timeout_s`.
* **Watch.** A probe every :attr:`ServerPolicy.ping_every_s` (answered within
  :attr:`ServerPolicy.ping_timeout_s`): ``ping`` on a handshake-era connection, a fresh
  ``tools/list`` on a 2026-07-28 one (which removed ``ping``), tells a hung or vanished
  server; a call that finds the connection closed, or a change stream that is lost, says so
  at once. Either way the server is restarted.
* **Restart.** With backoff (:class:`ServerPolicy`); meanwhile its tools stay declared and
  answer "the MCP server X is restarting" at once. A server that never became ready after
  :attr:`ServerPolicy.attempts_before_failed` tries, or whose command does not exist, is
  FAILED with the reason until ``mcp.json`` changes or the person restarts it.
* **Tools.** Listed at every start and again when the server says they changed (legacy
  ``notifications/tools/list_changed`` through the message handler, or a 2026-07-28
  ``subscriptions/listen`` stream); each listing goes to ``on_tools``.
* **Calls.** Sent on the live connection; cancelling the calling task (the runner's timeout,
  the service's ``toolCallCancellation``) makes the SDK send ``notifications/cancelled`` to
  the server.
* **Stop.** The connection is closed in the task that opened it, within
  :attr:`ServerPolicy.stop_timeout_s`; the SDK waits for the child, then kills its tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import shutil
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from sammy_desktop import __version__
from sammy_desktop.tools.mcp.config import (
    ServerConfig,
    StdioTransport,
    secret_name,
)
from sammy_desktop.tools.mcp.definition import McpToolInfo
from sammy_desktop.tools.mcp.events import McpServerStatusChanged, ServerStatus
from sammy_desktop.tools.mcp.results import McpAnswer, answer_from_result
from sammy_desktop.tools.results import ToolErrorKind, ToolResult

if TYPE_CHECKING:
    from mcp import Client

    from sammy_desktop.eventbus import EventBus

__all__ = ["McpServer", "SecretLookup", "ServerPolicy", "ServerStartError", "tool_infos"]

_log = logging.getLogger(__name__)

_MAX_LIST_PAGES: Final = 50


class SecretLookup(Protocol):
    """Reads a named secret from the OS keyring (``SecretStore.get_secret``)."""

    def get_secret(self, name: str) -> str | None:
        """The secret's value, or None when it is not stored."""
        ...


class ServerStartError(RuntimeError):
    """The server could not be started; the message says why, for the person."""

    def __init__(self, message: str, *, final: bool = False) -> None:
        super().__init__(message)
        self.final = final
        """True when trying again cannot help until ``mcp.json`` changes."""


@dataclass(frozen=True, slots=True)
class ServerPolicy:
    """How a server is started, watched, started again, and how long its calls may take (s)."""

    start_timeout_s: float = 30.0
    ping_every_s: float = 15.0
    ping_timeout_s: float = 10.0
    first_retry_s: float = 1.0
    max_retry_s: float = 60.0
    stable_after_s: float = 60.0
    """Up this long, and a later failure starts the backoff from the beginning again."""
    attempts_before_failed: int = 3
    """Starts in a row that fail before the server was ever ready; then it is FAILED."""
    stop_timeout_s: float = 8.0
    call_timeout_s: float = 60.0
    """How long a call may run before it is cancelled at the server (``"timeout"`` overrides)."""
    confirm_timeout_s: float = 60.0
    """How long a question about a call waits for the person; no answer is no."""

    def delay(self, failures: int) -> float:
        """The pause before the start after ``failures`` failures in a row."""
        return float(min(self.max_retry_s, self.first_retry_s * 2 ** max(0, failures - 1)))


def tool_infos(tools: list[Any]) -> list[McpToolInfo]:
    """What the definitions need of ``tools/list``'s ``Tool`` objects."""
    infos = []
    for tool in tools:
        annotations = tool.annotations
        read_only = bool(annotations is not None and annotations.read_only_hint)
        destructive = not read_only and not (
            annotations is not None and annotations.destructive_hint is False
        )
        title = tool.title or (annotations.title if annotations is not None else None) or ""
        infos.append(
            McpToolInfo(
                name=tool.name,
                description=tool.description or "",
                input_schema=tool.input_schema,
                title=title,
                read_only=read_only,
                destructive=destructive,
            )
        )
    return infos


ToolsListed = Callable[["McpServer", list[McpToolInfo]], None]


class McpServer:
    """One MCP server's life: start, watch, restart, calls, stop.

    Args:
        config: the server's entry.
        bus: where its :class:`McpServerStatusChanged` go.
        secrets: reads ``keyring:NAME`` values.
        on_tools: called with every listing of its tools (after each start and each change).
        policy: the timings.
        config_dir: the folder a relative ``cwd`` is taken from.
    """

    def __init__(
        self,
        config: ServerConfig,
        *,
        bus: EventBus,
        secrets: SecretLookup,
        on_tools: ToolsListed,
        policy: ServerPolicy | None = None,
        config_dir: Path | None = None,
    ) -> None:
        self.config = config
        self._bus = bus
        self._secrets = secrets
        self._on_tools = on_tools
        self.policy = policy or ServerPolicy()
        self._config_dir = config_dir
        self._client: Client | None = None
        self._status = ServerStatus.STOPPED
        self._detail = ""
        self._tools: tuple[str, ...] = ()
        self._lost = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._refresh_wanted = asyncio.Event()
        self._lost_reason = ""
        self._became_ready = False
        self.infos: tuple[McpToolInfo, ...] | None = None
        """Its tools as last listed; None before the first listing."""

    # ------------------------------------------------------------------ what it is

    @property
    def name(self) -> str:
        """The server's name in ``mcp.json``."""
        return self.config.name

    @property
    def status(self) -> ServerStatus:
        """Where it is now."""
        return self._status

    @property
    def detail(self) -> str:
        """Why it failed or restarts, or ""."""
        return self._detail

    @property
    def call_timeout_s(self) -> float:
        """How long one of its calls may run."""
        timeout = self.config.entry.get("timeout")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
            return float(timeout)
        return self.policy.call_timeout_s

    def set_declared(self, names: tuple[str, ...]) -> None:
        """The names its tools are declared under (for the READY status)."""
        self._tools = names

    def _set_status(
        self, status: ServerStatus, detail: str = "", retry_in_s: float | None = None
    ) -> None:
        self._status = status
        self._detail = detail
        if status is ServerStatus.FAILED:
            _log.warning("MCP server %r failed: %s", self.name, detail)
        elif status is ServerStatus.RESTARTING:
            _log.info("MCP server %r restarts in %.1f s: %s", self.name, retry_in_s or 0, detail)
        else:
            _log.info("MCP server %r: %s", self.name, status.value)
        self._bus.emit(
            McpServerStatusChanged(
                server=self.name,
                status=status,
                tools=self._tools if status is ServerStatus.READY else (),
                detail=detail,
                retry_in_s=retry_in_s,
                where=self.config.transport.describe(),
            )
        )

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        """Start it in the background (nothing waits for it)."""
        if self._task is None or self._task.done():
            self._stopping = False
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"mcp-server-{self.name}"
            )

    async def stop(self) -> None:
        """Close the connection (a child process is ended) and stop restarting."""
        self._stopping = True
        self._lost.set()
        task = self._task
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), self.policy.stop_timeout_s)
        except TimeoutError:
            _log.warning("MCP server %r did not stop in time; cancelling it", self.name)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        except asyncio.CancelledError:
            task.cancel()
            raise
        if self._status is not ServerStatus.STOPPED:
            self._set_status(ServerStatus.STOPPED)

    async def _run(self) -> None:
        failures = 0
        ever_ready = False
        loop = asyncio.get_running_loop()
        while not self._stopping:
            if failures == 0:
                self._set_status(ServerStatus.STARTING)
            started = loop.time()
            try:
                await self._serve()
                reason = "it closed the connection"
            except Exception as error:  # noqa: BLE001 - a server's failure never stops the app
                inner = innermost(error)
                if isinstance(inner, ServerStartError) and inner.final:
                    self._set_status(ServerStatus.FAILED, str(inner))
                    return
                reason = describe_failure(inner)
                _log.debug("MCP server %r: %s", self.name, reason, exc_info=True)
            finally:
                self._client = None
            if self._stop_requested():
                break
            ever_ready = ever_ready or self._became_ready
            failures = 1 if loop.time() - started >= self.policy.stable_after_s else failures + 1
            if not ever_ready and failures >= self.policy.attempts_before_failed:
                self._set_status(
                    ServerStatus.FAILED,
                    f"{reason} (tried {failures} times; change it in Settings > Tools, or "
                    "restart it there)",
                )
                return
            pause = self.policy.delay(failures)
            self._set_status(ServerStatus.RESTARTING, reason, retry_in_s=pause)
            self._lost.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), pause)
        self._set_status(ServerStatus.STOPPED)

    def _stop_requested(self) -> bool:
        return self._stopping  # stop() may have set it while the connection ran

    async def _serve(self) -> None:
        """One connection, from the start to its end (returns or raises when it is lost)."""
        await load_sdk()
        from mcp import Client

        target, cleanup = await self._target()
        async with contextlib.AsyncExitStack() as stack:
            if cleanup is not None:
                stack.push_async_callback(cleanup)
            client = Client(
                target,
                message_handler=self._on_message,
                client_info=_client_info(),
                read_timeout_seconds=None,
            )
            try:
                async with asyncio.timeout(self.policy.start_timeout_s):
                    await stack.enter_async_context(client)
                    infos = await self._list(client)
            except TimeoutError:
                raise ServerStartError(
                    f"it did not answer within {self.policy.start_timeout_s:g} s of starting"
                ) from None
            self._client = client
            self._lost.clear()
            self._lost_reason = ""
            self._became_ready = True
            self._publish(infos)
            self._set_status(ServerStatus.READY)
            watchers = [
                asyncio.create_task(self._probe(client), name=f"mcp-probe-{self.name}"),
                asyncio.create_task(self._listen(client), name=f"mcp-listen-{self.name}"),
                asyncio.create_task(self._refresh_loop(client), name=f"mcp-refresh-{self.name}"),
            ]
            try:
                await self._lost.wait()
            finally:
                self._client = None
                for watcher in watchers:
                    watcher.cancel()
                await asyncio.gather(*watchers, return_exceptions=True)
        # Outside the client: whatever leaves `async with Client` comes wrapped in groups.
        if self._lost_reason:
            raise ServerStartError(self._lost_reason)

    def _lose(self, reason: str) -> None:
        if not self._lost.is_set():
            self._lost_reason = reason
            self._lost.set()

    async def _target(self) -> tuple[Any, Callable[[], Awaitable[None]] | None]:
        """What ``mcp.Client`` connects to, and what to close after it."""
        transport = self.config.transport
        resolved = await self._resolve_secrets(self.config.passed_values)
        if isinstance(transport, StdioTransport):
            from mcp import StdioServerParameters

            command = transport.command
            if shutil.which(command) is None and not await asyncio.to_thread(Path(command).is_file):
                raise ServerStartError(
                    f'the program {command!r} was not found (check "command" in mcp.json, '
                    "or install it)",
                    final=True,
                )
            cwd = _working_folder(self._config_dir, transport.cwd)
            return (
                StdioServerParameters(
                    command=command, args=list(transport.args), env=resolved or None, cwd=cwd
                ),
                None,
            )
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        http = httpx2.AsyncClient(
            headers=resolved, timeout=httpx2.Timeout(30.0, read=300.0), follow_redirects=False
        )
        return streamable_http_client(transport.url, http_client=http), http.aclose

    async def _resolve_secrets(self, values: Mapping[str, str]) -> dict[str, str]:
        resolved: dict[str, str] = {}
        for key, value in values.items():
            name = secret_name(value)
            if name is None:
                resolved[key] = value
                continue
            secret = await asyncio.to_thread(self._secrets.get_secret, name)
            if secret is None:
                raise ServerStartError(
                    f"the secret {name!r} ({key}) is not in the keyring; store it in "
                    "Settings > Tools",
                    final=True,
                )
            resolved[key] = secret
        return resolved

    async def _list(self, client: Client) -> list[McpToolInfo]:
        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(_MAX_LIST_PAGES):
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tool_infos(tools)

    def _publish(self, infos: list[McpToolInfo]) -> None:
        self.infos = tuple(infos)
        self._on_tools(self, infos)

    async def _probe(self, client: Client) -> None:
        """Ask every so often whether it is still there, within a time limit.

        A handshake-era connection has ``ping``; 2026-07-28 removed it, so there the probe
        is a fresh ``tools/list``, which also catches a change whose notice was missed.
        """
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        while True:
            await asyncio.sleep(self.policy.ping_every_s)
            try:
                async with asyncio.timeout(self.policy.ping_timeout_s):
                    if modern:
                        infos = await self._list(client)
                    else:
                        await client.session.send_ping()
            except TimeoutError:
                waited = self.policy.ping_timeout_s
                self._lose(f"it stopped answering (nothing back in {waited:g} s)")
                return
            except Exception as error:  # noqa: BLE001 - any failure means the connection is gone
                self._lose(describe_failure(error))
                return
            if modern and self.infos is not None and tuple(infos) != self.infos:
                self._refresh_wanted.set()

    async def _listen(self, client: Client) -> None:
        """Tool changes on a 2026-07-28 connection (``subscriptions/listen``)."""
        from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost

        capabilities = client.server_capabilities
        if capabilities.tools is None or not capabilities.tools.list_changed:
            return
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    self._refresh_wanted.set()
        except ListenNotSupportedError:
            return  # a handshake-era server: its notifications reach _on_message
        except SubscriptionLost:
            self._lose("the connection to it was lost")
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - the listing is refreshed at the next start
            _log.info(
                "MCP server %r: no tool change stream (%s)", self.name, describe_failure(error)
            )

    async def _on_message(self, message: Any) -> None:
        from mcp.types import ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification):
            self._refresh_wanted.set()
        elif isinstance(message, Exception):
            _log.debug("MCP server %r sent something unreadable: %s", self.name, message)

    async def _refresh_loop(self, client: Client) -> None:
        while True:
            await self._refresh_wanted.wait()
            self._refresh_wanted.clear()
            try:
                async with asyncio.timeout(self.policy.start_timeout_s):
                    infos = await self._list(client)
            except Exception as error:  # noqa: BLE001 - the old listing stays
                _log.warning(
                    "MCP server %r: its new tools could not be listed: %s",
                    self.name,
                    describe_failure(error),
                )
                continue
            _log.info("MCP server %r changed its tools: %d now", self.name, len(infos))
            self._publish(infos)
            self._set_status(ServerStatus.READY)

    def restart(self) -> None:
        """Start it again now (Settings' Restart; a FAILED server tries again)."""
        if self._task is None or self._task.done():
            self.start()
        else:
            self._lose("restarted by the person")

    # ------------------------------------------------------------------ calls

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult[McpAnswer]:
        """Call ``tool`` with ``arguments``; every outcome is a result, never an exception.

        Cancelling the awaiting task cancels the call at the server.
        """
        client = self._client
        if client is None:
            return self._unavailable()
        try:
            result = await client.call_tool(tool, arguments)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - becomes the model's answer
            from mcp.shared.exceptions import MCPError

            reason = describe_failure(error)
            if isinstance(error, MCPError) and not _connection_gone(error):
                return ToolResult.failure(
                    f"The MCP server {self.name!r} refused the call of {tool!r}: {reason}",
                    error_kind=ToolErrorKind.TOOL_FAILURE,
                    display=f"{self.name} refused it",
                )
            self._lose(reason)
            return ToolResult.failure(
                f"The MCP server {self.name!r} stopped while {tool!r} was running ({reason}); "
                "it is being restarted. Tell the person; try again in a moment only if they ask.",
                error_kind=ToolErrorKind.HANDLER_ERROR,
                display=f"{self.name} stopped; restarting",
            )
        return answer_from_result(self.name, tool, result)

    def _unavailable(self) -> ToolResult[Any]:
        if self._status is ServerStatus.FAILED:
            why = f"it failed: {self._detail}"
            display = f"{self.name} is not working"
        else:
            why = (
                "it is restarting" if self._status is ServerStatus.RESTARTING else "it is starting"
            )
            display = f"{self.name} is {why.removeprefix('it is ')}"
        return ToolResult.failure(
            f"The MCP server {self.name!r} cannot take calls now: {why}. Tell the person; try "
            "again in a moment only if they ask.",
            error_kind=ToolErrorKind.HANDLER_ERROR,
            display=display,
        )


_SDK_MODULES: Final = (
    "mcp",
    "mcp.client.streamable_http",
    "mcp.client.subscriptions",
    "httpx2",
    "jsonschema",
)


async def load_sdk() -> None:
    """Import the ``mcp`` SDK on a worker thread (almost a second): never on the event loop."""
    if all(name in sys.modules for name in _SDK_MODULES):
        return

    def load() -> None:
        for name in _SDK_MODULES:
            importlib.import_module(name)

    await asyncio.to_thread(load)


def _working_folder(config_dir: Path | None, cwd: str | None) -> str | None:
    """A server's ``cwd``: ``~`` expanded, a relative one taken from the settings folder."""
    if cwd is None:
        return None
    folder = Path(cwd).expanduser()
    if config_dir is not None:
        folder = config_dir / folder
    return str(folder)


def _connection_gone(error: Exception) -> bool:
    from mcp.types import CONNECTION_CLOSED

    return getattr(error, "code", None) == CONNECTION_CLOSED


def innermost(error: BaseException) -> BaseException:
    """The first real error inside the exception groups anyio wraps errors in (often two)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def describe_failure(error: BaseException) -> str:
    """Why a start, a probe or a call failed, in a phrase for the person and the log."""
    from mcp.shared.exceptions import MCPError

    error = innermost(error)
    if isinstance(error, ServerStartError):
        return str(error)

    if isinstance(error, MCPError):
        if _connection_gone(error):
            return "the connection to it was closed"
        return error.message or f"error {error.code}"
    if isinstance(error, FileNotFoundError):
        return f"a program it needs was not found ({error.filename or error})"
    if isinstance(error, PermissionError):
        return "it may not be started (permission denied)"
    if isinstance(error, ConnectionError | OSError):
        return f"it could not be reached ({error.strerror or error})"
    name = type(error).__name__
    text = str(error).strip()
    if "httpx" in type(error).__module__ or name.endswith(("HTTPStatusError", "ConnectError")):
        return f"it could not be reached ({text or name})"
    return f"{name}: {text}" if text else name


def _client_info() -> Any:
    from mcp.types import Implementation

    return Implementation(name="sammy-desktop", version=__version__)
