"""The self-test's ``mcp-servers`` step: every server of ``mcp.json`` starts and lists its tools.

It loads the ``mcp`` SDK (so a bundle that lost part of it fails here, by name), reads the
``mcp.json`` of the settings folder in use (``--config-dir DIR``: ``DIR/mcp.json``), starts
each usable server as the app does (:class:`~sammy_desktop.tools.mcp.McpServers`, with a tool
system of its own: nothing is called), waits until each is ready or has failed, and stops
them all again. The step fails when the file has a problem or a server does not start, and
names it; without servers it says so and passes.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Final

from sammy_desktop.config import Settings
from sammy_desktop.config.paths import AppPaths
from sammy_desktop.eventbus import EventBus
from sammy_desktop.selftest.report import SelfTestFailure
from sammy_desktop.tools import ToolManager, ToolServices
from sammy_desktop.tools.mcp import (
    McpConfigFile,
    McpServers,
    McpServerStatusChanged,
    ServerPolicy,
    ServerStatus,
)
from sammy_desktop.tools.mcp.server import SecretLookup, load_sdk

__all__ = ["check_mcp_servers"]

_POLICY: Final = ServerPolicy(start_timeout_s=15.0, attempts_before_failed=1)
_SETTLED: Final = (ServerStatus.READY, ServerStatus.FAILED)


async def check_mcp_servers(config_file: Path, profile: Path, secrets: SecretLookup) -> str:
    """Start the servers of ``config_file``; return what each offers, or raise naming the failures.

    Args:
        config_file: the ``mcp.json`` to check.
        profile: a throwaway folder for the tool services.
        secrets: reads the ``keyring:NAME`` values the servers need.
    """
    await load_sdk()  # the SDK is part of what is checked: a module missing fails here
    version = _distribution_version()
    servers_file = McpConfigFile(config_file)
    config = servers_file.load()
    if config.problems:
        raise SelfTestFailure("; ".join(problem.message for problem in config.problems))
    if not config.servers:
        where = "" if config.document else " (there is no mcp.json)"
        return f"mcp {version} loaded; no MCP servers configured{where}"
    bus = EventBus()
    settled: dict[str, McpServerStatusChanged] = {}
    every = asyncio.Event()

    def on_status(event: McpServerStatusChanged) -> None:
        if event.status in _SETTLED and event.server not in settled:
            settled[event.server] = event
            if len(settled) == len(config.servers):
                every.set()

    bus.subscribe(McpServerStatusChanged, on_status)
    tools = ToolManager(
        bus,
        ToolServices(paths=AppPaths.profile(profile), settings=Settings, transcript=lambda: ()),
        load_entry_points=False,
        include_builtins=False,
    )
    running = McpServers(servers_file, tools=tools, bus=bus, secrets=secrets, policy=_POLICY)
    try:
        running.start()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(every.wait(), _POLICY.start_timeout_s + 2)
    finally:
        await running.aclose()
        await tools.aclose()
    lines = []
    failed = []
    for server in config.servers:
        event = settled.get(server.name)
        if event is None:
            failed.append(f"{server.name}: did not start in time")
        elif event.status is ServerStatus.FAILED:
            failed.append(f"{server.name}: {event.detail}")
        else:
            lines.append(f"{server.name} ready with {', '.join(event.tools) or 'no tools'}")
    if failed:
        raise SelfTestFailure("; ".join(failed))
    return f"mcp {version}: " + "; ".join(lines)


def _distribution_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp")
    except PackageNotFoundError:
        return "(version unknown)"
