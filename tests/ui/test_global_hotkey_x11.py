"""The global hotkey for real: pynput's listener on the private Xvfb, keys typed by xdotool.

Qt draws offscreen here, so no Sammy window exists on the X server at all: the keys go to
whatever has the focus there (nothing), as when the person works in another program.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.global_hotkey import GlobalHotkey
from sammy_desktop.ui.settings_state import SettingsState

from .conftest import FakeAgent, MakeWindow

pytestmark = pytest.mark.xvfb

CALL_TIMEOUT_S = 5.0


async def _xdotool(*args: str) -> None:
    process = await asyncio.create_subprocess_exec("xdotool", *args)
    assert await asyncio.wait_for(process.wait(), CALL_TIMEOUT_S) == 0


async def _until_calls(agent: FakeAgent, expected: list[str]) -> None:
    async with asyncio.timeout(CALL_TIMEOUT_S):
        while agent.names() != expected:
            agent.called.clear()
            await agent.called.wait()


def test_holding_the_combination_talks_and_letting_go_sends(
    qloop: asyncio.Runner,
    make_window: MakeWindow,
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
) -> None:
    window = make_window()
    hotkey = GlobalHotkey(settings_state, tasks)
    hotkey.pressed.connect(window.on_hotkey_pressed)
    hotkey.released.connect(window.on_hotkey_released)
    agent.move_to(AgentState.READY)

    async def scenario() -> None:
        hotkey.apply()
        await hotkey.wait_applied()
        # Off (the default): the keys do nothing. Proven below: had anything listened,
        # its events would arrive before those typed once it is on.
        await _xdotool("keydown", "ctrl+alt+space")
        await _xdotool("keyup", "ctrl+alt+space")

        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        assert hotkey.status == "On: hold Ctrl+Alt+Space in any window to talk."
        await _xdotool("keydown", "ctrl+alt+space")
        await _until_calls(agent, ["begin_talk"])
        assert window.state_pill.label.text() == "Listening"
        await _xdotool("keyup", "space")  # any key of it lets go
        await _until_calls(agent, ["begin_talk", "end_talk"])
        await _xdotool("keyup", "ctrl+alt")

        # Ctrl and Alt alone, or Space alone, are not the hotkey.
        agent.move_to(AgentState.READY)
        await _xdotool("keydown", "ctrl+alt")
        await _xdotool("keyup", "ctrl+alt")
        await _xdotool("key", "space")

        # Another combination, switched live.
        settings_state.update(global_hotkey_keys="Ctrl+Shift+F7")
        await hotkey.wait_applied()
        await _xdotool("keydown", "ctrl+shift+F7")
        await _until_calls(agent, ["begin_talk", "end_talk", "begin_talk"])
        await _xdotool("keyup", "ctrl+shift+F7")
        await _until_calls(agent, ["begin_talk", "end_talk", "begin_talk", "end_talk"])

        # Switched off live: the listener stops and the keys do nothing again.
        settings_state.update(global_hotkey=False)
        await hotkey.wait_applied()
        assert not hotkey.listening
        assert hotkey.status == ""
        agent.move_to(AgentState.READY)
        await _xdotool("keydown", "ctrl+shift+F7")
        await _xdotool("keyup", "ctrl+shift+F7")
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        await _xdotool("keydown", "ctrl+shift+F7")
        await _xdotool("keyup", "ctrl+shift+F7")
        await _until_calls(
            agent, ["begin_talk", "end_talk", "begin_talk", "end_talk", "begin_talk", "end_talk"]
        )
        await hotkey.aclose()
        assert not hotkey.listening

    qloop.run(scenario())


@pytest.fixture
def display_without_record(tmp_path: Path) -> Iterator[str]:
    """A second Xvfb, started without the RECORD extension (as some X servers are)."""
    read_end, write_end = os.pipe()
    log = tmp_path / "xvfb.log"
    with log.open("wb") as log_file:
        server = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-nolisten", "tcp", "-extension", "RECORD"],
            pass_fds=(write_end,),
            stdout=subprocess.DEVNULL,
            stderr=log_file,
        )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as display_number:
            number = display_number.readline().strip()
        assert number, f"Xvfb did not start: {log.read_text()}"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def test_an_x_server_without_record_gets_a_note_not_a_crash(
    qloop: asyncio.Runner,
    settings_state: SettingsState,
    tasks: UiTasks,
    display_without_record: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DISPLAY", display_without_record)
    hotkey = GlobalHotkey(settings_state, tasks)

    async def scenario() -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        await hotkey.aclose()

    qloop.run(scenario())
    assert not hotkey.listening
    assert hotkey.status.startswith("Not available on this desktop: this X server has no RECORD")
