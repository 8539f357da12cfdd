"""Screenshots of the main window (light and dark), a tool card, a grounded answer with its
Google Search suggestions, a code execution card, the welcome panel and the confirmation sheet.

They are saved under the test output folder for a person to look at; the assertions
check that they were rendered at a sensible size and are not blank.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.config import Theme
from sammy_desktop.core.events import (
    AgentState,
    CodeExecuted,
    GroundingSourcesFound,
    Reconnected,
    Speaker,
    StateChanged,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.core.grounding import GroundingSource
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.context import ConfirmationRequest
from sammy_desktop.tools.events import ContextShared, ToolCallFinished, ToolCallStarted
from sammy_desktop.tools.results import ToolResult
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.theme import ThemeController
from tests.helpers.screenshots import save_screenshot

from .conftest import FakeAgent, MakeWelcome, MakeWindow, Picture


class Clock(BaseModel):
    city: str
    local_time: str


def _save_region(window: QWidget, widget: QWidget, folder: Path, name: str) -> Path:
    """``widget`` as it shows in ``window`` (a transparent widget grabbed alone has no
    background of its own), with a few pixels of the window around it."""
    corner = widget.mapTo(window, QPoint(0, 0))
    area = QRect(corner, widget.size()).adjusted(-6, -6, 6, 6)
    path = folder / "screenshots" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    assert window.grab(area.intersected(window.rect())).save(str(path))
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
    save_screenshot(window, test_output_dir, f"main-window-{theme_name.value}.png")
    card = window.transcript.tool_card("c1")
    assert card is not None
    save_screenshot(card, test_output_dir, f"tool-card-{theme_name.value}.png")


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
    save_screenshot(window, test_output_dir, "welcome.png")

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
    save_screenshot(window, test_output_dir, "confirmation-sheet.png")
    window.confirmation_sheet.deny()


def _grounded_answer_and_code(bus: EventBus, agent: FakeAgent) -> None:
    agent.move_to(AgentState.READY)
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.USER, text="Will it rain in Tokyo tomorrow?", final=True, turn_id=1
        )
    )
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.ASSISTANT,
            text="Light rain is likely in the afternoon, around 14 degrees.",
            final=True,
            turn_id=1,
        )
    )
    bus.emit(
        GroundingSourcesFound(
            turn_id=1,
            sources=(
                GroundingSource(
                    "Tokyo forecast", "https://weather.example.com/tokyo", "weather.example.com"
                ),
                GroundingSource("JMA", "https://www.jma.go.jp/", "jma.go.jp"),
            ),
            queries=("tokyo weather tomorrow", "tokyo rain forecast", "Tokyo Regen morgen"),
            search_entry_point="<div>...</div>",
        )
    )
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.USER, text="What is the sum of 1 to 100?", final=True, turn_id=2
        )
    )
    code = 'total = sum(range(1, 101))\nprint(f"The sum is {total}")'
    bus.emit(CodeExecuted(turn_id=2, code=code, language="PYTHON", code_id="k1"))
    bus.emit(
        CodeExecuted(
            turn_id=2,
            code="",
            language="",
            outcome="OUTCOME_OK",
            output="The sum is 5050\n",
            code_id="k1",
        )
    )
    bus.emit(
        TranscriptUpdated(speaker=Speaker.ASSISTANT, text="It is 5050.", final=True, turn_id=2)
    )


@pytest.mark.parametrize("theme_name", [Theme.LIGHT, Theme.DARK])
def test_grounded_answer_and_code_card_screenshots(
    qtbot: QtBot,
    theme: ThemeController,
    bus: EventBus,
    agent: FakeAgent,
    make_window: MakeWindow,
    test_output_dir: Path,
    theme_name: Theme,
) -> None:
    theme.set_theme(theme_name)
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    _grounded_answer_and_code(bus, agent)
    suggestions = window.transcript.search_suggestions(1)
    assert suggestions is not None
    (card,) = window.transcript.code_cards()
    qtbot.waitUntil(lambda: suggestions.isVisible() and card.isVisible())
    block = suggestions.parentWidget()
    assert block is not None
    window.transcript.ensureWidgetVisible(block, 0, 120)  # the answer above it, too
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    save_screenshot(window, test_output_dir, f"main-window-grounded-{theme_name.value}.png")
    # The block and the card as they sit in the window (on the window's background).
    _save_region(window, block, test_output_dir, f"search-suggestions-{theme_name.value}.png")
    window.transcript.scroll_to_end()
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    save_screenshot(window, test_output_dir, f"main-window-code-{theme_name.value}.png")
    _save_region(window, card, test_output_dir, f"code-card-{theme_name.value}.png")
