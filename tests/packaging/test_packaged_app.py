"""Build the PyInstaller bundle and prove it on this machine, outside the development setup.

The frozen app runs from a clean environment: no virtualenv on PATH, no PYTHONPATH, a fresh
HOME, the working directory outside the checkout, and only what a desktop session has (the
display, the session bus with its keyring, the user's runtime dir with the sound server).
Everything it reports loading must come from inside the bundle, and its stderr must stay
clean. The build takes about a minute; run these alone with ``-m package``.
"""

from __future__ import annotations

import asyncio
import ctypes.util
import glob
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sammy_desktop import __version__
from sammy_desktop.selftest import STEP_NAMES
from tests.packaging.conftest import REPO

pytestmark = [
    pytest.mark.package,
    pytest.mark.keyring,
    pytest.mark.audio,
    pytest.mark.xvfb,
    pytest.mark.timeout(900),
]

RUN_TIMEOUT_S = 60
WINDOW_TIMEOUT_S = 30
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (\w+) +[\w.]+: ")


def desktop_environment(home: Path) -> dict[str, str]:
    """What a desktop session gives an app it starts, and nothing from the development setup."""
    home.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    for name in ("DISPLAY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "USER", "LOGNAME"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def unexpected_stderr(stderr: str) -> list[str]:
    """Lines on stderr that are not the app's own INFO/DEBUG log lines."""
    unexpected = []
    for line in stderr.splitlines():
        match = LOG_LINE.match(line)
        if match is None or match.group(1) not in ("INFO", "DEBUG"):
            unexpected.append(line)
    return unexpected


def test_the_frozen_app_passes_its_self_test(app_dir: Path, tmp_path: Path) -> None:
    # An MCP stdio server started from the frozen app: the official time server, as the
    # person's mcp.json names it (a program of its own, outside the bundle).
    config = tmp_path / "config"
    config.mkdir()
    server = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {"time": server}}))
    result = subprocess.run(
        [str(app_dir / "sammy-desktop"), "--self-test", "--config-dir", str(config)],
        env=desktop_environment(tmp_path / "home"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )

    report = result.stdout
    assert result.returncode == 0, f"{report}\n{result.stderr}"
    assert unexpected_stderr(result.stderr) == [], result.stderr
    lines = report.splitlines()
    assert lines[0] == f"sammy-desktop {__version__} self-test (frozen, linux)"
    steps = dict(re.findall(r"^  ok +(\S+) +\d+ ms  (.*)$", report, re.MULTILINE))
    assert list(steps) == list(STEP_NAMES), report
    internal = str(app_dir / "_internal")
    # What was loaded came from the bundle, not from the checkout or the system.
    assert f"from {internal}/certifi/cacert.pem" in steps["ca-bundle"]
    assert f"; {internal}/libportaudio.so" in steps["portaudio"]
    assert re.search(r"; [1-9]\d* devices via ", steps["portaudio"]), steps["portaudio"]
    assert f"library in {internal}/livekit/rtc/resources" in steps["echo-canceller"]
    assert f"renders from {internal}/resources/icons" in steps["qt"]
    assert "in use: keyring.backends.SecretService.Keyring" in steps["keyring"]
    # The sound server's own devices, by name: pulsectl is in the bundle and finds libpulse.
    assert steps["audio-devices"].startswith("1 microphone (SammyVirtualMic), 2 speakers")
    assert not list((app_dir / "_internal").glob("libpulse*")), "the system's libpulse only"
    assert steps["sqlite"].endswith("with FTS5")
    # QtNetwork (remote commands) and jeepney (the portal's shortcuts) are in the bundle.
    assert steps["remote-control"].startswith("the control socket's library loads")
    assert "jeepney" in steps["remote-control"]
    assert re.fullmatch(
        r"mcp 2\.\d+\.\d+: time ready with time__get_current_time, time__convert_time",
        steps["mcp-servers"],
    ), steps["mcp-servers"]
    assert lines[-1].startswith(f"self-test passed: {len(STEP_NAMES)} steps in ")


# Runs inside a private mount namespace: hides each directory (bind-mounts an empty one over
# it) and each file (bind-mounts /dev/null over it), then runs the command.
HIDE_AND_RUN = r"""
set -e
empty=$(mktemp -d)
while [ "$1" != "--" ]; do
    if [ -d "$1" ]; then mount --bind "$empty" "$1"; else mount --bind /dev/null "$1"; fi
    shift
done
shift
if "$PYTHON_THAT_BUILT" -c pass 2>/dev/null; then
    echo "hiding failed: $PYTHON_THAT_BUILT still runs" >&2
    exit 99
fi
exec "$@"
"""


def python_and_portaudio_paths() -> list[str]:
    """Every Python installation on this machine, the checkout, and the system's PortAudio."""
    candidates = {sys.prefix, sys.base_prefix, str(REPO)}
    candidates.update(glob.glob("/usr/lib/python3*") + glob.glob("/usr/local/lib/python3*"))
    portaudio = ctypes.util.find_library("portaudio")
    if portaudio:
        for folder in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"):
            candidates.update(glob.glob(f"{folder}/{portaudio}*"))
    existing = {Path(path).resolve() for path in candidates if Path(path).exists()}
    # A folder inside one already hidden disappears with it (and cannot be mounted over).
    return sorted(str(path) for path in existing if not any(p in path.parents for p in existing))


def test_the_frozen_app_needs_no_python_and_no_system_portaudio(
    app_dir: Path, tmp_path: Path
) -> None:
    """The "machine with no Python": every Python, the checkout and libportaudio hidden."""
    hidden = python_and_portaudio_paths()
    # A private mount namespace: as root directly, otherwise as root of a user namespace.
    unshare = ["unshare", "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        unshare[1:1] = ["--user", "--map-root-user"]
    command = [str(app_dir / "sammy-desktop"), "--self-test"]
    env = desktop_environment(tmp_path / "home")
    result = subprocess.run(
        [
            *unshare,
            "sh",
            "-c",
            HIDE_AND_RUN,
            "hide",
            *hidden,
            "--",
            "env",
            "-i",
            *(f"{name}={value}" for name, value in env.items()),
            *command,
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHON_THAT_BUILT": sys.executable},
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )

    assert "hiding failed" not in result.stderr, result.stderr
    assert "mount:" not in result.stderr, (
        "this test needs a private mount namespace (root, or unprivileged user namespaces): "
        + result.stderr
    )
    assert result.returncode == 0, f"hid {hidden}\n{result.stdout}\n{result.stderr}"
    assert result.stdout.splitlines()[-1].startswith(
        f"self-test passed: {len(STEP_NAMES)} steps in "
    )
    assert unexpected_stderr(result.stderr) == [], result.stderr


async def test_the_frozen_app_shows_its_window_and_quits_cleanly(
    app_dir: Path, tmp_path: Path
) -> None:
    process = await asyncio.create_subprocess_exec(
        str(app_dir / "sammy-desktop"),
        "--log-level",
        "INFO",
        env=desktop_environment(tmp_path / "home"),
        cwd=tmp_path,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    seen: list[str] = []

    async def read_until_window_shown() -> None:
        assert process.stderr is not None
        while raw := await process.stderr.readline():
            seen.append(raw.decode(errors="replace").rstrip("\n"))
            if seen[-1].endswith("sammy_desktop.desktop_app: window shown"):
                return
        raise AssertionError("the app ended before showing its window:\n" + "\n".join(seen))

    try:
        await asyncio.wait_for(read_until_window_shown(), WINDOW_TIMEOUT_S)
        process.send_signal(signal.SIGTERM)
        _, rest = await asyncio.wait_for(process.communicate(), RUN_TIMEOUT_S)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()

    stderr = "\n".join([*seen, rest.decode(errors="replace") if rest else ""])
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert unexpected_stderr(stderr) == [], stderr
    assert "Sammy Desktop exited" in stderr


def test_install_sh_installs_the_folder_for_one_user(app_dir: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = desktop_environment(home)

    subprocess.run([str(app_dir / "install.sh")], env=env, check=True, capture_output=True)

    target = home / ".local/opt/sammy-desktop"
    entry = (home / ".local/share/applications/sammy-desktop.desktop").read_text()
    assert f'Exec="{target}/sammy-desktop"' in entry.splitlines()
    assert "Icon=sammy-desktop" in entry.splitlines()
    assert (home / ".local/share/icons/hicolor/256x256/apps/sammy-desktop.png").is_file()
    version = subprocess.run(
        [str(home / ".local/bin/sammy-desktop"), "--version"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=RUN_TIMEOUT_S,
    )
    assert version.stdout.strip() == f"sammy-desktop {__version__}"

    subprocess.run([str(target / "install.sh"), "--uninstall"], env=env, check=True)

    assert not target.exists()
    assert not (home / ".local/bin/sammy-desktop").exists()
