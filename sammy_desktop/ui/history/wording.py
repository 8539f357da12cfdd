"""How the History window says a conversation's facts: when, how long, what, how much.

Pure functions, so the words are tested without widgets. Times are on the person's clock
(the computer's own time zone unless one is given: tests pass theirs); the files keep UTC.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, tzinfo
from typing import Final

from sammy_desktop.archive import SessionSummary
from sammy_desktop.archive.wording import short_duration
from sammy_desktop.config.prices import TokenPrices, prices_for
from sammy_desktop.tools.wording import title_from_name
from sammy_desktop.ui.usage import NO_PRICE, CostEstimate, estimate, token_words

__all__ = [
    "EMPTY_HISTORY",
    "NOTHING_SAID",
    "continued_words",
    "cost_tooltip",
    "cost_words",
    "session_cost",
    "session_day",
    "session_facts",
    "session_moment",
    "tools_words",
    "usage_words",
]

EMPTY_HISTORY: Final = (
    "No conversations yet. Everything you and Sammy say is kept here, so you can read it "
    "again, search it and carry on where you left off."
)
NOTHING_SAID: Final = "(nothing said)"
"""The first line of a conversation in which the person said nothing."""

_MAX_TOOLS_NAMED: Final = 3

# core/history.py names a file "<UTC start %Y%m%d-%H%M%S>-<session id>.jsonl".
_STAMP: Final = re.compile(r"(\d{8}-\d{6})-.+")


def session_moment(started: datetime | None, tz: tzinfo | None = None) -> str:
    """When a conversation started, in full: ``Sun 30 Nov 2026, 09:15``."""
    if started is None:
        return "an unknown time"
    moment = started.astimezone(tz)
    return f"{moment:%a} {moment.day} {moment:%b %Y, %H:%M}"


def session_day(
    started: datetime | None, now: datetime | None = None, tz: tzinfo | None = None
) -> str:
    """When, short, for the list: ``Today 09:15``, ``Yesterday 18:02``, ``Sun 30 Nov 09:15``.

    The year is said only when it is not this one.
    """
    if started is None:
        return "Unknown time"
    moment = started.astimezone(tz)
    today = (now or datetime.now(tz)).astimezone(tz).date()
    clock = f"{moment:%H:%M}"
    days = (today - moment.date()).days
    if days == 0:
        return f"Today {clock}"
    if days == 1:
        return f"Yesterday {clock}"
    if moment.year == today.year:
        return f"{moment:%a} {moment.day} {moment:%b} {clock}"
    return f"{moment:%a} {moment.day} {moment:%b %Y} {clock}"


def tools_words(summary: SessionSummary) -> str:
    """The tools a conversation used, by their titles: ``Get weather, Start timer (2)``."""
    names = [
        title_from_name(use.name) + (f" ({use.count})" if use.count > 1 else "")
        for use in summary.tools
    ]
    if len(names) > _MAX_TOOLS_NAMED:
        more = len(names) - _MAX_TOOLS_NAMED
        names = [*names[:_MAX_TOOLS_NAMED], f"{more} more"]
    return ", ".join(names)


def session_cost(
    summary: SessionSummary, custom: Mapping[str, TokenPrices] | None
) -> CostEstimate | None:
    """What the conversation may have cost, or None without a price or token counts."""
    if not summary.prompt_tokens and not summary.response_tokens:
        return None
    return estimate(
        summary.model,
        custom,
        prompt_tokens=summary.prompt_tokens,
        response_tokens=summary.response_tokens,
        prompt_by_modality=summary.prompt_by_modality,
        response_by_modality=summary.response_by_modality,
    )


def session_facts(summary: SessionSummary, custom: Mapping[str, TokenPrices] | None) -> str:
    """The quiet line of a conversation: ``45 s · 300 tokens · ≈ $0.0011 estimated``."""
    return " · ".join([short_duration(summary.duration), *usage_words(summary, custom)])


def usage_words(summary: SessionSummary, custom: Mapping[str, TokenPrices] | None) -> list[str]:
    """``["300 tokens", "≈ $0.0011 estimated"]``, or ``["no tokens counted"]``."""
    if not summary.tokens:
        return ["no tokens counted"]
    return [token_words(summary.tokens), cost_words(summary, custom)]


def cost_words(summary: SessionSummary, custom: Mapping[str, TokenPrices] | None) -> str:
    """``≈ $0.0011 estimated``, or why there is no estimate."""
    cost = session_cost(summary, custom)
    if cost is not None:
        return f"{cost.words} estimated"
    if prices_for(summary.model, custom) is None:
        return NO_PRICE
    return "no estimate: input and output were not counted apart"


def cost_tooltip(summary: SessionSummary, custom: Mapping[str, TokenPrices] | None) -> str:
    """Where the estimate's prices come from, or what would give one."""
    cost = session_cost(summary, custom)
    if cost is not None:
        return cost.tooltip
    model = summary.model or "this conversation's model"
    return (
        f"Sammy knows no price for {model}. Enter your own rates in Settings > Account "
        "for an estimate."
    )


def continued_words(session_id: str, tz: tzinfo | None = None) -> str:
    """``Continues the conversation of Sun 30 Nov 2026, 09:15`` (the date from its id)."""
    match = _STAMP.fullmatch(session_id)
    if match is not None:
        try:
            started = datetime.strptime(match[1], "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
        except ValueError:
            pass
        else:
            return f"Continues the conversation of {session_moment(started, tz)}"
    return f"Continues an earlier conversation ({session_id})"
