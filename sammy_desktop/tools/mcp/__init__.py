"""MCP servers as tools: any Model Context Protocol server becomes something Sammy can do.

The person lists servers in ``mcp.json`` (Claude Desktop's ``mcpServers`` shape, in the
settings folder); :class:`McpServers` starts each in the background after the window shows,
and each server's tools become ordinary tools of the tool system, named
``<server>__<tool>``, declared per model from the server's schema, run in parallel with a
timeout and cancellation, confirmed by the server's policy, shown as cards, switchable in
Settings mid-session. See docs/tools.md, "MCP servers".

Nothing here imports the ``mcp`` SDK until a server starts (on a worker thread).
"""

from sammy_desktop.tools.mcp.config import (
    CONFIG_FILE_NAME,
    ConfigProblem,
    ConfirmPolicy,
    HttpTransport,
    McpConfig,
    McpConfigFile,
    ServerConfig,
    StdioTransport,
    claude_desktop_config_path,
    merge_servers,
    parse_config,
    server_entry,
)
from sammy_desktop.tools.mcp.definition import McpToolDefinition, McpToolInfo
from sammy_desktop.tools.mcp.events import McpConfigRead, McpServerStatusChanged, ServerStatus
from sammy_desktop.tools.mcp.server import McpServer, ServerPolicy
from sammy_desktop.tools.mcp.servers import McpServers, default_config_file, source_name

__all__ = [
    "CONFIG_FILE_NAME",
    "ConfigProblem",
    "ConfirmPolicy",
    "HttpTransport",
    "McpConfig",
    "McpConfigFile",
    "McpConfigRead",
    "McpServer",
    "McpServerStatusChanged",
    "McpServers",
    "McpToolDefinition",
    "McpToolInfo",
    "ServerConfig",
    "ServerPolicy",
    "ServerStatus",
    "StdioTransport",
    "claude_desktop_config_path",
    "default_config_file",
    "merge_servers",
    "parse_config",
    "server_entry",
    "source_name",
]
