"""The applications-menu entry: one template for the pip install's entry and the packaged one."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from sammy_desktop.integration import IntegrationError
from sammy_desktop.integration.desktop_entry import (
    ENTRY_ACTIONS,
    icon_path,
    install,
    installed_entries,
    menu_entry_path,
    menu_entry_text,
    should_offer,
)
from sammy_desktop.integration.desktop_file import parse_desktop_file, parse_exec

from .conftest import Home

REPO = Path(__file__).resolve().parents[2]
PACKAGED_ENTRY = REPO / "packaging" / "linux" / "sammy-desktop.desktop"
INSTALL_SH = REPO / "packaging" / "linux" / "install.sh"
PNG = b"\x89PNG\r\n\x1a\n not really an image"


def test_the_packaged_entry_is_the_template_for_the_plain_program_name() -> None:
    assert PACKAGED_ENTRY.read_text(encoding="utf-8") == menu_entry_text("sammy-desktop")


def test_the_entry_has_talk_show_and_quit_actions() -> None:
    groups = parse_desktop_file(menu_entry_text("/opt/a b/sammy-desktop"))
    main = groups["Desktop Entry"]
    assert main["Actions"] == "talk;show;quit;"
    assert main["Icon"] == "sammy-desktop"
    assert parse_exec(main["Exec"]) == ["/opt/a b/sammy-desktop"]
    flags = {
        key: parse_exec(groups[f"Desktop Action {key}"]["Exec"]) for key in ("talk", "show", "quit")
    }
    assert flags == {
        "talk": ["/opt/a b/sammy-desktop", "--toggle-talk"],
        "show": ["/opt/a b/sammy-desktop", "--show"],
        "quit": ["/opt/a b/sammy-desktop", "--quit"],
    }
    assert [action.key for action in ENTRY_ACTIONS] == ["talk", "show", "quit"]


def test_install_writes_the_entry_and_the_icon_under_xdg_data_home(xdg_home: Home) -> None:
    program = str(xdg_home.home / "my venv" / "bin" / "sammy-desktop")

    written = install(program, PNG)

    assert written.entry == xdg_home.data / "applications" / "sammy-desktop.desktop"
    assert written.icon == xdg_home.data / "icons/hicolor/256x256/apps/sammy-desktop.png"
    assert (menu_entry_path(), icon_path()) == (written.entry, written.icon)
    entry = parse_desktop_file(written.entry.read_text(encoding="utf-8"))["Desktop Entry"]
    assert parse_exec(entry["Exec"]) == [program]
    assert written.icon.read_bytes() == PNG
    for path in (written.entry, written.icon):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert installed_entries() == [written.entry]


def test_install_that_cannot_write_says_which_file(xdg_home: Home) -> None:
    xdg_home.data.mkdir(parents=True)
    (xdg_home.data / "applications").write_text("a file", encoding="utf-8")
    with pytest.raises(IntegrationError, match="could not add itself to the applications menu"):
        install("/usr/bin/sammy-desktop", PNG)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the offer is Linux's")
def test_the_offer_is_made_once_for_a_pip_install_without_an_entry(
    xdg_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert should_offer(offered=False, is_profile=False)
    assert not should_offer(offered=True, is_profile=False)
    assert not should_offer(offered=False, is_profile=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert not should_offer(offered=False, is_profile=False)
    monkeypatch.delattr(sys, "frozen")
    # An entry from the system's package or the installer: no offer.
    system = xdg_home.system_data / "applications"
    system.mkdir()
    (system / "sammy-desktop.desktop").write_text(menu_entry_text(), encoding="utf-8")
    assert not should_offer(offered=False, is_profile=False)


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("sed") is None,
    reason="install.sh is the Linux bundle's",
)
def test_install_sh_writes_the_same_entry_with_the_installed_path(tmp_path: Path) -> None:
    # A stand-in for the built folder: what build.sh puts beside the executable.
    home = tmp_path / "home with space"
    home.mkdir()
    app = tmp_path / "dist" / "sammy-desktop"
    app.mkdir(parents=True)
    shutil.copy(INSTALL_SH, app / "install.sh")
    shutil.copy(PACKAGED_ENTRY, app / "sammy-desktop.desktop")
    (app / "sammy-desktop.png").write_bytes(PNG)
    executable = app / "sammy-desktop"
    executable.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    executable.chmod(0o755)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}

    subprocess.run(["bash", str(app / "install.sh")], env=env, check=True, capture_output=True)

    target = home / ".local/opt/sammy-desktop/sammy-desktop"
    text = (home / ".local/share/applications/sammy-desktop.desktop").read_text(encoding="utf-8")
    # install.sh always quotes the path; with a space in it, so does the template.
    assert text == menu_entry_text(str(target))
    groups = parse_desktop_file(text)
    assert parse_exec(groups["Desktop Entry"]["Exec"]) == [str(target)]
    assert parse_exec(groups["Desktop Action talk"]["Exec"]) == [str(target), "--toggle-talk"]
    assert (home / ".local/share/icons/hicolor/256x256/apps/sammy-desktop.png").read_bytes() == PNG

    subprocess.run(
        ["bash", str(target.parent / "install.sh"), "--uninstall"],
        env=env,
        check=True,
        capture_output=True,
    )

    assert not (home / ".local/share/applications/sammy-desktop.desktop").exists()
    assert not target.parent.exists()
