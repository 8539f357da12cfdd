"""TalkKeys alone: Space on a window and the global hotkey, merged into one talk key."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent, QWindow
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QPushButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.ui.talk_keys import TalkKeys

NO_MODIFIER = Qt.KeyboardModifier.NoModifier


@dataclass
class Keys:
    """Talk keys watching a shown window with a button and a text box on it."""

    window: QWidget
    handle: QWindow
    keys: TalkKeys
    button: QPushButton
    text_box: QLineEdit
    question: list[bool]
    seen: list[str] = field(default_factory=list)


@pytest.fixture
def keys(qtbot: QtBot) -> Keys:
    window = QWidget()
    qtbot.addWidget(window)
    layout = QVBoxLayout(window)
    button = QPushButton("Talk", window)
    text_box = QLineEdit(window)
    layout.addWidget(button)
    layout.addWidget(text_box)
    question = [False]
    talk_keys = TalkKeys(question_open=lambda: question[0], parent=window)
    window.show()
    qtbot.waitExposed(window)
    handle = window.windowHandle()
    assert handle is not None
    talk_keys.watch(handle)
    shown = Keys(window, handle, talk_keys, button, text_box, question)
    talk_keys.pressed.connect(lambda: shown.seen.append("pressed"))
    talk_keys.released.connect(lambda: shown.seen.append("released"))
    button.setFocus()
    return shown


def test_space_held_is_one_press_and_one_release(keys: Keys) -> None:
    QTest.keyPress(keys.handle, Qt.Key.Key_Space)
    repeat = QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Space, NO_MODIFIER, " ", True)
    QApplication.sendEvent(keys.handle, repeat)
    assert keys.seen == ["pressed"]
    assert keys.keys.held
    assert not keys.button.isDown()  # the talk key, not a click on the focused button
    QTest.keyRelease(keys.handle, Qt.Key.Key_Space)
    assert keys.seen == ["pressed", "released"]
    assert not keys.keys.held


def test_space_in_a_text_box_types(qtbot: QtBot, keys: Keys) -> None:
    keys.window.activateWindow()
    keys.text_box.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is keys.text_box, timeout=2000)
    QTest.keyClick(keys.handle, Qt.Key.Key_Space)
    assert keys.text_box.text() == " "
    assert keys.seen == []


def test_space_is_not_the_talk_key_while_a_question_is_open(keys: Keys) -> None:
    keys.question[0] = True
    QTest.keyPress(keys.handle, Qt.Key.Key_Space)
    QTest.keyRelease(keys.handle, Qt.Key.Key_Space)
    assert keys.seen == []  # left to the window: the sheet keeps it from its buttons


def test_space_held_when_a_question_opens_still_ends_the_talk(keys: Keys) -> None:
    QTest.keyPress(keys.handle, Qt.Key.Key_Space)
    keys.question[0] = True
    QTest.keyRelease(keys.handle, Qt.Key.Key_Space)
    assert keys.seen == ["pressed", "released"]
    assert not keys.keys.held


def test_space_and_the_hotkey_together_are_one_press(keys: Keys) -> None:
    keys.keys.on_hotkey_pressed()
    QTest.keyPress(keys.handle, Qt.Key.Key_Space)
    keys.keys.on_hotkey_released()
    assert keys.seen == ["pressed"]
    QTest.keyRelease(keys.handle, Qt.Key.Key_Space)
    assert keys.seen == ["pressed", "released"]


def test_leaving_the_window_lets_go_of_space_but_not_of_the_hotkey(keys: Keys) -> None:
    QTest.keyPress(keys.handle, Qt.Key.Key_Space)
    keys.keys.on_window_deactivated()
    assert keys.seen == ["pressed", "released"]
    keys.keys.on_hotkey_pressed()
    keys.keys.on_window_deactivated()  # the hotkey works from any window
    assert keys.seen == ["pressed", "released", "pressed"]


def test_an_unwatched_window_keeps_its_space(keys: Keys) -> None:
    keys.keys.unwatch()
    QTest.keyPress(keys.handle, Qt.Key.Key_Space)
    assert keys.button.isDown()  # Space reached the focused button
    QTest.keyRelease(keys.handle, Qt.Key.Key_Space)
    assert keys.seen == []
