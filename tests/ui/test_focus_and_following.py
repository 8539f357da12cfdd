"""Focus and following in the transcript (issue 24, point 9).

After the confirmation sheet closes the focus is back where it was (not on whatever came
next in the tab chain); "Jump to latest" shows when new lines arrive while the person reads
further up, takes them down when clicked and goes once they are at the bottom; the transcript
draws a focus frame only for focus that came by the keyboard, not after a click.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import AgentState, Speaker, TranscriptUpdated
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.context import ConfirmationRequest
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.transcript import TranscriptView

from .conftest import FakeAgent, MakeWindow, Picture


def _window(qtbot: QtBot, make_window: MakeWindow) -> MainWindow:
    window = make_window()
    window.resize(420, 680)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    return window


def _question(call_id: str) -> ConfirmationRequest:
    return ConfirmationRequest(
        call_id=call_id,
        tool_name="openUrl",
        prompt="Open this page in your browser?",
        arguments={"url": "https://example.com"},
        timeout_s=60,
    )


def test_focus_returns_where_it_was_after_the_sheet(
    qtbot: QtBot, agent: FakeAgent, make_window: MakeWindow
) -> None:
    window = _window(qtbot, make_window)
    agent.move_to(AgentState.READY)
    sheet = window.confirmation_sheet
    for before in (window.message_input, window.talk_button):
        before.setFocus(Qt.FocusReason.MouseFocusReason)
        qtbot.waitUntil(before.hasFocus)
        sheet.ask(_question("c1"))
        sheet.ask(_question("c2"))  # one after the other: the focus waits for the last
        qtbot.waitUntil(sheet.deny_button.hasFocus)
        QTest.keyClick(sheet.deny_button, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: sheet.current is not None and sheet.current.call_id == "c2")
        assert sheet.deny_button.hasFocus()
        with qtbot.waitSignal(sheet.answered, timeout=2000):
            QTest.keyClick(sheet.deny_button, Qt.Key.Key_Escape)
        assert sheet.current is None and not sheet.isVisible()
        assert window.focusWidget() is before
        assert before.hasFocus()


def test_focus_stays_sensible_when_its_widget_went_away(
    qtbot: QtBot, agent: FakeAgent, make_window: MakeWindow
) -> None:
    window = _window(qtbot, make_window)
    agent.move_to(AgentState.READY)
    sheet = window.confirmation_sheet
    window.message_input.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(window.message_input.hasFocus)
    sheet.ask(_question("c1"))
    qtbot.waitUntil(sheet.deny_button.hasFocus)
    window.bottom_panel.hide()  # the text box can no longer take the focus
    with qtbot.waitSignal(sheet.answered, timeout=2000):
        sheet.deny()
    assert window.focusWidget() is not window.message_input
    assert not sheet.isAncestorOf(window.focusWidget())


def _lines(bus: EventBus, first: int, count: int) -> None:
    for turn in range(first, first + count):
        text = f"Line {turn}: a sentence long enough to take a little room in the transcript."
        bus.emit(TranscriptUpdated(speaker=Speaker.ASSISTANT, text=text, final=True, turn_id=turn))


def test_jump_to_latest_appears_for_new_lines_while_scrolled_up(
    qtbot: QtBot, bus: EventBus, agent: FakeAgent, make_window: MakeWindow, test_output_dir: Path
) -> None:
    window = _window(qtbot, make_window)
    agent.move_to(AgentState.READY)
    transcript = window.transcript
    jump = transcript.jump_button
    bar = transcript.verticalScrollBar()
    _lines(bus, 1, 20)
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    assert not jump.isVisible()  # following: nothing to jump to

    bar.setValue(0)  # the person scrolls up to read
    assert not following(transcript)
    assert not jump.isVisible()  # nothing new yet
    _lines(bus, 21, 1)
    qtbot.waitUntil(jump.isVisible)
    assert bar.value() == 0  # their place is kept
    viewport = transcript.viewport().geometry()
    assert viewport.contains(jump.geometry())  # over the bottom of the view
    assert jump.geometry().bottom() > viewport.center().y()
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    shot = test_output_dir / "screenshots" / "transcript-jump-to-latest.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    assert picture.pixmap.save(str(shot))

    QTest.mouseClick(jump, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    assert following(transcript)
    assert not jump.isVisible()

    # Scrolled up again, a line still arriving, then back down by hand: it goes.
    bar.setValue(0)
    _lines(bus, 22, 1)
    qtbot.waitUntil(jump.isVisible)
    bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: not jump.isVisible())
    # A partial line growing while they read above counts as new too.
    bar.setValue(0)
    partial = TranscriptUpdated(speaker=Speaker.ASSISTANT, text="And", final=False, turn_id=22)
    bus.emit(partial)
    qtbot.waitUntil(jump.isVisible)


def following(transcript: TranscriptView) -> bool:
    """``transcript.is_following``, read through a call so mypy does not narrow it."""
    return transcript.is_following


def _edge_colour(window: MainWindow) -> QColor:
    """The colour in the middle of the transcript's left edge, as drawn in the window."""
    transcript = window.transcript
    point = transcript.mapTo(window, QPoint(0, transcript.height() // 2))
    return window.grab().toImage().pixelColor(point.x(), point.y())


def test_no_focus_frame_after_a_click_only_for_the_keyboard(
    qtbot: QtBot, theme: ThemeController, agent: FakeAgent, make_window: MakeWindow
) -> None:
    window = _window(qtbot, make_window)
    agent.move_to(AgentState.READY)
    transcript = window.transcript
    focus = QColor(theme.palette.focus)
    QTest.mouseClick(transcript.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(40, 40))
    qtbot.waitUntil(transcript.hasFocus)
    assert _edge_colour(window) != focus

    window.settings_button.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(window.settings_button.hasFocus)
    QTest.keyClick(window.settings_button, Qt.Key.Key_Tab)  # the next in the tab order
    qtbot.waitUntil(transcript.hasFocus)
    qtbot.waitUntil(lambda: _edge_colour(window) == focus)

    window.message_input.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(lambda: _edge_colour(window) != focus)
