"""The running app starts the person's MCP servers after its window shows, and its quit ends
every one of their processes: no orphans."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.mcp.test_server_life import _processes_with

ENTRY_POINT = Path(sys.executable).with_name("sammy-desktop")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_quitting_the_app_ends_its_mcp_servers(tmp_path: Path, signum: signal.Signals) -> None:
    marker = uuid.uuid4().hex
    profile = tmp_path / "profile"
    profile.mkdir()
    server = {
        "command": sys.executable,
        "args": ["-m", "mcp_server_time"],
        "env": {"SAMMY_TEST_MARK": marker},
    }
    (profile / "mcp.json").write_text(json.dumps({"mcpServers": {"one": server, "two": server}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env |= {"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path / "home")}
    env.pop("GEMINI_API_KEY", None)
    proc = subprocess.Popen(
        [str(ENTRY_POINT), "--config-dir", str(profile), "--log-level", "INFO"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    seen: list[str] = []
    ready: set[str] = set()
    try:
        for line in proc.stderr:  # line by line; the pytest timeout bounds it
            seen.append(line)
            for name in ("one", "two"):
                if f"MCP server {name!r}: ready" in line:
                    ready.add(name)
            if ready == {"one", "two"}:
                break
        else:
            pytest.fail("the app ended before its MCP servers were ready:\n" + "".join(seen))
        # The window came first: the servers never delay it.
        output = "".join(seen)
        assert output.index("window shown") < output.index("MCP server 'one': starting")
        assert len(_processes_with(marker)) == 2
        proc.send_signal(signum)
        seen.append(proc.stderr.read())
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    output = "".join(seen)
    assert "Sammy Desktop exited" in output, output
    assert "Traceback" not in output
    assert _processes_with(marker) == []
