"""The main window: push-to-talk by mouse and Space, state words, transcript, banners."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.audio.events import MicrophoneInUse
from sammy_desktop.config import TalkKey, TalkMode, Theme
from sammy_desktop.core.events import (
    AgentState,
    ErrorKind,
    ErrorRaised,
    GroundingSourcesFound,
    Reconnected,
    Reconnecting,
    Speaker,
    StateChanged,
    ToolsChanged,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.core.grounding import GroundingSource
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.events import ContextShared, EscalationRaised
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.state_pill import STATE_WORDS
from sammy_desktop.ui.talk_button import TalkLook
from sammy_desktop.ui.talk_view import LISTENING, PAUSED, TURN_WORDS
from sammy_desktop.ui.theme import DARK, ThemeController
from tests.helpers.fit import clipped_text

from .conftest import EventCounter, FakeAgent, MakeWindow, Picture, talking

TURN = (
    AgentState.READY,
    AgentState.USER_SPEAKING,
    AgentState.THINKING,
    AgentState.ASSISTANT_SPEAKING,
    AgentState.READY,
)

NO_MODIFIER = Qt.KeyboardModifier.NoModifier
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def window(qtbot: QtBot, make_window: MakeWindow) -> MainWindow:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    return window


def _center(window: MainWindow) -> QPoint:
    return window.talk_button.rect().center()


def test_holding_the_button_while_disconnected_connects_then_talks(
    qloop: asyncio.Runner, window: MainWindow, agent: FakeAgent, tasks: UiTasks
) -> None:
    async def scenario() -> None:
        QTest.mousePress(
            window.talk_button, Qt.MouseButton.LeftButton, NO_MODIFIER, _center(window)
        )
        assert window.talking
        # The agent connects, and talking starts once it is ready.
        await tasks.join()
        assert agent.names()[0] == "start"
        assert agent.state is AgentState.USER_SPEAKING
        assert window.state_label.text() == "Listening"
        QTest.mouseRelease(
            window.talk_button, Qt.MouseButton.LeftButton, NO_MODIFIER, _center(window)
        )
        assert agent.names()[-1] == "end_talk"
        assert window.state_label.text() == "Thinking"
        assert not window.talking

    qloop.run(asyncio.wait_for(scenario(), 5))


def test_space_held_talks_and_release_ends(
    qtbot: QtBot, window: MainWindow, agent: FakeAgent
) -> None:
    agent.move_to(AgentState.READY)
    window.talk_button.setFocus()
    # Key events arrive through the native window, as typed keys do.
    handle = window.windowHandle()
    assert handle is not None
    QTest.keyPress(handle, Qt.Key.Key_Space)
    assert agent.names() == ["begin_talk"]
    assert window.state_label.text() == "Listening"
    # Auto-repeat while held must not start a second turn, nor reach the button.
    repeat = QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Space, NO_MODIFIER, " ", True)
    QApplication.sendEvent(handle, repeat)
    assert agent.names() == ["begin_talk"]
    assert not window.talk_button.isDown()
    QTest.keyRelease(handle, Qt.Key.Key_Space)
    assert agent.names() == ["begin_talk", "end_talk"]
    assert not window.talking


def test_the_release_changes_the_talk_controls_look_once(
    qtbot: QtBot, window: MainWindow, agent: FakeAgent
) -> None:
    """The release asks for the look twice (the state change, then after activityEnd went
    out); the second, with nothing new to show, touches no widget: the answer is due then."""
    agent.move_to(AgentState.READY)
    window.talk_button.setFocus()
    handle = window.windowHandle()
    assert handle is not None
    QTest.keyPress(handle, Qt.Key.Key_Space)
    tooltips = EventCounter(window.talk_button, QEvent.Type.ToolTipChange)
    QTest.keyRelease(handle, Qt.Key.Key_Space)
    assert agent.state is AgentState.THINKING
    assert window.talk_hint.text() == "Thinking…"
    assert tooltips.count == 1


def test_space_in_the_text_box_types_instead_of_talking(
    qtbot: QtBot, window: MainWindow, agent: FakeAgent
) -> None:
    agent.move_to(AgentState.READY)
    window.activateWindow()
    window.message_input.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.message_input, timeout=2000)
    QTest.keyClicks(window.message_input, "hi there")
    assert window.message_input.text() == "hi there"
    assert agent.names() == []
    QTest.keyClick(window.message_input, Qt.Key.Key_Return)
    assert agent.calls == [("send_text", ("hi there",))]
    assert window.message_input.text() == ""


def test_click_to_toggle_setting(
    qtbot: QtBot, window: MainWindow, agent: FakeAgent, settings_state: SettingsState
) -> None:
    settings_state.update(talk_key=TalkKey.TAP_TO_TOGGLE)
    agent.move_to(AgentState.READY)
    center = _center(window)
    QTest.mouseClick(window.talk_button, Qt.MouseButton.LeftButton, NO_MODIFIER, center)
    assert agent.names() == ["begin_talk"]
    assert window.talking
    QTest.mouseClick(window.talk_button, Qt.MouseButton.LeftButton, NO_MODIFIER, center)
    assert agent.names() == ["begin_talk", "end_talk"]
    agent.move_to(AgentState.READY)
    assert window.talk_hint.text() == "Press Space or click to talk"


@pytest.mark.parametrize("state", list(AgentState))
def test_every_state_shows_its_words(window: MainWindow, bus: EventBus, state: AgentState) -> None:
    bus.emit(StateChanged(old=AgentState.DISCONNECTED, new=state, reason="test"))
    assert window.state_label.text() == STATE_WORDS[state]
    assert window.state_pill.accessibleName() == f"State: {STATE_WORDS[state]}"


class _PaintWidths(QObject):
    """Each paint of a label: its text, its width, and the width its text needs."""

    def __init__(self, label: QLabel) -> None:
        super().__init__(label)
        self.label = label
        self.paints: list[tuple[str, int, int]] = []
        label.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.label and event.type() == QEvent.Type.Paint:
            self.paints.append(
                (self.label.text(), self.label.width(), self.label.sizeHint().width())
            )
        return False


def test_a_new_state_word_is_painted_whole_the_first_time(
    qtbot: QtBot, window: MainWindow, agent: FakeAgent
) -> None:
    """The pill is laid out for its new word before it is painted: no frame shows a word
    clipped to the width of the one before."""
    widths = _PaintWidths(window.state_label)
    cycle = [
        AgentState.READY,
        AgentState.USER_SPEAKING,
        AgentState.THINKING,
        AgentState.ASSISTANT_SPEAKING,
        AgentState.READY,
        AgentState.DISCONNECTED,
    ]
    for state in cycle:
        agent.move_to(state)
        word = STATE_WORDS[state]

        def painted(word: str = word) -> bool:
            return any(text == word for text, _, _ in widths.paints)

        qtbot.waitUntil(painted)
    clipped = [(text, width, needed) for text, width, needed in widths.paints if width < needed]
    assert clipped == []
    assert {text for text, _, _ in widths.paints} >= {STATE_WORDS[s] for s in cycle}


def test_the_header_keeps_still_through_a_turn(
    qtbot: QtBot, window: MainWindow, agent: FakeAgent, bus: EventBus
) -> None:
    """From Ready to Listening, Thinking, Speaking and back the pill keeps its width, so the
    mic mark beside it stays put; only a rarer, longer word widens it, shown whole."""
    bus.emit(MicrophoneInUse(in_use=True))
    qtbot.waitUntil(window.mic_mark.isVisible)
    places = []
    for state in TURN:
        agent.move_to(state)
        picture = Picture(window)
        qtbot.waitUntil(picture.settled)
        assert window.state_label.text() == STATE_WORDS[state]
        places.append((window.mic_mark.geometry(), window.state_pill.geometry()))
    assert len(set(places)) == 1, places
    # Hands-free's own words of a turn take no more room either.
    pill = window.state_pill
    for word in (LISTENING, PAUSED):
        pill.show_word(AgentState.READY, word, "idle")
        assert pill.sizeHint().width() == places[0][1].width()
    agent.move_to(AgentState.RECONNECTING)
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    assert pill.width() > places[0][1].width()
    assert window.state_label.text() == STATE_WORDS[AgentState.RECONNECTING]
    assert clipped_text(pill) == []


def test_the_pills_room_follows_its_font(window: MainWindow) -> None:
    """The widest word is measured again when the style gives the word another font, so
    every word of a turn still fits, at one width, in the new font."""
    label = window.state_label
    label.setText(TURN_WORDS[0])
    before = label.sizeHint().width()
    label.setStyleSheet("font-size: 26px; font-weight: 600;")
    widths = set()
    for word in TURN_WORDS:
        label.setText(word)
        widths.add(label.sizeHint().width())
        assert label.sizeHint().width() >= label.fontMetrics().horizontalAdvance(word)
    assert len(widths) == 1
    assert widths.pop() > before


def test_a_word_of_the_same_width_moves_and_repaints_nothing_beside_it(
    qtbot: QtBot, window: MainWindow, agent: FakeAgent, bus: EventBus
) -> None:
    """At the key's release the pill's new word moves nothing in the header: the mic mark
    beside it is neither moved nor painted again, only the word is."""
    bus.emit(MicrophoneInUse(in_use=True))
    agent.move_to(AgentState.USER_SPEAKING)
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    mark, pill = window.mic_mark, window.state_pill
    assert mark.isVisible()
    moves = [EventCounter(part, QEvent.Type.Move) for part in (mark, pill)]
    resizes = EventCounter(pill, QEvent.Type.Resize)
    mark_paints = EventCounter(mark)
    word_paints = EventCounter(window.state_label)
    agent.move_to(AgentState.THINKING)
    word_paints.settle()
    assert window.state_label.text() == "Thinking"
    assert word_paints.count >= 1
    assert [m.count for m in moves] == [0, 0]
    assert resizes.count == 0
    assert mark_paints.count == 0


def test_state_words_are_the_ones_the_issue_names() -> None:
    words = set(STATE_WORDS.values())
    for word in ("Disconnected", "Connecting", "Listening", "Thinking", "Speaking"):
        assert word in words
    assert {"Reconnecting", "Error"} <= words


def test_transcript_partial_text_updates_in_place(window: MainWindow, bus: EventBus) -> None:
    bus.emit(TranscriptUpdated(speaker=Speaker.USER, text="What's the", final=False, turn_id=1))
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.USER, text="What's the time in Tokyo?", final=False, turn_id=1
        )
    )
    rows = window.transcript.lines()
    assert len(rows) == 1
    assert rows[0].text == "What's the time in Tokyo?"
    assert rows[0].bubble.property("partial") is True
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.USER, text="What's the time in Tokyo?", final=True, turn_id=1
        )
    )
    bus.emit(TranscriptUpdated(speaker=Speaker.ASSISTANT, text="It's 9:40", final=True, turn_id=1))
    rows = window.transcript.lines()
    assert [r.speaker for r in rows] == [Speaker.USER, Speaker.ASSISTANT]
    assert rows[0].bubble.property("partial") is False
    assert window.transcript.accessibleDescription() == "Sammy: It's 9:40"


def test_auto_scroll_stops_when_the_person_scrolls_up(
    qtbot: QtBot, window: MainWindow, bus: EventBus
) -> None:
    for turn in range(30):
        bus.emit(
            TranscriptUpdated(
                speaker=Speaker.ASSISTANT, text=f"line {turn} " * 20, final=True, turn_id=turn
            )
        )
    bar = window.transcript.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum(), timeout=2000)
    bar.setValue(0)
    assert not window.transcript.is_following
    # The new line has been laid out once the scroll range grows: the moment the view
    # would have followed it to the bottom. It must stay where the person put it.
    with qtbot.waitSignal(bar.rangeChanged, timeout=2000):
        bus.emit(TranscriptUpdated(speaker=Speaker.USER, text="more", final=True, turn_id=99))
    assert bar.value() == 0
    window.transcript.scroll_to_end()
    assert window.transcript.is_following


def test_bad_key_banner_opens_the_account_settings(
    qtbot: QtBot, window: MainWindow, bus: EventBus
) -> None:
    bus.emit(ErrorRaised(ErrorKind.AUTH, "The API key was refused.", "Check the key."))
    banner = window.banners.banner("error")
    assert banner is not None
    assert "API key was refused" in banner.text
    (button,) = banner.action_buttons
    assert button.text() == "Open settings"
    with qtbot.waitSignal(window.settings_requested) as blocker:
        button.click()
    assert blocker.args == ["Account"]


def test_reconnect_banner_and_counter(window: MainWindow, bus: EventBus) -> None:
    bus.emit(Reconnecting(attempt=1, max_attempts=5, delay_s=0.5, reason="closed"))
    banner = window.banners.banner("connection")
    assert banner is not None and "reconnecting (attempt 1 of 5)" in banner.text
    bus.emit(Reconnected(resumed=True, attempts=1, replayed_messages=0, planned=False))
    assert window.banners.banner("connection") is None
    bus.emit(
        TurnStats(
            turn_id=1,
            first_audio_ms=410.0,
            tool_ms=0,
            tool_calls=0,
            reconnects=0,
            prompt_tokens=1,
            response_tokens=1,
            total_tokens=2,
        )
    )
    assert "answered in 410 ms" in window.status_line.text()
    assert "reconnects 1" in window.status_line.text()


def test_context_shared_banner_says_exactly_what(window: MainWindow, bus: EventBus) -> None:
    bus.emit(
        ContextShared(
            call_id="c1",
            shared={"local_time": "2026-11-30T09:40", "timezone": "Asia/Tokyo"},
            withheld=("share_platform",),
        )
    )
    banner = window.banners.banner("context")
    assert banner is not None
    assert "date and time, time zone" in banner.text
    assert "Held back by your privacy settings: operating system." in banner.text
    assert banner.details_label is not None
    assert "Asia/Tokyo" in banner.details_label.text()


def test_escalation_banner_names_the_record(
    window: MainWindow, bus: EventBus, tmp_path: Path
) -> None:
    bus.emit(
        EscalationRaised(
            record_id="ESC-42",
            record_path=tmp_path / "ESC-42.json",
            channel_opened="mailto:help@example.com",
        )
    )
    banner = window.banners.banner("escalation")
    assert banner is not None
    assert "ESC-42" in banner.text and "mailto:help@example.com" in banner.text


def test_end_conversation_then_new_conversation(
    qloop: asyncio.Runner,
    window: MainWindow,
    agent: FakeAgent,
    tasks: UiTasks,
    test_output_dir: Path,
) -> None:
    """One labelled button where two unlabelled icons read alike (issue 24, point 16)."""
    button = window.conversation_button

    async def scenario() -> None:
        assert button.text() == "New conversation"
        button.click()
        await asyncio.wait_for(agent.called.wait(), 2)
        await tasks.join()
        assert window.state_label.text() == "Ready"
        assert (button.text(), button.accessibleName()) == ("End conversation",) * 2
        window.grab().save(str(test_output_dir / "conversation-button-end.png"))
        button.click()
        await tasks.join()
        assert window.state_label.text() == "Session ended"
        assert agent.names() == ["start", "end_session"]
        assert button.text() == "New conversation"
        window.grab().save(str(test_output_dir / "conversation-button-new.png"))
        button.click()
        await tasks.join()
        assert agent.names() == ["start", "end_session", "start"]

    qloop.run(scenario())


def test_the_conversation_button_is_in_the_tab_order_after_the_talk_button(
    window: MainWindow,
) -> None:
    order: list[QWidget] = []
    widget: QWidget | None = window.message_input
    while widget is not None and len(order) < 4:
        if widget.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus:
            order.append(widget)
        widget = widget.nextInFocusChain()
    assert order == [
        window.message_input,
        window.send_button,
        window.talk_button,
        window.conversation_button,
    ]
    # Nothing else in the bottom panel is an unlabelled icon beside the talk button.
    buttons = window.bottom_panel.findChildren(QAbstractButton)
    assert set(buttons) == {window.send_button, window.talk_button, window.conversation_button}


def test_escape_stops_the_assistant_and_ctrl_comma_opens_settings(
    qtbot: QtBot, agent: FakeAgent, make_window: MakeWindow
) -> None:
    stopped: list[bool] = []
    window = make_window(stop_speaking=lambda: stopped.append(True))
    window.show()
    qtbot.waitExposed(window)
    agent.move_to(AgentState.ASSISTANT_SPEAKING)
    assert window.talk_hint.text() == "Speaking · Esc to stop"
    QTest.keyClick(window.talk_button, Qt.Key.Key_Escape)
    assert stopped == [True]
    with qtbot.waitSignal(window.settings_requested) as blocker:
        window.settings_button.click()
    assert blocker.args == [""]


def test_earcons_play_when_talking_starts_and_stops(
    agent: FakeAgent, settings_state: SettingsState, make_window: MakeWindow
) -> None:
    sounds: list[str] = []
    window = make_window(play_sound=sounds.append)
    agent.move_to(AgentState.READY)
    window.talk_input.on_pressed()
    window.talk_input.on_released()
    assert sounds == ["listen_start", "listen_stop"]
    settings_state.update(earcons=False)
    window.talk_input.on_pressed()
    window.talk_input.on_released()
    assert sounds == ["listen_start", "listen_stop"]


def test_every_control_has_an_accessible_name(window: MainWindow) -> None:
    controls = window.findChildren(QAbstractButton) + window.findChildren(QLineEdit)
    assert controls
    for control in controls:
        assert control.accessibleName(), control.objectName() or type(control).__name__


def test_a_tool_switch_mid_session_is_noted_in_the_transcript(
    window: MainWindow, agent: FakeAgent, bus: EventBus
) -> None:

    agent.move_to(AgentState.READY)
    bus.emit(ToolsChanged(enabled=("endSession", "escalate"), applied_live=True))
    notes = [label.text() for label in window.transcript.findChildren(QLabel, "systemLine")]
    assert notes == ["Tools updated (2 available to Sammy): applies now"]


def test_hands_free_button_connects_then_pauses_and_resumes_the_mic(
    qloop: asyncio.Runner,
    window: MainWindow,
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
) -> None:
    async def scenario() -> None:
        settings_state.update(talk_mode=TalkMode.HANDS_FREE)
        await tasks.join()
        assert agent.calls == [("set_talk_mode", (TalkMode.HANDS_FREE,))]
        assert window.talk_hint.text() == "Hands-free · click to connect"
        window.talk_button.click()
        await tasks.join()
        assert agent.state is AgentState.READY
        assert talking(window)
        assert window.talk_button.look is TalkLook.LISTENING
        assert window.talk_hint.text() == "Hands-free: just talk · click to pause"
        window.talk_button.click()
        assert agent.names()[-1] == "end_talk"
        assert not talking(window)
        assert window.talk_hint.text() == "Microphone paused · click to listen"
        window.talk_button.click()
        assert agent.names()[-1] == "begin_talk"
        assert talking(window)

    qloop.run(scenario())


def test_grounding_sources_show_as_links_under_the_answer(
    window: MainWindow, bus: EventBus
) -> None:
    bus.emit(
        GroundingSourcesFound(
            turn_id=3,
            sources=(
                GroundingSource("Weather in Tokyo", "https://example.com/tokyo", "example.com"),
                GroundingSource("Bad", "javascript:alert(1)", None),
            ),
            queries=("tokyo weather",),
        )
    )
    label = window.transcript.sources_line(3)
    assert label is not None and label.objectName() == "sourcesLine"
    assert 'href="https://example.com/tokyo"' in label.text()
    assert ">example.com</a>" in label.text()
    assert "javascript" not in label.text()
    assert label.openExternalLinks()


def test_theme_setting_applies_at_once(
    window: MainWindow, settings_state: SettingsState, theme: ThemeController
) -> None:
    settings_state.update(theme=Theme.DARK)
    assert theme.palette is DARK
