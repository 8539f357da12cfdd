"""``sammy-desktop --toggle-share``: the running app shares the screen or stops, and says so
(issue 20 on issue 21's remote commands). In this process, through the real server and
client, as test_remote_control.py does for the other commands."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from sammy_desktop.app import build_parser
from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.instance.address import InstanceAddress
from sammy_desktop.ui.instance.client import send_command
from sammy_desktop.ui.instance.commands import REMOTE_FLAGS, RemoteCommand, Reply
from sammy_desktop.ui.instance.remote_control import RemoteControl
from sammy_desktop.ui.instance.server import InstanceServer
from sammy_desktop.ui.screen.share import NOT_RUNNING
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.tray import TrayIcon

from .conftest import FakeAgent, MakeWindow
from .screen_share_support import SCREEN_1, SCREEN_2, make_rig


@pytest.fixture
def address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> InstanceAddress:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    return InstanceAddress.for_config_dir(tmp_path / "profile")


def test_the_flag_is_offered_with_its_help() -> None:
    assert RemoteCommand.TOGGLE_SHARE.flag == "--toggle-share"
    assert "share your screen" in REMOTE_FLAGS[RemoteCommand.TOGGLE_SHARE]
    arguments = build_parser().parse_args(["--toggle-share"])
    assert arguments.remote is RemoteCommand.TOGGLE_SHARE


def test_toggle_share_shares_the_screen_and_stops_and_the_window_follows(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_window: MakeWindow,
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
    bridge: EventBridge,
    address: InstanceAddress,
) -> None:
    rig = make_rig(agent, settings_state, tasks, bridge=bridge)
    window = make_window(screen_share=rig.share, list_sources=rig.list_sources)
    tray = TrayIcon(window, bridge, on_quit=lambda: None)
    control = RemoteControl(
        window, lambda: None, describe=lambda: tray.tooltip, screen_share=rig.share
    )
    server = InstanceServer(address, control.handle)
    server.listen()

    async def toggle() -> Reply:
        return await asyncio.to_thread(send_command, address, RemoteCommand.TOGGLE_SHARE)

    async def scenario() -> None:
        # Not connected: it cannot, and says why in the engine's words.
        assert await toggle() == Reply(False, f"Sammy cannot share your screen now: {NOT_RUNNING}")
        assert not rig.share.sharing
        agent.move_to(AgentState.READY)
        assert await toggle() == Reply(True, "Sammy is sharing your screen.")
        assert rig.share.source is not None and rig.share.source.kind == "screen"
        assert not window.sharing_banner.isHidden()
        assert window.share_button is not None and window.share_button.isChecked()
        status = await asyncio.to_thread(send_command, address, RemoteCommand.STATUS)
        assert status == Reply(True, "Sammy: Ready · sharing screen · window hidden")
        assert await toggle() == Reply(True, "Sammy stopped sharing your screen.")
        assert not rig.share.sharing and window.sharing_banner.isHidden()
        # The person's last choice in the window is what the next toggle shares.
        assert window.screen_sharing is not None
        window.screen_sharing.start(SCREEN_2)
        window.screen_sharing.stop()
        assert await toggle() == Reply(True, "Sammy is sharing your screen.")
        assert rig.share.source == SCREEN_2

    try:
        qloop.run(scenario())
    finally:
        server.close()
    assert SCREEN_1 in rig.sources


def test_without_screen_sharing_the_command_says_so(
    make_window: MakeWindow,
) -> None:
    control = RemoteControl(make_window(), lambda: None, describe=lambda: "Sammy: Ready")
    reply = control.handle(RemoteCommand.TOGGLE_SHARE)
    assert reply == Reply(
        False, "Sammy cannot share your screen: this Sammy has no screen sharing."
    )
