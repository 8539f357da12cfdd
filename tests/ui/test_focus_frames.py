"""Focus frames only for keyboard focus: none at start-up or after a click, one after Tab.

The tour: the talk button showed its focus ring as soon as the window opened, and Settings'
section list a 2 px focus border as soon as it did; a click on a switch ringed it too. The
person who moves with the keyboard still sees where the focus is.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.focus_frame import has_keyboard_focus
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.painted import ToggleSwitch
from sammy_desktop.ui.talk_button import FACE_DIAMETER
from sammy_desktop.ui.theme import ThemeController

from .conftest import FakeAgent, MakeSettingsWindow, MakeWindow, Picture


def _close(colour: QColor, other: QColor) -> bool:
    pairs = (
        (colour.red(), other.red()),
        (colour.green(), other.green()),
        (colour.blue(), other.blue()),
    )
    return all(abs(a - b) <= 40 for a, b in pairs)


def _pixel(widget: QWidget, point: QPoint) -> QColor:
    return widget.grab().toImage().pixelColor(point)


def _ring_colour(window: MainWindow) -> QColor:
    """The colour where the talk button's focus ring is drawn (3 px outside its face)."""
    button = window.talk_button
    centre = button.rect().center()
    return _pixel(button, QPoint(centre.x() + FACE_DIAMETER // 2 + 3, centre.y()))


def _active(qtbot: QtBot, window: QWidget) -> None:
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def test_the_talk_button_rings_only_for_the_keyboard(
    qtbot: QtBot,
    theme: ThemeController,
    agent: FakeAgent,
    make_window: MakeWindow,
    test_output_dir: Path,
) -> None:
    window = make_window()
    _active(qtbot, window)
    agent.move_to(AgentState.READY)
    focus = QColor(theme.palette.focus)
    button = window.talk_button
    qtbot.waitUntil(button.hasFocus)  # the window starts with the focus on it
    assert not has_keyboard_focus(button)
    assert not _close(_ring_colour(window), focus), "no ring at start-up"
    Picture(window).settled()
    window.grab().save(str(test_output_dir / "focus-talk-button-at-start-up.png"))

    # Tab from the send button: the ring shows.
    window.send_button.setFocus(Qt.FocusReason.TabFocusReason)
    QTest.keyClick(window.send_button, Qt.Key.Key_Tab)
    qtbot.waitUntil(button.hasFocus)
    assert has_keyboard_focus(button)
    qtbot.waitUntil(lambda: _close(_ring_colour(window), focus))

    # Focus taken by the app and given back (the confirmation sheet): still the keyboard's.
    window.message_input.setFocus(Qt.FocusReason.OtherFocusReason)
    button.setFocus(Qt.FocusReason.OtherFocusReason)
    assert has_keyboard_focus(button)

    # A click elsewhere, then on the button: no ring.
    QTest.mouseClick(window.message_input, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(window.message_input.hasFocus)
    button.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(button.hasFocus)
    assert not has_keyboard_focus(button)
    qtbot.waitUntil(lambda: not _close(_ring_colour(window), focus))


def test_settings_section_list_has_a_focus_border_only_for_the_keyboard(
    qtbot: QtBot,
    theme: ThemeController,
    make_settings_window: MakeSettingsWindow,
    test_output_dir: Path,
) -> None:
    settings = make_settings_window()
    settings.resize(780, 600)
    _active(qtbot, settings)
    sections = settings.section_list
    sections.setFocus(Qt.FocusReason.ActiveWindowFocusReason)  # as the window opens
    qtbot.waitUntil(sections.hasFocus)
    focus = QColor(theme.palette.focus)

    def edge() -> QColor:
        return _pixel(sections, QPoint(sections.width() - 1, sections.height() // 2))

    assert not _close(edge(), focus), "no focus border when the window opens"
    picture = Picture(settings)
    qtbot.waitUntil(picture.settled)
    picture.pixmap.save(str(test_output_dir / "focus-settings-sections-at-open.png"))

    # Shift+Tab from the page back to the list: the border shows.
    sections.clearFocus()
    sections.setFocus(Qt.FocusReason.BacktabFocusReason)
    qtbot.waitUntil(sections.hasFocus)
    qtbot.waitUntil(lambda: _close(edge(), focus))

    # A click on a section: no border.
    item = sections.item(1)
    assert item is not None
    settings.pages.setFocus(Qt.FocusReason.MouseFocusReason)
    QTest.mouseClick(
        sections.viewport(), Qt.MouseButton.LeftButton, pos=sections.visualItemRect(item).center()
    )
    qtbot.waitUntil(sections.hasFocus)
    qtbot.waitUntil(lambda: not _close(edge(), focus))
    assert sections.currentRow() == 1


def test_a_switch_rings_only_for_the_keyboard(qtbot: QtBot, theme: ThemeController) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    first = ToggleSwitch(host)
    switch = ToggleSwitch(host)
    switch.move(60, 0)
    host.resize(120, 40)
    _active(qtbot, host)
    QTest.mouseClick(switch, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(switch.hasFocus)
    assert switch.isChecked()
    assert not has_keyboard_focus(switch)
    focus = QColor(theme.palette.focus)
    ring = QPoint(1, switch.height() // 2)  # 3 px left of the track
    assert not _close(_pixel(switch, ring), focus)
    first.setFocus(Qt.FocusReason.MouseFocusReason)
    QTest.keyClick(first, Qt.Key.Key_Tab)
    qtbot.waitUntil(switch.hasFocus)
    assert has_keyboard_focus(switch)
    qtbot.waitUntil(lambda: _close(_pixel(switch, ring), focus))
