"""How the history says times, lengths and counts to people, in the list and the exports.

The files keep UTC; a person reads their own clock, so every time shown here is converted
to a time zone (the computer's own unless one is given: tests and exports for elsewhere
pass theirs). Durations and counts use the same words as the rest of the app
(:func:`~sammy_desktop.tools.wording.human_duration`) where there is room, and a short form
in the one-line list.
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo
from typing import Final, Literal

from sammy_desktop.tools.wording import human_duration

__all__ = [
    "ASSISTANT_NAME",
    "PERSON_NAME",
    "count_words",
    "cut_to",
    "long_duration",
    "on_clock",
    "short_duration",
    "speaker_name",
]

# What the window's transcript calls the two speakers (ui/transcript.py).
PERSON_NAME: Final = "You"
ASSISTANT_NAME: Final = "Sammy"


def speaker_name(speaker: Literal["user", "assistant", "tool"]) -> str:
    """The speaker's name as the transcript says it: "You", "Sammy" or "Tool"."""
    return {"user": PERSON_NAME, "assistant": ASSISTANT_NAME}.get(speaker, "Tool")


def on_clock(moment: datetime | None, tz: tzinfo | None, pattern: str = "%Y-%m-%d %H:%M") -> str:
    """``moment`` on the clock of ``tz`` (the computer's own when None); "?" when unknown."""
    if moment is None:
        return "?"
    return moment.astimezone(tz).strftime(pattern)


def short_duration(length: timedelta | None) -> str:
    """A length for a narrow column: "45 s", "12 min", "1 h 05 min"; "?" when unknown."""
    if length is None:
        return "?"
    seconds = round(length.total_seconds())
    if seconds < 60:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def long_duration(length: timedelta | None) -> str:
    """A length in words ("12 minutes 5 seconds"); "an unknown time" when unknown."""
    if length is None:
        return "an unknown time"
    return human_duration(length.total_seconds())


def count_words(count: int, thing: str, things: str | None = None) -> str:
    """``1 token``, ``1,234 tokens``, ``no tool calls``."""
    if count == 0:
        return f"no {things or thing + 's'}"
    return f"{count:,} {thing if count == 1 else things or thing + 's'}"


def cut_to(text: str, width: int) -> str:
    """``text`` on one line, at most ``width`` characters, ending in "…" when it was cut."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    return flat[: max(width - 1, 0)] + "…" if width > 0 else ""
