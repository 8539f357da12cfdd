"""mcp.json: Claude Desktop's shape read, bad entries named, the file written back whole."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from sammy_desktop.tools.mcp.config import (
    ConfirmPolicy,
    HttpTransport,
    McpConfigFile,
    StdioTransport,
    claude_desktop_config_path,
    merge_servers,
    parse_config,
    secret_name,
    server_entry,
)

CLAUDE_EXAMPLE = {
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/Desktop"],
        },
        "github": {
            "command": "docker",
            "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "keyring:github-token"},
        },
    },
    "globalShortcut": "Ctrl+Space",
}


def test_claude_desktop_config_is_read_as_it_is() -> None:
    config = parse_config(json.dumps(CLAUDE_EXAMPLE))
    assert config.problems == ()
    assert [s.name for s in config.servers] == ["filesystem", "github"]
    filesystem = config.servers[0]
    assert filesystem.transport == StdioTransport(
        command="npx",
        args=("-y", "@modelcontextprotocol/server-filesystem", "/home/me/Desktop"),
    )
    assert filesystem.confirm is ConfirmPolicy.UNLESS_READ_ONLY
    assert config.servers[1].secret_names() == ("github-token",)


def test_an_http_server_with_headers_and_a_confirm_policy() -> None:
    config = parse_config(
        json.dumps(
            {
                "mcpServers": {
                    "home": {
                        "url": "https://home.example/mcp",
                        "headers": {"Authorization": "Bearer keyring:x"},
                        "confirm": "always",
                    }
                }
            }
        )
    )
    (home,) = config.servers
    assert home.transport == HttpTransport(
        url="https://home.example/mcp", headers={"Authorization": "Bearer keyring:x"}
    )
    # Only a whole value is a keyring reference.
    assert home.secret_names() == ()
    assert home.confirm is ConfirmPolicy.ALWAYS


@pytest.mark.parametrize(
    ("entry", "field", "words"),
    [
        ({}, None, '"command" (a program to start) or "url"'),
        ({"command": "a", "url": "https://x"}, None, "not both"),
        ({"command": 42}, "command", "must be the program to start, not 42"),
        ({"command": "a", "args": "b"}, "args", '"args" must be a list of strings'),
        ({"command": "a", "env": {"PORT": 8080}}, "env.PORT", "write numbers in quotes"),
        ({"url": "ftp://x"}, "url", "http:// or https://"),
        ({"url": "http://example.com/mcp"}, "url", "unencrypted"),
        ({"url": "https://x/mcp", "type": "sse"}, "type", "not supported"),
        ({"command": "a", "confirm": "sometimes"}, "confirm", '"unless_read_only"'),
        ({"command": "a", "type": "http"}, "type", 'has a "command"'),
        ("npx", None, "must be an object, not a string"),
    ],
)
def test_a_bad_entry_names_the_server_and_the_field_and_the_others_load(
    entry: object, field: str | None, words: str
) -> None:
    config = parse_config(
        json.dumps({"mcpServers": {"broken": entry, "good": {"command": "uvx", "args": ["x"]}}})
    )
    assert [s.name for s in config.servers] == ["good"]
    (problem,) = config.problems
    assert problem.server == "broken"
    assert problem.field == field
    assert 'server "broken"' in problem.message
    assert words in problem.message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"mcpServers": {"a": ', "is not valid JSON (line 1, column"),
        ("[1, 2]", "must hold a JSON object"),
        ('{"mcpServers": []}', '"mcpServers" must be an object'),
    ],
)
def test_a_broken_file_is_one_problem_and_no_servers(text: str, words: str) -> None:
    config = parse_config(text)
    assert config.servers == ()
    (problem,) = config.problems
    assert words in problem.message


def test_no_file_is_no_servers_and_no_problem(tmp_path: Path) -> None:
    config = McpConfigFile(tmp_path / "mcp.json").load()
    assert config.servers == ()
    assert config.problems == ()


def test_changes_keep_unknown_keys_and_write_a_private_file(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    original = {
        "mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "x-note": "mine"}},
        "theme": "dark",
    }
    path.write_text(json.dumps(original), encoding="utf-8")
    file = McpConfigFile(path)
    file.put_server("home", server_entry(HttpTransport(url="https://home.example/mcp")))
    file.set_confirm("time", ConfirmPolicy.NEVER)
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["theme"] == "dark"
    assert written["mcpServers"]["time"] == {
        "command": "uvx",
        "args": ["mcp-server-time"],
        "x-note": "mine",
        "confirm": "never",
    }
    assert written["mcpServers"]["home"] == {"url": "https://home.example/mcp"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    config = file.set_confirm("time", ConfirmPolicy.UNLESS_READ_ONLY)
    assert "confirm" not in config.entries["time"]
    config = file.remove_server("home")
    assert [s.name for s in config.servers] == ["time"]


def test_a_bad_new_entry_is_refused_and_the_file_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    file = McpConfigFile(path)
    file.put_server("time", {"command": "uvx"})
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r'server "bad": "url" must be an http'):
        file.put_server("bad", {"url": "nowhere"})
    assert path.read_bytes() == before


def test_a_file_that_is_not_json_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {', encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON"):
        McpConfigFile(path).put_server("time", {"command": "uvx"})
    assert path.read_text(encoding="utf-8") == '{"mcpServers": {'


def test_merging_an_import_reports_only_real_clashes() -> None:
    ours = {"time": {"command": "uvx", "args": ["mcp-server-time"]}, "a": {"command": "x"}}
    theirs = {
        "time": {"command": "uvx", "args": ["mcp-server-time"]},
        "a": {"command": "y"},
        "b": {"url": "https://b/mcp"},
    }
    merged, clashes = merge_servers(ours, theirs)
    assert clashes == ("a",)
    assert merged == {**ours, "b": {"url": "https://b/mcp"}}


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {"HOME": "/home/me"}, "/home/me/.config/Claude/claude_desktop_config.json"),
        (
            "linux",
            {"HOME": "/home/me", "XDG_CONFIG_HOME": "/cfg"},
            "/cfg/Claude/claude_desktop_config.json",
        ),
        (
            "darwin",
            {"HOME": "/Users/me"},
            "/Users/me/Library/Application Support/Claude/claude_desktop_config.json",
        ),
        (
            "win32",
            {"HOME": "C:/Users/me", "APPDATA": "C:/Users/me/AppData/Roaming"},
            "C:/Users/me/AppData/Roaming/Claude/claude_desktop_config.json",
        ),
    ],
)
def test_claude_desktop_keeps_its_config_where_its_docs_say(
    platform: str, environ: dict[str, str], expected: str
) -> None:
    assert claude_desktop_config_path(platform, environ) == Path(expected)


def test_a_secret_is_named_the_same_way_wherever_it_is_read() -> None:
    # The server's start and Remove's clean-up read one name, spaces or not.
    config = parse_config(
        json.dumps(
            {
                "mcpServers": {
                    "a": {"command": "x", "env": {"T": "keyring: home-token ", "N": "keyring:"}}
                }
            }
        )
    )
    (server,) = config.servers
    assert server.secret_names() == ("home-token",)
    assert secret_name("keyring: home-token ") == "home-token"
    assert secret_name("keyring:") is None
    assert secret_name("Bearer keyring:x") is None
