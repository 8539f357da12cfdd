"""The pip install's one-time offer of an applications-menu entry: Add writes it, No thanks
is remembered."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from sammy_desktop.integration.desktop_entry import ENTRY_ACTIONS
from sammy_desktop.integration.desktop_file import parse_desktop_file, parse_exec
from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.banners import Banner
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.desktop_entry_offer import BANNER_KEY, DesktopEntryOffer
from sammy_desktop.ui.instance.commands import RemoteCommand
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.settings_state import SettingsState

from .conftest import MakeWindow

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the menu entry offer is Linux's"
)

PROGRAM = "/home/me/my venv/bin/sammy-desktop"


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$XDG_DATA_HOME`` in a temporary HOME, with no system entries."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / "data"))
    (tmp_path / "usr-share").mkdir()
    monkeypatch.setenv("XDG_DATA_DIRS", str(tmp_path / "usr-share"))
    return tmp_path / "home" / "data"


def _offer(
    window: MainWindow, state: SettingsState, tasks: UiTasks, *, is_profile: bool = False
) -> DesktopEntryOffer:
    return DesktopEntryOffer(
        window.banners, state, tasks, Assets(), is_profile=is_profile, program=lambda: PROGRAM
    )


async def _started(offer: DesktopEntryOffer, tasks: UiTasks) -> None:
    offer.start()
    await tasks.join()


def _button(banner: Banner, label: str) -> None:
    (button,) = [b for b in banner.action_buttons if b.text() == label]
    button.click()


def test_add_writes_the_entry_and_the_icon_and_is_remembered(
    make_window: MakeWindow,
    settings_state: SettingsState,
    tasks: UiTasks,
    qloop: asyncio.Runner,
    data_home: Path,
) -> None:
    window = make_window()
    offer = _offer(window, settings_state, tasks)
    qloop.run(_started(offer, tasks))
    banner = window.banners.banner(BANNER_KEY)
    assert banner is not None
    assert banner.text.startswith("Add Sammy to your applications menu?")
    assert banner.close_button is None  # answered with a button, so it is asked once

    async def add() -> None:
        assert banner is not None
        _button(banner, "Add")
        await tasks.join()

    qloop.run(add())

    entry = data_home / "applications" / "sammy-desktop.desktop"
    groups = parse_desktop_file(entry.read_text(encoding="utf-8"))
    assert parse_exec(groups["Desktop Entry"]["Exec"]) == [PROGRAM]
    icon = QImage(str(data_home / "icons/hicolor/256x256/apps/sammy-desktop.png"))
    assert (icon.width(), icon.height()) == (256, 256)
    assert settings_state.settings.desktop_entry_offered
    done = window.banners.banner(BANNER_KEY)
    assert done is not None and done.kind == "success"
    assert str(entry) in done.text

    # The next start asks no more (the answer is kept, and the entry is there).
    later = make_window()
    qloop.run(_started(_offer(later, settings_state, tasks), tasks))
    assert later.banners.banner(BANNER_KEY) is None


def test_no_thanks_is_remembered_and_writes_nothing(
    make_window: MakeWindow,
    settings_state: SettingsState,
    tasks: UiTasks,
    qloop: asyncio.Runner,
    data_home: Path,
) -> None:
    window = make_window()
    offer = _offer(window, settings_state, tasks)  # kept, as the app keeps it
    qloop.run(_started(offer, tasks))
    banner = window.banners.banner(BANNER_KEY)
    assert banner is not None

    _button(banner, "No thanks")

    assert window.banners.banner(BANNER_KEY) is None
    assert settings_state.settings.desktop_entry_offered
    assert not data_home.exists()
    later = make_window()
    qloop.run(_started(_offer(later, settings_state, tasks), tasks))
    assert later.banners.banner(BANNER_KEY) is None


def test_a_profile_is_not_offered_an_entry(
    make_window: MakeWindow,
    settings_state: SettingsState,
    tasks: UiTasks,
    qloop: asyncio.Runner,
    data_home: Path,
) -> None:
    window = make_window()
    qloop.run(_started(_offer(window, settings_state, tasks, is_profile=True), tasks))
    assert window.banners.banner(BANNER_KEY) is None
    assert not settings_state.settings.desktop_entry_offered


def test_an_entry_that_cannot_be_written_says_why(
    make_window: MakeWindow,
    settings_state: SettingsState,
    tasks: UiTasks,
    qloop: asyncio.Runner,
    data_home: Path,
) -> None:
    data_home.mkdir(parents=True)
    (data_home / "icons").write_text("a file where the folder goes", encoding="utf-8")
    window = make_window()
    offer = _offer(window, settings_state, tasks)

    async def add() -> None:
        offer.add()
        await tasks.join()

    qloop.run(add())

    banner = window.banners.banner(BANNER_KEY)
    assert banner is not None and banner.kind == "warning"
    assert banner.text == (
        "Sammy could not add itself to the applications menu: it could not write "
        f"{data_home}/icons/hicolor/256x256/apps/sammy-desktop.png ({data_home}/icons is a "
        "file, not a folder)."
    )
    assert not settings_state.settings.desktop_entry_offered  # asked again next time


def test_the_entry_actions_are_the_running_apps_commands() -> None:
    flags = {action.flag for action in ENTRY_ACTIONS}
    assert flags == {
        RemoteCommand.TOGGLE_TALK.flag,
        RemoteCommand.SHOW.flag,
        RemoteCommand.QUIT.flag,
    }
