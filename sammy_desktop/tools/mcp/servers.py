"""Every MCP server of ``mcp.json``: started after the window shows, their tools in the registry.

:class:`McpServers` reads ``mcp.json`` (:class:`~.config.McpConfigFile`), runs one
:class:`~.server.McpServer` per usable entry, and keeps each server's tools registered in the
tool system as the source ``MCP server NAME`` (:meth:`ToolManager.replace_source`), so that a
listing that changes reaches a running conversation the way a tool switch does. Settings
changes ``mcp.json`` through it (:meth:`put_server`, :meth:`remove_server`,
:meth:`set_confirm`, :meth:`import_servers`), and only the servers whose entries changed are
started again. :meth:`aclose` stops every server (and so every child process) at quit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, Protocol

from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.definition import ToolDefinition, ToolDefinitionError
from sammy_desktop.tools.mcp.config import (
    ConfigProblem,
    ConfirmPolicy,
    McpConfig,
    McpConfigFile,
    ServerConfig,
)
from sammy_desktop.tools.mcp.definition import McpToolDefinition, McpToolInfo, build_definition
from sammy_desktop.tools.mcp.events import McpConfigRead, McpServerStatusChanged
from sammy_desktop.tools.mcp.naming import name_tools
from sammy_desktop.tools.mcp.server import McpServer, SecretLookup, ServerPolicy
from sammy_desktop.tools.registry import RegistrationProblem

__all__ = ["McpServers", "ToolSource", "source_name"]

_log = logging.getLogger(__name__)


def source_name(server: str) -> str:
    """The tool system's source name of a server's tools."""
    return f"MCP server {server}"


class ToolSource(Protocol):
    """What the servers need of the tool system (``ToolManager``)."""

    @property
    def tools(self) -> tuple[ToolDefinition[Any, Any], ...]:
        """Every registered tool."""
        ...

    def replace_source(
        self, source: str, definitions: list[ToolDefinition[Any, Any]]
    ) -> tuple[RegistrationProblem, ...]:
        """Make ``definitions`` the tools of ``source``; the refused ones come back."""
        ...

    def remove_source(self, source: str) -> None:
        """Remove every tool of ``source``."""
        ...


class McpServers:
    """The MCP servers the person configured, and their tools.

    Args:
        config_file: ``mcp.json``.
        tools: the tool system the servers' tools are registered in.
        bus: where statuses and the file's problems go.
        secrets: reads ``keyring:NAME`` values.
        policy: the servers' timings.
    """

    def __init__(
        self,
        config_file: McpConfigFile,
        *,
        tools: ToolSource,
        bus: EventBus,
        secrets: SecretLookup,
        policy: ServerPolicy | None = None,
    ) -> None:
        self.config_file = config_file
        self._tools = tools
        self._bus = bus
        self._secrets = secrets
        self._policy = policy or ServerPolicy()
        self._servers: dict[str, McpServer] = {}
        self._config = config_file.load()  # what Settings shows until the servers start
        self._statuses: dict[str, McpServerStatusChanged] = {}
        self._tool_problems: dict[str, tuple[str, ...]] = {}
        self._started = False
        self._stopping: set[asyncio.Task[None]] = set()
        bus.subscribe(McpServerStatusChanged, self._remember)

    # ------------------------------------------------------------------ reading

    @property
    def config(self) -> McpConfig:
        """``mcp.json`` as last read."""
        return self._config

    @property
    def problems(self) -> tuple[ConfigProblem, ...]:
        """What in ``mcp.json`` could not be used."""
        return self._config.problems

    def status_of(self, name: str) -> McpServerStatusChanged | None:
        """The last status of the server ``name``, or None before it has one."""
        return self._statuses.get(name)

    def tool_problems(self, name: str) -> tuple[str, ...]:
        """The server's tools that could not be declared, and why (one sentence each)."""
        return self._tool_problems.get(name, ())

    def server(self, name: str) -> McpServer | None:
        """The running server ``name``, or None."""
        return self._servers.get(name)

    def tools_of(self, name: str) -> tuple[McpToolDefinition, ...]:
        """The server's tools as registered now."""
        return tuple(
            tool
            for tool in self._tools.tools
            if isinstance(tool, McpToolDefinition) and tool.server == name
        )

    def _remember(self, event: McpServerStatusChanged) -> None:
        self._statuses[event.server] = event

    # ------------------------------------------------------------------ life

    def start(self) -> McpConfig:
        """Read ``mcp.json`` and start every usable server in the background.

        Returns:
            What was read (the servers start on their own; nothing waits for them).
        """
        self._started = True
        return self.reload()

    def reload(self) -> McpConfig:
        """Read ``mcp.json`` again: start new servers, restart changed ones, stop removed ones."""
        config = self.config_file.load()
        self._config = config
        for problem in config.problems:
            _log.warning("%s", problem.message)
        if self._started:
            self._apply(config)
        # Last: whoever shows the file sees the servers' tools as they now are.
        self._bus.emit(
            McpConfigRead(
                servers=tuple(server.name for server in config.servers),
                problems=config.problems,
            )
        )
        return config

    def _apply(self, config: McpConfig) -> None:
        wanted = {server.name: server for server in config.servers}
        for name, running in list(self._servers.items()):
            if name not in wanted:
                self._retire(name)
            elif _same_but_confirm(wanted[name], running.config):
                # Only who is asked first changed: declare the tools again, no restart.
                running.config = wanted[name]
                if running.infos is not None:
                    self._on_tools(running, list(running.infos))
            elif wanted[name] != running.config:
                self._retire(name)
        for name, server_config in wanted.items():
            if name not in self._servers:
                self._launch(server_config)

    def _launch(self, server_config: ServerConfig) -> None:
        server = McpServer(
            server_config,
            bus=self._bus,
            secrets=self._secrets,
            on_tools=self._on_tools,
            policy=self._policy,
            config_dir=self.config_file.path.parent,
        )
        self._servers[server_config.name] = server
        server.start()

    def _retire(self, name: str) -> None:
        server = self._servers.pop(name)
        self._tools.remove_source(source_name(name))
        self._tool_problems.pop(name, None)
        self._in_background(server.stop(), f"mcp-stop-{name}")

    def _in_background(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``work`` as a task :meth:`aclose` waits for (a stop, a keyring clean-up)."""
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    def restart(self, name: str) -> None:
        """Start the server ``name`` again now (Settings' Restart)."""
        server = self._servers.get(name)
        if server is not None:
            server.restart()

    async def aclose(self) -> None:
        """Stop every server, at once and together; their child processes end with them."""
        servers = list(self._servers.values())
        self._servers.clear()
        await asyncio.gather(*(server.stop() for server in servers), return_exceptions=True)
        if self._stopping:
            await asyncio.gather(*list(self._stopping), return_exceptions=True)

    # ------------------------------------------------------------------ tools

    def _on_tools(self, server: McpServer, infos: list[McpToolInfo]) -> None:
        source = source_name(server.name)
        taken = [tool.name for tool in self._tools.tools if not _from_source(tool, server.name)]
        definitions: list[ToolDefinition[Any, Any]] = []
        problems: list[str] = []
        for named, info in zip(
            name_tools(server.name, [i.name for i in infos], taken), infos, strict=True
        ):
            if named.clash:
                problems.append(named.clash)
                _log.warning("%s", named.clash)
            try:
                definitions.append(
                    build_definition(
                        server=server.name,
                        declared_name=named.declared,
                        info=info,
                        policy=server.config.confirm,
                        timeout_s=server.call_timeout_s,
                        call=server.call,
                        confirm_timeout_s=server.policy.confirm_timeout_s,
                    )
                )
            except ToolDefinitionError as error:
                message = (
                    f'MCP server "{server.name}": its tool "{info.name}" is not offered to '
                    f"Sammy: {error}"
                )
                _log.warning("%s", message)
                problems.append(message)
        refused = self._tools.replace_source(source, definitions)
        problems.extend(problem.message for problem in refused)
        self._tool_problems[server.name] = tuple(problems)
        refused_names = {problem.tool_name for problem in refused}
        server.set_declared(tuple(d.name for d in definitions if d.name not in refused_names))

    # ------------------------------------------------------------------ changing mcp.json

    def put_server(self, name: str, entry: Mapping[str, Any]) -> McpConfig:
        """Add or replace a server and apply it (see :meth:`McpConfigFile.put_server`)."""
        self.config_file.put_server(name, entry)
        return self.reload()

    def remove_server(self, name: str) -> McpConfig:
        """Remove a server, stop it, take its tools away, forget the secrets only it used."""
        removed = self._config.server(name)
        config = self.config_file.remove_server(name)
        if removed is not None:
            still_used = {secret for server in config.servers for secret in server.secret_names()}
            orphaned = [s for s in removed.secret_names() if s not in still_used]
            forget = getattr(self._secrets, "delete_secret", None)
            if orphaned and forget is not None:
                self._in_background(_forget(forget, orphaned), f"mcp-forget-{name}")
        return self.reload()

    def set_confirm(self, name: str, policy: ConfirmPolicy) -> McpConfig:
        """Change a server's confirm policy; its tools are declared again with it."""
        self.config_file.set_confirm(name, policy)
        return self.reload()

    def import_servers(self, servers: Mapping[str, Any]) -> McpConfig:
        """Write ``servers`` as the whole ``mcpServers`` (an import's merge) and apply it."""
        self.config_file.replace_servers(servers)
        return self.reload()


async def _forget(delete: Any, names: list[str]) -> None:
    for secret in names:
        try:
            await asyncio.to_thread(delete, secret)
        except Exception as error:  # noqa: BLE001 - a secret left behind is no failure
            _log.warning("the keyring secret %r was not removed: %s", secret, error)


def _same_but_confirm(new: ServerConfig, old: ServerConfig) -> bool:
    if new.confirm is old.confirm:
        return False
    return new.transport == old.transport and _without_confirm(new.entry) == _without_confirm(
        old.entry
    )


def _without_confirm(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key != "confirm"}


def _from_source(tool: ToolDefinition[Any, Any], server: str) -> bool:
    return isinstance(tool, McpToolDefinition) and tool.server == server


def default_config_file(config_dir: Path) -> McpConfigFile:
    """``mcp.json`` in the settings folder."""
    from sammy_desktop.tools.mcp.config import CONFIG_FILE_NAME

    return McpConfigFile(config_dir / CONFIG_FILE_NAME)
