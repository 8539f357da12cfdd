"""The global hotkey's logic without an X server: the combination, the platform checks,
starting and stopping with the setting, and key events crossing threads to the window.

The real listener under Xvfb is in ``test_global_hotkey_x11.py``; here a hand-written
listener stands in (it calls back from its own thread, as pynput's does).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from sammy_desktop.config import TalkKey
from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.global_hotkey import GlobalHotkey
from sammy_desktop.ui.key_listeners import (
    ComboTracker,
    HotkeyUnavailableError,
    platform_refusal,
    pynput_combination,
    start_system_listener,
)
from sammy_desktop.ui.settings_state import SettingsState

from .conftest import FakeAgent, MakeWindow, talking


class FakeListener:
    """A started listener whose key events the test sends from another thread."""

    def __init__(self, keys: str, on_down: Callable[[], None], on_up: Callable[[], None]):
        self.keys = keys
        self.on_down = on_down
        self.on_up = on_up
        self.stopped = False
        self.stopped_on: list[threading.Thread] = []

    def stop(self) -> None:
        self.stopped = True
        self.stopped_on.append(threading.current_thread())

    def from_thread(self, callback: Callable[[], None]) -> None:
        worker = threading.Thread(target=callback, name="fake-listener")
        worker.start()
        worker.join(5)


class FakeStarter:
    """Stands in for start_system_listener: records each start, or refuses like Wayland."""

    def __init__(self, refusal: str | None = None) -> None:
        self.refusal = refusal
        self.listeners: list[FakeListener] = []
        self.started_on: list[threading.Thread] = []

    def __call__(
        self, keys: str, on_down: Callable[[], None], on_up: Callable[[], None]
    ) -> FakeListener:
        self.started_on.append(threading.current_thread())
        if self.refusal is not None:
            raise HotkeyUnavailableError(self.refusal)
        listener = FakeListener(keys, on_down, on_up)
        self.listeners.append(listener)
        return listener


# Read through functions: mypy would otherwise take a property for a constant after an assert.
def _down(combo: ComboTracker) -> bool:
    return combo.down


def _listening(hotkey: GlobalHotkey) -> bool:
    return hotkey.listening


# ---------------------------------------------------------------------- the combination


def test_the_combination_is_down_only_while_all_its_keys_are_held() -> None:
    combo = ComboTracker({"ctrl", "alt", "space"})
    assert not combo.press("ctrl")
    assert not combo.press("x")  # another key does not matter
    assert not combo.press("alt")
    assert combo.press("space")
    assert _down(combo)
    assert not combo.press("space")  # auto-repeat: still one press
    assert not combo.release("x")
    assert combo.release("alt")  # any key of it lets go
    assert not _down(combo)
    assert not combo.release("space")
    assert not combo.press("alt")  # ctrl is still held, space is not
    assert combo.press("space")


def test_an_empty_combination_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one key"):
        ComboTracker(set())


@pytest.mark.parametrize(
    ("keys", "pynput"),
    [
        ("Ctrl+Alt+Space", "<ctrl>+<alt>+<space>"),
        ("Super+K", "<cmd>+k"),
        ("Ctrl+Shift+1", "<ctrl>+<shift>+1"),
        ("F9", "<f9>"),
        ("Alt+PageUp", "<alt>+<page_up>"),
    ],
)
def test_settings_spelling_becomes_pynputs(keys: str, pynput: str) -> None:
    assert pynput_combination(keys) == pynput


def test_an_unknown_key_name_is_unavailable_not_a_crash() -> None:
    with pytest.raises(HotkeyUnavailableError, match="'Hyper'"):
        pynput_combination("Ctrl+Hyper")


# ---------------------------------------------------------------------- the platform


@pytest.mark.parametrize(
    ("environ", "platform", "says"),
    [
        ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, "linux", "Wayland"),
        ({"XDG_SESSION_TYPE": "wayland", "DISPLAY": ":0"}, "linux", "Wayland"),
        ({}, "linux", "no X11 display"),
    ],
)
def test_desktops_that_cannot_have_one_say_why(
    environ: dict[str, str], platform: str, says: str
) -> None:
    refusal = platform_refusal(environ, platform)
    assert refusal is not None
    assert says in refusal


@pytest.mark.parametrize(
    ("environ", "platform"),
    [({"DISPLAY": ":0", "XDG_SESSION_TYPE": "x11"}, "linux"), ({}, "win32"), ({}, "darwin")],
)
def test_x11_windows_and_macos_may(environ: dict[str, str], platform: str) -> None:
    assert platform_refusal(environ, platform) is None


def test_on_wayland_the_real_starter_refuses_before_touching_anything() -> None:
    with pytest.raises(HotkeyUnavailableError, match="Wayland"):
        start_system_listener(
            "Ctrl+Alt+Space",
            lambda: None,
            lambda: None,
            environ={"WAYLAND_DISPLAY": "wayland-0"},
            platform="linux",
        )


# ---------------------------------------------------------------------- on and off, live


def _hotkey(state: SettingsState, tasks: UiTasks, starter: FakeStarter) -> GlobalHotkey:
    return GlobalHotkey(state, tasks, start_listener=starter)


def test_it_starts_and_stops_as_the_setting_flips(
    qloop: asyncio.Runner, settings_state: SettingsState, tasks: UiTasks
) -> None:
    starter = FakeStarter()
    hotkey = _hotkey(settings_state, tasks, starter)
    statuses: list[str] = []
    hotkey.status_changed.connect(statuses.append)

    async def scenario() -> None:
        hotkey.apply()
        await hotkey.wait_applied()
        assert starter.listeners == []  # off by default
        assert not _listening(hotkey)
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        assert _listening(hotkey)
        assert [listener.keys for listener in starter.listeners] == ["Ctrl+Alt+Space"]
        # Started in a worker thread: it talks to the X server and may block.
        assert starter.started_on[0] is not threading.main_thread()
        settings_state.update(global_hotkey_keys="ctrl+shift+k")
        await hotkey.wait_applied()
        first, second = starter.listeners
        assert (first.stopped, second.stopped) == (True, False)
        assert first.stopped_on[0] is not threading.main_thread()
        assert second.keys == "Ctrl+Shift+K"
        settings_state.update(global_hotkey=False)
        await hotkey.wait_applied()
        assert second.stopped_on
        assert not _listening(hotkey)
        await hotkey.aclose()

    qloop.run(scenario())
    assert statuses == [
        "On: hold Ctrl+Alt+Space in any window to talk.",
        "On: hold Ctrl+Shift+K in any window to talk.",
        "",
    ]


def test_a_refusing_desktop_gets_a_calm_note_and_a_retry_only_when_asked(
    qloop: asyncio.Runner, settings_state: SettingsState, tasks: UiTasks
) -> None:
    starter = FakeStarter(refusal="this desktop runs Wayland, which does not let apps see keys.")
    hotkey = _hotkey(settings_state, tasks, starter)

    async def scenario() -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        assert not _listening(hotkey)
        assert hotkey.status.startswith("Not available on this desktop: this desktop runs Wayland")
        assert "Hold Space in Sammy's window" in hotkey.status
        settings_state.update(earcons=False)  # an unrelated change does not retry
        await hotkey.wait_applied()
        assert len(starter.started_on) == 1
        settings_state.update(global_hotkey=False)
        await hotkey.wait_applied()
        assert hotkey.status == ""
        settings_state.update(global_hotkey=True)  # switched on again: tried again
        await hotkey.wait_applied()
        assert len(starter.started_on) == 2
        await hotkey.aclose()

    qloop.run(scenario())


@pytest.mark.logs_errors("the global hotkey could not start")
def test_a_listener_that_breaks_unexpectedly_is_a_note_too(
    qloop: asyncio.Runner, settings_state: SettingsState, tasks: UiTasks
) -> None:
    def broken(keys: str, on_down: Callable[[], None], on_up: Callable[[], None]) -> FakeListener:
        raise OSError("the X server hung up")

    hotkey = GlobalHotkey(settings_state, tasks, start_listener=broken)

    async def scenario() -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        await hotkey.aclose()

    qloop.run(scenario())
    assert hotkey.status.startswith("The hotkey could not start; the log file has the details.")
    assert "hung up" not in hotkey.status  # the exception's words are the log's


# ---------------------------------------------------------------------- driving the window


def test_key_events_from_the_listener_thread_talk_through_the_window(
    qloop: asyncio.Runner,
    make_window: MakeWindow,
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
) -> None:
    window = make_window()
    starter = FakeStarter()
    hotkey = _hotkey(settings_state, tasks, starter)
    hotkey.pressed.connect(window.on_hotkey_pressed)
    hotkey.released.connect(window.on_hotkey_released)
    agent.move_to(AgentState.READY)

    seen: list[str] = []
    arrived = asyncio.Event()

    def record(what: str) -> None:
        seen.append(what)
        arrived.set()

    hotkey.pressed.connect(lambda: record("pressed"))
    hotkey.released.connect(lambda: record("released"))

    async def until_seen(count: int) -> None:
        # No qtbot.waitSignal here: a nested Qt event loop inside qasync's is not safe.
        async with asyncio.timeout(5):
            while len(seen) < count:
                arrived.clear()
                await arrived.wait()

    async def scenario() -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        (listener,) = starter.listeners
        listener.from_thread(listener.on_down)
        await until_seen(1)
        assert agent.names() == ["begin_talk"]
        assert talking(window)
        listener.from_thread(listener.on_up)
        await until_seen(2)
        assert agent.names() == ["begin_talk", "end_talk"]
        # Held when the person switches it off: the turn ends, nothing stays "Listening".
        agent.move_to(AgentState.READY)
        listener.from_thread(listener.on_down)
        await until_seen(3)
        settings_state.update(global_hotkey=False)
        await hotkey.wait_applied()
        assert seen == ["pressed", "released", "pressed", "released"]
        assert agent.names() == ["begin_talk", "end_talk", "begin_talk", "end_talk"]
        assert not talking(window)
        await hotkey.aclose()

    qloop.run(scenario())


def test_space_and_the_hotkey_together_are_one_press_even_in_toggle_mode(
    qtbot: QtBot, agent: FakeAgent, settings_state: SettingsState, make_window: MakeWindow
) -> None:
    settings_state.update(talk_key=TalkKey.TAP_TO_TOGGLE)
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    agent.move_to(AgentState.READY)
    window.talk_button.setFocus()
    # Ctrl+Alt+Space typed into Sammy's own window reaches the window and the listener.
    handle = window.windowHandle()
    assert handle is not None
    window.on_hotkey_pressed()
    QTest.keyPress(handle, Qt.Key.Key_Space)
    window.on_hotkey_released()
    QTest.keyRelease(handle, Qt.Key.Key_Space)
    assert agent.names() == ["begin_talk"]  # toggled on once, not on and off again
    assert talking(window)
