"""What a conversation may have cost: token counts priced from a per-model table, an estimate.

The table is this file: every row names where its prices come from and when they were read
(:data:`PRICES_CHECKED`). Nobody here can reach Google's pricing page, so a row is only as
good as its source says; a model without a row has no estimate until the person enters their
own rates (Settings, ``Settings.token_prices``), which always win. The window labels every
figure "estimate".

How the Live API bills (docs/live-service.md R4): every turn's usage counts the whole context
again, and the bill is the sum of the turns' usage; input and output are priced apart, and
audio apart from text. Tokens the service reported without a breakdown by modality are priced
at the audio rate, the higher one, so an estimate errs on the side of too much.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "LIST_PRICES",
    "PRICES_CHECKED",
    "ListPrice",
    "TokenPrices",
    "estimate_cost",
    "format_cost",
    "prices_for",
]

PRICES_CHECKED: Final = date(2026, 12, 1)
"""When the rows below were last compared with their sources."""


class TokenPrices(BaseModel):
    """US dollars per million tokens, input and output, text and audio."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text_input: float = Field(ge=0, title="Text input", description="US$ per 1M tokens")
    audio_input: float = Field(ge=0, title="Audio input", description="US$ per 1M tokens")
    text_output: float = Field(ge=0, title="Text output", description="US$ per 1M tokens")
    audio_output: float = Field(ge=0, title="Audio output", description="US$ per 1M tokens")


@dataclass(frozen=True, slots=True)
class ListPrice:
    """One row of the table: the models it covers (by id prefix), the prices, the source."""

    model_prefix: str
    prices: TokenPrices
    source: str


LIST_PRICES: Final[tuple[ListPrice, ...]] = (
    ListPrice(
        "gemini-2.5-flash-native-audio",
        TokenPrices(text_input=0.50, audio_input=3.00, text_output=2.00, audio_output=12.00),
        "Gemini API pricing page, 'Gemini 2.5 Flash Native Audio (Live API)', as quoted in "
        "2025-2026; not re-read from here",
    ),
    ListPrice(
        "gemini-2.0-flash-live",
        TokenPrices(text_input=0.35, audio_input=2.10, text_output=1.50, audio_output=8.50),
        "Google's answer on discuss.ai.google.dev/t/110407 (gemini-2.0-flash-live-001)",
    ),
)
"""The list prices known, by model id prefix. The 3.x Live models have no row: no source
for their audio rates was found (docs/live-service.md, "What the evidence leaves unclear")."""


def prices_for(
    model: str, custom: Mapping[str, TokenPrices] | None = None
) -> tuple[TokenPrices, str] | None:
    """The prices to use for ``model`` and where they come from, or None when none is known.

    Args:
        model: the model id (with or without ``models/``).
        custom: the person's own rates by model id (they win over the table).
    """
    bare = model.removeprefix("models/")
    if custom and bare in custom:
        return custom[bare], "your rates (Settings)"
    for row in LIST_PRICES:
        if bare.startswith(row.model_prefix):
            return row.prices, row.source
    return None


def estimate_cost(
    prices: TokenPrices,
    *,
    prompt_tokens: int,
    response_tokens: int,
    prompt_by_modality: Mapping[str, int] | None = None,
    response_by_modality: Mapping[str, int] | None = None,
) -> float:
    """US dollars for one turn's (or a session's summed) usage.

    Input tokens reported as ``TEXT`` are priced at the text rate, ``AUDIO`` at the audio
    rate; the rest (no breakdown, images, video) at the audio rate. The same for output.
    """
    return (
        _side(prompt_tokens, prompt_by_modality, prices.text_input, prices.audio_input)
        + _side(response_tokens, response_by_modality, prices.text_output, prices.audio_output)
    ) / 1_000_000


def _side(total: int, by_modality: Mapping[str, int] | None, text: float, other: float) -> float:
    text_tokens = min(total, (by_modality or {}).get("TEXT", 0))
    return text_tokens * text + (total - text_tokens) * other


def format_cost(dollars: float) -> str:
    """``≈ $0.0042``: an estimate, with the digits a small amount needs."""
    if dollars == 0:
        return "≈ $0"
    if dollars < 0.01:
        return f"≈ ${dollars:.4f}"
    if dollars < 1:
        return f"≈ ${dollars:.3f}"
    return f"≈ ${dollars:.2f}"
