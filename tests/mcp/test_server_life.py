"""A server's life: a bad entry or a missing program is a clear FAILED, the others still load;
a killed server is restarted and works again; stopping ends every child process."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import uuid
from pathlib import Path

import pytest

from sammy_desktop.sim import Scenario
from sammy_desktop.tools.events import ToolSetChanged
from sammy_desktop.tools.mcp import McpConfigRead, McpServerStatusChanged, ServerStatus
from tests.core.conftest import HarnessFactory
from tests.mcp.conftest import FAST_RESTARTS, TIME_SERVER, KeyringSecrets, McpFactory

NOTHING = Scenario(turns=[])


def _processes_with(marker: str) -> list[int]:
    """The processes whose environment carries ``marker`` (the servers these tests start)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker.encode() in environ:
            found.append(int(entry.name))
    return found


def _environment_of(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")


def _marked(marker: str) -> dict[str, object]:
    return {**TIME_SERVER, "env": {"SAMMY_TEST_MARK": marker}}


async def test_a_missing_program_fails_with_its_name_and_the_others_load(
    core_harness: HarnessFactory, mcp_servers: McpFactory
) -> None:
    servers = {
        "ghost": {"command": "sammy-no-such-mcp-server", "args": ["--x"]},
        "time": TIME_SERVER,
    }
    async with core_harness(NOTHING) as h, mcp_servers(h, servers, wait_ready=False):
        failed = await h.events.wait_for(
            McpServerStatusChanged,
            lambda e: e.server == "ghost" and e.status is ServerStatus.FAILED,
            within_s=10,
        )
        assert "'sammy-no-such-mcp-server' was not found" in failed.detail
        assert 'check "command" in mcp.json' in failed.detail
        ready = await h.events.wait_for(
            McpServerStatusChanged,
            lambda e: e.server == "time" and e.status is ServerStatus.READY,
            within_s=30,
        )
        assert "time__get_current_time" in ready.tools
        assert h.tools.is_enabled("time__get_current_time")


async def test_a_broken_file_is_reported_and_nothing_starts(
    core_harness: HarnessFactory, mcp_servers: McpFactory
) -> None:
    async with (
        core_harness(NOTHING) as h,
        mcp_servers(h, {}, raw='{"mcpServers": {"time": ', wait_ready=False),
    ):
        read = h.events.one(McpConfigRead)
        assert read.servers == ()
        (problem,) = read.problems
        assert "mcp.json is not valid JSON (line 1" in problem.message
        assert h.events.of(McpServerStatusChanged) == []


async def test_a_bad_entry_is_named_and_the_good_one_starts(
    core_harness: HarnessFactory, mcp_servers: McpFactory
) -> None:
    servers = {"half": {"args": ["x"]}, "time": TIME_SERVER}
    async with core_harness(NOTHING) as h, mcp_servers(h, servers, wait_ready=False) as running:
        (problem,) = h.events.one(McpConfigRead).problems
        assert problem.server == "half"
        assert '"command" (a program to start) or "url"' in problem.message
        await h.events.wait_for(
            McpServerStatusChanged,
            lambda e: e.server == "time" and e.status is ServerStatus.READY,
            within_s=30,
        )
        assert running.problems == (problem,)


async def test_a_killed_server_is_restarted_and_its_tools_stay(
    core_harness: HarnessFactory, mcp_servers: McpFactory
) -> None:
    marker = uuid.uuid4().hex
    async with core_harness(NOTHING) as h, mcp_servers(h, {"time": _marked(marker)}) as running:
        [pid] = _processes_with(marker)
        os.kill(pid, signal.SIGKILL)
        restarting = await h.events.wait_for(
            McpServerStatusChanged,
            lambda e: e.status is ServerStatus.RESTARTING,
            within_s=10,
        )
        assert restarting.retry_in_s is not None
        await h.events.wait_for(
            McpServerStatusChanged, lambda e: e.status is ServerStatus.READY, count=2, within_s=30
        )
        [new_pid] = _processes_with(marker)
        assert new_pid != pid
        # Same tools: the restart declared nothing new to the conversation.
        assert len(h.events.of(ToolSetChanged)) == 1
        server = running.server("time")
        assert server is not None
        result = await server.call("get_current_time", {"timezone": "Asia/Tokyo"})
        assert result.ok


async def test_stopping_ends_every_child_process(
    core_harness: HarnessFactory, mcp_servers: McpFactory
) -> None:
    marker = uuid.uuid4().hex
    servers = {"one": _marked(marker), "two": _marked(marker)}
    async with core_harness(NOTHING) as h:
        async with mcp_servers(h, servers):
            assert len(_processes_with(marker)) == 2
        assert _processes_with(marker) == []
        stopped = [
            e.server
            for e in h.events.of(McpServerStatusChanged)
            if e.status is ServerStatus.STOPPED
        ]
        assert sorted(stopped) == ["one", "two"]


async def test_a_secret_from_the_keyring_reaches_the_server_and_a_missing_one_is_named(
    core_harness: HarnessFactory, mcp_servers: McpFactory, caplog: pytest.LogCaptureFixture
) -> None:
    marker = uuid.uuid4().hex
    servers = {
        "with": {**TIME_SERVER, "env": {"SAMMY_TEST_MARK": marker, "TOKEN": "keyring:time-token"}},
        "without": {**TIME_SERVER, "env": {"TOKEN": "keyring:nobody-saved-this"}},
    }
    async with (
        core_harness(NOTHING) as h,
        mcp_servers(h, servers, secrets={"time-token": "s3cret-" + marker}, wait_ready=False),
    ):
        await h.events.wait_for(
            McpServerStatusChanged,
            lambda e: e.server == "with" and e.status is ServerStatus.READY,
            within_s=30,
        )
        [pid] = _processes_with(marker)
        environ = _environment_of(pid)
        assert f"TOKEN=s3cret-{marker}".encode() in environ
        # The app's own key never reaches a server.
        assert not any(v.startswith((b"GEMINI_API_KEY=", b"GOOGLE_API_KEY=")) for v in environ)
        failed = await h.events.wait_for(
            McpServerStatusChanged,
            lambda e: e.server == "without" and e.status is ServerStatus.FAILED,
            within_s=10,
        )
        assert "'nobody-saved-this'" in failed.detail
        assert "Settings > Tools" in failed.detail
        assert "s3cret-" not in caplog.text


async def test_removing_a_server_forgets_the_secrets_only_it_used(
    core_harness: HarnessFactory, mcp_servers: McpFactory
) -> None:
    keyring = KeyringSecrets({"a-token": "1", "shared": "2", "unrelated": "3"})
    servers = {
        "a": {**TIME_SERVER, "env": {"T": "keyring:a-token", "S": "keyring:shared"}},
        "b": {**TIME_SERVER, "env": {"S": "keyring:shared"}},
    }
    async with core_harness(NOTHING) as h, mcp_servers(h, servers, keyring=keyring) as running:
        config = running.remove_server("a")
        assert [server.name for server in config.servers] == ["b"]
        await h.events.wait_for(
            McpServerStatusChanged,
            lambda e: e.server == "a" and e.status is ServerStatus.STOPPED,
            within_s=10,
        )
        await running.aclose()  # waits for the forgetting too
        assert keyring == {"shared": "2", "unrelated": "3"}
        assert not any(tool.name.startswith("a__") for tool in h.tools.tools)


async def test_a_hung_server_is_restarted_and_its_tools_say_so_meanwhile(
    core_harness: HarnessFactory, mcp_servers: McpFactory
) -> None:
    marker = uuid.uuid4().hex
    policy = dataclasses.replace(FAST_RESTARTS, ping_timeout_s=1.0, first_retry_s=3.0)
    async with (
        core_harness(NOTHING) as h,
        mcp_servers(h, {"time": _marked(marker)}, policy=policy) as running,
    ):
        [pid] = _processes_with(marker)
        os.kill(pid, signal.SIGSTOP)  # alive, but it answers nothing any more
        try:
            restarting = await h.events.wait_for(
                McpServerStatusChanged,
                lambda e: e.status is ServerStatus.RESTARTING,
                within_s=15,
            )
            assert "stopped answering" in restarting.detail
            server = running.server("time")
            assert server is not None
            meanwhile = await server.call("get_current_time", {"timezone": "Asia/Tokyo"})
            assert not meanwhile.ok
            assert "is restarting" in meanwhile.problems[0]
            await h.events.wait_for(
                McpServerStatusChanged,
                lambda e: e.status is ServerStatus.READY,
                count=2,
                within_s=30,
            )
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        # The hung process was ended, not left behind.
        assert pid not in _processes_with(marker)
        assert (await server.call("get_current_time", {"timezone": "Asia/Tokyo"})).ok
