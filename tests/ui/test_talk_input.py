"""TalkInput alone: what a press means in each talk mode, and what the button and hint say."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.config import Settings, TalkKey, TalkMode
from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import AgentControls, UiTasks
from sammy_desktop.ui.talk_button import TalkButton, TalkLook
from sammy_desktop.ui.talk_input import TalkInput

from .conftest import FakeAgent


@dataclass
class Talk:
    """A talk input with its button and hint, following the bridge's state changes."""

    host: QWidget  # holds the Qt objects (qtbot keeps only a weak reference)
    input: TalkInput
    button: TalkButton
    hint: QLabel


MakeTalk = Callable[..., Talk]


@pytest.fixture
def make_talk(qtbot: QtBot, bridge: EventBridge, agent: FakeAgent, tasks: UiTasks) -> MakeTalk:
    def make(
        settings: Settings | None = None,
        *,
        controls: AgentControls | None = agent,
        play_sound: Callable[[str], None] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> Talk:
        host = QWidget()
        qtbot.addWidget(host)
        button = TalkButton(Assets(), host)
        hint = QLabel(host)
        talk = TalkInput(
            button,
            hint,
            # Hold to talk unless a test says otherwise: its presses are instant.
            settings=settings or Settings(talk_key=TalkKey.HOLD_TO_TALK),
            tasks=tasks,
            controls=controls,
            play_sound=play_sound,
            clock=clock or (lambda: 0.0),
            parent=host,
        )
        bridge.state_changed.connect(talk.on_state_changed)
        bridge.session_ended.connect(talk.on_session_ended)
        return Talk(host, talk, button, hint)

    return make


def _talking(talk: Talk) -> bool:
    return talk.input.talking  # calls, so mypy does not narrow the properties between steps


def _look(talk: Talk) -> TalkLook:
    return talk.button.look


def test_hold_to_talk_starts_on_press_and_sends_on_release(
    make_talk: MakeTalk, agent: FakeAgent
) -> None:
    sounds: list[str] = []
    talk = make_talk(play_sound=sounds.append)
    agent.move_to(AgentState.READY)
    assert talk.hint.text() == "Hold Space to talk"
    talk.input.on_pressed()
    assert agent.names() == ["begin_talk"]
    assert _talking(talk)
    assert _look(talk) is TalkLook.LISTENING
    assert talk.hint.text() == "Listening…"
    talk.input.on_released()
    assert agent.names() == ["begin_talk", "end_talk"]
    assert not _talking(talk)
    assert _look(talk) is TalkLook.IDLE
    assert talk.hint.text() == "Thinking…"
    assert sounds == ["listen_start", "listen_stop"]


def test_a_press_while_disconnected_connects_and_talks_once_the_agent_takes_the_turn(
    qloop: asyncio.Runner, make_talk: MakeTalk, agent: FakeAgent, tasks: UiTasks
) -> None:
    async def scenario() -> None:
        talk = make_talk()
        talk.input.on_pressed()
        assert talk.hint.text() == "Connecting… keep talking"
        await tasks.join()
        # Refused while connecting, taken once ready.
        assert agent.names() == ["start", "begin_talk", "begin_talk"]
        assert agent.state is AgentState.USER_SPEAKING
        assert talk.hint.text() == "Listening…"

    qloop.run(scenario())


def test_a_turn_the_agent_drops_ends_in_the_window_too(
    make_talk: MakeTalk, agent: FakeAgent
) -> None:
    talk = make_talk()
    agent.move_to(AgentState.READY)
    talk.input.on_pressed()
    agent.move_to(AgentState.DISCONNECTED, "connection lost")
    assert not _talking(talk)
    assert _look(talk) is TalkLook.IDLE
    assert talk.hint.text() == "Hold Space to connect and talk"


def test_click_to_toggle_ends_on_the_second_press(make_talk: MakeTalk, agent: FakeAgent) -> None:
    talk = make_talk(Settings(talk_key=TalkKey.TAP_TO_TOGGLE))
    agent.move_to(AgentState.READY)
    assert talk.hint.text() == "Press Space or click to talk"
    talk.input.on_pressed()
    talk.input.on_released()
    assert agent.names() == ["begin_talk"]
    assert talk.hint.text() == "Listening… click again to send"
    talk.input.on_pressed()
    assert agent.names() == ["begin_talk", "end_talk"]
    assert not _talking(talk)


class ManualClock:
    """Seconds that pass only when the test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def test_auto_a_short_tap_keeps_talking_until_the_next_press(
    make_talk: MakeTalk, agent: FakeAgent
) -> None:
    clock = ManualClock()
    sounds: list[str] = []
    talk = make_talk(Settings(talk_key=TalkKey.AUTO), clock=clock, play_sound=sounds.append)
    agent.move_to(AgentState.READY)
    assert talk.hint.text() == "Hold Space to talk, or tap it"
    talk.input.on_pressed()
    clock.advance(0.100)
    talk.input.on_released()
    assert agent.names() == ["begin_talk"], "a 100 ms tap does not end the turn"
    assert _talking(talk)
    assert talk.hint.text() == "Listening… click again to send"
    clock.advance(5.0)  # talking, hands off the key
    talk.input.on_pressed()
    assert agent.names() == ["begin_talk", "end_talk"], "the next press sends"
    assert not _talking(talk)
    clock.advance(0.100)
    talk.input.on_released()  # that press's release starts and ends nothing
    assert agent.names() == ["begin_talk", "end_talk"]
    assert sounds == ["listen_start", "listen_stop"]


def test_auto_a_hold_talks_only_while_held(make_talk: MakeTalk, agent: FakeAgent) -> None:
    clock = ManualClock()
    talk = make_talk(Settings(talk_key=TalkKey.AUTO), clock=clock)
    agent.move_to(AgentState.READY)
    talk.input.on_pressed()
    assert agent.names() == ["begin_talk"], "talking starts on the press, not after it"
    assert talk.hint.text() == "Listening…"
    clock.advance(0.600)
    talk.input.on_released()
    assert agent.names() == ["begin_talk", "end_talk"]
    assert not _talking(talk)
    # And again: the tap before does not stick to the next hold.
    talk.input.on_pressed()
    clock.advance(0.100)
    talk.input.on_released()
    talk.input.on_pressed()  # sends the tapped turn
    talk.input.on_released()
    talk.input.on_pressed()
    clock.advance(1.0)
    talk.input.on_released()
    assert agent.names()[2:] == ["begin_talk", "end_talk", "begin_talk", "end_talk"]


def test_auto_a_tapped_turn_the_agent_drops_is_not_latched_into_the_next(
    make_talk: MakeTalk, agent: FakeAgent
) -> None:
    clock = ManualClock()
    talk = make_talk(Settings(talk_key=TalkKey.AUTO), clock=clock)
    agent.move_to(AgentState.READY)
    talk.input.on_pressed()
    talk.input.on_released()  # a tap: latched
    agent.move_to(AgentState.DISCONNECTED, "connection lost")
    assert not _talking(talk)
    agent.move_to(AgentState.READY)
    talk.input.on_pressed()
    assert talk.hint.text() == "Listening…", "a new hold, not the old latched turn"
    clock.advance(1.0)
    talk.input.on_released()
    assert not _talking(talk)


@pytest.mark.parametrize("key", list(TalkKey))
def test_toggle_start_and_stop_act_the_same_whatever_the_talk_key(
    make_talk: MakeTalk, agent: FakeAgent, key: TalkKey
) -> None:
    """The tray's Talk and ``--toggle-talk``/``--talk-start``/``--talk-stop`` have no key."""
    talk = make_talk(Settings(talk_key=key))
    agent.move_to(AgentState.READY)
    talk.input.toggle()
    assert _talking(talk)
    talk.input.start()  # already talking: nothing new
    assert agent.names() == ["begin_talk"]
    talk.input.toggle()
    assert not _talking(talk)
    talk.input.stop()  # not talking: nothing to send
    assert agent.names() == ["begin_talk", "end_talk"]
    talk.input.start()
    assert _talking(talk)
    talk.input.stop()
    assert agent.names() == ["begin_talk", "end_talk", "begin_talk", "end_talk"]


def test_hands_free_start_and_stop_resume_and_pause_the_microphone(
    make_talk: MakeTalk, agent: FakeAgent
) -> None:
    talk = make_talk(Settings(talk_mode=TalkMode.HANDS_FREE))
    agent.move_to(AgentState.READY)
    talk.input.start()  # live already
    assert agent.names() == []
    talk.input.stop()
    talk.input.stop()
    assert agent.names() == ["end_talk"]
    assert not _talking(talk)
    talk.input.start()
    assert agent.names() == ["end_talk", "begin_talk"]
    talk.input.toggle()
    assert agent.names() == ["end_talk", "begin_talk", "end_talk"]


def test_hands_free_presses_pause_and_resume_the_microphone(
    make_talk: MakeTalk, agent: FakeAgent
) -> None:
    talk = make_talk(Settings(talk_mode=TalkMode.HANDS_FREE))
    assert talk.hint.text() == "Hands-free · click to connect"
    agent.move_to(AgentState.READY)
    assert _talking(talk)
    assert _look(talk) is TalkLook.LISTENING
    talk.input.on_pressed()
    assert agent.names() == ["end_talk"]
    assert not _talking(talk)
    assert talk.hint.text() == "Microphone paused · click to listen"
    talk.input.on_pressed()
    assert agent.names() == ["end_talk", "begin_talk"]
    assert _talking(talk)


def test_without_the_agent_talking_is_unavailable(make_talk: MakeTalk) -> None:
    talk = make_talk(controls=None)
    talk.input.on_pressed()
    assert not _talking(talk)
    assert not talk.button.isEnabled()
    assert _look(talk) is TalkLook.UNAVAILABLE
    assert talk.hint.text() == "Talking is not available yet"


def test_the_ring_follows_the_microphone_only_while_listening(
    make_talk: MakeTalk, agent: FakeAgent
) -> None:
    talk = make_talk()
    agent.move_to(AgentState.READY)
    talk.input.on_input_level(-12.0)
    assert talk.button.level == 0.0
    talk.input.on_pressed()
    talk.input.on_input_level(-12.0)
    assert talk.button.level > 0.0
    talk.input.on_output_level(-60.0)  # the speaker's level is for the speaking look
    assert talk.button.level > 0.0


@pytest.mark.logs_errors("could not play the sound")
def test_an_earcon_that_fails_does_not_stop_talking(
    make_talk: MakeTalk, agent: FakeAgent, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(_name: str) -> None:
        raise OSError("no such sound")

    talk = make_talk(play_sound=broken)
    agent.move_to(AgentState.READY)
    talk.input.on_pressed()
    assert agent.names() == ["begin_talk"]
    assert _talking(talk)
    assert "could not play the sound listen_start" in caplog.text
