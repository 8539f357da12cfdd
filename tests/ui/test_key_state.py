"""Unmarked auto-repeat: a release is only a release if the key is really up.

The window asks the window system (X11: QueryKeymap, through libxcb) when a Space release
arrives that Qt did not mark as a repeat. The logic is tested with a stand-in key state;
the X11 source is tested for real against the test Xvfb with xdotool holding the key.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.key_state import X11KeyState, key_state_for_platform

from .conftest import FakeAgent, MakeWindow

NO_MODIFIER = Qt.KeyboardModifier.NoModifier
SPACE_KEYCODE = 65  # X key code of Space on the usual layouts; only compared, never sent


class HeldKeys:
    """A key state whose answer the test sets."""

    def __init__(self) -> None:
        self.down: set[int] = set()
        self.asked: list[int] = []

    def is_down(self, native_scan_code: int) -> bool:
        self.asked.append(native_scan_code)
        return native_scan_code in self.down

    def close(self) -> None:
        pass


def _space(kind: QEvent.Type) -> QKeyEvent:
    """An unmarked Space event with an X key code, as xcb delivers it."""
    return QKeyEvent(kind, Qt.Key.Key_Space, NO_MODIFIER, SPACE_KEYCODE, 0x20, 0, " ", False, 1)


def test_an_unmarked_release_while_the_key_is_held_does_not_end_the_turn(
    qtbot: QtBot, make_window: MakeWindow, agent: FakeAgent
) -> None:
    keys = HeldKeys()
    window = make_window(key_state=keys)
    window.show()
    qtbot.waitExposed(window)
    agent.move_to(AgentState.READY)
    handle = window.windowHandle()
    assert handle is not None

    keys.down.add(SPACE_KEYCODE)
    QApplication.sendEvent(handle, _space(QEvent.Type.KeyPress))
    # X11 without detectable auto-repeat: release/press pairs while the key is held.
    for _ in range(5):
        QApplication.sendEvent(handle, _space(QEvent.Type.KeyRelease))
        QApplication.sendEvent(handle, _space(QEvent.Type.KeyPress))
    assert agent.names() == ["begin_talk"]
    assert window.talking
    assert keys.asked == [SPACE_KEYCODE] * 5

    keys.down.clear()
    QApplication.sendEvent(handle, _space(QEvent.Type.KeyRelease))
    assert agent.names() == ["begin_talk", "end_talk"]
    assert not window.talking


def test_only_xcb_needs_a_key_state() -> None:
    assert key_state_for_platform("offscreen") is None
    assert key_state_for_platform("wayland") is None


@pytest.mark.xvfb
def test_x11_key_state_follows_a_held_key() -> None:
    keys = X11KeyState(os.environ["DISPLAY"])
    try:
        keycode = _keycode_of("space")
        subprocess.run(["xdotool", "keydown", "space"], check=True, timeout=10)
        try:
            assert keys.is_down(keycode)
        finally:
            subprocess.run(["xdotool", "keyup", "space"], check=True, timeout=10)
        assert not keys.is_down(keycode)
        assert not keys.is_down(0)  # not a key code at all
    finally:
        keys.close()


def test_x11_key_state_names_the_display_it_cannot_open() -> None:
    with pytest.raises(OSError, match="cannot open the X display :987"):
        X11KeyState(":987")


def _keycode_of(keysym: str) -> int:
    from Xlib import XK, display  # type: ignore[import-untyped]

    connection = display.Display(os.environ["DISPLAY"])
    try:
        return int(connection.keysym_to_keycode(XK.string_to_keysym(keysym)))
    finally:
        connection.close()
