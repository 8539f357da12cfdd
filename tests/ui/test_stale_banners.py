"""A banner goes when what it says stops being true (issue 24, point 5).

The tour saw "Offline: reconnecting (attempt 5 of 6)" beside the final error, and still there
after the key was removed. Each banner here is shown by the events that raise it, through the
real bus and bridge, and then the event that ends its condition must take it away.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from sammy_desktop.audio.events import MicrophoneInUse, StreamError
from sammy_desktop.core.events import (
    AgentState,
    ConnectionLost,
    ErrorKind,
    ErrorRaised,
    NoResponse,
    Reconnecting,
)
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.mic_notices import MIC_FAILED_BANNER

from .conftest import FakeAgent, MakeWindow

FINAL_ERROR = (
    "Could not reach the assistant after 6 attempts: the network is unreachable. Check the "
    "internet connection, then connect again."
)


NO_HEIGHT_LIMIT = 16_777_215
"""A banner's maximum height once it has slid in (Qt's QWIDGETSIZE_MAX)."""


@pytest.fixture
def window(qtbot: QtBot, make_window: MakeWindow) -> MainWindow:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    return window


def _keys(window: MainWindow) -> list[str]:
    return [banner.key for banner in window.banners.banners()]


def _reconnecting(bus: EventBus, agent: FakeAgent, attempt: int = 5) -> None:
    agent.move_to(AgentState.READY)
    bus.emit(ConnectionLost(code=1006, reason="network unreachable"))
    agent.move_to(AgentState.RECONNECTING, "connection lost")
    bus.emit(Reconnecting(attempt=attempt, max_attempts=6, delay_s=4.0, reason="unreachable"))


def test_the_reconnecting_banner_goes_when_reconnecting_gives_up(
    qtbot: QtBot, window: MainWindow, bus: EventBus, agent: FakeAgent, test_output_dir: Path
) -> None:
    _reconnecting(bus, agent)
    assert _keys(window) == ["connection"]
    assert "attempt 5 of 6" in window.banners.banner("connection").text  # type: ignore[union-attr]
    # The core gives up: the state says Error, and the error says what to do.
    agent.move_to(AgentState.ERROR, "could not reach the assistant")
    bus.emit(ErrorRaised(ErrorKind.CONNECTION, FINAL_ERROR, ""))
    assert _keys(window) == ["error"]
    error = window.banners.banner("error")
    assert error is not None
    qtbot.waitUntil(lambda: error.maximumHeight() == NO_HEIGHT_LIMIT)  # slid in
    window.grab().save(str(test_output_dir / "banners-final-error-alone.png"))


@pytest.mark.parametrize(
    "stopped", [AgentState.DISCONNECTED, AgentState.ENDED], ids=["disconnect", "end"]
)
def test_the_reconnecting_banner_goes_when_the_conversation_stops(
    window: MainWindow, bus: EventBus, agent: FakeAgent, stopped: AgentState
) -> None:
    """Disconnect, End conversation, or the key removed (the app then stops the agent)."""
    _reconnecting(bus, agent, attempt=2)
    assert _keys(window) == ["connection"]
    agent.move_to(stopped, "stopped by the person")
    assert _keys(window) == []


@pytest.mark.parametrize(
    "after",
    [AgentState.CONNECTING, AgentState.READY, AgentState.DISCONNECTED, AgentState.ENDED],
)
def test_the_error_goes_when_the_person_tries_again_or_stops(
    window: MainWindow, bus: EventBus, agent: FakeAgent, after: AgentState
) -> None:
    agent.move_to(AgentState.ERROR, "could not reach the assistant")
    bus.emit(ErrorRaised(ErrorKind.CONNECTION, FINAL_ERROR, ""))
    assert _keys(window) == ["error"]
    agent.move_to(after, "test")
    assert _keys(window) == []


def test_not_connected_goes_once_the_conversation_takes_words(
    window: MainWindow, agent: FakeAgent
) -> None:
    window.message_input.setText("what time is it?")
    window.message_input.returnPressed.emit()
    assert _keys(window) == ["not-connected"]
    # Connected some other way than the banner's button (the talk key, a reconnect).
    agent.move_to(AgentState.CONNECTING)
    assert _keys(window) == ["not-connected"]
    agent.move_to(AgentState.READY)
    assert _keys(window) == []
    assert window.message_input.text() == "what time is it?", "the text is kept"


@pytest.mark.parametrize(
    "after", [AgentState.USER_SPEAKING, AgentState.DISCONNECTED, AgentState.ERROR]
)
def test_no_answer_goes_when_the_person_says_it_again_or_the_conversation_stops(
    window: MainWindow, bus: EventBus, agent: FakeAgent, after: AgentState
) -> None:
    agent.move_to(AgentState.THINKING)
    bus.emit(NoResponse(turn_id=1, waited_s=16.0, nudged=True, gave_up=True))
    assert _keys(window) == ["no-response"]
    agent.move_to(AgentState.READY)
    assert _keys(window) == ["no-response"], "still no answer: ready alone does not end it"
    agent.move_to(after, "test")
    assert "no-response" not in _keys(window)


def test_a_microphone_trying_again_goes_once_its_stream_is_closed(
    window: MainWindow, bus: EventBus
) -> None:
    bus.emit(MicrophoneInUse(in_use=True))
    bus.emit(StreamError("input", "the device was unplugged"))
    assert _keys(window) == [MIC_FAILED_BANNER]
    assert window.banners.banner(MIC_FAILED_BANNER).text.endswith("Trying again…")  # type: ignore[union-attr]
    # The turn is over and the microphone closed: nothing tries any more.
    bus.emit(MicrophoneInUse(in_use=False))
    assert _keys(window) == []
    # A speaker's problem is not the microphone's.
    bus.emit(StreamError("output", "the device was unplugged"))
    bus.emit(MicrophoneInUse(in_use=False))
    assert _keys(window) == ["device-output"]
