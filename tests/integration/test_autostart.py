"""Start at login: the autostart entry is written, read back and removed in a temporary HOME.

The XDG file is written for real (this runs on Linux); the LaunchAgent and the Run key are
checked through their pure builders, which every platform can run.
"""

from __future__ import annotations

import plistlib
import stat
import sys
from pathlib import Path

import pytest

from sammy_desktop.integration import IntegrationError
from sammy_desktop.integration.autostart import (
    LAUNCH_AGENT_LABEL,
    Autostart,
    launch_agent_path,
    launch_agent_plist,
    launch_command,
    run_key_value,
    run_value_name,
    xdg_autostart_path,
)
from sammy_desktop.integration.desktop_file import parse_desktop_file, parse_exec

from .conftest import Home

xdg_only = pytest.mark.skipif(
    sys.platform in ("win32", "darwin"), reason="the XDG autostart file is Linux's and the BSDs'"
)

PROGRAM = "/opt/my apps/sammy-desktop"


def test_the_command_names_the_profile_and_the_hidden_start() -> None:
    assert launch_command(start_hidden=False, program=PROGRAM) == [PROGRAM]
    assert launch_command(Path("/p/one"), start_hidden=True, program=PROGRAM) == [
        PROGRAM,
        "--config-dir",
        "/p/one",
        "--start-hidden",
    ]


def test_the_autostart_file_follows_xdg_config_home_at_call_time(
    xdg_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert xdg_autostart_path() == xdg_home.config / "autostart" / "sammy-desktop.desktop"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert xdg_autostart_path() == xdg_home.home / ".config/autostart/sammy-desktop.desktop"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/path")  # not absolute: ignored (spec)
    assert xdg_autostart_path() == xdg_home.home / ".config/autostart/sammy-desktop.desktop"


def test_a_profile_has_its_own_file_name(xdg_home: Home) -> None:
    default = xdg_autostart_path()
    one = xdg_autostart_path(Path("/profiles/one"))
    two = xdg_autostart_path(Path("/profiles/two"))
    assert len({default, one, two}) == 3
    assert one.parent == default.parent
    assert one.name.startswith("sammy-desktop-") and one.suffix == ".desktop"
    assert one == xdg_autostart_path(Path("/profiles/one"))  # the same every time


@xdg_only
def test_enable_writes_a_desktop_file_that_runs_exactly_the_command(xdg_home: Home) -> None:
    autostart = Autostart()
    command = launch_command(Path("/my profiles/a"), start_hidden=True, program=PROGRAM)
    assert not autostart.is_enabled()

    autostart.enable(command)

    path = xdg_home.config / "autostart" / "sammy-desktop.desktop"
    assert autostart.location == str(path)
    text = path.read_text(encoding="utf-8")
    entry = parse_desktop_file(text)["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Exec"] == (
        '"/opt/my apps/sammy-desktop" --config-dir "/my profiles/a" --start-hidden'
    )
    assert parse_exec(entry["Exec"]) == command
    assert entry["X-GNOME-Autostart-enabled"] == "true"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert autostart.is_enabled()
    assert autostart.launches(command)
    assert not autostart.launches([PROGRAM])  # without the flags: stale
    assert list(path.parent.iterdir()) == [path]  # no temporary file left beside it


@xdg_only
def test_enable_again_replaces_and_disable_removes(xdg_home: Home) -> None:
    autostart = Autostart()
    autostart.enable(["/old/place/sammy-desktop"])
    autostart.enable([PROGRAM])
    assert autostart.command() == [PROGRAM]

    autostart.disable()

    assert not (xdg_home.config / "autostart" / "sammy-desktop.desktop").exists()
    assert not autostart.is_enabled()
    autostart.disable()  # nothing there: nothing to do


@xdg_only
def test_profiles_do_not_overwrite_each_other(xdg_home: Home) -> None:
    default, profile = Autostart(), Autostart(Path("/profiles/one"))
    default.enable([PROGRAM])
    profile.enable([PROGRAM, "--config-dir", "/profiles/one"])
    assert default.command() == [PROGRAM]
    assert profile.command() == [PROGRAM, "--config-dir", "/profiles/one"]
    profile.disable()
    assert default.is_enabled() and not profile.is_enabled()


@xdg_only
def test_an_entry_switched_off_by_the_desktop_counts_as_off(xdg_home: Home) -> None:
    path = xdg_home.config / "autostart" / "sammy-desktop.desktop"
    path.parent.mkdir(parents=True)
    path.write_text(
        f"[Desktop Entry]\nType=Application\nExec={PROGRAM}\nHidden=true\n", encoding="utf-8"
    )
    assert not Autostart().is_enabled()


@xdg_only
def test_an_autostart_folder_that_is_a_file_fails_in_a_sentence(xdg_home: Home) -> None:
    folder = xdg_home.config / "autostart"
    folder.parent.mkdir(parents=True)
    folder.write_text("not a folder", encoding="utf-8")

    with pytest.raises(IntegrationError) as caught:
        Autostart().enable([PROGRAM])

    assert str(caught.value) == (
        "Start at login could not be turned on: Sammy could not write "
        f"{folder}/sammy-desktop.desktop ({folder} is a file, not a folder)."
    )
    assert isinstance(caught.value.__cause__, OSError)
    assert not Autostart().is_enabled()
    Autostart().disable()  # there is nothing to remove under a file


def test_the_launch_agent_runs_the_command_at_login(tmp_path: Path) -> None:
    home = tmp_path / "fake-home"
    command = [f"{home}/Applications/Sammy Desktop.app/Contents/MacOS/sammy-desktop"]
    assert launch_agent_path(home) == home / f"Library/LaunchAgents/{LAUNCH_AGENT_LABEL}.plist"

    plist = plistlib.loads(launch_agent_plist([*command, "--start-hidden"]))

    assert plist["Label"] == LAUNCH_AGENT_LABEL
    assert plist["ProgramArguments"] == [*command, "--start-hidden"]
    assert plist["RunAtLoad"] is True


def test_a_profiles_launch_agent_has_its_own_label(tmp_path: Path) -> None:
    profile = Path("/Users/me/profiles/one")
    path = launch_agent_path(tmp_path, profile)
    assert path != launch_agent_path(tmp_path)
    label = plistlib.loads(launch_agent_plist(["sammy-desktop"], profile))["Label"]
    assert path.name == f"{label}.plist"
    assert label.startswith(f"{LAUNCH_AGENT_LABEL}.")


def test_the_run_key_value_is_one_windows_command_line() -> None:
    value = run_key_value(
        [
            r"C:\Program Files\Sammy Desktop\sammy-desktop.exe",
            "--config-dir",
            r"D:\p",
            "--start-hidden",
        ]
    )
    assert value == (
        r'"C:\Program Files\Sammy Desktop\sammy-desktop.exe" --config-dir D:\p --start-hidden'
    )
    assert run_value_name() == "Sammy Desktop"
    assert run_value_name(Path("D:/p")) != run_value_name(Path("D:/q"))
