"""One Sammy per settings folder, and the commands other processes send it (issue 21).

Real processes: the installed ``sammy-desktop`` entry point under Xvfb, against a simulator
of the Live service run by the test (so the test sees what the app sends), driven by more
``sammy-desktop`` processes, as a desktop's keyboard shortcut would.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from sammy_desktop.sim import LiveSimulator
from sammy_desktop.sim.recorder import Received
from sammy_desktop.ui.instance.address import InstanceAddress

ENTRY_POINT = Path(sys.executable).with_name("sammy-desktop")
KEY = "single-instance-test-key"

pytestmark = [pytest.mark.xvfb, pytest.mark.audio]


def _env(sim: LiveSimulator | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["QT_QPA_PLATFORM"] = "xcb"  # a real X window, on the Xvfb the test command starts
    env.pop("GEMINI_API_KEY", None)
    if sim is not None:
        env["GEMINI_API_KEY"] = KEY
        env["SSL_CERT_FILE"] = str(sim.ca_pem_path)
    return env


class App:
    """A running ``sammy-desktop``, its standard error read line by line as it comes.

    Read all along (not only while a test waits), so a talkative app never blocks on a full
    pipe.
    """

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._ended = False
        self._changed = asyncio.Event()
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        while raw := await stream.readline():
            self.lines.append(raw.decode(errors="replace"))
            self._changed.set()
        self._ended = True
        self._changed.set()

    async def wait_for_line(self, needle: str, timeout_s: float = 30.0) -> str:
        """The first line (seen already or coming) with ``needle`` in it."""
        seen = 0
        async with asyncio.timeout(timeout_s):
            while True:
                for line in self.lines[seen:]:
                    if needle in line:
                        return line
                seen = len(self.lines)
                if self._ended:
                    pytest.fail(f"the app ended before {needle!r}:\n{''.join(self.lines)}")
                self._changed.clear()
                await self._changed.wait()

    async def drain(self) -> None:
        await self._reader


@asynccontextmanager
async def _app(
    profile: Path, *args: str, sim: LiveSimulator | None = None, quit_at_end: bool = True
) -> AsyncIterator[App]:
    extra = ["--api-base-url", sim.base_url] if sim is not None else ["--demo"]
    process = await asyncio.create_subprocess_exec(
        str(ENTRY_POINT),
        "--config-dir",
        str(profile),
        "--log-level",
        "INFO",
        *extra,
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=_env(sim),
    )
    app = App(process)
    try:
        await app.wait_for_line("taking remote commands")
        yield app
        if quit_at_end and process.returncode is None:
            code, _out, err = await _sammy("--config-dir", str(profile), "--quit")
            assert code == 0, err
            assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await app.drain()


async def _sammy(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run ``sammy-desktop ARGS`` to its end: exit code, standard output, standard error."""
    process = await asyncio.create_subprocess_exec(
        str(ENTRY_POINT),
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env or _env(),
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def _mode(path: str) -> int:
    return os.stat(path).st_mode


def _activity(sim: LiveSimulator) -> list[str]:
    kinds = (Received.ACTIVITY_START, Received.ACTIVITY_END)
    return [event.kind for event in sim.recorder.events(None) if event.kind in kinds]


async def test_talk_from_other_processes_reaches_the_service(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    async with LiveSimulator(api_keys=(KEY,)) as sim, _app(profile, sim=sim):
        remote = ("--config-dir", str(profile))
        assert await _sammy(*remote, "--toggle-talk") == (0, "", "")
        await sim.recorder.wait_for(Received.ACTIVITY_START, timeout=30)
        code, status, _err = await _sammy(*remote, "--status")
        assert code == 0
        assert "talking" in status and "mic on" in status
        assert await _sammy(*remote, "--toggle-talk") == (0, "", "")
        await sim.recorder.wait_for(Received.ACTIVITY_END, timeout=30)
        assert _activity(sim) == ["activity_start", "activity_end"]

        # A key's press and release bound to two commands: push-to-talk.
        assert (await _sammy(*remote, "--talk-start"))[0] == 0
        await sim.recorder.wait_for(Received.ACTIVITY_START, count=2, timeout=30)
        assert (await _sammy(*remote, "--talk-start"))[0] == 0, "already talking: no harm"
        assert (await _sammy(*remote, "--talk-stop"))[0] == 0
        await sim.recorder.wait_for(Received.ACTIVITY_END, count=2, timeout=30)
        assert _activity(sim) == ["activity_start", "activity_end"] * 2
        code, status, _err = await _sammy(*remote, "--status")
        assert code == 0 and "talking" not in status


async def test_a_second_launch_hands_over_and_exits_0(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    async with _app(profile) as first:
        code, _out, err = await _sammy("--config-dir", str(profile))
        assert code == 0
        assert err.strip() == "sammy-desktop: Sammy is already running; its window is in front."
        await first.wait_for_line("remote command: activate")
        code, status, _err = await _sammy("--config-dir", str(profile), "--status")
        assert code == 0
        assert status.startswith("Sammy (offline demo): ") and "window hidden" not in status
        # A login start while Sammy runs leaves it as it is, quietly.
        assert await _sammy("--config-dir", str(profile), "--start-hidden") == (0, "", "")
        assert first.process.returncode is None


async def test_with_no_sammy_running_a_command_says_so_in_one_line(tmp_path: Path) -> None:
    profile = tmp_path / "nobody home"
    code, out, err = await _sammy("--config-dir", str(profile), "--toggle-talk")
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1, err
    assert err == (
        "sammy-desktop: Sammy is not running with this settings folder, so --toggle-talk did "
        f"nothing. Start it with: sammy-desktop --config-dir '{profile}'\n"
    )
    assert not profile.exists(), "a command creates no folder for an app that is not there"


async def test_show_starts_sammy_when_none_runs(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    process = await asyncio.create_subprocess_exec(
        str(ENTRY_POINT),
        *("--config-dir", str(profile), "--demo", "--log-level", "INFO", "--show"),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=_env(),
    )
    app = App(process)
    try:
        await app.wait_for_line("taking remote commands")
        assert (await _sammy("--config-dir", str(profile), "--quit"))[0] == 0
        assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_a_crashed_sammys_socket_and_lock_are_taken_over(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    address = InstanceAddress.for_config_dir(profile)
    async with _app(profile, quit_at_end=False) as crashed:
        crashed.process.send_signal(signal.SIGKILL)
        assert await crashed.process.wait() == -signal.SIGKILL
    # What it left behind: a socket nobody answers on, a lock whose process is gone.
    assert stat.S_ISSOCK(_mode(address.server_name))
    assert await asyncio.to_thread(address.lock_file.exists)
    code, _out, err = await _sammy("--config-dir", str(profile), "--status")
    assert code == 1 and "not running" in err
    async with _app(profile):
        code, status, _err = await _sammy("--config-dir", str(profile), "--status")
        assert code == 0 and status.startswith("Sammy (offline demo)")
        assert stat.S_IMODE(_mode(address.server_name)) & 0o077 == 0


async def test_two_settings_folders_run_side_by_side(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    async with _app(one), _app(two):
        for profile in (one, two):
            code, status, _err = await _sammy("--config-dir", str(profile), "--status")
            assert code == 0 and status.startswith("Sammy (offline demo)")
        assert await _sammy("--config-dir", str(one), "--toggle-talk") == (0, "", "")
        assert "talking" in (await _sammy("--config-dir", str(one), "--status"))[1]
        assert "talking" not in (await _sammy("--config-dir", str(two), "--status"))[1]
        assert await _sammy("--config-dir", str(one), "--toggle-talk") == (0, "", "")


async def test_only_this_user_can_reach_the_socket(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    address = InstanceAddress.for_config_dir(profile)
    async with _app(profile):
        folder = Path(address.server_name).parent
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert folder.stat().st_uid == os.getuid()
        if os.geteuid() != 0:
            pytest.skip("acting as another user needs root (the CI runs as root)")
        # Another user ("nobody") tries to connect, in a child process.
        code = await asyncio.to_thread(_connect_as_nobody, address.server_name)
        assert code == 13, "EACCES: the private folder keeps other users out"


def _connect_as_nobody(path: str) -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(path)
            os._exit(0)
        except OSError as exc:
            os._exit(exc.errno or 1)
        finally:
            os._exit(1)
    _pid, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
