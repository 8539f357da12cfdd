"""The History window on real history files: the list, the search, reading, export, delete.

The files are written by the app's own history writer (``tests.archive.sessions``); the
archive, the index and the widgets are the real ones. Continuing a conversation with the
real agent and simulator is in ``test_history_with_real_core.py``.
"""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import Callable
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.archive import HistoryArchive
from sammy_desktop.config.prices import TokenPrices
from sammy_desktop.core.events import SessionEnded, SessionStarted
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.history import SEARCH_DELAY_MS, HistoryWindow
from sammy_desktop.ui.history.search_results import snippet_html
from sammy_desktop.ui.history.session_view import LIVE_REASON
from sammy_desktop.ui.history.window import format_for
from sammy_desktop.ui.history.wording import EMPTY_HISTORY, NOTHING_SAID
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.tool_card import ToolCard
from sammy_desktop.ui.transcript import MessageRow
from tests.archive.sessions import (
    WEATHER_EVENTS,
    WEATHER_LINES,
    WEATHER_START,
    assistant,
    open_session,
    stats,
    user,
    weather_session,
    write_session,
)

from .conftest import MakeWindow
from .history_support import (
    NOW,
    CountingArchive,
    next_emit,
    showing,
    shows_in,
    wait_for,
    write_with_model,
)

MakeHistory = Callable[..., HistoryWindow]


@pytest.fixture
def history_dir(tmp_path: Path) -> Path:
    return tmp_path / "history"


@pytest.fixture
def make_history(
    qtbot: QtBot,
    theme: ThemeController,
    tasks: UiTasks,
    settings_state: SettingsState,
    history_dir: Path,
) -> MakeHistory:
    """The window on ``history_dir``, on UTC's clock, "now" the day after the weather."""

    def make(**extra: Any) -> HistoryWindow:
        arguments: dict[str, Any] = {
            "settings_state": settings_state,
            "tz": UTC,
            "now": lambda: NOW,
        }
        archive = extra.pop("archive", None) or HistoryArchive(history_dir)
        window = HistoryWindow(archive, theme, tasks, **(arguments | extra))
        qtbot.addWidget(window)
        return window

    return make


async def _shown(window: HistoryWindow) -> None:
    """Show the window and wait for its list."""
    listed = next_emit(window.sessions_shown)
    window.show()
    await wait_for(listed)


async def _search(window: HistoryWindow, text: str) -> None:
    """Type ``text`` into the search box and wait for its results."""
    found = next_emit(window.results_shown)
    window.search_box.clear()
    QTest.keyClicks(window.search_box, text)
    await wait_for(found)


async def _click_result(window: HistoryWindow, row: int) -> str:
    item = window.results.item(row)
    assert item is not None
    opened = next_emit(window.session_opened)
    center = window.results.visualItemRect(item).center()
    QTest.mouseClick(
        window.results.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, center
    )
    session_id: str = await wait_for(opened)
    return session_id


# ---------------------------------------------------------------- the list


def test_the_list_says_when_what_which_tools_and_how_much(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        await weather_session(history_dir)
        await write_with_model(
            history_dir,
            "unpriced01",
            WEATHER_START + timedelta(hours=2),
            "gemini-3.1-flash-live-preview",
            [user("Hello there", 1), assistant("Hi.", 1), stats(1, 50, 10)],
        )
        window = make_history()
        await _shown(window)
        # Newest first.
        first, second = window.summaries
        assert first.first_said == "Hello there"
        assert second.first_said == WEATHER_LINES[0]
        weather = window.session_list.row_of(second.id)
        assert weather is not None
        assert weather.date_label.text() == "Yesterday 09:15"
        assert weather.first_said_label.text() == WEATHER_LINES[0]
        assert weather.tools_label.text() == "Get weather, Start timer"
        # 40 text and 140 audio tokens in, 120 audio out, at the 2.5 native audio row's rates:
        # (40 * 0.50 + 140 * 3.00 + 120 * 12.00) / 1e6, always labelled an estimate.
        assert weather.facts_label.text() == "17 s · 300 tokens · ≈ $0.0019 estimated"
        assert "Google bills by its own counts" in weather.cost_tooltip
        unpriced = window.session_list.row_of(first.id)
        assert unpriced is not None
        assert unpriced.facts_label.text().endswith("60 tokens · no price known")
        assert not unpriced.tools_label.isVisibleTo(unpriced)
        assert "Settings > Account" in unpriced.cost_tooltip
        assert window.lists.currentWidget() is window.session_list

    qloop.run(scenario())


def test_the_persons_own_rates_price_a_model_the_table_does_not_know(
    qloop: asyncio.Runner,
    make_history: MakeHistory,
    history_dir: Path,
    settings_state: SettingsState,
) -> None:
    async def scenario() -> None:
        model = "gemini-3.1-flash-live-preview"
        await write_with_model(
            history_dir, "own000001", WEATHER_START, model, [user("Hi", 1), stats(1, 1000, 0)]
        )
        window = make_history()
        await _shown(window)
        [summary] = window.summaries
        row = window.session_list.row_of(summary.id)
        assert row is not None and row.facts_label.text().endswith("no price known")
        relisted = next_emit(window.sessions_shown)
        rates = TokenPrices(text_input=1, audio_input=1, text_output=1, audio_output=1)
        settings_state.update(token_prices={model: rates})
        await wait_for(relisted)
        row = window.session_list.row_of(summary.id)
        assert row is not None
        # 1,000 input tokens at $1 per million.
        assert row.facts_label.text().endswith("1,000 tokens · ≈ $0.0010 estimated")
        assert "your rates" in row.cost_tooltip

    qloop.run(scenario())


def test_an_empty_history_says_so_kindly(qloop: asyncio.Runner, make_history: MakeHistory) -> None:
    async def scenario() -> None:
        window = make_history()
        await _shown(window)
        assert window.lists.currentWidget() is window.empty_label
        assert window.empty_label.text() == EMPTY_HISTORY
        assert not window.delete_all_button.isEnabled()
        assert window.view.pages.currentWidget() is window.view.placeholder

    qloop.run(scenario())


def test_a_damaged_line_is_a_quiet_notice_and_the_rest_still_shows(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        path = await weather_session(history_dir)
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines.insert(2, "{this is not json\n")
        path.write_text("".join(lines), encoding="utf-8")
        window = make_history()
        await _shown(window)
        assert len(window.summaries) == 1
        assert window.notice.isVisibleTo(window)
        assert "line 3 is not valid JSON" in window.notice.text()
        assert window.notice.objectName() == "historyNotice"  # quiet, not an error
        opened = await window.show_session(window.summaries[0].id)
        assert opened is not None
        assert window.view.problems_label.isVisibleTo(window.view)
        assert "could not be read" in window.view.problems_label.text()

    qloop.run(scenario())


def test_a_session_that_said_nothing_says_so(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        await write_session(history_dir, "silent0001", WEATHER_START, [])
        window = make_history()
        await _shown(window)
        [summary] = window.summaries
        row = window.session_list.row_of(summary.id)
        assert row is not None and row.first_said_label.text() == NOTHING_SAID
        await window.show_session(summary.id)
        assert not window.view.continue_button.isEnabled()  # nothing to carry on

    qloop.run(scenario())


# ---------------------------------------------------------------- reading one


def test_opening_a_conversation_shows_its_lines_and_tool_cards_read_only(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        await weather_session(history_dir)
        window = make_history()
        await _shown(window)
        opened = next_emit(window.session_opened)
        item = window.session_list.item(0)
        assert item is not None
        QTest.mouseClick(
            window.session_list.viewport(),
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
            window.session_list.visualItemRect(item).center(),
        )
        await wait_for(opened)
        view = window.view
        assert view.title_label.text() == "Conversation of Mon 30 Nov 2026, 09:15"
        assert "300 tokens" in view.facts_label.text()
        assert "gemini-2.5-flash-native-audio-latest" in view.facts_label.text()
        transcript = view.transcript
        assert [row.text for row in transcript.lines()] == []  # none keyed by turn: read back
        rows = transcript.findChildren(MessageRow)
        assert [row.text for row in rows] == WEATHER_LINES
        assert [row.speaker_label.text() for row in rows] == ["You", "Sammy", "You", "Sammy"]
        weather, timer = transcript.tool_cards()
        assert weather.name_label.text() == "Get weather"
        assert weather.argument_label.text() == "Lisbon"
        assert weather.status == "finished"
        assert weather.result_label.text() == "forecast clear skies"
        assert weather.duration_label.text().endswith(" s")  # from the call to its answer
        assert timer.status == "failed"  # its red edge, as in the main window
        assert timer.result_label.text() == "The clock is asleep"
        assert timer.details_label.text() == "Minutes: 4\nLabel: oolong"
        # Read-only: nothing to type into, and no invitation to talk.
        assert not transcript.empty_hint.isVisible()
        assert not view.findChildren(QLineEdit)

    qloop.run(scenario())


# ---------------------------------------------------------------- searching


def test_a_search_finds_what_each_side_said_and_a_tool_argument_and_opens_it_there(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        # A long conversation first, so the line searched for is far down its transcript.
        filler = [user(f"Tell me fact {turn}", turn) for turn in range(3, 40)]
        events = [*WEATHER_EVENTS, *filler]
        await write_session(history_dir, "long000001", WEATHER_START, events)
        window = make_history()
        window.resize(920, 520)
        await _shown(window)

        for word, speaker in (("umbrella", "You"), ("spells", "Sammy")):
            await _search(window, word)
            assert window.lists.currentWidget() is window.results
            [hit] = window.results.hits
            row = window.results.hit_row(0)
            assert row is not None
            assert row.place_label.text().startswith(f"{speaker} · ")
            assert f"<b>{word}</b>" in row.snippet_label.text()  # the word in bold
            session_id = await _click_result(window, 0)
            assert session_id == hit.session_id
            view = window.view
            assert view.current_line == hit.line
            line = view.entry_widget(hit.line)
            assert isinstance(line, MessageRow)
            assert word in line.text
            assert line.bubble.selectedText() == word  # the eye finds it
            await _until(showing(line, view.transcript.viewport()))

        await _search(window, "oolong")
        [hit] = window.results.hits
        assert hit.speaker == "tool"
        row = window.results.hit_row(0)
        assert row is not None and row.place_label.text().startswith("Tool: Start timer · ")
        assert "<b>oolong</b>" in row.snippet_label.text()
        await _click_result(window, 0)
        card = window.view.entry_widget(hit.line)
        assert isinstance(card, ToolCard) and card.tool_name == "startTimer"
        assert card.details_label.isVisibleTo(card)  # its arguments, where the word is
        await _until(lambda: shows_in(card, window.view.transcript.viewport()))

        # Nothing found is said; clearing the box brings the list back.
        await _search(window, "zeppelin")
        assert window.lists.currentWidget() is window.no_match_label
        assert window.no_match_label.text() == "Nothing said matches “zeppelin”."
        window.search_box.clear()
        assert window.lists.currentWidget() is window.session_list

    qloop.run(scenario())


def test_the_search_waits_for_a_pause_in_the_typing(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        await weather_session(history_dir)
        archive = CountingArchive(history_dir)
        window = make_history(archive=archive)
        await _shown(window)
        found = next_emit(window.results_shown)
        QTest.keyClicks(window.search_box, "umbrel")
        assert archive.searches == []  # not at each key
        assert window._search_timer.interval() == SEARCH_DELAY_MS
        await wait_for(found)
        assert archive.searches == ["umbrel"]
        assert len(window.results.hits) == 1  # a word's start finds it

    qloop.run(scenario())


def test_snippets_are_shown_as_written_never_as_markup() -> None:
    from sammy_desktop.archive import SearchHit, SnippetPart

    hit = SearchHit(
        "s",
        1,
        1,
        "user",
        None,
        None,
        (SnippetPart("<i>not</i> ", False), SnippetPart("bold", True)),
        1.0,
    )
    assert snippet_html(hit) == "&lt;i&gt;not&lt;/i&gt; <b>bold</b>"


# ---------------------------------------------------------------- export and copy


@pytest.mark.parametrize("fmt", ["md", "txt", "json"])
def test_export_writes_every_line_and_the_tool_calls(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path, tmp_path: Path, fmt: str
) -> None:
    async def scenario() -> None:
        await weather_session(history_dir)
        window = make_history()
        await _shown(window)
        await window.show_session(window.summaries[0].id)
        target = tmp_path / "out" / f"conversation.{fmt}"
        target.parent.mkdir()
        path, chosen = format_for(target)
        assert (path, chosen) == (target, fmt)
        assert await window.export_session_to(path, chosen)
        text = target.read_text(encoding="utf-8")
        if fmt == "json":
            document = json.loads(text)
            said = [e["text"] for e in document["entries"] if e["type"] != "tool_call"]
            assert said == WEATHER_LINES
            calls = [e for e in document["entries"] if e["type"] == "tool_call"]
            assert [(c["name"], c["arguments"]) for c in calls] == [
                ("getWeather", {"city": "Lisbon", "day": "tomorrow"}),
                ("startTimer", {"minutes": 4, "label": "oolong"}),
            ]
        else:
            for line in WEATHER_LINES:
                assert line in text
            for expected in ("getWeather", "City: Lisbon", "startTimer", "Label: oolong"):
                assert expected in text
        assert stat.S_IMODE(target.stat().st_mode) == 0o600  # it holds what was said
        assert window.view.status_label.text() == f"Saved to {target}"

    qloop.run(scenario())


def test_export_asks_where_and_takes_the_format_from_the_name_or_the_filter(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path, tmp_path: Path
) -> None:
    async def scenario() -> None:
        await weather_session(history_dir)
        window = make_history()
        await _shown(window)
        await window.show_session(window.summaries[0].id)
        window.view.export_button.click()
        dialog = window.file_dialog
        assert dialog is not None and dialog.isVisible()
        assert dialog.nameFilters() == ["Markdown (*.md)", "Plain text (*.txt)", "JSON (*.json)"]
        dialog.selectNameFilter("JSON (*.json)")
        target = tmp_path / "chosen"
        dialog.fileSelected.emit(str(target))
        saved = tmp_path / "chosen.json"  # the filter's format, and its suffix
        await _until(lambda: window.view.status_label.text() == f"Saved to {saved}")
        assert json.loads(saved.read_text(encoding="utf-8"))["entries"]
        dialog.reject()
        await _until(lambda: window.file_dialog is None)

    qloop.run(scenario())


def test_the_search_results_can_be_exported(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path, tmp_path: Path
) -> None:
    async def scenario() -> None:
        await weather_session(history_dir)
        window = make_history()
        await _shown(window)
        assert not window.export_results_button.isVisibleTo(window)
        await _search(window, "lisbon")
        assert window.export_results_button.isVisibleTo(window)
        target = tmp_path / "found.md"
        assert await window.export_results_to(target, "md")
        text = target.read_text(encoding="utf-8")
        assert "for “lisbon”" in text
        assert text.count("**Lisbon**") >= 2  # the person's line and the assistant's

    qloop.run(scenario())


def test_copy_puts_the_conversation_on_the_clipboard_as_text(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        await weather_session(history_dir)
        window = make_history()
        await _shown(window)
        await window.show_session(window.summaries[0].id)
        QGuiApplication.clipboard().clear()
        window.view.copy_button.click()
        await _until(lambda: bool(QGuiApplication.clipboard().text()))
        copied = QGuiApplication.clipboard().text()
        for line in WEATHER_LINES:
            assert line in copied
        assert "Tool: Get weather (getWeather)" in copied
        assert window.view.status_label.text() == "Copied to the clipboard as text."

    qloop.run(scenario())


# ---------------------------------------------------------------- deleting


def test_delete_asks_first_then_removes_the_conversation_and_its_file(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        kept = await write_session(
            history_dir, "kept000001", WEATHER_START - timedelta(days=1), [user("Keep me", 1)]
        )
        doomed = await weather_session(history_dir)
        window = make_history()
        await _shown(window)
        await window.show_session(doomed.stem)
        assert window.view.delete_button.isEnabled()

        # "Keep" is the default: Enter or Esc keeps it.
        window.view.delete_button.click()
        question = window.delete_question
        assert question is not None and question.isVisible()
        assert question.text() == "Delete this conversation?"
        assert "Mon 30 Nov 2026, 09:15" in question.informativeText()
        default = question.defaultButton()
        assert default is not None and default.text() == "Keep"
        QTest.keyClick(question, Qt.Key.Key_Escape)
        await _until(lambda: window.delete_question is None)
        assert doomed.exists()

        window.view.delete_button.click()
        question = window.delete_question
        assert question is not None
        relisted = next_emit(window.sessions_shown)
        HistoryWindow.delete_button_of(question).click()
        await wait_for(relisted)
        assert not doomed.exists()
        assert kept.exists()
        assert window.session_list.session_ids() == [kept.stem]
        assert window.view.session is None  # the view no longer shows it
        await _search(window, "umbrella")
        assert window.results.hits == ()  # gone from the search too

    qloop.run(scenario())


def test_the_delete_key_on_a_row_asks_to_delete_it(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        await weather_session(history_dir)
        window = make_history()
        await _shown(window)
        window.session_list.setFocus()
        window.session_list.setCurrentRow(0)
        QTest.keyClick(window.session_list, Qt.Key.Key_Delete)
        question = window.delete_question
        assert question is not None
        assert question.defaultButton() is question.button(QMessageBox.StandardButton.No)
        question.button(QMessageBox.StandardButton.No).click()
        await _until(lambda: window.delete_question is None)

    qloop.run(scenario())


def test_the_conversation_going_on_now_cannot_be_deleted(
    qloop: asyncio.Runner,
    make_history: MakeHistory,
    history_dir: Path,
    bus: EventBus,
    bridge: EventBridge,
) -> None:
    async def scenario() -> None:
        await weather_session(history_dir)
        writer = await open_session(history_dir, "live000001", NOW)
        await writer.play([user("I am still talking", 1)])
        window = make_history(live_history=lambda: writer.path, bridge=bridge)
        await _shown(window)
        live, old = window.summaries
        assert live.path == writer.path
        row = window.session_list.row_of(live.id)
        assert row is not None and row.live_badge.isVisibleTo(row)
        await window.show_session(live.id)
        view = window.view
        assert not view.delete_button.isEnabled()
        assert view.delete_button.toolTip() == LIVE_REASON
        assert not view.continue_button.isEnabled()
        # Not by the Delete key either, nor in Delete all.
        window.session_list.setCurrentRow(0)
        QTest.keyClick(window.session_list, Qt.Key.Key_Delete)
        assert window.delete_question is None
        window.delete_all_button.click()
        question = window.delete_all_question
        assert question is not None
        assert question.text() == "Delete the conversation?"
        assert "going on now is kept" in question.informativeText()
        relisted = next_emit(window.sessions_shown)
        HistoryWindow.delete_button_of(question).click()
        await wait_for(relisted)
        assert writer.path.exists() and not old.path.exists()
        assert window.session_list.session_ids() == [live.id]

        # Once it has ended it can be deleted.
        await writer.end()
        relisted = next_emit(window.sessions_shown)
        bus.emit(SessionEnded("stopped by the person", writer.path))
        await wait_for(relisted)
        assert view.delete_button.isEnabled()
        row = window.session_list.row_of(live.id)
        assert row is not None and not row.live_badge.isVisibleTo(row)

        # A new one starting is the one kept from now on.
        bus.emit(SessionStarted("other", history_dir / "20261201-130000-other.jsonl"))
        assert window.live_name == "20261201-130000-other.jsonl"
        assert view.delete_button.isEnabled()

    qloop.run(scenario())


def test_delete_all_says_how_many_and_deletes_them_all(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        for day in range(3):
            start = WEATHER_START - timedelta(days=day)
            await write_session(history_dir, f"day{day:07d}", start, [user(f"Day {day}", 1)])
        window = make_history()
        await _shown(window)
        window.delete_all_button.click()
        question = window.delete_all_question
        assert question is not None
        assert question.text() == "Delete all 3 conversations?"
        assert question.defaultButton() is question.button(QMessageBox.StandardButton.No)
        relisted = next_emit(window.sessions_shown)
        HistoryWindow.delete_button_of(question).click()
        await wait_for(relisted)
        left = await asyncio.to_thread(lambda: sorted(history_dir.glob("*.jsonl")))
        assert left == []
        assert window.lists.currentWidget() is window.empty_label
        assert not window.delete_all_button.isEnabled()

    qloop.run(scenario())


# ---------------------------------------------------------------- keyboard


def test_ctrl_h_and_the_header_button_ask_for_the_history(
    qtbot: QtBot, make_window: MakeWindow
) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    assert window.history_button.toolTip() == "Conversation history (Ctrl+H)"
    assert window.history_button.accessibleName() == "Conversation history"
    with qtbot.waitSignal(window.history_requested, timeout=2000):
        focused = QApplication.focusWidget() or window
        QTest.keyClick(focused, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    with qtbot.waitSignal(window.history_requested, timeout=2000):
        window.history_button.click()
    # Next to Settings in the tab order.
    assert window.history_button.nextInFocusChain() is window.settings_button


def test_the_window_is_used_with_the_keyboard(
    qloop: asyncio.Runner, make_history: MakeHistory, history_dir: Path
) -> None:
    async def scenario() -> None:
        await weather_session(history_dir)
        await write_session(
            history_dir, "older00001", WEATHER_START - timedelta(days=3), [user("Older one", 1)]
        )
        window = make_history()
        listed = next_emit(window.sessions_shown)
        window.open_window()
        await wait_for(listed)
        await _until(window.isActiveWindow)
        await _until(window.search_box.hasFocus)

        # Tab: the search box, then the list.
        QTest.keyClick(window.search_box, Qt.Key.Key_Tab)
        assert window.session_list.hasFocus()
        # Arrows move, Enter opens.
        window.session_list.setCurrentRow(0)
        QTest.keyClick(window.session_list, Qt.Key.Key_Down)
        assert window.view.session is None
        opened = next_emit(window.session_opened)
        QTest.keyClick(window.session_list, Qt.Key.Key_Return)
        assert await wait_for(opened) == window.summaries[1].id
        # On to the actions (Continue needs an agent: there is none here) and the transcript.
        view = window.view
        assert _tab_chain(window.session_list, 4) == [
            view.export_button,
            view.copy_button,
            view.delete_button,
            view.transcript,
        ]

        # Down from the search box goes to the list; Enter there opens the result.
        window.search_box.setFocus()
        await _search(window, "umbrella")
        opened = next_emit(window.session_opened)
        QTest.keyClick(window.search_box, Qt.Key.Key_Return)
        assert await wait_for(opened) == window.summaries[0].id
        assert window.results.hasFocus()

        # Esc closes.
        QTest.keyClick(window.results, Qt.Key.Key_Escape)
        assert not window.isVisible()

    qloop.run(scenario())


def _tab_chain(start: QWidget, count: int) -> list[QWidget]:
    """The next ``count`` widgets Tab goes to from ``start``."""
    chain: list[QWidget] = []
    widget = start
    while len(chain) < count:
        following = widget.nextInFocusChain()
        assert following is not None
        widget = following
        policy = widget.focusPolicy()
        if widget.isVisible() and widget.isEnabled() and policy & Qt.FocusPolicy.TabFocus:
            chain.append(widget)
    return chain


async def _until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    from .conftest import wait_until

    await wait_until(condition, timeout_s)
