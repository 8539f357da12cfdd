"""The MCP client in the bundle: what its code path loads ships, mcp's server-only packages do not.

``from mcp import Client`` imports mcp's own server side as well (mcp.client.client names
``Server`` and ``MCPServer`` at module level), so starlette, sse-starlette and cryptography ship
with it, and so do opentelemetry-api (the client's JSON-RPC dispatcher traces with it),
jsonschema (the session checks a tool's structured result against its output schema) and
httpx2 (the streamable HTTP transport). packaging/bundle_manifest.py leaves out the rest of
what the ``mcp`` wheel depends on: uvicorn, python-multipart, PyJWT. Proved both ways:

- without a bundle: a client session, over stdio against the reference server
  (mcp-server-time) and over streamable HTTP, runs with every module the manifest excludes
  unimportable;
- from the built bundle (``-m package``): its archive holds the client, both transports and
  what they import lazily (with their data files and native parts), and none of the packages
  left out; and the same sessions run in this Python with nothing importable that the bundle
  lacks.

A frozen app runs no script of ours, so the last test stands in for the frozen app with an
import hook. Once the app's ``--self-test`` has an MCP step, test_packaged_app proves it from
the frozen app itself.
"""

from __future__ import annotations

import ast
import json
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.packaging.conftest import REPO

SESSION_TIMEOUT_S = 60
SERVER_START_TIMEOUT_S = 30

# Runs in a fresh Python: makes modules unimportable (a prefix list, or everything not in an
# allow list), then imports what the app's MCP code uses and runs one client session.
SESSION = r"""
import asyncio
import importlib
import importlib.abc
import json
import sys

with open(sys.argv[1], encoding="utf-8") as file:
    spec = json.load(file)
refused_prefixes = tuple(spec.get("refuse", ()))
allowed = frozenset(spec["allow"]) if "allow" in spec else None
refused = []


class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == p or name.startswith(p + ".") for p in refused_prefixes) or (
            allowed is not None and name not in allowed
        ):
            refused.append(name)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


before = set(sys.modules)
sys.meta_path.insert(0, Refuse())

import mcp.client.subscriptions
import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

for name in spec["imports"]:
    importlib.import_module(name)


async def session():
    server = spec["server"]
    if "url" in server:
        target = streamable_http_client(server["url"])
    else:
        target = StdioServerParameters(command=server["command"][0], args=server["command"][1:])
    async with Client(target) as client:
        tools = (await client.list_tools()).tools
        result = await client.call_tool(server["tool"], server["arguments"])
    return {
        "tools": {tool.name: tool.output_schema is not None for tool in tools},
        "is_error": result.is_error,
        "structured": result.structured_content,
        "text": [b.text for b in result.content if isinstance(b, mcp_types.TextContent)],
    }


outcome = asyncio.run(session())
outcome["loaded"] = sorted(set(sys.modules) - before)
outcome["refused"] = sorted(set(refused))
print(json.dumps(outcome))
"""

# A streamable HTTP MCP server with one tool that has an output schema; it runs in this
# Python (with uvicorn), as any server the app connects to runs outside the app.
HTTP_SERVER = r"""
import sys

from pydantic import BaseModel

from mcp.server.mcpserver import MCPServer

server = MCPServer("sammy-test-http")


class Echoed(BaseModel):
    text: str
    length: int


@server.tool()
def echo(text: str) -> Echoed:
    "Return the text and its length."
    return Echoed(text=text, length=len(text))


server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
"""

# What the app's MCP client code path needs, by module, in the bundle.
CLIENT_MODULES = (
    # mcp.Client, its session, both transports, server events, errors, the wire types.
    "mcp",
    "mcp.client",
    "mcp.client.client",
    "mcp.client.session",
    "mcp.client.stdio",
    "mcp.client.streamable_http",
    "mcp.client.subscriptions",
    "mcp.os.posix.utilities",
    "mcp.shared.exceptions",
    "mcp.shared.jsonrpc_dispatcher",
    "mcp.types",
    "mcp_types",
    # What they load: anyio (its backend is imported by name), the HTTP client, the output
    # schema check (imported on the first call of a tool with an output schema), tracing.
    "anyio",
    "anyio._backends._asyncio",
    "httpx2",
    "httpcore2",
    "h11",
    "jsonschema",
    "jsonschema.validators",
    "jsonschema_specifications",
    "referencing",
    "rpds",
    "attrs",
    "opentelemetry.context.contextvars_context",
    "opentelemetry.propagate",
    "opentelemetry.trace",
    # mcp's server side, imported at module level by mcp.client.client.
    "mcp.server",
    "mcp.server.mcpserver",
    "starlette.applications",
    "sse_starlette.sse",
    "cryptography",
)

# Packages mcp's wheel brings (or their neighbours) that no client path loads.
LEFT_OUT = ("uvicorn", "python_multipart", "multipart", "jwt", "click", "rich", "typer", "dotenv")
LEFT_OUT_DISTRIBUTIONS = ("uvicorn", "python_multipart", "PyJWT", "click", "rich", "typer")

# The reference stdio server, and the call each server answers with structured content.
TIME_SERVER = {
    "command": [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"],
    "tool": "get_current_time",
    "arguments": {"timezone": "UTC"},
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A streamable HTTP MCP server on a free local port, for as long as the module runs."""
    port = free_port()
    log = tmp_path_factory.mktemp("mcp-http") / "server.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, "-c", HTTP_SERVER, str(port)], stdout=output, stderr=output
        )
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            assert process.poll() is None, f"the MCP HTTP server ended:\n{log.read_text()}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"no MCP HTTP server:\n{log.read_text()}"
                time.sleep(0.1)
        yield {
            "url": f"http://127.0.0.1:{port}/mcp",
            "tool": "echo",
            "arguments": {"text": "hello"},
        }
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(params=["stdio", "streamable-http"])
def server(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The server of one session: mcp-server-time over stdio, or the HTTP server."""
    if request.param == "stdio":
        return TIME_SERVER
    return request.getfixturevalue("http_server")  # type: ignore[no-any-return]


def app_mcp_imports() -> list[str]:
    """The mcp and mcp_types modules the app's own code imports (its MCP client)."""
    imported: set[str] = set()
    for path in (REPO / "sammy_desktop").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module)
    return sorted(name for name in imported if name.split(".")[0] in ("mcp", "mcp_types"))


def run_session(tmp_path: Path, server: dict[str, Any], **limits: list[str]) -> dict[str, Any]:
    # In a file: the bundle's allow list is longer than one command-line argument may be.
    spec = tmp_path / "session.json"
    spec.write_text(json.dumps({"server": server, "imports": app_mcp_imports(), **limits}))
    result = subprocess.run(
        [sys.executable, "-c", SESSION, str(spec)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=SESSION_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 0, f"the MCP client session failed:\n{result.stderr}"
    outcome: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])
    return outcome


def assert_the_session_worked(outcome: dict[str, Any], server: dict[str, Any]) -> None:
    assert outcome["tools"].get(server["tool"]) is True, outcome["tools"]  # with output schema
    assert outcome["is_error"] is False, outcome
    assert outcome["structured"], outcome
    if server["tool"] == "echo":
        assert outcome["structured"] == {"text": "hello", "length": 5}
    else:
        assert outcome["structured"]["timezone"] == "UTC"
    # The structured result was checked against the tool's output schema, in the client.
    assert "jsonschema.validators" in outcome["loaded"], outcome["refused"]


def test_an_mcp_client_session_needs_no_excluded_module(
    manifest: ModuleType, server: dict[str, Any], tmp_path: Path
) -> None:
    outcome = run_session(tmp_path, server, refuse=list(manifest.EXCLUDED_MODULES))

    assert_the_session_worked(outcome, server)
    loaded_excluded = [name for name in outcome["loaded"] if manifest.is_excluded_module(name)]
    assert not loaded_excluded, loaded_excluded


def test_the_mcp_servers_packages_left_out_are_excluded(manifest: ModuleType) -> None:
    for name in ("uvicorn", "python_multipart", "multipart", "jwt", "click", "rich"):
        assert manifest.is_excluded_module(name), name
    for name in ("mcp", "mcp_types", "starlette", "sse_starlette", "opentelemetry", "jsonschema"):
        assert not manifest.is_excluded_module(name), name


def bundle_modules(app_dir: Path) -> frozenset[str]:
    """Every module the frozen app can import: its PYZ, base_library.zip, extension modules."""
    # Imported here: PyInstaller is a build tool, only the bundle tests need it.
    from PyInstaller.archive.readers import (  # type: ignore[import-untyped]
        PKG_ITEM_PYZ,
        CArchiveReader,
    )

    internal = app_dir / "_internal"
    names: set[str] = set(sys.builtin_module_names)
    archive = CArchiveReader(str(app_dir / "sammy-desktop"))
    for name, entry in archive.toc.items():
        if entry[-1] == PKG_ITEM_PYZ:
            names.update(archive.open_embedded_archive(name).toc)
    with zipfile.ZipFile(internal / "base_library.zip") as library:
        for member in library.namelist():
            if member.endswith(".pyc"):
                parts = member.removesuffix(".pyc").split("/")
                names.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    dynload = internal / f"python{sys.version_info.major}.{sys.version_info.minor}" / "lib-dynload"
    for path in internal.rglob("*"):
        suffix = next((s for s in EXTENSION_SUFFIXES if path.name.endswith(s)), None)
        if suffix is None or not path.is_file():
            continue
        stem = path.name.removesuffix(suffix)
        if path.parent == dynload:
            names.add(stem)
        else:
            names.add(".".join([*path.parent.relative_to(internal).parts, stem]))
    return frozenset(names)


def _in(modules: frozenset[str], package: str) -> list[str]:
    return sorted(m for m in modules if m == package or m.startswith(f"{package}."))


@pytest.mark.package
@pytest.mark.timeout(900)
def test_the_bundle_holds_the_mcp_client_and_what_it_loads(app_dir: Path) -> None:
    modules = bundle_modules(app_dir)
    internal = app_dir / "_internal"

    missing = [name for name in CLIENT_MODULES if name not in modules]
    assert not missing, f"not in the bundle: {missing}"
    # The JSON Schema metaschemas the output schema check reads, and rpds' native code;
    # jsonschema's metadata (its __version__), not its benchmark's data
    # (packaging/hooks/modules/hook-jsonschema.py).
    schemas = internal / "jsonschema_specifications" / "schemas"
    assert (schemas / "draft202012" / "metaschema.json").is_file()
    assert "rpds.rpds" in modules
    assert list(internal.glob("jsonschema-*.dist-info"))
    assert not (internal / "jsonschema" / "benchmarks").exists()
    # opentelemetry finds a configured context and propagators (OTEL_* variables) through
    # its entry points.
    (api,) = internal.glob("opentelemetry_api-*.dist-info")
    assert "[opentelemetry_context]" in (api / "entry_points.txt").read_text()


@pytest.mark.package
@pytest.mark.timeout(900)
def test_the_bundle_leaves_out_what_only_an_mcp_server_needs(
    manifest: ModuleType, app_dir: Path
) -> None:
    modules = bundle_modules(app_dir)
    internal = app_dir / "_internal"

    found = {package: _in(modules, package) for package in LEFT_OUT}
    assert not any(found.values()), {k: v for k, v in found.items() if v}
    for package in LEFT_OUT:
        assert not (internal / package).exists(), package
    for distribution in LEFT_OUT_DISTRIBUTIONS:
        assert not list(internal.glob(f"{distribution}-*.dist-info")), distribution
    # Every exclusion of the manifest holds, not only mcp's.
    excluded = sorted(name for name in modules if manifest.is_excluded_module(name))
    assert not excluded, excluded


@pytest.mark.package
@pytest.mark.timeout(900)
def test_an_mcp_client_session_runs_with_only_the_bundles_modules(
    app_dir: Path, server: dict[str, Any], tmp_path: Path
) -> None:
    outcome = run_session(tmp_path, server, allow=sorted(bundle_modules(app_dir)))

    assert_the_session_worked(outcome, server)
