"""``mcp.json``: the MCP servers the person added, in Claude Desktop's ``mcpServers`` shape.

The file lives in the settings folder (``--config-dir DIR`` -> ``DIR/mcp.json``)::

    {
      "mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "Europe/Paris"}},
        "home": {"url": "https://home.example/mcp",
                 "headers": {"Authorization": "keyring:home-token"},
                 "confirm": "always"}
      }
    }

A server is either a program started with ``command`` (and ``args``, ``env``, ``cwd``) that
talks MCP on its standard input and output, or a ``url`` of a streamable HTTP endpoint
(with ``headers``). ``"type"`` (``"stdio"``, ``"http"``, ``"streamable-http"``), as Cursor and
VS Code write it, is accepted and checked against the rest. Sammy's own key ``"confirm"``
says when a call is confirmed first (:class:`ConfirmPolicy`). Every other key, at any
level, is kept as it was when Sammy writes the file back.

A value of ``env`` or ``headers`` written ``"keyring:NAME"`` is the secret ``NAME`` of the
OS keyring (Settings can store it), so a token need not sit in the file.

Reading never fails as a whole: a file that is not JSON, or not the right shape, gives no
servers and one :class:`ConfigProblem`; a bad entry gives a problem naming the server and
the field, and the other servers load. Writing is atomic, to a ``0600`` file.
"""

from __future__ import annotations

import enum
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from sammy_desktop.config.private_data import write_private_text
from sammy_desktop.os_errors import os_error_reason

__all__ = [
    "CONFIG_FILE_NAME",
    "KEYRING_PREFIX",
    "ConfigProblem",
    "ConfirmPolicy",
    "HttpTransport",
    "McpConfig",
    "McpConfigFile",
    "ServerConfig",
    "StdioTransport",
    "claude_desktop_config_path",
    "merge_servers",
    "parse_config",
    "parse_server",
    "secret_name",
    "server_entry",
]

CONFIG_FILE_NAME: Final = "mcp.json"
KEYRING_PREFIX: Final = "keyring:"
_SERVERS_KEY: Final = "mcpServers"
_MAX_SERVER_NAME: Final = 64


class ConfirmPolicy(enum.StrEnum):
    """When a call of a server's tool waits for the person's yes."""

    UNLESS_READ_ONLY = "unless_read_only"
    """Asked first, unless the tool's annotations say ``readOnlyHint: true`` (the default)."""
    ALWAYS = "always"
    """Every call is asked first, read-only or not."""
    NEVER = "never"
    """No call is asked first: the person trusts this server with everything."""


@dataclass(frozen=True, slots=True)
class StdioTransport:
    """A server started as a program, talking MCP over its standard input and output."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None

    def describe(self) -> str:
        """The command line, for Settings and the log (secrets are in ``env``, never here)."""
        return " ".join([self.command, *self.args])


@dataclass(frozen=True, slots=True)
class HttpTransport:
    """A server at a streamable HTTP endpoint."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        """The address without any user name or password in it."""
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        return f"{parts.scheme}://{host}{parts.path}"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One entry of ``mcpServers``, checked.

    Attributes:
        name: the key it is written under; part of each tool's name for the model.
        transport: how to reach it.
        confirm: when its tools' calls are confirmed first.
        entry: the entry as written (unknown keys kept), for writing the file back.
    """

    name: str
    transport: StdioTransport | HttpTransport
    confirm: ConfirmPolicy = ConfirmPolicy.UNLESS_READ_ONLY
    entry: Mapping[str, Any] = field(default_factory=dict)

    @property
    def passed_values(self) -> Mapping[str, str]:
        """What the server is given by name: a program's ``env``, an HTTP server's ``headers``."""
        if isinstance(self.transport, StdioTransport):
            return self.transport.env
        return self.transport.headers

    def secret_names(self) -> tuple[str, ...]:
        """The keyring secrets its ``env`` or ``headers`` refer to (``keyring:NAME``)."""
        names = (secret_name(value) for value in self.passed_values.values())
        return tuple(name for name in names if name is not None)


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """Something wrong in ``mcp.json``, in a sentence naming the server and the field.

    Attributes:
        message: what is wrong and where ("mcp.json, server "github": "command" is missing").
        server: the server concerned, or None for the file as a whole.
        field: the field concerned (``command``, ``env.TOKEN``), when there is one.
    """

    message: str
    server: str | None = None
    field: str | None = None


@dataclass(frozen=True, slots=True)
class McpConfig:
    """What ``mcp.json`` says: the servers that can be started and what is wrong with the rest.

    Attributes:
        servers: the usable entries, in the file's order.
        problems: the entries (or the file) that could not be used.
        document: the whole JSON object as read (unknown keys kept), for writing back.
    """

    servers: tuple[ServerConfig, ...] = ()
    problems: tuple[ConfigProblem, ...] = ()
    document: Mapping[str, Any] = field(default_factory=dict)

    def server(self, name: str) -> ServerConfig | None:
        """The usable server called ``name``, or None."""
        return next((server for server in self.servers if server.name == name), None)

    @property
    def entries(self) -> Mapping[str, Any]:
        """Every entry of ``mcpServers`` as written, usable or not."""
        servers = self.document.get(_SERVERS_KEY)
        return servers if isinstance(servers, Mapping) else {}


_Problem = Callable[..., ConfigProblem]


def secret_name(value: str) -> str | None:
    """The keyring secret ``value`` names (``keyring:NAME``: ``NAME``), or None."""
    if not value.startswith(KEYRING_PREFIX):
        return None
    return value[len(KEYRING_PREFIX) :].strip() or None


def is_secret_reference(value: str) -> bool:
    """Whether ``value`` names a keyring secret (``keyring:NAME``)."""
    return secret_name(value) is not None


def parse_config(text: str, *, source: str = CONFIG_FILE_NAME) -> McpConfig:
    """Read the text of an ``mcp.json``.

    Args:
        text: the file's text.
        source: what to call the file in problems.

    Returns:
        The usable servers and the problems; never raises.
    """
    if not text.strip():
        return McpConfig()
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        return McpConfig(
            problems=(
                ConfigProblem(
                    f"{source} is not valid JSON (line {error.lineno}, column {error.colno}: "
                    f"{error.msg}); no MCP server was started from it."
                ),
            )
        )
    if not isinstance(document, dict):
        return McpConfig(
            problems=(
                ConfigProblem(
                    f'{source} must hold a JSON object with "{_SERVERS_KEY}", not a '
                    f"{_json_type(document)}; no MCP server was started from it."
                ),
            )
        )
    servers = document.get(_SERVERS_KEY, {})
    if not isinstance(servers, dict):
        return McpConfig(
            document=document,
            problems=(
                ConfigProblem(
                    f'{source}: "{_SERVERS_KEY}" must be an object of servers by name, not a '
                    f"{_json_type(servers)}; no MCP server was started from it.",
                    field=_SERVERS_KEY,
                ),
            ),
        )
    usable: list[ServerConfig] = []
    problems: list[ConfigProblem] = []
    for name, entry in servers.items():
        result = parse_server(name, entry, source=source)
        if isinstance(result, ServerConfig):
            usable.append(result)
        else:
            problems.append(result)
    return McpConfig(servers=tuple(usable), problems=tuple(problems), document=document)


def parse_server(
    name: str, entry: object, *, source: str = CONFIG_FILE_NAME
) -> ServerConfig | ConfigProblem:
    """Check one entry of ``mcpServers``.

    Returns:
        The server, or the first problem found with it (naming the server and the field).
    """
    where = f'{source}, server "{name}"'

    def problem(message: str, field_name: str | None = None) -> ConfigProblem:
        return ConfigProblem(f"{where}: {message}", server=name, field=field_name)

    if not name.strip():
        return problem("a server needs a name (the key it is written under).")
    if len(name) > _MAX_SERVER_NAME:
        return problem(f"the name is {len(name)} characters; at most {_MAX_SERVER_NAME}.")
    if not isinstance(entry, dict):
        return problem(f"the entry must be an object, not a {_json_type(entry)}.")
    confirm_value = entry.get("confirm", ConfirmPolicy.UNLESS_READ_ONLY.value)
    try:
        confirm = ConfirmPolicy(confirm_value)
    except ValueError:
        allowed = ", ".join(f'"{policy.value}"' for policy in ConfirmPolicy)
        return problem(
            f'"confirm" must be one of {allowed}, not {json.dumps(confirm_value)}.', "confirm"
        )
    kind = entry.get("type")
    if kind is not None and kind not in ("stdio", "http", "streamable-http", "streamableHttp"):
        if kind == "sse":
            return problem(
                '"type" is "sse": the old HTTP+SSE transport is not supported; use the '
                "server's streamable HTTP address (often ending in /mcp).",
                "type",
            )
        return problem(f'"type" must be "stdio" or "http", not {json.dumps(kind)}.', "type")
    has_command = "command" in entry
    has_url = "url" in entry
    if has_command and has_url:
        return problem('give "command" (a program) or "url" (an HTTP server), not both.')
    if not has_command and not has_url:
        return problem('"command" (a program to start) or "url" (an HTTP server) is missing.')
    transport: StdioTransport | HttpTransport | ConfigProblem
    if has_command:
        if kind not in (None, "stdio"):
            return problem(f'"type" is {json.dumps(kind)} but the entry has a "command".', "type")
        transport = _stdio_transport(entry, problem)
    else:
        if kind == "stdio":
            return problem('"type" is "stdio" but the entry has a "url", not a "command".', "type")
        transport = _http_transport(entry, problem)
    if isinstance(transport, ConfigProblem):
        return transport
    return ServerConfig(name=name, transport=transport, confirm=confirm, entry=entry)


def _stdio_transport(entry: Mapping[str, Any], problem: _Problem) -> StdioTransport | ConfigProblem:
    command = entry["command"]
    if not isinstance(command, str) or not command.strip():
        return problem(
            f'"command" must be the program to start, not {json.dumps(command)}.', "command"
        )
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        return problem('"args" must be a list of strings.', "args")
    env = _string_map(entry, "env", problem)
    if isinstance(env, ConfigProblem):
        return env
    cwd = entry.get("cwd")
    if cwd is not None and (not isinstance(cwd, str) or not cwd.strip()):
        return problem('"cwd" must be a folder path.', "cwd")
    return StdioTransport(command=command.strip(), args=tuple(args), env=env, cwd=cwd)


def _http_transport(entry: Mapping[str, Any], problem: _Problem) -> HttpTransport | ConfigProblem:
    url = entry["url"]
    if not isinstance(url, str):
        return problem(f'"url" must be an address, not {json.dumps(url)}.', "url")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return problem(
            f'"url" must be an http:// or https:// address, not {json.dumps(url)}.', "url"
        )
    if parts.scheme == "http" and parts.hostname not in ("localhost", "127.0.0.1", "::1"):
        return problem(
            '"url" uses http:// to another machine: its requests and any token would travel '
            "unencrypted; use https://.",
            "url",
        )
    headers = _string_map(entry, "headers", problem)
    if isinstance(headers, ConfigProblem):
        return headers
    return HttpTransport(url=url.strip(), headers=headers)


def _string_map(
    entry: Mapping[str, Any], key: str, problem: _Problem
) -> dict[str, str] | ConfigProblem:
    value = entry.get(key, {})
    if not isinstance(value, dict):
        return problem(f'"{key}" must be an object of names to strings.', key)
    for name, item in value.items():
        if not isinstance(item, str):
            return problem(
                f'"{key}.{name}" must be a string, not {json.dumps(item)} '
                "(write numbers in quotes).",
                f"{key}.{name}",
            )
    return dict(value)


def server_entry(
    transport: StdioTransport | HttpTransport,
    confirm: ConfirmPolicy = ConfirmPolicy.UNLESS_READ_ONLY,
) -> dict[str, Any]:
    """The ``mcpServers`` entry for a new server (what Settings' Add server writes)."""
    entry: dict[str, Any]
    if isinstance(transport, StdioTransport):
        entry = {"command": transport.command, "args": list(transport.args)}
        if transport.env:
            entry["env"] = dict(transport.env)
        if transport.cwd:
            entry["cwd"] = transport.cwd
    else:
        entry = {"url": transport.url}
        if transport.headers:
            entry["headers"] = dict(transport.headers)
    if confirm is not ConfirmPolicy.UNLESS_READ_ONLY:
        entry["confirm"] = confirm.value
    return entry


def merge_servers(
    ours: Mapping[str, Any], theirs: Mapping[str, Any]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``theirs`` servers added to ``ours``; the names both have are returned, not merged.

    Returns:
        The merged ``mcpServers`` object (ours first, in order) and the clashing names whose
        entries differ (the same entry twice is no clash); for those, ours is kept.
    """
    merged = dict(ours)
    clashes: list[str] = []
    for name, entry in theirs.items():
        if name not in merged:
            merged[name] = entry
        elif merged[name] != entry:
            clashes.append(name)
    return merged, tuple(clashes)


def claude_desktop_config_path(
    platform: str = sys.platform, environ: Mapping[str, str] | None = None
) -> Path:
    """Where Claude Desktop keeps its ``claude_desktop_config.json`` on ``platform``."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or Path.home())
    if platform == "darwin":
        folder = home / "Library" / "Application Support" / "Claude"
    elif platform.startswith("win"):
        folder = Path(env.get("APPDATA") or home / "AppData" / "Roaming") / "Claude"
    else:
        folder = Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "Claude"
    return folder / "claude_desktop_config.json"


class McpConfigFile:
    """``mcp.json`` on disk: read, changed one server at a time, written back atomically.

    Args:
        path: the file (it need not exist yet).
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> McpConfig:
        """The file as it is now: no file is no servers; any problem is reported, never raised."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return McpConfig()
        except (OSError, UnicodeDecodeError) as error:
            why = os_error_reason(error) if isinstance(error, OSError) else "it is not UTF-8 text"
            return McpConfig(
                problems=(
                    ConfigProblem(
                        f"{self.path} could not be read ({why}); no MCP server was started."
                    ),
                )
            )
        return parse_config(text, source=self.path.name)

    def put_server(self, name: str, entry: Mapping[str, Any]) -> McpConfig:
        """Add or replace the server ``name`` and save.

        Raises:
            ValueError: the entry is not usable (the message names the field), or the file
                is not valid JSON now (it is not overwritten: the person's text is kept).
            OSError: the file could not be written.
        """
        checked = parse_server(name, dict(entry), source=self.path.name)
        if isinstance(checked, ConfigProblem):
            raise ValueError(checked.message)  # noqa: TRY004 - what the file says, not a type in the code
        return self._change(lambda servers: servers.__setitem__(name, dict(entry)))

    def remove_server(self, name: str) -> McpConfig:
        """Remove the server ``name`` (nothing happens when it is not there) and save."""
        return self._change(lambda servers: servers.pop(name, None))

    def set_confirm(self, name: str, policy: ConfirmPolicy) -> McpConfig:
        """Change one server's confirm policy and save; the default is written by leaving it out."""

        def change(servers: dict[str, Any]) -> None:
            entry = servers.get(name)
            if not isinstance(entry, dict):
                raise ValueError(f'{self.path.name} has no server "{name}" to change.')  # noqa: TRY004 - what the file says, not a type in the code
            if policy is ConfirmPolicy.UNLESS_READ_ONLY:
                entry.pop("confirm", None)
            else:
                entry["confirm"] = policy.value

        return self._change(change)

    def replace_servers(self, servers: Mapping[str, Any]) -> McpConfig:
        """Write ``servers`` as the whole ``mcpServers`` object (an import's merge) and save."""
        return self._change(lambda current: (current.clear(), current.update(servers)))

    def _change(self, change: Any) -> McpConfig:
        document = self._document_for_writing()
        servers = document.setdefault(_SERVERS_KEY, {})
        if not isinstance(servers, dict):
            raise ValueError(  # noqa: TRY004 - what the file says, not a type in the code
                f'{self.path.name}: "{_SERVERS_KEY}" is not an object; fix the file first '
                "(Sammy does not overwrite it)."
            )
        change(servers)
        write_private_text(self.path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        return self.load()

    def _document_for_writing(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        if not text.strip():
            return {}
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(
                f"{self.path.name} is not valid JSON (line {error.lineno}: {error.msg}); fix it "
                "first (Sammy does not overwrite it)."
            ) from None
        if not isinstance(document, dict):
            raise ValueError(  # noqa: TRY004 - what the file says, not a type in the code
                f"{self.path.name} does not hold a JSON object; fix it first (Sammy does not "
                "overwrite it)."
            )
        return document


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "true/false value"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    return type(value).__name__
