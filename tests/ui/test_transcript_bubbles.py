"""Transcript bubbles are as wide as their text, up to about four fifths of the transcript.

A word-wrapped QLabel picks a narrow width by itself: "[you spoke for 2.2 s]" broke after
"2.2" in the default 420 px window. The screenshot is saved for a person to look at.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import AgentState, Speaker, TranscriptUpdated
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.transcript import MessageRow

from .conftest import FakeAgent, MakeWindow

LONG = (
    "Tokyo is nine hours ahead of London, so when it is noon here it is nine in the "
    "evening there; shops close around eight, but many restaurants stay open late."
)


def _one_line_height(row: MessageRow) -> int:
    return row.bubble.heightForWidth(10_000)


def _line(bus: EventBus, speaker: Speaker, text: str, turn_id: int) -> None:
    bus.emit(TranscriptUpdated(speaker=speaker, text=text, final=True, turn_id=turn_id))


def test_short_lines_stay_on_one_line_and_long_ones_use_four_fifths(
    qtbot: QtBot, bus: EventBus, agent: FakeAgent, make_window: MakeWindow, test_output_dir: Path
) -> None:
    window = make_window()
    window.resize(420, 680)
    window.show()
    qtbot.waitExposed(window)
    agent.move_to(AgentState.READY)
    _line(bus, Speaker.USER, "[you spoke for 2.2 s]", 1)
    _line(bus, Speaker.ASSISTANT, "It's 9:40 in the evening there.", 1)
    _line(bus, Speaker.USER, "And what about the shops? Are they still open?", 2)
    _line(bus, Speaker.ASSISTANT, LONG, 2)
    QApplication.processEvents()
    shot = test_output_dir / "screenshots" / "transcript-bubbles-420px.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(shot))

    transcript = window.transcript
    share = transcript.viewport().width() * 0.8
    rows = {row.text: row for row in transcript.lines()}
    for text in ("[you spoke for 2.2 s]", "It's 9:40 in the evening there."):
        row = rows[text]
        assert row.bubble.height() == _one_line_height(row), f"{text!r} wrapped"
        assert row.bubble.width() < share
    long_row = rows[LONG]
    assert long_row.bubble.height() > _one_line_height(long_row)  # it wraps...
    assert share * 0.9 <= long_row.bubble.width() <= share + 1  # ...at about 80 %
    # The person's lines sit on the right, the assistant's on the left.
    user = rows["[you spoke for 2.2 s]"].bubble
    assistant = rows["It's 9:40 in the evening there."].bubble
    right_edge = transcript.viewport().width()
    assert user.mapTo(transcript.viewport(), user.rect().topRight()).x() > right_edge - 20
    assert assistant.mapTo(transcript.viewport(), assistant.rect().topLeft()).x() < 20


def test_bubbles_follow_the_window_width(
    qtbot: QtBot, bus: EventBus, make_window: MakeWindow
) -> None:
    window = make_window(controls=None)
    window.resize(420, 680)
    window.show()
    qtbot.waitExposed(window)
    _line(bus, Speaker.ASSISTANT, LONG, 1)
    QApplication.processEvents()
    (row,) = window.transcript.lines()
    narrow = row.bubble.width()
    window.resize(900, 680)
    QApplication.processEvents()
    wide = row.bubble.width()
    assert wide > narrow * 1.5
    assert wide <= window.transcript.viewport().width() * 0.8 + 1
