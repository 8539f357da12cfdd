"""Settings > Appearance > Start at login writes and removes the autostart file for real.

A temporary HOME with its XDG folders; the switch on a real Appearance page over a real
SettingsState, the file work on the worker thread under the qasync loop.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QAbstractButton, QApplication
from pytestqt.qtbot import QtBot

from sammy_desktop.app import AppContext, QuitSignal, run_app
from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.integration.autostart import Autostart, launch_command
from sammy_desktop.integration.desktop_file import parse_desktop_file, parse_exec
from sammy_desktop.integration.launch import program_path
from sammy_desktop.ui.autostart_switch import AutostartSwitch
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.settings.appearance_page import AppearancePage
from sammy_desktop.ui.settings_state import SettingsState

pytestmark = pytest.mark.skipif(
    sys.platform in ("win32", "darwin"), reason="the XDG autostart file is Linux's and the BSDs'"
)

PROGRAM = "/opt/my apps/sammy-desktop"


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$XDG_CONFIG_HOME`` in a temporary HOME."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / "config"))
    return tmp_path / "home" / "config"


def _signal_future(*signals: SignalInstance) -> asyncio.Future[tuple[int, object]]:
    """The first of ``signals`` to fire: its index and its argument."""
    future: asyncio.Future[tuple[int, object]] = asyncio.get_running_loop().create_future()
    for index, signal in enumerate(signals):

        def fired(value: object, index: int = index) -> None:
            if not future.done():
                future.set_result((index, value))

        signal.connect(fired)
    return future


class Rig:
    """The Appearance page and the switch's applier, as the app wires them."""

    def __init__(self, qtbot: QtBot, state: SettingsState, profile_dir: Path | None) -> None:
        self.state = state
        self.tasks = UiTasks()
        self.page = AppearancePage(state)
        qtbot.addWidget(self.page)
        self.switch = AutostartSwitch(
            state, self.tasks, profile_dir=profile_dir, program=lambda: PROGRAM
        )
        self.banners: list[str] = []
        self.card = self.page.cards["start_at_login"]
        self.switch.show_on(self.card, banner=self.banners.append)

    @property
    def editor(self) -> QAbstractButton:
        editor = self.card.editor
        assert isinstance(editor, QAbstractButton)
        return editor

    async def flip(self, name: str = "start_at_login") -> tuple[int, object]:
        """Click a switch as a person does and wait until the entry was written or not."""
        outcome = _signal_future(self.switch.applied, self.switch.failed)
        editor = self.page.cards[name].editor
        assert isinstance(editor, QAbstractButton)
        editor.click()
        result = await asyncio.wait_for(outcome, 10)
        await self.tasks.join()
        return result


def _on(state: SettingsState) -> bool:
    """The setting, read through a call so mypy does not narrow it between steps."""
    return state.settings.start_at_login


@pytest.fixture
def state(tmp_path: Path, qapp: QApplication) -> SettingsState:
    return SettingsState(SettingsStore(tmp_path / "settings.json"), Settings())


def test_the_switch_writes_and_removes_the_autostart_file(
    qtbot: QtBot, qloop: asyncio.Runner, state: SettingsState, config_home: Path, tmp_path: Path
) -> None:
    rig = Rig(qtbot, state, profile_dir=None)
    path = config_home / "autostart" / "sammy-desktop.desktop"

    assert qloop.run(rig.flip()) == (0, True)

    assert _on(state)
    entry = parse_desktop_file(path.read_text(encoding="utf-8"))["Desktop Entry"]
    assert parse_exec(entry["Exec"]) == [PROGRAM, "--start-hidden"]  # hidden is the default

    # Start hidden off while it is on: the entry is written again without the flag.
    assert qloop.run(rig.flip("start_hidden")) == (0, True)
    entry = parse_desktop_file(path.read_text(encoding="utf-8"))["Desktop Entry"]
    assert parse_exec(entry["Exec"]) == [PROGRAM]

    assert qloop.run(rig.flip()) == (0, False)

    assert not path.exists()
    assert not _on(state)
    # Saved as well: the next start reads the same.
    assert not SettingsStore(tmp_path / "settings.json").load().settings.start_at_login


def test_a_profile_writes_its_own_entry_with_its_folder(
    qtbot: QtBot, qloop: asyncio.Runner, state: SettingsState, config_home: Path, tmp_path: Path
) -> None:
    profile = tmp_path / "my profile"
    rig = Rig(qtbot, state, profile_dir=profile)

    assert qloop.run(rig.flip()) == (0, True)

    (path,) = (config_home / "autostart").iterdir()
    assert path.name != "sammy-desktop.desktop"
    entry = parse_desktop_file(path.read_text(encoding="utf-8"))["Desktop Entry"]
    assert parse_exec(entry["Exec"]) == [PROGRAM, "--config-dir", str(profile), "--start-hidden"]


def test_a_folder_that_cannot_be_written_says_why_and_the_switch_goes_back_off(
    qtbot: QtBot, qloop: asyncio.Runner, state: SettingsState, config_home: Path
) -> None:
    config_home.mkdir(parents=True)
    (config_home / "autostart").write_text("a file where the folder goes", encoding="utf-8")
    rig = Rig(qtbot, state, profile_dir=None)

    index, sentence = qloop.run(rig.flip())

    assert index == 1
    assert sentence == (
        "Start at login could not be turned on: Sammy could not write "
        f"{config_home}/autostart/sammy-desktop.desktop ({config_home}/autostart is a file, "
        "not a folder)."
    )
    assert not _on(state)
    assert not rig.editor.isChecked()
    assert rig.card.error == sentence
    assert rig.banners == [sentence]  # the page is not on screen: a banner says it too


def _reconcile(rig: Rig, qloop: asyncio.Runner) -> None:
    async def run() -> None:
        rig.switch.reconcile()
        await rig.tasks.join()

    qloop.run(run())


def test_at_start_the_switch_follows_an_entry_that_is_there(
    qtbot: QtBot, qloop: asyncio.Runner, state: SettingsState, config_home: Path
) -> None:
    Autostart().enable(["/where/the/app/was/sammy-desktop", "--start-hidden"])
    rig = Rig(qtbot, state, profile_dir=None)
    assert not rig.editor.isChecked()

    _reconcile(rig, qloop)

    assert _on(state)
    assert rig.editor.isChecked()
    # The app moved: the entry names where it is now.
    assert Autostart().command() == [PROGRAM, "--start-hidden"]


def test_at_start_the_switch_goes_off_when_the_entry_was_removed(
    qtbot: QtBot, qloop: asyncio.Runner, state: SettingsState, config_home: Path
) -> None:
    state.update(start_at_login=True)
    rig = Rig(qtbot, state, profile_dir=None)
    assert rig.editor.isChecked()

    _reconcile(rig, qloop)

    assert not _on(state)
    assert not rig.editor.isChecked()
    assert not (config_home / "autostart").exists()  # nothing written


def test_the_running_app_rewrites_a_stale_entry_at_start(
    qapp: QApplication, tmp_path: Path, config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = AppPaths.profile(tmp_path / "profile")
    assert paths.profile_dir is not None
    entry = Autostart(paths.profile_dir)
    entry.enable(["/where/the/app/was/sammy-desktop", "--config-dir", str(paths.profile_dir)])
    context = AppContext.create(paths)
    reconciled: list[bool] = []

    async def scenario() -> int:
        quit_signal = QuitSignal()
        reconcile = AutostartSwitch._reconcile

        async def reconcile_then_quit(self: AutostartSwitch) -> None:
            await reconcile(self)
            reconciled.append(True)
            quit_signal.request()

        monkeypatch.setattr(AutostartSwitch, "_reconcile", reconcile_then_quit)
        return await run_app(qapp, context, quit_signal)

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0

    assert reconciled == [True]
    assert entry.command() == launch_command(
        paths.profile_dir, start_hidden=True, program=program_path()
    )
    assert SettingsStore(paths.settings_file).load().settings.start_at_login
