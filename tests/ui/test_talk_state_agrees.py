"""The window never contradicts itself about talking (issue 24, point 4), as the tour saw it.

"Hold Space to talk" under Error, Disconnected or Session ended; "Listening…" beside a red
Error pill; Space with no microphone saying Listening; hands-free saying Ready while it
hears. Each scenario drives the real window through the bus and the bridge, as the app does;
the words themselves are :mod:`sammy_desktop.ui.talk_view`'s (tested there per state).
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from sammy_desktop.audio.events import (
    MicrophoneInUse,
    MicrophoneListening,
    MicrophoneUnavailable,
    StreamError,
    StreamRecovered,
)
from sammy_desktop.config import TalkMode
from sammy_desktop.core.events import AgentState, ErrorKind, ErrorRaised
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.mic_notices import MIC_FAILED_BANNER
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.talk_button import TalkLook
from sammy_desktop.ui.talk_view import (
    MIC_NOT_WORKING,
    Press,
    PressMode,
    TalkSituation,
    talk_view,
)
from tests.helpers.fit import clipped_text

from .conftest import FakeAgent, MakeWindow, Picture, talking

NO_HEIGHT_LIMIT = 16_777_215
"""A banner's maximum height once it has slid in (Qt's QWIDGETSIZE_MAX)."""

EVERY_SITUATION = [
    TalkSituation(state, mode, press, mic_works, paused, typing=typing)
    for state, mode, press, mic_works, paused, typing in itertools.product(
        AgentState, PressMode, Press, (True, False), (False, True), (False, True)
    )
]

NO_MIC = "Error opening InputStream: no audio input device is available"


class FailingAgent(FakeAgent):
    """An agent whose connection cannot be made: Connecting, then Error."""

    async def start(self) -> None:
        self._record("start")
        self.move_to(AgentState.CONNECTING, "starting")
        await asyncio.sleep(0)
        self.move_to(AgentState.ERROR, "could not reach the assistant")
        self.bus.emit(ErrorRaised(ErrorKind.CONNECTION, "Could not reach the assistant.", ""))


class NoMicAgent(FakeAgent):
    """The agent as VoiceControls drives it with no microphone at all.

    A press finds no microphone to open: ``MicrophoneUnavailable``, and no turn starts
    (as ``audio.mic_policy`` does for a closed stream that cannot open and for an open one
    that is down).
    """

    def begin_talk(self, pre_roll: bytes = b"") -> bool:
        self._record("begin_talk")
        if not self.state.is_running:
            return False
        self.bus.emit(MicrophoneUnavailable(NO_MIC))
        return True


def _shown(window: MainWindow) -> tuple[str, str, TalkLook]:
    return window.state_label.text(), window.talk_hint.text(), window.talk_button.look


def _save(qtbot: QtBot, window: MainWindow, path: Path) -> None:
    """The window's picture, once Qt has laid out what changed (a word's new width)."""
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    picture.pixmap.save(str(path))


def _window(qtbot: QtBot, make_window: MakeWindow, **extra: object) -> MainWindow:
    window = make_window(**extra)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_an_error_while_listening_ends_the_listening(
    qtbot: QtBot, make_window: MakeWindow, agent: FakeAgent, test_output_dir: Path
) -> None:
    window = _window(qtbot, make_window)
    agent.move_to(AgentState.READY)
    window.talk_input.on_pressed()
    assert _shown(window) == ("Listening", "Listening…", TalkLook.LISTENING)
    agent.move_to(AgentState.ERROR, "the connection failed")
    assert _shown(window) == ("Error", "Not connected · hold Space to try again", TalkLook.IDLE)
    assert not talking(window)
    _save(qtbot, window, test_output_dir / "talk-state-error.png")
    window.talk_input.on_released()  # letting go afterwards sends nothing
    assert agent.names() == ["begin_talk"]


def test_a_press_whose_connection_fails_stops_saying_connecting(
    qloop: asyncio.Runner, qtbot: QtBot, make_window: MakeWindow, bus: EventBus, tasks: UiTasks
) -> None:
    failing = FailingAgent(bus)
    window = _window(qtbot, make_window, controls=failing)
    assert window.talk_hint.text() == "Hold Space to connect and talk"

    async def scenario() -> None:
        window.talk_input.on_pressed()
        assert window.talk_hint.text() == "Connecting… keep talking"
        await tasks.join()

    qloop.run(scenario())
    assert _shown(window) == ("Error", "Not connected · hold Space to try again", TalkLook.IDLE)
    assert not talking(window), "the connection the press waited for is not coming"
    window.talk_input.on_released()
    # Refused while connecting (the turn waited), and nothing to end once it failed.
    assert failing.names() == ["start", "begin_talk"]


@pytest.mark.parametrize(
    ("state", "hint"),
    [
        (AgentState.DISCONNECTED, "Hold Space to connect and talk"),
        (AgentState.ENDED, "Hold Space to start a new conversation"),
        (AgentState.ERROR, "Not connected · hold Space to try again"),
    ],
)
def test_a_stopped_conversation_never_says_hold_space_to_talk(
    qtbot: QtBot,
    make_window: MakeWindow,
    agent: FakeAgent,
    state: AgentState,
    hint: str,
    test_output_dir: Path,
) -> None:
    window = _window(qtbot, make_window)
    agent.move_to(AgentState.READY)
    assert window.talk_hint.text() == "Hold Space to talk"
    agent.move_to(state, "test")
    assert window.talk_hint.text() == hint
    assert window.talk_button.toolTip() == hint
    assert window.talk_button.accessibleDescription().startswith(hint)
    _save(qtbot, window, test_output_dir / f"talk-state-{state.value}.png")


def test_space_with_no_microphone_never_says_listening_and_sends_no_turn(
    qtbot: QtBot, make_window: MakeWindow, bus: EventBus, test_output_dir: Path
) -> None:
    """The tour: no microphone, Space held: Listening, and "[you spoke for 0.0 s]"."""
    no_mic = NoMicAgent(bus)
    window = _window(qtbot, make_window, controls=no_mic)
    no_mic.move_to(AgentState.READY)
    handle = window.windowHandle()
    assert handle is not None
    window.talk_button.setFocus()
    QTest.keyPress(handle, Qt.Key.Key_Space)
    assert no_mic.names() == ["begin_talk"]
    assert _shown(window) == ("Ready", MIC_NOT_WORKING, TalkLook.UNAVAILABLE)
    assert not talking(window)
    banner = window.banners.banner(MIC_FAILED_BANNER)
    assert banner is not None, "the banner says why"
    qtbot.waitUntil(lambda: banner.maximumHeight() == NO_HEIGHT_LIMIT)  # slid in
    _save(qtbot, window, test_output_dir / "talk-state-no-microphone-space.png")
    QTest.keyRelease(handle, Qt.Key.Key_Space)
    assert no_mic.names() == ["begin_talk"], "no turn: nothing to end"
    assert _shown(window) == ("Ready", MIC_NOT_WORKING, TalkLook.UNAVAILABLE)


def test_a_microphone_that_stops_working_is_said_until_it_works_again(
    qtbot: QtBot, make_window: MakeWindow, agent: FakeAgent, bus: EventBus
) -> None:
    window = _window(qtbot, make_window)
    agent.move_to(AgentState.READY)
    bus.emit(StreamError("output", "the headphones went"))
    assert window.talk_hint.text() == "Hold Space to talk", "the speaker is not the mic"
    bus.emit(StreamError("input", "the device was unplugged"))
    assert _shown(window) == ("Ready", MIC_NOT_WORKING, TalkLook.UNAVAILABLE)
    bus.emit(StreamRecovered("input", "Built-in Microphone"))
    assert _shown(window) == ("Ready", "Hold Space to talk", TalkLook.IDLE)
    # Would not open for a press; works once a stream runs, or is heard.
    bus.emit(MicrophoneUnavailable(NO_MIC))
    assert window.talk_hint.text() == MIC_NOT_WORKING
    bus.emit(MicrophoneInUse(in_use=True))
    assert window.talk_hint.text() == "Hold Space to talk"
    bus.emit(MicrophoneUnavailable(NO_MIC))
    bus.emit(MicrophoneListening())
    assert window.talk_hint.text() == "Hold Space to talk"


def test_choosing_another_microphone_invites_a_press_again(
    qtbot: QtBot,
    make_window: MakeWindow,
    agent: FakeAgent,
    bus: EventBus,
    settings_state: SettingsState,
) -> None:
    window = _window(qtbot, make_window)
    agent.move_to(AgentState.READY)
    bus.emit(MicrophoneUnavailable(NO_MIC))
    assert window.talk_hint.text() == MIC_NOT_WORKING
    settings_state.update(input_device="USB Headset")
    assert window.talk_hint.text() == "Hold Space to talk"


def test_hands_free_says_listening_while_it_hears(
    qtbot: QtBot,
    make_window: MakeWindow,
    agent: FakeAgent,
    settings_state: SettingsState,
    test_output_dir: Path,
) -> None:
    settings_state.update(talk_mode=TalkMode.HANDS_FREE)
    window = _window(qtbot, make_window)
    agent.move_to(AgentState.READY)
    assert _shown(window) == (
        "Listening",
        "Hands-free: just talk · click to pause",
        TalkLook.LISTENING,
    )
    assert window.state_pill.dot.tone == "accent"
    _save(qtbot, window, test_output_dir / "talk-state-hands-free-listening.png")
    window.talk_input.on_pressed()  # pause
    assert _shown(window) == ("Paused", "Microphone paused · click to listen", TalkLook.IDLE)
    window.talk_input.on_pressed()  # listen again
    assert window.state_label.text() == "Listening"
    agent.move_to(AgentState.READY)  # the fake agent says Listening on a press; the core not
    agent.bus.emit(StreamError("input", "the device was unplugged"))
    assert _shown(window) == ("Ready", MIC_NOT_WORKING, TalkLook.UNAVAILABLE)


def test_every_hint_fits_the_narrowest_window(
    qtbot: QtBot, make_window: MakeWindow, test_output_dir: Path
) -> None:
    """The longest things the control can say are whole at the minimum width (360 px)."""
    hints = sorted(
        {talk_view(situation).hint for situation in EVERY_SITUATION}, key=len, reverse=True
    )
    window = _window(qtbot, make_window)
    window.resize(window.minimumWidth(), 600)
    for hint in hints:
        window.talk_hint.setText(hint)
        picture = Picture(window)
        qtbot.waitUntil(picture.settled)
        assert window.width() == window.minimumWidth() == 360, hint
        assert clipped_text(window.bottom_panel) == [], hint
    window.talk_hint.setText(hints[0])
    _save(qtbot, window, test_output_dir / "talk-state-longest-hint-at-360.png")


def test_in_the_text_box_the_hint_says_what_the_keys_do_there(
    qtbot: QtBot, make_window: MakeWindow, agent: FakeAgent, test_output_dir: Path
) -> None:
    """The tour: "Hold Space to talk" while the text box had the focus, where Space types."""
    window = _window(qtbot, make_window)
    agent.move_to(AgentState.READY)
    assert window.talk_hint.text() == "Hold Space to talk"
    QTest.mouseClick(window.message_input, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(window.message_input.hasFocus)
    assert window.talk_hint.text() == "Enter sends · hold the button to talk"
    assert window.transcript.empty_hint.text().startswith("Hold the button and say")
    _save(qtbot, window, test_output_dir / "talk-state-typing.png")
    # Space types there, and no turn starts.
    QTest.keyClick(window.message_input, Qt.Key.Key_Space)
    assert agent.names() == []
    # Tab leaves the text box (to the send button): Space talks again, and says so.
    QTest.keyClick(window.message_input, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: not window.message_input.hasFocus())
    assert window.talk_hint.text() == "Hold Space to talk"
    agent.move_to(AgentState.ERROR, "test")
    window.message_input.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(window.message_input.hasFocus)
    assert window.talk_hint.text() == "Not connected · hold the button to try again"


def test_the_empty_transcript_invites_only_when_a_conversation_can_start(
    qtbot: QtBot, make_window: MakeWindow, agent: FakeAgent, bus: EventBus, test_output_dir: Path
) -> None:
    """The tour: "Hold the button or the Space bar…" under a refused key's error."""
    window = _window(qtbot, make_window)
    hint = window.transcript.empty_hint
    agent.move_to(AgentState.READY)
    assert hint.isVisible()
    assert hint.text() == (
        "Hold the button or the Space bar and say something.\nOr type a message below."
    )
    agent.move_to(AgentState.ERROR, "API key not valid")
    bus.emit(ErrorRaised(ErrorKind.AUTH, "The service did not accept the API key.", ""))
    assert not hint.isVisible(), "no conversation can start: nothing to invite to"
    banner = window.banners.banner("error")
    assert banner is not None
    qtbot.waitUntil(lambda: banner.maximumHeight() == NO_HEIGHT_LIMIT)  # slid in
    _save(qtbot, window, test_output_dir / "talk-state-error-empty-transcript.png")
    agent.move_to(AgentState.CONNECTING, "trying again")
    agent.move_to(AgentState.READY, "connected")
    assert hint.isVisible()
    # No microphone: typing only.
    bus.emit(StreamError("input", "the device was unplugged"))
    assert hint.text() == "Type a message below."
    assert hint.isVisible()
