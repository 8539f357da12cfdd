"""No text is cut at the default 420 px or at the minimum width (issue 24, point 7).

The tour saw "Offline dem" and "Listenin" in the header, "Always allow ... this session" cut
at both ends, the sheet's arguments losing their underscores and descenders, and long words
cut in bubbles. Each label and button is measured against what its text needs (its size
hint, or its height for the width it got when it wraps); screenshots are saved to look at.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from sammy_desktop.audio.events import MicrophoneInUse
from sammy_desktop.core.events import AgentState, Speaker, TranscriptUpdated
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.context import ConfirmationRequest
from sammy_desktop.tools.events import ToolCallStarted
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.state_pill import STATE_WORDS
from tests.helpers.fit import clipped_text, describe, wider_than

from .conftest import FakeAgent, MakeWelcome, MakeWindow, Picture

WIDTHS = pytest.mark.parametrize("width", [420, 360], ids=["default-420px", "minimum-width"])


def _window(qtbot: QtBot, make_window: MakeWindow, width: int, **extra: object) -> MainWindow:
    window = make_window(**extra)
    window.resize(width, 680)
    window.show()
    qtbot.waitExposed(window)
    assert window.width() == width
    return window


@WIDTHS
def test_the_header_shows_every_word_whole(
    qtbot: QtBot,
    bus: EventBus,
    agent: FakeAgent,
    make_window: MakeWindow,
    test_output_dir: Path,
    width: int,
) -> None:
    window = _window(qtbot, make_window, width, demo_mode=True)
    bus.emit(MicrophoneInUse(in_use=True))
    qtbot.waitUntil(window.mic_mark.isVisible)
    header = [window.demo_badge, window.mic_mark, window.state_pill, window.settings_button]
    title = window.findChild(QLabel, "appTitle")
    assert title is not None
    for state in AgentState:
        agent.move_to(state)
        picture = Picture(window)
        qtbot.waitUntil(picture.settled)
        assert window.state_label.text() == STATE_WORDS[state]
        for part in (title, *header):
            assert clipped_text(part) == [], state
            assert wider_than(window, part) == [], state
        boxes = [part.geometry() for part in (title, *header)]
        overlaps = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if a.intersects(b)]
        assert overlaps == [], state
        if state is AgentState.ENDED:  # the longest word
            shot = test_output_dir / "screenshots" / f"header-session-ended-{width}px.png"
            shot.parent.mkdir(parents=True, exist_ok=True)
            assert window.grab(QRect(0, 0, width, 90)).save(str(shot))


@WIDTHS
def test_the_sheet_shows_its_question_and_choices_whole(
    qtbot: QtBot,
    bus: EventBus,
    agent: FakeAgent,
    make_window: MakeWindow,
    test_output_dir: Path,
    width: int,
) -> None:
    window = _window(qtbot, make_window, width)
    agent.move_to(AgentState.READY)
    url = "https://docs.example-long-site-name.com/getting_started?ref=sammy&utm_source=assistant"
    window.confirmation_sheet.ask(
        ConfirmationRequest(
            call_id="c1",
            tool_name="openUrl",
            prompt="Open this page in your browser?",
            arguments={"url": url, "new_window": True},
            timeout_s=60,
            target="docs.example-long-site-name.com",
        )
    )
    sheet = window.confirmation_sheet
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    shot = test_output_dir / "screenshots" / f"confirmation-sheet-{width}px.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    assert picture.pixmap.save(str(shot))

    assert "docs.example-long-site-name.com" in sheet.always_button.text()
    assert clipped_text(sheet) == []
    assert wider_than(sheet, sheet.card) == []
    # The arguments' last line keeps its descenders and underscores: the label is as high
    # as its lines need, and every line is inside it.
    arguments = sheet.arguments_label
    metrics = arguments.fontMetrics()
    lines_needed = arguments.heightForWidth(arguments.width())
    assert arguments.height() >= lines_needed >= 2 * metrics.lineSpacing()
    # The "Always" choice wraps rather than being cut, and stays inside the card.
    always = sheet.always_button
    assert always.height() >= always.heightForWidth(always.width())
    assert sheet.card.rect().contains(always.geometry())
    sheet.deny()


@WIDTHS
def test_long_words_in_bubbles_are_never_cut(
    qtbot: QtBot, bus: EventBus, agent: FakeAgent, make_window: MakeWindow, width: int
) -> None:
    window = _window(qtbot, make_window, width)
    agent.move_to(AgentState.READY)
    words = "Supercalifragilisticexpialidocious antidisestablishmentarianism "
    text = words + "pneumonoultramicroscopicsilicovolcanoconiosis"
    bus.emit(TranscriptUpdated(speaker=Speaker.USER, text=text, final=True, turn_id=1))
    bus.emit(TranscriptUpdated(speaker=Speaker.ASSISTANT, text=text, final=True, turn_id=1))
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    transcript = window.transcript
    content = transcript.widget()
    assert content is not None
    assert clipped_text(content) == []
    assert wider_than(transcript.viewport(), content) == []
    for row in transcript.lines():
        assert row.bubble.width() <= row.bubble.maximumWidth()


def _two_banners(window: MainWindow) -> None:
    window.banners.show_banner("timer", "info", "Timer “tea” set for 2 minutes; it ends at 11:24.")
    window.banners.show_banner(
        "context", "info", "Shared with Sammy: date and time, time zone, operating system."
    )


def test_the_talk_controls_keep_their_room_after_the_first_run(
    qtbot: QtBot, agent: FakeAgent, make_window: MakeWindow, make_welcome: MakeWelcome
) -> None:
    # The welcome panel, hidden behind the conversation, kept its height as the minimum of
    # the window's middle, and the talk button was cut by the text box above it.
    window = _window(qtbot, make_window, 360, demo_mode=True)
    window.set_welcome(make_welcome())
    window.show_conversation()
    agent.move_to(AgentState.READY)
    _two_banners(window)
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    central = window.centralWidget()
    assert central is not None
    assert central.minimumSizeHint().height() <= window.height()
    panel = window.bottom_panel
    assert panel.height() >= panel.minimumSizeHint().height()
    talk = window.talk_button.geometry()
    assert panel.rect().contains(talk)
    assert talk.top() >= window.message_input.geometry().bottom()
    assert clipped_text(panel) == []


@WIDTHS
def test_the_sheet_shows_its_choices_in_a_low_window(
    qtbot: QtBot, agent: FakeAgent, make_window: MakeWindow, width: int
) -> None:
    # Over the transcript alone, two banners left the sheet about 145 px: the question
    # showed, its buttons were scrolled out of sight. It covers the banners too.
    window = _window(qtbot, make_window, width, demo_mode=True)
    agent.move_to(AgentState.READY)
    _two_banners(window)
    sheet = window.confirmation_sheet
    sheet.ask(
        ConfirmationRequest(
            call_id="c1",
            tool_name="readClipboard",
            prompt="Let the assistant read what is on your clipboard? It may contain "
            "passwords or other private text.",
            arguments={},
            timeout_s=60,
        )
    )
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    viewport = sheet.scroll_area.viewport()
    for part in (sheet.title_label, sheet.deny_button, sheet.approve_button, sheet.always_button):
        corner = part.mapTo(viewport, QPoint(0, 0))
        assert viewport.rect().contains(QRect(corner, part.size())), describe(part)
    assert sheet.geometry().top() <= window.banners.geometry().top()
    sheet.deny()


def test_a_card_keeps_the_tool_whole_and_cuts_the_argument(
    qtbot: QtBot, bus: EventBus, agent: FakeAgent, make_window: MakeWindow
) -> None:
    window = _window(qtbot, make_window, 420)
    agent.move_to(AgentState.READY)
    reason = "you asked what I know about this computer and what it is running"
    bus.emit(
        ToolCallStarted(
            call_id="c1",
            name="getCurrentContext",
            arguments={"reason": reason},
            title="Context from this computer",
        )
    )
    card = window.transcript.tool_card("c1")
    assert card is not None
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    assert card.name_label.shown_text == card.name_label.text()  # the tool, whole
    assert not card.argument_label.isVisible()  # the argument gives way (Details has it)
    assert clipped_text(card) == []
    window.resize(900, 680)  # with room, both show
    qtbot.waitUntil(card.argument_label.isVisible)
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    assert card.name_label.shown_text == card.name_label.text()
    assert card.argument_label.shown_text == card.argument_label.text()
    assert clipped_text(card) == []
