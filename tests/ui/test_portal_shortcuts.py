"""The talk hotkey on Wayland: the desktop portal's GlobalShortcuts, and the command lines.

Against a real D-Bus session bus (the private one of ``scripts/with-test-services.sh``) and
a real portal service on it (:mod:`tests.helpers.portal_service`): the hotkey binds its
shortcut there, the portal's Activated and Deactivated talk through the window, and every
way it can go wrong (no portal, no GlobalShortcuts, the person refusing, the portal going
away) is a sentence. Where there is no portal, Settings shows the command line to bind in
the desktop's keyboard settings, with Copy.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QScrollArea
from pytestqt.qtbot import QtBot

from sammy_desktop.config import AppPaths
from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.global_hotkey import GlobalHotkey
from sammy_desktop.ui.instance.commands import RemoteCommand, command_line
from sammy_desktop.ui.portal_shortcuts import (
    PortalOutcome,
    PortalShortcuts,
    PortalState,
    wayland_session,
    xdg_trigger,
)
from sammy_desktop.ui.settings import SettingsSection, SettingsWindow
from sammy_desktop.ui.settings.talk_commands import TalkCommands
from sammy_desktop.ui.settings_state import SettingsState
from tests.helpers.portal_service import BoundShortcut, PortalService, running_portal

from .conftest import FakeAgent, MakeSettingsWindow, MakeWindow, talking, wait_until

WAYLAND = {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}
WAIT_S = 5.0
REQUEST_PREFIX = "/org/freedesktop/portal/desktop/request/"


@pytest.fixture
def session_bus() -> None:
    """The private session bus; a desktop's own portal must never answer these tests."""
    if not os.environ.get("SAMMY_TEST_SERVICES") or not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        pytest.fail(
            "this test needs the private D-Bus session bus: run it with "
            "`scripts/with-test-services.sh .venv/bin/python -m pytest ...`",
            pytrace=False,
        )


class Seen:
    """What the hotkey emitted, in order, with a wait that returns as soon as it is there."""

    def __init__(self, hotkey: GlobalHotkey) -> None:
        self.events: list[str] = []
        self.unavailable: list[bool] = []
        self._arrived = asyncio.Event()
        hotkey.pressed.connect(lambda: self._add("pressed"))
        hotkey.released.connect(lambda: self._add("released"))
        hotkey.status_changed.connect(lambda text: self._add(f"status: {text}"))
        hotkey.unavailable_changed.connect(self._on_unavailable)

    def _add(self, event: str) -> None:
        self.events.append(event)
        self._arrived.set()

    def _on_unavailable(self, unavailable: bool) -> None:
        self.unavailable.append(unavailable)
        self._arrived.set()

    async def until(self, condition: Callable[[], bool], timeout_s: float = WAIT_S) -> None:
        # No qtbot.waitSignal: a nested Qt event loop inside qasync's is not safe.
        async with asyncio.timeout(timeout_s):
            while not condition():
                self._arrived.clear()
                await self._arrived.wait()

    async def until_event(self, event: str) -> None:
        await self.until(lambda: event in self.events)


def _status(hotkey: GlobalHotkey) -> str:
    """``hotkey.status``, read through a call so mypy does not narrow it between steps."""
    return hotkey.status


def _listening(hotkey: GlobalHotkey) -> bool:
    return hotkey.listening


def _path_part(unique_name: str) -> str:
    return unique_name.lstrip(":").replace(".", "_")


# ---------------------------------------------------------------------- spelling, session


@pytest.mark.parametrize(
    ("keys", "trigger"),
    [
        ("Ctrl+Alt+Space", "CTRL+ALT+space"),
        ("F9", "F9"),
        ("Super+Shift+T", "LOGO+SHIFT+t"),
        ("Ctrl+Shift+1", "CTRL+SHIFT+1"),
        ("Alt+PageUp", "ALT+Page_Up"),
        ("Ctrl+Alt+Enter", "CTRL+ALT+Return"),
        ("PrintScreen", "Print"),
        ("Ctrl+Alt+,", "CTRL+ALT+comma"),
        ("Ctrl+Alt+ScrollLock", "CTRL+ALT+Scroll_Lock"),
    ],
)
def test_settings_spelling_becomes_the_xdg_shortcuts_specs(keys: str, trigger: str) -> None:
    converted = xdg_trigger(keys)
    assert converted == trigger
    # The spec: modifiers CTRL, ALT, SHIFT, NUM, LOGO; keysym names of letters, digits, _.
    *modifiers, key = converted.split("+")
    assert set(modifiers) <= {"CTRL", "ALT", "SHIFT", "NUM", "LOGO"}
    assert re.fullmatch(r"[A-Za-z0-9_]+", key)


def test_a_key_without_an_xdg_name_leaves_the_choice_to_the_desktop() -> None:
    assert xdg_trigger("Ctrl+Alt+É") is None


@pytest.mark.parametrize(
    ("environ", "platform", "wayland"),
    [
        ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, "linux", True),
        ({"XDG_SESSION_TYPE": "wayland"}, "linux", True),
        ({"DISPLAY": ":0", "XDG_SESSION_TYPE": "x11"}, "linux", False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "win32", False),
        ({}, "darwin", False),
    ],
)
def test_a_wayland_session_is_told_by_the_environment(
    environ: dict[str, str], platform: str, wayland: bool
) -> None:
    assert wayland_session(environ, platform) is wayland


# ---------------------------------------------------------------------- the portal path


def test_the_shortcut_is_bound_through_the_portal_and_talks_through_the_window(
    session_bus: None,
    qloop: asyncio.Runner,
    make_window: MakeWindow,
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
) -> None:
    window = make_window()
    hotkey = GlobalHotkey(settings_state, tasks, environ=WAYLAND)
    hotkey.pressed.connect(window.on_hotkey_pressed)
    hotkey.released.connect(window.on_hotkey_released)
    seen = Seen(hotkey)
    agent.move_to(AgentState.READY)

    async def scenario(portal: PortalService) -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        assert hotkey.listening
        assert (
            hotkey.status == "On: hold CTRL+ALT+space in any window to talk (set in your desktop)."
        )
        assert seen.unavailable == []  # it works: no command lines offered
        # The host registry first (GNOME wants the app's id), then the portal's steps.
        assert portal.calls == [
            "Registry.Register",
            "Properties.Get",
            "GlobalShortcuts.CreateSession",
            "GlobalShortcuts.BindShortcuts",
        ]
        assert portal.registered == ["sammy-desktop"]
        (session,) = portal.sessions
        assert portal.bound == [
            BoundShortcut(session, "talk", "Talk to Sammy (hold)", "CTRL+ALT+space")
        ]
        # Each request on the path the spec promises; the portal answered before replying.
        (sender,) = portal.senders
        assert all(
            path.startswith(f"{REQUEST_PREFIX}{_path_part(sender)}/")
            for path in portal.request_paths
        )

        portal.press()
        await seen.until_event("pressed")
        assert agent.names() == ["begin_talk"]
        assert talking(window)
        portal.release()
        await seen.until_event("released")
        assert agent.names() == ["begin_talk", "end_talk"]
        assert not talking(window)

        # The person gives the shortcut other keys in the desktop's settings.
        portal.assign("Ctrl+Alt+T")
        await seen.until_event(
            "status: On: hold Ctrl+Alt+T in any window to talk (set in your desktop)."
        )

        # Switched off: the session is closed, nothing is left bound.
        settings_state.update(global_hotkey=False)
        await hotkey.wait_applied()
        assert portal.closed == [session]
        assert not _listening(hotkey)
        assert _status(hotkey) == ""
        await hotkey.aclose()

    with running_portal() as portal:
        qloop.run(scenario(portal))


def test_new_keys_in_settings_bind_again_with_them_preferred(
    session_bus: None, qloop: asyncio.Runner, settings_state: SettingsState, tasks: UiTasks
) -> None:
    hotkey = GlobalHotkey(settings_state, tasks, environ=WAYLAND)

    async def scenario(portal: PortalService) -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        settings_state.update(global_hotkey_keys="Super+F9")
        await hotkey.wait_applied()
        first, second = portal.sessions
        assert portal.closed == [first]
        assert [b.preferred_trigger for b in portal.bound] == ["CTRL+ALT+space", "LOGO+F9"]
        assert second == portal.bound[-1].session
        assert _status(hotkey) == "On: hold LOGO+F9 in any window to talk (set in your desktop)."
        await hotkey.aclose()
        assert portal.closed == [first, second]

    with running_portal() as portal:
        qloop.run(scenario(portal))


def test_held_when_the_portal_goes_away_the_turn_ends_and_it_says_so(
    session_bus: None, qloop: asyncio.Runner, settings_state: SettingsState, tasks: UiTasks
) -> None:
    hotkey = GlobalHotkey(settings_state, tasks, environ=WAYLAND)
    seen = Seen(hotkey)
    portal = PortalService()

    async def scenario() -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        portal.press()
        await seen.until_event("pressed")
        portal.stop()  # the portal's name goes: its owner changed to nobody
        await seen.until_event("released")
        await seen.until(lambda: seen.unavailable == [True])
        assert not hotkey.listening
        assert _status(hotkey).startswith("The hotkey stopped: the desktop portal stopped.")
        assert "Switch it off and on to try again." in _status(hotkey)
        await hotkey.aclose()

    portal.start()
    try:
        qloop.run(scenario())
    finally:
        portal.stop()


def test_a_refusal_is_a_sentence_and_the_session_is_closed(
    session_bus: None, qloop: asyncio.Runner, settings_state: SettingsState, tasks: UiTasks
) -> None:
    hotkey = GlobalHotkey(settings_state, tasks, environ=WAYLAND)
    seen = Seen(hotkey)

    async def scenario(portal: PortalService) -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        assert not hotkey.listening
        assert hotkey.status == (
            "The desktop did not give Sammy the shortcut: the shortcut request was cancelled. "
            "Switch the hotkey off and on to be asked again. Hold Space in Sammy's window to "
            "talk instead."
        )
        assert seen.unavailable == [True]
        assert portal.closed == portal.sessions  # nothing left open on the desktop's side
        settings_state.update(global_hotkey=False)
        await hotkey.wait_applied()
        assert seen.unavailable == [True, False]
        await hotkey.aclose()

    with running_portal(bind_response=1) as portal:
        qloop.run(scenario(portal))


def test_quitting_while_the_desktops_dialog_is_open_does_not_wait_for_it(
    session_bus: None, qloop: asyncio.Runner, settings_state: SettingsState, tasks: UiTasks
) -> None:
    hotkey = GlobalHotkey(settings_state, tasks, environ=WAYLAND)

    async def scenario(portal: PortalService) -> None:
        settings_state.update(global_hotkey=True)
        hotkey.apply()
        await wait_until(lambda: bool(portal.bound), WAIT_S)  # the portal's thread: no signal
        with pytest.raises(TimeoutError):
            await hotkey.wait_applied(timeout_s=0.2)  # the person has not answered
        async with asyncio.timeout(WAIT_S):
            await hotkey.aclose(timeout_s=0.5)
        assert not _listening(hotkey)
        assert tasks.pending == 0

    with running_portal(bind_response=None) as portal:
        qloop.run(scenario(portal))


def test_a_request_the_desktop_ends_another_way_is_a_sentence_too(
    session_bus: None, qloop: asyncio.Runner
) -> None:
    async def scenario() -> PortalState:
        shortcuts = PortalShortcuts(lambda: None, lambda: None, lambda _state: None)
        return await shortcuts.bind("F9")

    with running_portal(bind_response=2):
        state = qloop.run(scenario())
    assert state == PortalState(
        PortalOutcome.FAILED, reason="the shortcut request ended another way (code 2)."
    )


def test_a_portal_without_the_host_registry_still_binds(
    session_bus: None, qloop: asyncio.Runner, settings_state: SettingsState, tasks: UiTasks
) -> None:
    hotkey = GlobalHotkey(settings_state, tasks, environ=WAYLAND)

    async def scenario() -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        assert hotkey.listening
        await hotkey.aclose()

    with running_portal(registry=False) as portal:
        qloop.run(scenario())
    assert portal.registered == []
    assert portal.calls[0] == "Registry.Register"  # asked, refused, gone on


def _no_portal_hotkey(settings_state: SettingsState, tasks: UiTasks) -> GlobalHotkey:
    return GlobalHotkey(settings_state, tasks, environ=WAYLAND)


def test_without_a_portal_the_status_names_the_command_to_bind(
    session_bus: None,
    qloop: asyncio.Runner,
    settings_state: SettingsState,
    tasks: UiTasks,
    tmp_path: Path,
) -> None:
    hotkey = _no_portal_hotkey(settings_state, tasks)
    seen = Seen(hotkey)

    async def scenario() -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        await hotkey.aclose()

    qloop.run(scenario())
    assert not hotkey.listening
    assert hotkey.status == (
        "Not available on this desktop: no desktop portal is running, so it has no "
        "GlobalShortcuts. Bind a key to one of the commands below in your desktop's keyboard "
        "settings instead."
    )
    assert seen.unavailable == [True]


def test_a_portal_without_global_shortcuts_is_no_portal_for_the_hotkey(
    session_bus: None,
    qloop: asyncio.Runner,
    settings_state: SettingsState,
    tasks: UiTasks,
    tmp_path: Path,
) -> None:
    hotkey = _no_portal_hotkey(settings_state, tasks)

    async def scenario() -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        await hotkey.aclose()

    with running_portal(shortcuts=False) as portal:
        qloop.run(scenario())
    assert hotkey.status.startswith(
        "Not available on this desktop: its desktop portal has no GlobalShortcuts (KDE Plasma "
        "6 and GNOME 48 have them)."
    )
    assert "one of the commands below" in hotkey.status
    assert portal.sessions == []


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        (None, "there is no D-Bus session bus."),
        ("unix:path=/nonexistent/sammy-bus", "the D-Bus session bus cannot be reached."),
    ],
)
def test_without_a_session_bus_it_is_no_portal_not_a_crash(
    qloop: asyncio.Runner,
    monkeypatch: pytest.MonkeyPatch,
    address: str | None,
    reason: str,
) -> None:
    if address is None:
        monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)

    async def scenario() -> PortalState:
        shortcuts = PortalShortcuts(
            lambda: None, lambda: None, lambda _state: None, bus=address or "SESSION"
        )
        state = await shortcuts.bind("Ctrl+Alt+Space")
        await shortcuts.close()
        return state

    assert qloop.run(scenario()) == PortalState(PortalOutcome.NO_PORTAL, reason=reason)


def test_x11_keeps_its_own_listener_even_with_a_portal_on_the_bus(
    session_bus: None, qloop: asyncio.Runner, settings_state: SettingsState, tasks: UiTasks
) -> None:
    started: list[str] = []

    class Listener:
        def stop(self) -> None:
            pass

    def start(keys: str, on_down: Callable[[], None], on_up: Callable[[], None]) -> Listener:
        started.append(keys)
        return Listener()

    hotkey = GlobalHotkey(settings_state, tasks, start_listener=start, environ={"DISPLAY": ":0"})

    async def scenario() -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()
        await hotkey.aclose()

    with running_portal() as portal:
        qloop.run(scenario())
    assert started == ["Ctrl+Alt+Space"]
    assert hotkey.status == "On: hold Ctrl+Alt+Space in any window to talk."
    assert portal.calls == []


# ---------------------------------------------------------------------- Settings


def test_settings_shows_the_commands_where_there_is_no_portal_and_copy_copies(
    session_bus: None,
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    settings_state: SettingsState,
    tasks: UiTasks,
    tmp_path: Path,
) -> None:
    paths = AppPaths.profile(tmp_path / "my profile")
    profile = paths.profile_dir
    assert profile is not None
    window = make_settings_window(paths=paths)
    hotkey = _no_portal_hotkey(settings_state, tasks)
    hotkey.status_changed.connect(window.show_hotkey_status)
    hotkey.unavailable_changed.connect(window.show_hotkey_commands)
    window.show_section(SettingsSection.TALKING)
    commands = window.talking_page.talk_commands
    assert commands.isHidden()  # the hotkey is off

    async def scenario() -> None:
        settings_state.update(global_hotkey=True)
        await hotkey.wait_applied()

    qloop.run(scenario())
    status = window.talking_page.hotkey_status
    assert status.isVisibleTo(window)
    assert "one of the commands below" in status.text()
    assert commands.isVisibleTo(window)
    assert commands.parent() is window.cards["global_hotkey"]
    lines = {command: field.text() for command, field in commands.lines.items()}
    assert lines == {
        command: command_line(command, profile)
        for command in (
            RemoteCommand.TOGGLE_TALK,
            RemoteCommand.TALK_START,
            RemoteCommand.TALK_STOP,
        )
    }
    assert all(field.isReadOnly() for field in commands.lines.values())

    clipboard = QGuiApplication.clipboard()
    for command in (RemoteCommand.TOGGLE_TALK, RemoteCommand.TALK_STOP):
        clipboard.clear()
        commands.copy_buttons[command].click()
        assert clipboard.text() == command_line(command, profile)
    assert commands.copied_label.isVisibleTo(window)

    async def switched_off() -> None:
        settings_state.update(global_hotkey=False)
        await hotkey.wait_applied()
        await hotkey.aclose()

    qloop.run(switched_off())
    assert status.isHidden()
    assert commands.isHidden()


def test_the_commands_name_the_default_folders_without_a_profile(qtbot: QtBot) -> None:
    commands = TalkCommands(None, program="/opt/sammy/sammy-desktop")
    qtbot.addWidget(commands)
    assert commands.lines[RemoteCommand.TOGGLE_TALK].text() == (
        "/opt/sammy/sammy-desktop --toggle-talk"
    )
    assert commands.lines[RemoteCommand.TALK_START].text() == (
        "/opt/sammy/sammy-desktop --talk-start"
    )


def test_screenshot_of_the_commands_to_bind(
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    tmp_path: Path,
    test_output_dir: Path,
) -> None:
    profile = tmp_path / "a rather long profile folder name" / "sammy"
    window: SettingsWindow = make_settings_window(paths=AppPaths.profile(profile))
    window.show_hotkey_status(
        "Not available on this desktop: no desktop portal is running, so it has no "
        "GlobalShortcuts. Bind a key to one of the commands below in your desktop's keyboard "
        "settings instead."
    )
    window.show_hotkey_commands(True)
    window.show()
    qtbot.waitExposed(window)
    window.show_section(SettingsSection.TALKING)
    QApplication.processEvents()  # lay the page out at its size before the picture
    page = window.pages.currentWidget()
    assert isinstance(page, QScrollArea)
    page.ensureWidgetVisible(window.talking_page.talk_commands)
    assert not page.horizontalScrollBar().isVisible()  # long lines scroll in their field
    folder = test_output_dir / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(folder / "settings-talking-hotkey-commands.png"))
