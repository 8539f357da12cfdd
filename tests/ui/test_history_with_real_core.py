"""History and usage with the real agent: AgentCore, the google-genai client, the simulator.

A conversation is held through the main window (typed, with a tool call), written by the
app's own history writer; the History window then lists it, finds what each side said and
the tool's argument, and continues it: the simulator hears the earlier turns as history
(``Received.HISTORY``) before it answers what is said next. Under each answer the main
window says the tokens the simulator reported, and their estimated cost when the model has
a price. The only stand-in is the speaker.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from sammy_desktop.archive import HistoryArchive
from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.config.prices import TokenPrices, estimate_cost, format_cost, prices_for
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.core.agent import AgentCore
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.endpoint import make_client_factory
from sammy_desktop.core.events import (
    AgentState,
    SessionEnded,
    SessionStarted,
    Speaker,
    StateChanged,
    TurnStats,
    UsageUpdated,
)
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.eventbus import Event, EventBus
from sammy_desktop.sim import (
    CallTools,
    FunctionCallSpec,
    LiveSimulator,
    OnAny,
    OnText,
    OnToolResponse,
    Received,
    Respond,
    Scenario,
    SignalKind,
    Tone,
    Turn,
    TurnComplete,
    TurnContext,
)
from sammy_desktop.sim.actions import ActionList
from sammy_desktop.tools import ToolCategory, ToolContext, ToolManager, ToolServices, tool
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.history import HistoryWindow
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.transcript import MessageRow
from sammy_desktop.voice_controls import CONTINUED_ELSEWHERE, SilentSink, VoiceControls
from tests.helpers.events import next_event

from .history_support import next_emit, showing, wait_for

E = TypeVar("E", bound=Event)
API_KEY = "ui-history-key"
PRICED_MODEL = "gemini-2.5-flash-native-audio-preview-12-2025"
"""Sammy's table has a row for it (and the strict 2.5 profile serves it)."""
UNPRICED_MODEL = "gemini-3.1-flash-live-preview"
"""No row: no source for the 3.x audio rates was found."""
RECIPE = "Paella is a saffron rice dish from Valencia."


class Dish(BaseModel):
    dish: str


class Recipe(BaseModel):
    name: str
    minutes: int


@tool(name="findRecipe", title="Find a recipe", category=ToolCategory.CONTEXT)
async def find_recipe(args: Dish, context: ToolContext) -> Recipe:
    """Find a recipe for a dish."""
    return Recipe(name=f"{args.dish} valenciana", minutes=45)


def _answer(context: TurnContext) -> ActionList:
    if context.signal.kind is SignalKind.TOOL_RESPONSE:
        return [Tone(duration_s=0.2, transcript=RECIPE), TurnComplete()]
    if "paella" in context.text.lower():
        return [CallTools(calls=[FunctionCallSpec(name="findRecipe", args={"dish": "paella"})])]
    return [Tone(duration_s=0.2, transcript=f"You said: {context.text}"), TurnComplete()]


SCENARIO = Scenario(
    turns=[Turn(OnAny((OnText(), OnToolResponse())), [Respond(_answer)])],
    repeat=True,
    name="history",
)


@dataclass
class App:
    """The parts of the app the tests drive, wired as ``desktop_app`` wires them."""

    bus: EventBus
    sim: LiveSimulator
    core: AgentCore
    history: ConversationHistory
    window: MainWindow
    history_window: HistoryWindow
    settings_state: SettingsState

    async def say(self, text: str) -> TurnStats:
        """Type ``text`` in the main window; returns the turn's statistics once answered."""
        answered = asyncio.ensure_future(next_event(self.bus, TurnStats))
        ready = asyncio.ensure_future(
            next_event(self.bus, StateChanged, lambda e: e.new is AgentState.READY)
        )
        self.window.message_input.setText(text)
        QTest.keyClick(self.window.message_input, Qt.Key.Key_Return)
        stats = await answered
        await ready
        return stats


@asynccontextmanager
async def running_app(
    qtbot: QtBot, theme: ThemeController, tmp_path: Path, model: str
) -> AsyncIterator[App]:
    bus = EventBus()
    bridge = EventBridge(bus)
    paths = AppPaths.profile(tmp_path / "profile")
    settings_state = SettingsState(SettingsStore(tmp_path / "settings.json"), Settings(model=model))
    settings = settings_state.settings
    history = ConversationHistory(paths.history_dir)
    tools = ToolManager(
        bus,
        ToolServices(paths=paths, settings=lambda: settings, transcript=history.transcript),
        tools=(find_recipe,),
        load_entry_points=False,
    )
    tasks = UiTasks()
    async with LiveSimulator(SCENARIO, api_keys=(API_KEY,)) as sim:
        core = AgentCore(
            bus=bus,
            settings=settings,
            tools=tools,
            sink=SilentSink(),
            client_factory=make_client_factory(
                lambda: API_KEY, base_url=sim.base_url, ssl_context=sim.ssl_context
            ),
            history=history,
            reconnect=ReconnectPolicy(initial_s=0.01, maximum_s=0.05, max_attempts=2),
            rng=random.Random(3),
        )
        controls = VoiceControls(core, None)
        window = MainWindow(
            settings,
            on_quit=lambda: None,
            theme=theme,
            bridge=bridge,
            controls=controls,
            tasks=tasks,
            settings_state=settings_state,
        )
        history_window = HistoryWindow(
            HistoryArchive.for_paths(paths),
            theme,
            tasks,
            controls=controls,
            settings_state=settings_state,
            live_history=lambda: history.path if core.state.is_running else None,
            bridge=bridge,
        )
        window.history_requested.connect(history_window.open_window)
        history_window.continued.connect(window.show_continuing)
        qtbot.addWidget(window)
        qtbot.addWidget(history_window)
        window.show()
        try:
            ready = asyncio.ensure_future(
                next_event(bus, StateChanged, lambda e: e.new is AgentState.READY)
            )
            await core.start()
            await ready
            yield App(bus, sim, core, history, window, history_window, settings_state)
        finally:
            await core.stop()
            await tools.aclose()
            await tasks.aclose()
            bridge.close()


async def _history_cli(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``sammy-desktop history ...`` on ``profile``, as a person runs it."""
    command = [sys.executable, "-m", "sammy_desktop", "--config-dir", str(profile), "history"]
    return await asyncio.to_thread(
        subprocess.run,
        [*command, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_real_conversation_is_listed_found_and_continued(
    qloop: asyncio.Runner, qtbot: QtBot, theme: ThemeController, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with running_app(qtbot, theme, tmp_path, Settings().model) as app:
            await app.say("How do I cook paella tonight?")
            await app.say("thanks a lot")
            first_file = app.history.path
            assert first_file is not None
            ended = asyncio.ensure_future(next_event(app.bus, SessionEnded))
            app.window.conversation_button.click()  # End conversation
            await ended

            # Ctrl+H brings the History window, which reads the list as it shows.
            history = app.history_window
            listed = next_emit(history.sessions_shown)
            app.window.activateWindow()
            await _until(app.window.isActiveWindow)
            QTest.keyClick(app.window, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
            await wait_for(listed)
            assert history.isVisible()
            [summary] = history.summaries
            assert summary.path == first_file
            row = history.session_list.row_of(summary.id)
            assert row is not None
            assert row.first_said_label.text() == "How do I cook paella tonight?"
            assert row.tools_label.text() == "Find recipe"
            assert f"{summary.tokens:,} tokens" in row.facts_label.text()
            assert summary.tokens > 0
            # The same conversation, from a shell: `sammy-desktop history list`.
            listing = await _history_cli(tmp_path / "profile", "list")
            assert listing.returncode == 0, listing.stderr
            assert "How do I cook paella tonight?" in listing.stdout
            assert f"{summary.tokens:,}" in listing.stdout or str(summary.tokens) in listing.stdout

            # What each side said, and the tool's argument, are found and opened.
            for word, speaker in (("tonight", "user"), ("saffron", "assistant")):
                found = next_emit(history.results_shown)
                history.search_box.setText(word)
                await wait_for(found)
                [hit] = history.results.hits
                assert hit.speaker == speaker
                hit_row = history.results.hit_row(0)
                assert hit_row is not None and f"<b>{word}</b>" in hit_row.snippet_label.text()
                opened = next_emit(history.session_opened)
                item = history.results.item(0)
                assert item is not None
                QTest.mouseClick(
                    history.results.viewport(),
                    Qt.MouseButton.LeftButton,
                    Qt.KeyboardModifier.NoModifier,
                    history.results.visualItemRect(item).center(),
                )
                assert await wait_for(opened) == summary.id
                line = history.view.entry_widget(hit.line)
                assert isinstance(line, MessageRow) and word in line.text
                await _until(showing(line, history.view.transcript.viewport()))
            found = next_emit(history.results_shown)
            history.search_box.setText("paella")
            await wait_for(found)
            assert "tool" in {hit.speaker for hit in history.results.hits}
            [tool_hit] = [hit for hit in history.results.hits if hit.speaker == "tool"]
            assert tool_hit.tool_name == "findRecipe"
            [card] = history.view.transcript.tool_cards()
            assert card.details_label.text() == "Dish: paella"
            assert card.status == "finished"

            # Continue: the conversation running ends, and a new one hears the earlier turns.
            history.search_box.clear()
            await history.show_session(summary.id)
            running = asyncio.ensure_future(
                next_event(app.bus, StateChanged, lambda e: e.new is AgentState.READY)
            )
            app.window.conversation_button.click()  # New conversation
            await running
            ended = asyncio.ensure_future(next_event(app.bus, SessionEnded))
            started = asyncio.ensure_future(next_event(app.bus, SessionStarted))
            connected = asyncio.ensure_future(
                next_event(app.bus, StateChanged, lambda e: e.new is AgentState.READY)
            )
            app.sim.recorder.clear()
            history.view.continue_button.click()
            assert (await ended).reason == CONTINUED_ELSEWHERE
            session = await started
            assert session.continues == summary.id
            await connected
            [earlier] = await app.sim.recorder.wait_for(Received.HISTORY)
            turns = [(turn["role"], turn["text"]) for turn in earlier.data["turns"]]
            assert turns[:4] == [
                ("user", "How do I cook paella tonight?"),
                ("model", RECIPE),
                ("user", "thanks a lot"),
                ("model", "You said: thanks a lot"),
            ]
            await _until(lambda: any(_continuing_notes(app.window)))
            assert app.window.isVisible()

            stats = await app.say("and for dessert?")
            assert stats.total_tokens > 0
            received = app.sim.recorder.events()
            history_at = [event.kind for event in received].index(Received.HISTORY)
            answers = [
                index
                for index, event in enumerate(received)
                if event.kind == "sent.serverContent"
                and "outputTranscription" in event.data["serverContent"]
            ]
            assert answers and history_at < answers[0]  # the history first, then the answer
            said = "".join(
                received[index].data["serverContent"]["outputTranscription"]["text"]
                for index in answers
            )
            assert said == "You said: and for dessert?"  # only what was said next
            assert not history.is_live(summary.id)

    qloop.run(scenario())


def _continuing_notes(window: MainWindow) -> list[str]:
    notes = window.transcript.findChildren(QLabel, "systemLine")
    return [n.text() for n in notes if n.text().startswith("Continuing the conversation of ")]


def _footers(window: MainWindow) -> list[str]:
    rows = window.transcript.lines()
    return [row.usage_label.text() for row in rows if row.usage_label is not None]


def test_the_turn_footer_says_the_tokens_reported_and_their_cost_when_priced(
    qloop: asyncio.Runner, qtbot: QtBot, theme: ThemeController, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with running_app(qtbot, theme, tmp_path, PRICED_MODEL) as app:
            usage = asyncio.ensure_future(next_event(app.bus, UsageUpdated))
            stats = await app.say("hello there")
            reported = await usage
            assert stats.total_tokens == reported.total_tokens > 0
            prompt = stats.prompt_by_modality
            response = stats.response_by_modality
            assert prompt and response  # the simulator's breakdown by modality (R4)
            found = prices_for(PRICED_MODEL)
            assert found is not None
            cost = estimate_cost(
                found[0],
                prompt_tokens=stats.prompt_tokens,
                response_tokens=stats.response_tokens,
                prompt_by_modality=prompt,
                response_by_modality=response,
            )
            audio = prompt.get("AUDIO", 0) + response.get("AUDIO", 0)
            text = prompt.get("TEXT", 0) + response.get("TEXT", 0)
            parts = [f"audio {audio:,}"] if audio else []
            parts += [f"text {text:,}"] if text else []
            expected = f"{stats.total_tokens:,} tokens ({' · '.join(parts)}) · {format_cost(cost)}"
            row = app.window.transcript.line(stats.turn_id, Speaker.ASSISTANT)
            assert row is not None and row.usage_label is not None
            assert row.usage_label.text() == expected
            assert "Google bills by its own counts" in row.usage_label.toolTip()
            # The status line's tooltip: the conversation's tokens and their estimated cost.
            tip = app.window.status_line.toolTip()
            assert tip.startswith(f"{reported.session_total} tokens used in this conversation")
            assert f"Estimated cost {format_cost(cost)}." in tip

    qloop.run(scenario())


def test_a_model_without_a_price_gets_tokens_and_no_cost(
    qloop: asyncio.Runner, qtbot: QtBot, theme: ThemeController, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with running_app(qtbot, theme, tmp_path, UNPRICED_MODEL) as app:
            stats = await app.say("hello there")
            [footer] = _footers(app.window)
            assert footer.startswith(f"{stats.total_tokens:,} tokens")
            assert "$" not in footer
            assert "No cost estimate" in app.window.status_line.toolTip()
            # The person's own rates for it give one from the next answer on.
            rates = TokenPrices(text_input=1, audio_input=2, text_output=3, audio_output=4)
            app.settings_state.update(token_prices={UNPRICED_MODEL: rates})
            assert "Estimated cost ≈ $" in app.window.status_line.toolTip()
            await app.say("again")
            assert "≈ $" in _footers(app.window)[-1]

    qloop.run(scenario())


async def _until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    from .conftest import wait_until

    await wait_until(condition, timeout_s)
