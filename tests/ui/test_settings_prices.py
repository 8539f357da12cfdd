"""Settings > Account > Cost estimate: the prices in use, the person's own rates, the table.

Real widgets on the real settings store: what "Save my rates" keeps is read back from the
file, a refused value changes nothing, and "Use Sammy's table" removes the override.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from sammy_desktop.config.prices import TokenPrices
from sammy_desktop.config.settings import DEFAULT_MODEL
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.ui.settings import SettingsWindow
from sammy_desktop.ui.settings.cost_estimate import CostEstimateEditor, parse_price
from sammy_desktop.ui.settings_state import SettingsState

from .conftest import MakeSettingsWindow

PRICED_MODEL = "gemini-2.5-flash-native-audio-preview-12-2025"


def _editor(make_settings_window: MakeSettingsWindow) -> tuple[SettingsWindow, CostEstimateEditor]:
    """The window (kept, or it goes with its editor) and its cost estimate editor."""
    window = make_settings_window()
    return window, window.account_page.cost_estimate


def _type(editor: CostEstimateEditor, values: dict[str, str]) -> None:
    for name, text in values.items():
        field = editor.fields[name]
        field.selectAll()
        field.clear()
        QTest.keyClicks(field, text)


def _saved(tmp_path: Path) -> dict[str, TokenPrices]:
    return dict(SettingsStore(tmp_path / "settings.json").load().settings.token_prices)


def test_the_card_says_which_prices_are_in_use_and_that_they_are_estimates(
    make_settings_window: MakeSettingsWindow, settings_state: SettingsState
) -> None:
    settings_state.update(model=PRICED_MODEL)
    _window, editor = _editor(make_settings_window)
    first, rates, source = editor.in_use_label.text().splitlines()
    assert first == f"In use for {PRICED_MODEL}: Sammy's table."
    assert rates == (
        "Per million tokens: text input $0.50 · audio input $3.00 · text output $2.00 · "
        "audio output $12.00."
    )
    assert source.startswith("Source: Gemini API pricing page")
    assert [editor.fields[n].text() for n in editor.fields] == ["0.5", "3", "2", "12"]
    assert not editor.table_button.isEnabled()  # nothing of yours to remove
    assert editor.note_label.text() == (
        "Estimates only: Google bills by its own counts. Sammy's table was last checked on "
        "1 December 2026."
    )


def test_a_model_the_table_does_not_know_has_no_estimate_until_you_give_rates(
    make_settings_window: MakeSettingsWindow, settings_state: SettingsState, tmp_path: Path
) -> None:
    assert settings_state.settings.model == DEFAULT_MODEL
    _window, editor = _editor(make_settings_window)
    assert editor.in_use_label.text().startswith(f"Sammy knows no price for {DEFAULT_MODEL}")
    assert all(field.text() == "" for field in editor.fields.values())
    _type(
        editor,
        {"text_input": "1", "audio_input": "$2.50", "text_output": "3,5", "audio_output": "4"},
    )
    editor.save_button.click()
    expected = TokenPrices(text_input=1, audio_input=2.5, text_output=3.5, audio_output=4)
    assert settings_state.settings.token_prices == {DEFAULT_MODEL: expected}
    assert _saved(tmp_path) == {DEFAULT_MODEL: expected}
    assert editor.in_use_label.text().startswith(f"In use for {DEFAULT_MODEL}: your rates.")
    assert editor.table_button.isEnabled()


def test_a_negative_price_is_refused_with_a_message_and_nothing_is_saved(
    make_settings_window: MakeSettingsWindow, settings_state: SettingsState, tmp_path: Path
) -> None:
    settings_state.update(model=PRICED_MODEL)
    window = make_settings_window()
    editor = window.account_page.cost_estimate
    card = window.cards["token_prices"]
    _type(editor, {"audio_output": "-1"})
    QTest.keyClick(editor.fields["audio_output"], Qt.Key.Key_Return)  # Enter saves too
    assert settings_state.settings.token_prices == {}
    assert _saved(tmp_path) == {}
    assert card.error == (
        "Your rates were not saved. Audio output cannot be negative: enter 0 or more US "
        "dollars per million tokens."
    )
    assert card.error_label.isVisibleTo(card)
    assert editor.fields["audio_output"].property("invalid") is True
    assert editor.fields["text_input"].property("invalid") is not True
    # Typing in the field takes the mark away; a good value is then saved.
    _type(editor, {"audio_output": "10"})
    assert editor.fields["audio_output"].property("invalid") is False
    editor.save_button.click()
    assert settings_state.settings.token_prices[PRICED_MODEL].audio_output == 10
    assert card.error == ""


def test_use_sammys_table_removes_your_rates_for_the_model(
    make_settings_window: MakeSettingsWindow, settings_state: SettingsState, tmp_path: Path
) -> None:
    other = TokenPrices(text_input=9, audio_input=9, text_output=9, audio_output=9)
    mine = TokenPrices(text_input=1, audio_input=1, text_output=1, audio_output=1)
    settings_state.update(model=PRICED_MODEL, token_prices={PRICED_MODEL: mine, "other": other})
    _window, editor = _editor(make_settings_window)
    assert editor.in_use_label.text().startswith(f"In use for {PRICED_MODEL}: your rates.")
    assert editor.table_button.isEnabled()
    editor.table_button.click()
    assert settings_state.settings.token_prices == {"other": other}  # only this model's
    assert _saved(tmp_path) == {"other": other}
    assert "Sammy's table" in editor.in_use_label.text()
    assert editor.fields["audio_output"].text() == "12"
    assert not editor.table_button.isEnabled()


def test_the_card_follows_the_model_chosen(
    make_settings_window: MakeSettingsWindow, settings_state: SettingsState
) -> None:
    _window, editor = _editor(make_settings_window)
    assert "no price" in editor.in_use_label.text()
    settings_state.update(model=PRICED_MODEL)
    assert editor.in_use_label.text().startswith(f"In use for {PRICED_MODEL}")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3", 3.0),
        (" 3.00 ", 3.0),
        ("$0.5", 0.5),
        ("3,5", 3.5),
        ("1,200.5", 1200.5),
        ("0", 0.0),
        ("", "Enter a price for Text input, in US dollars per million tokens (0 if it is free)."),
        ("abc", "Text input: “abc” is not a number. Enter US dollars, like 3.00."),
        ("-0.1", "Text input cannot be negative: enter 0 or more US dollars per million tokens."),
        ("inf", "Text input: enter a number of US dollars, like 3.00."),
    ],
)
def test_what_a_price_field_reads(text: str, expected: float | str) -> None:
    assert parse_price("text_input", text) == expected
