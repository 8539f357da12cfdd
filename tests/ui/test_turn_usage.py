"""The turn footer and its words: tokens by modality, and a cost only where a price is known.

With the real core and the simulator in ``test_history_with_real_core.py``; here the words
themselves and the window's footer fed through the real bridge.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import AgentState, Speaker, TranscriptUpdated, TurnStats
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.usage import CostEstimate, estimate, modality_words, usage_line

from .conftest import FakeAgent, MakeWindow

PRICED_MODEL = "gemini-2.5-flash-native-audio-preview-12-2025"


def _stats(turn: int, prompt: int, response: int) -> TurnStats:
    return TurnStats(
        turn,
        400.0,
        0.0,
        0,
        0,
        prompt,
        response,
        prompt + response,
        prompt_by_modality={"AUDIO": prompt - 134, "TEXT": 134},
        response_by_modality={"AUDIO": response},
    )


def test_the_words_of_a_turns_usage() -> None:
    cost = CostEstimate(0.0042, "somewhere")
    line = usage_line(1234, {"AUDIO": 1000, "TEXT": 134}, {"AUDIO": 100}, cost)
    assert line == "1,234 tokens (audio 1,100 · text 134) · ≈ $0.0042"
    assert usage_line(1) == "1 token"
    assert usage_line(20, {}, {}) == "20 tokens"
    assert modality_words({"TEXT": 3, "VIDEO": 0}, {"custom": 2, "AUDIO": 1}) == (
        "audio 1 · text 3 · custom 2"
    )
    assert "Google bills by its own counts" in cost.tooltip
    assert (
        estimate("gemini-3.1-flash-live-preview", None, prompt_tokens=10, response_tokens=0) is None
    )
    priced = estimate(PRICED_MODEL, None, prompt_tokens=1_000_000, response_tokens=0)
    assert priced is not None and priced.dollars == 3.0  # unbroken-down input: the audio rate


def test_the_footer_under_each_answer(
    qtbot: QtBot,
    make_window: MakeWindow,
    bus: EventBus,
    agent: FakeAgent,
    settings_state: SettingsState,
) -> None:
    settings_state.update(model=PRICED_MODEL)
    window = make_window()
    agent.move_to(AgentState.READY)
    bus.emit(TranscriptUpdated(Speaker.USER, "hello", final=True, turn_id=1))
    bus.emit(TranscriptUpdated(Speaker.ASSISTANT, "Hi there.", final=True, turn_id=1))
    bus.emit(_stats(1, 1134, 100))
    row = window.transcript.line(1, Speaker.ASSISTANT)
    assert row is not None and row.usage_label is not None
    # (134 * 0.50 + 1000 * 3.00 + 100 * 12.00) / 1e6 = $0.004267
    assert row.usage_label.text() == "1,234 tokens (audio 1,100 · text 134) · ≈ $0.0043"
    assert row.usage_label.objectName() == "systemLine"  # quiet
    assert "Gemini API pricing page" in row.usage_label.toolTip()

    # A turn without an answer line (a tool call only) gets its line at the end.
    bus.emit(_stats(2, 200, 10))
    notes = [
        n for n in window.transcript.findChildren(QLabel, "systemLine") if "tokens" in n.text()
    ]
    assert [n.text() for n in notes][-1].startswith("210 tokens (audio 76 · text 134) · ≈ $")

    # A turn the service counted nothing for says nothing.
    bus.emit(TranscriptUpdated(Speaker.ASSISTANT, "Quiet.", final=True, turn_id=3))
    bus.emit(TurnStats(3, None, 0.0, 0, 0, 0, 0, 0))
    quiet = window.transcript.line(3, Speaker.ASSISTANT)
    assert quiet is not None and quiet.usage_label is None


def test_a_model_without_a_price_has_tokens_and_no_cost(
    qtbot: QtBot,
    make_window: MakeWindow,
    bus: EventBus,
    agent: FakeAgent,
    settings_state: SettingsState,
) -> None:
    settings_state.update(model="gemini-3.1-flash-live-preview")
    window = make_window()
    agent.move_to(AgentState.READY)
    bus.emit(TranscriptUpdated(Speaker.ASSISTANT, "Hi.", final=True, turn_id=1))
    bus.emit(_stats(1, 1134, 100))
    row = window.transcript.line(1, Speaker.ASSISTANT)
    assert row is not None and row.usage_label is not None
    assert row.usage_label.text() == "1,234 tokens (audio 1,100 · text 134)"
    assert row.usage_label.toolTip() == "No price known for gemini-3.1-flash-live-preview."
