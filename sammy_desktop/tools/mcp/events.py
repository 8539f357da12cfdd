"""What the MCP servers tell the rest of the app: each server's status, and ``mcp.json``'s problems.

Settings > Tools shows a group per server from :class:`McpServerStatusChanged` (starting,
ready with N tools, failed with the reason, restarting) and the file's problems from
:class:`McpConfigRead`; the log gets the same words.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from sammy_desktop.eventbus import Event
from sammy_desktop.tools.mcp.config import ConfigProblem

__all__ = ["McpConfigRead", "McpServerStatusChanged", "ServerStatus"]


class ServerStatus(enum.StrEnum):
    """Where one MCP server is in its life."""

    STARTING = "starting"
    """Being started (or connected to) for the first time."""
    READY = "ready"
    """Connected; its tools are listed and declared."""
    FAILED = "failed"
    """It could not be started, or stopped for good (``detail`` says why)."""
    RESTARTING = "restarting"
    """It exited or stopped answering; it is started again after a pause."""
    STOPPED = "stopped"
    """Removed from ``mcp.json``, or the app is closing."""


@dataclass(frozen=True, slots=True)
class McpServerStatusChanged(Event):
    """One server's status changed.

    Attributes:
        server: the server's name in ``mcp.json``.
        status: its new status.
        tools: the names its tools are declared under (``server__tool``), when READY.
        detail: why it failed or restarts, in a sentence; "" otherwise.
        retry_in_s: for RESTARTING, how long until the next start.
        where: the command line or address (no secrets), for Settings.
    """

    server: str
    status: ServerStatus
    tools: tuple[str, ...] = ()
    detail: str = ""
    retry_in_s: float | None = None
    where: str = ""


@dataclass(frozen=True, slots=True)
class McpConfigRead(Event):
    """``mcp.json`` was read (at start-up, or after Settings changed it).

    Attributes:
        servers: the usable servers' names, in the file's order.
        problems: what could not be used, each naming the server and the field.
    """

    servers: tuple[str, ...]
    problems: tuple[ConfigProblem, ...]
