"""The cost estimate: the table, the person's rates first, text and audio priced apart."""

from __future__ import annotations

import pytest

from sammy_desktop.config.prices import (
    LIST_PRICES,
    TokenPrices,
    estimate_cost,
    format_cost,
    prices_for,
)

RATES = TokenPrices(text_input=1.0, audio_input=10.0, text_output=2.0, audio_output=20.0)


def test_text_and_audio_are_priced_apart_and_the_rest_as_audio() -> None:
    cost = estimate_cost(
        RATES,
        prompt_tokens=1_000_000,
        response_tokens=500_000,
        prompt_by_modality={"TEXT": 400_000, "AUDIO": 600_000},
        response_by_modality={"AUDIO": 500_000},
    )
    assert cost == pytest.approx(0.4 + 6.0 + 10.0)
    # No breakdown: the higher (audio) rate, so the estimate errs on the side of too much.
    assert estimate_cost(RATES, prompt_tokens=1_000_000, response_tokens=0) == pytest.approx(10.0)


def test_the_persons_rates_win_and_unknown_models_have_none() -> None:
    native = "gemini-2.5-flash-native-audio-preview-12-2025"
    listed = prices_for(f"models/{native}")
    assert listed is not None
    assert listed[0] == LIST_PRICES[0].prices
    assert prices_for(native, {native: RATES}) == (RATES, "your rates (Settings)")
    assert prices_for("gemini-3.8-live") is None


def test_a_cost_is_always_shown_as_an_estimate() -> None:
    assert format_cost(0.0042) == "≈ $0.0042"
    assert format_cost(0.25) == "≈ $0.250"
    assert format_cost(3.456) == "≈ $3.46"


def test_negative_rates_are_refused() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        TokenPrices(text_input=-1, audio_input=0, text_output=0, audio_output=0)
