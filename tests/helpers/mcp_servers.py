"""Real MCP servers for the tests: the test server (HTTP or stdio) and mcp-server-time.

The fixtures start real processes and the tests talk to them with the real ``mcp`` 2.x
client; nothing is mocked. The fixtures are called ``mcp_http_server`` and
``mcp_stdio_server``; a test module gets them by importing their functions (pytest finds a
fixture through the module's globals, by the name the decorator gives it, so the test's
parameter shadows no import)::

    from tests.helpers.mcp_servers import (  # noqa: F401 - fixtures
        mcp_http_server_fixture,
        mcp_stdio_server_fixture,
    )

or the top-level ``tests/conftest.py`` lists ``"tests.helpers.mcp_servers"`` in
``pytest_plugins``, which makes them available everywhere.

- ``mcp_http_server`` starts ``python -m tests.helpers.mcp_test_server`` on a free port
  of 127.0.0.1 and yields a :class:`McpHttpServer` (``.url``, ``.events_file``,
  ``.process``, ``await .wait_for_event(...)``). Teardown stops the process and checks that
  it is gone.
- ``mcp_stdio_server`` yields a :class:`McpStdioServer`: the ``StdioServerParameters``
  that make ``mcp.Client`` launch the same server over stdio, and its events file. Teardown
  checks that every process the client launched is gone.
- :func:`time_server_params` gives the ``StdioServerParameters`` of the official
  ``mcp-server-time`` (``python -m mcp_server_time``).

What the test server does is appended to its events file, one line each (``started
slow_echo hi``, ``cancelled slow_echo hi``, ...; see ``tests/helpers/mcp_test_server.py``),
so a test waits for what the server saw instead of sleeping.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters

__all__ = [
    "REPO_ROOT",
    "TEST_SERVER_MODULE",
    "TIME_SERVER_COMMAND",
    "EventsFile",
    "McpHttpServer",
    "McpStdioServer",
    "mcp_http_server_fixture",
    "mcp_stdio_server_fixture",
    "running_http_server",
    "stdio_test_server_params",
    "time_server_params",
]

REPO_ROOT: Final = Path(__file__).resolve().parents[2]
TEST_SERVER_MODULE: Final = "tests.helpers.mcp_test_server"
TIME_SERVER_COMMAND: Final = (sys.executable, "-m", "mcp_server_time")
"""The official time server; its tools are ``get_current_time`` and ``convert_time``."""

_START_WITHIN_S: Final = 30.0
_STOP_WITHIN_S: Final = 10.0
_POLL_S: Final = 0.02


def _matcher(expected: str | re.Pattern[str]) -> Callable[[str], bool]:
    if isinstance(expected, str):
        return lambda line: line == expected
    return lambda line: expected.search(line) is not None


def _describe(expected: str | re.Pattern[str]) -> str:
    return repr(expected) if isinstance(expected, str) else f"/{expected.pattern}/"


def _pid_gone(pid: int) -> bool:
    """Whether ``pid`` no longer runs (never existed, or exited and is a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # pragma: no cover - someone else's process reused the pid
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # pragma: no cover - raced its exit, or no /proc
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


@dataclass
class EventsFile:
    """The lines a test server appends to its ``--events`` file."""

    path: Path

    def lines(self) -> list[str]:
        """Every event line so far, oldest first."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        # A line still being written has no newline yet; it is not an event so far.
        return text.split("\n")[:-1]

    def find(self, expected: str | re.Pattern[str]) -> str | None:
        """The first line equal to ``expected`` (a str) or matching it (a pattern)."""
        matches = _matcher(expected)
        return next((line for line in self.lines() if matches(line)), None)

    async def wait_for(
        self,
        expected: str | re.Pattern[str],
        *,
        within_s: float = 10.0,
        alive: Callable[[], bool] | None = None,
    ) -> str:
        """The first line matching ``expected``, already written or coming.

        Args:
            expected: the exact line, or a pattern searched in each line.
            within_s: how long to wait.
            alive: when given, the wait fails as soon as this says the server is gone.

        Raises:
            TimeoutError: no such line within ``within_s``; the message lists the lines.
        """
        deadline = time.monotonic() + within_s
        while True:
            line = self.find(expected)
            if line is not None:
                return line
            gone = alive is not None and not alive()
            if gone or time.monotonic() >= deadline:
                why = "the server exited" if gone else f"not within {within_s} s"
                raise TimeoutError(
                    f"no event {_describe(expected)} ({why}); events: {self.lines()[-20:]}"
                )
            await anyio.sleep(_POLL_S)

    def wait_for_sync(self, expected: str | re.Pattern[str], *, within_s: float = 10.0) -> str:
        """:meth:`wait_for` for code outside an event loop (fixture setup)."""
        deadline = time.monotonic() + within_s
        while (line := self.find(expected)) is None:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no event {_describe(expected)} within {within_s} s")
            time.sleep(_POLL_S)
        return line

    def pids(self) -> list[int]:
        """The pids of every server process that wrote to this file (``pid <n>`` lines)."""
        return [int(line.split()[1]) for line in self.lines() if line.startswith("pid ")]


@dataclass
class McpHttpServer:
    """The test server running as a subprocess, serving streamable HTTP on 127.0.0.1.

    Attributes:
        url: the streamable HTTP endpoint, ``http://127.0.0.1:<port>/mcp``.
        port: the TCP port it listens on.
        events_file: where it appends its event lines.
        log_file: its stderr (the SDK's and uvicorn's logs).
        process: the server process.
    """

    url: str
    port: int
    events_file: Path
    log_file: Path
    process: subprocess.Popen[bytes]
    _events: EventsFile = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._events = EventsFile(self.events_file)

    def events(self) -> list[str]:
        """Every event line so far, oldest first."""
        return self._events.lines()

    def alive(self) -> bool:
        """Whether the server process still runs."""
        return self.process.poll() is None

    async def wait_for_event(
        self, expected: str | re.Pattern[str], *, within_s: float = 10.0
    ) -> str:
        """The first event line equal to ``expected`` (or matching a pattern), already
        written or coming; the events file outlives the call that caused the event.

        Raises:
            TimeoutError: no such line within ``within_s`` seconds, or the server exited
                without writing it.
        """
        return await self._events.wait_for(expected, within_s=within_s, alive=self.alive)

    async def wait_for_exit(self, *, within_s: float = 10.0) -> int:
        """The process's exit status, once it has exited by itself (``crash`` gives 3).

        Raises:
            TimeoutError: it still runs after ``within_s`` seconds.
        """
        deadline = time.monotonic() + within_s
        while (code := self.process.poll()) is None:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"the MCP test server still runs after {within_s} s")
            await anyio.sleep(_POLL_S)
        return code

    def log(self) -> str:
        """What the server wrote to stderr so far."""
        try:
            return self.log_file.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def stop(self) -> None:
        """Stop the server (SIGTERM, SIGKILL if it hangs) and check that it is gone.

        Raises:
            AssertionError: it needed SIGKILL, or is still there.
        """
        needed_kill = False
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(_STOP_WITHIN_S)
            except subprocess.TimeoutExpired:
                needed_kill = True
                # The whole session: the server runs in its own (start_new_session).
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(_STOP_WITHIN_S)
        assert self.process.returncode is not None
        assert _pid_gone(self.process.pid), f"MCP test server {self.process.pid} is still there"
        assert not needed_kill, (
            f"MCP test server did not exit within {_STOP_WITHIN_S} s of SIGTERM; "
            f"log:\n{self.log()[-3000:]}"
        )


def _confirm_accepting(port: int, within_s: float) -> None:
    deadline = time.monotonic() + within_s
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(_POLL_S)


@contextlib.contextmanager
def running_http_server(
    directory: Path, *, start_within_s: float = _START_WITHIN_S
) -> Iterator[McpHttpServer]:
    """Start the test server over HTTP on a free port; stop it (and check it is gone) after.

    The server binds port 0 itself and announces ``listening <port>`` once uvicorn
    accepts connections, so there is no window where another process takes the port.
    """
    directory.mkdir(parents=True, exist_ok=True)
    events_file = directory / "events.txt"
    log_file = directory / "server.log"
    events_file.unlink(missing_ok=True)
    with log_file.open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                TEST_SERVER_MODULE,
                "--port",
                "0",
                "--events",
                str(events_file),
            ],
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    events = EventsFile(events_file)
    server: McpHttpServer | None = None
    try:
        deadline = time.monotonic() + start_within_s
        while (line := events.find(re.compile(r"^listening \d+$"))) is None:
            if process.poll() is not None:
                raise RuntimeError(
                    f"the MCP test server exited with {process.returncode} before listening; "
                    f"log:\n{log_file.read_text(errors='replace')[-3000:]}"
                )
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"the MCP test server did not listen within {start_within_s} s; "
                    f"log:\n{log_file.read_text(errors='replace')[-3000:]}"
                )
            time.sleep(_POLL_S)
        port = int(line.split()[1])
        _confirm_accepting(port, within_s=max(1.0, deadline - time.monotonic()))
        server = McpHttpServer(
            url=f"http://127.0.0.1:{port}/mcp",
            port=port,
            events_file=events_file,
            log_file=log_file,
            process=process,
        )
        yield server
    finally:
        if server is None:
            if process.poll() is None:
                process.kill()
            process.wait(_STOP_WITHIN_S)
        else:
            server.stop()


@pytest.fixture(name="mcp_http_server")
def mcp_http_server_fixture(tmp_path: Path) -> Iterator[McpHttpServer]:
    """The test server on ``http://127.0.0.1:<free port>/mcp``, stopped after the test."""
    with running_http_server(tmp_path / "mcp-http-server") as server:
        yield server


def stdio_test_server_params(events_file: Path) -> StdioServerParameters:
    """How ``mcp.Client`` launches the test server over stdio, appending to ``events_file``."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", TEST_SERVER_MODULE, "--stdio", "--events", str(events_file)],
        cwd=REPO_ROOT,
    )


@dataclass
class McpStdioServer:
    """The test server as ``mcp.Client`` launches it over stdio.

    Each ``Client(server.params)`` starts its own server process; they all append to the
    same events file (each writes ``pid <n>`` first).

    Attributes:
        params: pass these to ``mcp.Client``.
        events_file: where the server processes append their event lines.
    """

    params: StdioServerParameters
    events_file: Path
    _events: EventsFile = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._events = EventsFile(self.events_file)

    def events(self) -> list[str]:
        """Every event line so far, oldest first."""
        return self._events.lines()

    async def wait_for_event(
        self, expected: str | re.Pattern[str], *, within_s: float = 10.0
    ) -> str:
        """The first event line equal to ``expected`` (or matching a pattern).

        Raises:
            TimeoutError: no such line within ``within_s`` seconds.
        """
        return await self._events.wait_for(expected, within_s=within_s)

    def pids(self) -> list[int]:
        """The pid of every server process started so far."""
        return self._events.pids()

    def running(self) -> list[int]:
        """The pids of the server processes that still run."""
        return [pid for pid in self.pids() if not _pid_gone(pid)]


@pytest.fixture(name="mcp_stdio_server")
def mcp_stdio_server_fixture(tmp_path: Path) -> Iterator[McpStdioServer]:
    """The test server's stdio launch parameters; after the test, no server process is left."""
    directory = tmp_path / "mcp-stdio-server"
    directory.mkdir(parents=True, exist_ok=True)
    events_file = directory / "events.txt"
    server = McpStdioServer(params=stdio_test_server_params(events_file), events_file=events_file)
    yield server
    # The client's stdio transport stops its server when the client closes; allow it a moment
    # for a process that is still exiting, then insist.
    deadline = time.monotonic() + _STOP_WITHIN_S
    while server.running() and time.monotonic() < deadline:
        time.sleep(_POLL_S)
    left = server.running()
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"stdio MCP test server process(es) {left} outlived their client"


def time_server_params(local_timezone: str | None = None) -> StdioServerParameters:
    """How ``mcp.Client`` launches ``mcp-server-time`` over stdio.

    Args:
        local_timezone: passed as ``--local-timezone``; by default the server detects the
            machine's zone and names it in its tools' argument descriptions.
    """
    command, *args = TIME_SERVER_COMMAND
    if local_timezone is not None:
        args += ["--local-timezone", local_timezone]
    return StdioServerParameters(command=command, args=args)
