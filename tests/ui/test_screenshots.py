"""Screenshots of the main window (light and dark), a tool card and the settings pane.

They are saved under the test output folder for a person to look at; the assertions
check that they were rendered at a sensible size and are not blank.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.config import Theme
from sammy_desktop.core.events import (
    AgentState,
    Reconnected,
    Speaker,
    StateChanged,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.context import ConfirmationRequest
from sammy_desktop.tools.events import ContextShared, ToolCallFinished, ToolCallStarted
from sammy_desktop.tools.results import ToolResult
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.theme import ThemeController

from .conftest import FakeAgent, MakeWelcome, MakeWindow


class Clock(BaseModel):
    city: str
    local_time: str


def _save(widget: QWidget, folder: Path, name: str) -> Path:
    path = folder / "screenshots" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(path))
    image = QImage(str(path))
    assert image.width() >= 100 and image.height() >= 40
    colors = {
        image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
    }
    assert len(colors) > 5, "the screenshot is blank"
    return path


def _conversation(bus: EventBus, agent: FakeAgent) -> None:
    agent.move_to(AgentState.READY)
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.USER, text="What's the time in Tokyo?", final=True, turn_id=1
        )
    )
    bus.emit(ToolCallStarted(call_id="c1", name="getCurrentContext", arguments={"city": "Tokyo"}))
    result = ToolResult.success(Clock(city="Tokyo", local_time="21:40"))
    bus.emit(ToolCallFinished("c1", "getCurrentContext", result, result.to_model_payload(), 0.012))
    bus.emit(
        ContextShared(
            call_id="c1",
            shared={"local_time": "2026-11-30T21:40:00+09:00", "timezone": "Asia/Tokyo"},
            withheld=(),
        )
    )
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.ASSISTANT,
            text="It's 9:40 in the evening there.",
            final=True,
            turn_id=1,
        )
    )
    bus.emit(Reconnected(resumed=True, attempts=1, replayed_messages=0, planned=True))
    bus.emit(TurnStats(1, 410.0, 12.0, 1, 0, 10, 10, 20))
    bus.emit(TranscriptUpdated(speaker=Speaker.USER, text="And in Par", final=False, turn_id=2))
    bus.emit(StateChanged(old=AgentState.READY, new=AgentState.USER_SPEAKING))


@pytest.mark.parametrize("theme_name", [Theme.LIGHT, Theme.DARK])
def test_main_window_screenshot(
    qtbot: QtBot,
    theme: ThemeController,
    bridge: EventBridge,
    bus: EventBus,
    agent: FakeAgent,
    make_window: MakeWindow,
    test_output_dir: Path,
    theme_name: Theme,
) -> None:
    theme.set_theme(theme_name)
    window = make_window(demo_mode=True)
    window.show()
    qtbot.waitExposed(window)
    _conversation(bus, agent)
    bridge.input_level.emit(-18.0)
    bridge.output_level.emit(-40.0)
    qtbot.wait(250)  # let the banner finish sliding in
    _save(window, test_output_dir, f"main-window-{theme_name.value}.png")
    card = window.transcript.tool_card("c1")
    assert card is not None
    _save(card, test_output_dir, f"tool-card-{theme_name.value}.png")


def test_welcome_and_confirmation_screenshots(
    qtbot: QtBot,
    bus: EventBus,
    agent: FakeAgent,
    make_window: MakeWindow,
    make_welcome: MakeWelcome,
    test_output_dir: Path,
) -> None:
    window = make_window()
    welcome = make_welcome()
    window.set_welcome(welcome)
    window.show()
    qtbot.waitExposed(window)
    _save(window, test_output_dir, "welcome.png")

    window.show_conversation()
    agent.move_to(AgentState.READY)
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.USER, text="Open the Python docs please", final=True, turn_id=1
        )
    )
    bus.emit(ToolCallStarted("c9", "openLink", {"url": "https://docs.python.org"}))
    window.confirmation_sheet.ask(
        ConfirmationRequest(
            call_id="c9",
            tool_name="openLink",
            prompt="Open https://docs.python.org in your web browser?",
            arguments={"url": "https://docs.python.org"},
            timeout_s=60,
        )
    )
    qtbot.wait(50)
    _save(window, test_output_dir, "confirmation-sheet.png")
    window.confirmation_sheet.deny()
