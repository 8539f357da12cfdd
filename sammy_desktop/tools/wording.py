"""How the tool system says things to people: durations now, the human words of tools later.

Kept apart from any tool pack so that the window (which may not import the desktop pack)
and the pack's tools word the same fact the same way.
"""

from __future__ import annotations

__all__ = ["human_duration"]


def human_duration(seconds: float) -> str:
    """``seconds`` as a person says it: "10 minutes", "1 hour 30 minutes", "45 seconds"."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        f"{value} {unit}{'' if value == 1 else 's'}"
        for value, unit in ((hours, "hour"), (minutes, "minute"), (secs, "second"))
        if value
    ]
    return " ".join(parts) or "0 seconds"
