"""Screenshots of the History window (the list, an open conversation, a search, an empty
history), the turn footer in the main window and the cost estimate in Settings, light and
dark, saved under the test output folder for a person to look at."""

from __future__ import annotations

import asyncio
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.archive import HistoryArchive
from sammy_desktop.config import Theme
from sammy_desktop.core.events import AgentState, Speaker, TranscriptUpdated, TurnStats
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.events import ToolCallFinished, ToolCallStarted
from sammy_desktop.tools.results import ToolResult
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.history import HistoryWindow
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.theme import ThemeController
from tests.archive.sessions import (
    WEATHER_START,
    answer,
    assistant,
    call,
    stats,
    user,
    weather_session,
    write_session,
)

from .conftest import FakeAgent, MakeSettingsWindow, MakeWindow, Picture, wait_until
from .history_support import NOW, ContinuingAgent, next_emit, wait_for, write_with_model

pytestmark = pytest.mark.xvfb

THEMES = pytest.mark.parametrize("theme_name", [Theme.LIGHT, Theme.DARK], ids=["light", "dark"])


async def _save(widget: QWidget, folder: Path, name: str) -> Path:
    picture = Picture(widget)
    await wait_until(picture.settled)
    path = folder / "screenshots" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    assert picture.pixmap.save(str(path))
    return path


async def _history(folder: Path) -> None:
    await weather_session(folder)
    await write_session(
        folder,
        "notes00001",
        WEATHER_START + timedelta(hours=20),
        [
            user("Note that the wifi password is on the back of the router", 1),
            call(1, "n1", "addNote", {"text": "The wifi password is on the router."}),
            answer("n1", "addNote", {"output": {"ok": True, "value": {"saved": True}}}),
            assistant("Noted: the wifi password is on the router.", 1),
            stats(1, 220, 60),
        ],
    )
    await write_with_model(
        folder,
        "early00001",
        WEATHER_START - timedelta(days=12),
        "gemini-3.1-flash-live-preview",
        [
            user("What can you do?", 1),
            assistant("I can tell the time, set timers and keep notes.", 1),
            stats(1, 40, 90),
        ],
    )


@THEMES
def test_history_window_screenshots(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    theme: ThemeController,
    tasks: UiTasks,
    settings_state: SettingsState,
    bus: EventBus,
    tmp_path: Path,
    test_output_dir: Path,
    theme_name: Theme,
) -> None:
    theme.set_theme(theme_name)
    folder = tmp_path / "history"

    async def scenario() -> None:
        await _history(folder)
        window = HistoryWindow(
            HistoryArchive(folder),
            theme,
            tasks,
            controls=ContinuingAgent(bus),
            settings_state=settings_state,
            tz=UTC,
            now=lambda: NOW,
        )
        qtbot.addWidget(window)
        listed = next_emit(window.sessions_shown)
        window.show()
        await wait_for(listed)
        qtbot.waitExposed(window)
        await window.show_session(window.summaries[1].id)
        await _save(window, test_output_dir, f"history-{theme_name.value}.png")

        found = next_emit(window.results_shown)
        window.search_box.setText("lisbon")
        await wait_for(found)
        hit = window.results.hits[-1]
        window.results.setCurrentRow(len(window.results.hits) - 1)
        await window.show_session(hit.session_id, line=hit.line, words=hit.matched_words)
        await _save(window, test_output_dir, f"history-search-{theme_name.value}.png")

        window.view.delete_button.click()
        question = window.delete_question
        assert question is not None
        qtbot.waitExposed(question)
        await _save(question, test_output_dir, f"history-delete-{theme_name.value}.png")
        question.reject()

    qloop.run(scenario())


@THEMES
def test_empty_history_screenshot(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    theme: ThemeController,
    tasks: UiTasks,
    tmp_path: Path,
    test_output_dir: Path,
    theme_name: Theme,
) -> None:
    theme.set_theme(theme_name)

    async def scenario() -> None:
        window = HistoryWindow(HistoryArchive(tmp_path / "history"), theme, tasks)
        qtbot.addWidget(window)
        listed = next_emit(window.sessions_shown)
        window.show()
        await wait_for(listed)
        await _save(window, test_output_dir, f"history-empty-{theme_name.value}.png")

    qloop.run(scenario())


@THEMES
def test_turn_footer_screenshot(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    theme: ThemeController,
    bus: EventBus,
    agent: FakeAgent,
    make_window: MakeWindow,
    settings_state: SettingsState,
    test_output_dir: Path,
    theme_name: Theme,
) -> None:
    theme.set_theme(theme_name)
    settings_state.update(model="gemini-2.5-flash-native-audio-preview-12-2025")
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    agent.move_to(AgentState.READY)
    bus.emit(TranscriptUpdated(Speaker.USER, "What's the time in Tokyo?", final=True, turn_id=1))
    bus.emit(ToolCallStarted(call_id="c1", name="getDateTime", arguments={"timezone": "Tokyo"}))
    result = ToolResult.success({"time": "21:40"}, display="21:40 in Tokyo")
    bus.emit(ToolCallFinished("c1", "getDateTime", result, {}, 0.012))
    bus.emit(
        TranscriptUpdated(
            Speaker.ASSISTANT, "It's 9:40 in the evening there.", final=True, turn_id=1
        )
    )
    bus.emit(
        TurnStats(
            1,
            410.0,
            12.0,
            1,
            0,
            1134,
            100,
            1234,
            prompt_by_modality={"AUDIO": 1000, "TEXT": 134},
            response_by_modality={"AUDIO": 100},
        )
    )

    async def scenario() -> None:
        await _save(window, test_output_dir, f"main-window-usage-{theme_name.value}.png")

    qloop.run(scenario())


@THEMES
def test_cost_estimate_screenshot(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    theme: ThemeController,
    make_settings_window: MakeSettingsWindow,
    settings_state: SettingsState,
    test_output_dir: Path,
    theme_name: Theme,
) -> None:
    theme.set_theme(theme_name)
    settings_state.update(model="gemini-2.5-flash-native-audio-preview-12-2025")
    window = make_settings_window()
    window.resize(780, 640)
    window.show()
    qtbot.waitExposed(window)
    editor = window.account_page.cost_estimate
    editor.fields["audio_output"].setText("-2")
    editor.save_button.click()

    async def scenario() -> None:
        page = window.account_page
        content = page.widget()
        assert content is not None
        card = window.cards["token_prices"]
        await wait_until(Picture(window).settled)
        page.verticalScrollBar().setValue(card.mapTo(content, QPoint(0, 0)).y() - 40)
        await _save(window, test_output_dir, f"settings-cost-{theme_name.value}.png")

    qloop.run(scenario())
