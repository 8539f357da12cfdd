"""Tokens and what they may have cost, in the words the window uses everywhere.

One place for the figures shown under an answer (the turn footer), in the status line's
tooltip, in the History window's list and on the Settings prices editor, so they read alike:
``1,234 tokens (audio 1,100 · text 134) · ≈ $0.0042``. A cost is always an estimate
(:mod:`sammy_desktop.config.prices`), shown only when a price for the model is known: the
person's own rates, or a row of Sammy's table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from sammy_desktop.config.prices import TokenPrices, estimate_cost, format_cost, prices_for

__all__ = [
    "ESTIMATE_NOTE",
    "NO_PRICE",
    "CostEstimate",
    "estimate",
    "modality_words",
    "token_words",
    "usage_line",
]

NO_PRICE: Final = "no price known"
"""What the window says where no price is known for the model."""

ESTIMATE_NOTE: Final = "Estimates only: Google bills by its own counts."

# The modalities in the order they are said; any other the service names comes after.
_MODALITY_ORDER: Final = ("AUDIO", "TEXT", "IMAGE", "VIDEO", "DOCUMENT")


@dataclass(frozen=True, slots=True)
class CostEstimate:
    """What some tokens may have cost, and where the prices came from.

    Attributes:
        dollars: US dollars, an estimate.
        source: where the prices are from ("your rates (Settings)", a row's source).
    """

    dollars: float
    source: str

    @property
    def words(self) -> str:
        """``≈ $0.0042``."""
        return format_cost(self.dollars)

    @property
    def tooltip(self) -> str:
        """Why it is an estimate, and whose prices it uses."""
        return f"An estimate from {self.source}. {ESTIMATE_NOTE}"


def estimate(
    model: str,
    custom: Mapping[str, TokenPrices] | None,
    *,
    prompt_tokens: int,
    response_tokens: int,
    prompt_by_modality: Mapping[str, int] | None = None,
    response_by_modality: Mapping[str, int] | None = None,
) -> CostEstimate | None:
    """The estimated cost of some usage of ``model``, or None when no price is known."""
    found = prices_for(model, custom)
    if found is None:
        return None
    prices, source = found
    dollars = estimate_cost(
        prices,
        prompt_tokens=prompt_tokens,
        response_tokens=response_tokens,
        prompt_by_modality=prompt_by_modality,
        response_by_modality=response_by_modality,
    )
    return CostEstimate(dollars, source)


def token_words(count: int) -> str:
    """``1 token``, ``1,234 tokens``."""
    return f"{count:,} token" if count == 1 else f"{count:,} tokens"


def modality_words(*by_modality: Mapping[str, int] | None) -> str:
    """Input and output counts by modality added up: ``audio 1,100 · text 134`` ("" if none)."""
    totals: dict[str, int] = {}
    for counts in by_modality:
        for name, count in (counts or {}).items():
            totals[name.upper()] = totals.get(name.upper(), 0) + count
    names = [name for name in _MODALITY_ORDER if totals.get(name)]
    names += sorted(name for name in totals if name not in _MODALITY_ORDER and totals[name])
    return " · ".join(f"{name.lower()} {totals[name]:,}" for name in names)


def usage_line(
    total_tokens: int,
    prompt_by_modality: Mapping[str, int] | None = None,
    response_by_modality: Mapping[str, int] | None = None,
    cost: CostEstimate | None = None,
) -> str:
    """``1,234 tokens (audio 1,100 · text 134) · ≈ $0.0042``; the cost only when given."""
    text = token_words(total_tokens)
    breakdown = modality_words(prompt_by_modality, response_by_modality)
    if breakdown:
        text += f" ({breakdown})"
    if cost is not None:
        text += f" · {cost.words}"
    return text
