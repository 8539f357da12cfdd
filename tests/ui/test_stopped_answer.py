"""Esc while Sammy speaks: the window asks the agent to stop, and the answer's bubble says
it was stopped."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from sammy_desktop.core.events import AnswerStopped, Speaker, TranscriptUpdated
from sammy_desktop.eventbus import EventBus

from .conftest import MakeWindow


def test_esc_stops_the_answer_and_its_bubble_says_stopped(
    bus: EventBus, make_window: MakeWindow
) -> None:
    stops: list[bool] = []
    window = make_window(stop_speaking=lambda: stops.append(True))
    window.show()
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.ASSISTANT,
            text="A very long story",
            final=True,
            turn_id=3,
            interrupted=True,
        )
    )
    QTest.keyClick(window, Qt.Key.Key_Escape)
    assert stops == [True]
    bus.emit(AnswerStopped(turn_id=3, service_told=True))
    row = window.transcript.line(3, Speaker.ASSISTANT)
    assert row is not None and row.stopped_label is not None
    assert row.stopped_label.text() == "Stopped"
    assert not row.stopped_label.isHidden()
