"""MCP tests: real MCP servers (the official mcp-server-time, a server of the tests' own)
against the app's MCP client, through the core harness and the simulator's toolCall."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from sammy_desktop.tools.mcp import (
    McpConfigFile,
    McpServers,
    McpServerStatusChanged,
    ServerPolicy,
    ServerStatus,
)
from tests.core.conftest import Harness, core_harness  # noqa: F401 - the fixture, re-exported

TIME_SERVER: dict[str, Any] = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
"""The official time server from PyPI, over stdio."""

FAST_RESTARTS = ServerPolicy(
    start_timeout_s=20.0,
    ping_every_s=0.5,
    ping_timeout_s=5.0,
    first_retry_s=0.05,
    max_retry_s=0.2,
    attempts_before_failed=2,
    stop_timeout_s=6.0,
)


class KeyringSecrets(dict[str, str]):
    """Secrets by name, the shape ``SecretStore.get_secret`` has (the real one: tests/config)."""

    def get_secret(self, name: str) -> str | None:
        return self.get(name)

    def delete_secret(self, name: str) -> bool:
        return self.pop(name, None) is not None


def _ready(name: str) -> Callable[[McpServerStatusChanged], bool]:
    def ready(event: McpServerStatusChanged) -> bool:
        return event.server == name and event.status is ServerStatus.READY

    return ready


McpFactory = Callable[..., contextlib.AbstractAsyncContextManager[McpServers]]


@pytest.fixture
def mcp_servers(tmp_path: Path) -> McpFactory:
    """``async with mcp_servers(h, {"time": TIME_SERVER}) as servers``: started, each READY
    (or ``wait_ready=False``); every server stopped at the end, its processes gone."""

    @contextlib.asynccontextmanager
    async def make(
        h: Harness,
        servers: Mapping[str, Any],
        *,
        policy: ServerPolicy = FAST_RESTARTS,
        secrets: Mapping[str, str] | None = None,
        wait_ready: bool = True,
        raw: str | None = None,
        keyring: KeyringSecrets | None = None,
    ) -> AsyncIterator[McpServers]:
        path = h.paths.config_dir / "mcp.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(raw if raw is not None else json.dumps({"mcpServers": dict(servers)}))
        running = McpServers(
            McpConfigFile(path),
            tools=h.tools,
            bus=h.bus,
            secrets=keyring if keyring is not None else KeyringSecrets(secrets or {}),
            policy=policy,
        )
        running.start()
        try:
            if wait_ready:
                for name in running.config.entries:
                    await h.events.wait_for(McpServerStatusChanged, _ready(name), within_s=30)
            yield running
        finally:
            await running.aclose()

    return make
