"""--self-test's mcp-servers step: the servers started, their tools named, failures named."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sammy_desktop.selftest.mcp_servers import check_mcp_servers
from sammy_desktop.selftest.report import SelfTestFailure
from tests.mcp.conftest import TIME_SERVER, KeyringSecrets


def _file(tmp_path: Path, servers: object) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


async def test_each_server_is_started_and_its_tools_named(tmp_path: Path) -> None:
    detail = await check_mcp_servers(
        _file(tmp_path, {"time": TIME_SERVER}), tmp_path / "profile", KeyringSecrets()
    )
    assert detail.endswith(": time ready with time__get_current_time, time__convert_time")
    assert detail.startswith("mcp 2.")


async def test_a_server_that_does_not_start_fails_the_step_by_name(tmp_path: Path) -> None:
    servers = {"time": TIME_SERVER, "ghost": {"command": "sammy-no-such-program"}}
    with pytest.raises(SelfTestFailure, match=r"^ghost: the program 'sammy-no-such-program'"):
        await check_mcp_servers(_file(tmp_path, servers), tmp_path / "profile", KeyringSecrets())


async def test_a_server_that_exits_at_once_fails_the_step(tmp_path: Path) -> None:
    servers = {"quits": {"command": sys.executable, "args": ["-c", "raise SystemExit(4)"]}}
    with pytest.raises(SelfTestFailure, match=r"^quits: "):
        await check_mcp_servers(_file(tmp_path, servers), tmp_path / "profile", KeyringSecrets())


async def test_a_broken_file_fails_the_step_with_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"time": {"command": 3}}}')
    with pytest.raises(SelfTestFailure, match=r'server "time": "command" must be the program'):
        await check_mcp_servers(path, tmp_path / "profile", KeyringSecrets())
