"""Nothing in the transcript is ever wider than its viewport (issue 24, point 1).

A tool card with a long URL made the transcript's content wider than the window for the rest
of the session, and the person's bubbles after it were cut to one word, then one letter. Long
URLs and words now wrap (or, in a card's one-line header, end in "…").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import AgentState, Speaker, TranscriptUpdated
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.events import ToolCallFailed, ToolCallStarted
from sammy_desktop.tools.results import ToolErrorKind, ToolResult
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.wrapping import WrappingLabel, breakable
from tests.helpers.fit import clipped_text, wider_than

from .conftest import FakeAgent, MakeWindow, Picture

URL = ("https://example.com/docs/getting-started?ref=sammy&utm_source=assistant&page=" * 5)[:300]
WORD = ("Supercalifragilisticexpialidocious" * 7)[:200]


def _long_card_then_bubbles(bus: EventBus, window: MainWindow) -> None:
    bus.emit(TranscriptUpdated(speaker=Speaker.USER, text="open the docs", final=True, turn_id=1))
    bus.emit(ToolCallStarted(call_id="c1", name="openUrl", arguments={"url": URL}))
    problem = f"The system could not open {URL}."
    bus.emit(
        ToolCallFailed(
            call_id="c1",
            name="openUrl",
            kind=ToolErrorKind.TOOL_FAILURE,
            problems=(problem,),
            duration_s=0.02,
            result=ToolResult.failure(ToolErrorKind.TOOL_FAILURE, problem),
            model_output={},
        )
    )
    window.transcript.add_note(f"Sammy could not open {URL}")
    bus.emit(TranscriptUpdated(speaker=Speaker.USER, text=WORD, final=True, turn_id=2))
    bus.emit(TranscriptUpdated(speaker=Speaker.ASSISTANT, text=f"See {URL}", final=True, turn_id=2))
    bus.emit(
        TranscriptUpdated(speaker=Speaker.USER, text="and now a short line", final=True, turn_id=3)
    )


@pytest.mark.parametrize("width", [420, 360], ids=["default-420px", "minimum-width"])
def test_a_long_url_and_a_long_word_never_widen_the_transcript(
    qtbot: QtBot,
    bus: EventBus,
    agent: FakeAgent,
    make_window: MakeWindow,
    test_output_dir: Path,
    width: int,
) -> None:
    window: MainWindow = make_window()
    window.resize(width, 680)
    window.show()
    qtbot.waitExposed(window)
    assert window.width() == width  # the minimum width is 360 px
    agent.move_to(AgentState.READY)
    _long_card_then_bubbles(bus, window)
    card = window.transcript.tool_card("c1")
    assert card is not None
    card.details_button.click()  # the arguments, the URL whole, unfold too
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    shot = test_output_dir / "screenshots" / f"transcript-long-url-{width}px.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    assert picture.pixmap.save(str(shot))

    transcript = window.transcript
    viewport, content = transcript.viewport(), transcript.widget()
    assert content is not None
    assert transcript.horizontalScrollBar().maximum() == 0
    assert content.width() <= viewport.width()
    assert wider_than(viewport, content) == []
    assert clipped_text(content) == []
    # The short line after them is whole, on one line, at the right edge.
    short = transcript.lines()[-1].bubble
    assert short.text() == "and now a short line"
    assert short.height() == short.heightForWidth(10_000)
    right = short.mapTo(viewport, short.rect().topRight()).x()
    assert viewport.width() - 20 < right <= viewport.width()
    # The header of the card keeps one line, cut with "…"; the details wrap the URL whole.
    assert card.argument_label.shown_text.endswith("…")
    assert card.argument_label.toolTip() == card.argument_label.text()
    assert URL in card.details_label.text()


def test_a_long_word_reads_and_copies_as_it_was_said(qtbot: QtBot) -> None:
    label = WrappingLabel(f"look at {URL} now")
    qtbot.addWidget(label)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    assert label.minimumSizeHint().width() < 100  # no word sets its width
    label.setFixedWidth(200)
    label.show()
    qtbot.waitExposed(label)
    assert label.text() == f"look at {URL} now"
    assert label.heightForWidth(200) > 10 * label.fontMetrics().height()  # it wraps
    label.setSelection(0, len(QLabel.text(label)))  # all that is shown, break marks too
    assert label.selectedText() == f"look at {URL} now"
    clipboard = QGuiApplication.clipboard()
    clipboard.clear()
    label.setFocus()
    QTest.keySequence(label, "Ctrl+C")
    assert clipboard.text() == f"look at {URL} now"


def test_only_long_words_get_break_opportunities() -> None:
    text = "short words stay as they are, café included"
    assert breakable(text) == text
    long = "pneumonoultramicroscopicsilicovolcanoconiosis"
    shown = breakable(f"a {long} b")
    assert shown.replace("\u200b", "") == f"a {long} b"
    assert shown.count("\u200b") == len(long) - 1
    # An accent that is its own character stays with its letter.
    accented = "e\u0301" * 15
    assert "\u200b\u0301" not in breakable(accented)
