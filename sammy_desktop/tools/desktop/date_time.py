"""``getDateTime``: the date and time here, or in a named time zone.

The local time comes from the tool services' clock (so tests pass a fixed one). A zone is
an IANA name ("Europe/Paris"); capitalisation does not matter and a city alone ("Tokyo") is
accepted when exactly one zone is named after it. Anything else is a validation failure
whose feedback suggests the closest zone names, so the model can correct itself.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import BaseModel, ConfigDict, Field

from sammy_desktop.tools.context import ToolContext
from sammy_desktop.tools.definition import tool
from sammy_desktop.tools.kinds import ToolBehavior, ToolCategory
from sammy_desktop.tools.results import ParameterFeedback, ToolErrorKind, ToolResult

__all__ = [
    "DateTimeInput",
    "DateTimeOutput",
    "ZoneLookup",
    "get_date_time",
    "resolve_zone",
]

_MAX_SUGGESTIONS = 5


class DateTimeInput(BaseModel):
    """Arguments of getDateTime."""

    model_config = ConfigDict(extra="forbid")

    timezone: str | None = Field(
        None,
        max_length=100,
        description="An IANA time zone such as 'Europe/Paris' or 'America/New_York'. Leave "
        "it out for the person's own local time.",
    )


class DateTimeOutput(BaseModel):
    """What getDateTime answers."""

    iso: str = Field(description="Date and time with UTC offset, ISO 8601.")
    date: str = Field(description="The date, YYYY-MM-DD.")
    time: str = Field(description="The time, HH:MM (24-hour clock).")
    weekday: str = Field(description="The day of the week.")
    timezone: str = Field(description="The time zone's name, or 'local'.")
    utc_offset: str = Field(description="Offset from UTC, such as +02:00.")
    abbreviation: str | None = Field(description="The zone's abbreviation (CEST), if any.")


@dataclass(frozen=True, slots=True)
class ZoneLookup:
    """How a time zone name was understood.

    Attributes:
        zone: the canonical zone name, None when the name is not understood.
        suggestions: the closest zone names, best first (only when ``zone`` is None).
    """

    zone: str | None
    suggestions: tuple[str, ...] = ()


@cache
def _zone_names() -> tuple[str, ...]:
    # Reading the tz database lists a few hundred files; do it once per process.
    return tuple(sorted(available_timezones()))


def resolve_zone(name: str, zones: Iterable[str] | None = None) -> ZoneLookup:
    """Understand ``name`` as a time zone.

    Args:
        name: what the model asked for ("europe/paris", "Tokyo", "Europe/Pariss").
        zones: the known zone names; the system's tz database when None.

    Returns:
        The canonical zone name when ``name`` is one (in any capitalisation) or is the city
        of exactly one zone; otherwise up to five close matches by spelling.
    """
    known = tuple(zones) if zones is not None else _zone_names()
    wanted = name.strip().replace(" ", "_")
    by_lower = {zone.lower(): zone for zone in known}
    if wanted.lower() in by_lower:
        return ZoneLookup(zone=by_lower[wanted.lower()])
    by_city: dict[str, list[str]] = {}
    for zone in known:
        by_city.setdefault(zone.rsplit("/", 1)[-1].lower(), []).append(zone)
    same_city = by_city.get(wanted.lower(), [])
    if len(same_city) == 1:
        return ZoneLookup(zone=same_city[0])
    # Compare with whole names and with city names: "Pariss" is close to "Paris", not to
    # "Europe/Paris"; report the whole names either way.
    close = difflib.get_close_matches(wanted.lower(), list(by_lower), n=_MAX_SUGGESTIONS)
    close_cities = difflib.get_close_matches(wanted.lower(), list(by_city), n=_MAX_SUGGESTIONS)
    suggestions = list(
        dict.fromkeys(
            [
                *same_city,
                *(by_lower[z] for z in close),
                *(z for c in close_cities for z in by_city[c]),
            ]
        )
    )
    return ZoneLookup(zone=None, suggestions=tuple(suggestions[:_MAX_SUGGESTIONS]))


def _describe(moment: datetime, zone_name: str) -> DateTimeOutput:
    offset = moment.strftime("%z")
    abbreviation = moment.tzname()
    return DateTimeOutput(
        iso=moment.isoformat(timespec="seconds"),
        date=moment.strftime("%Y-%m-%d"),
        time=moment.strftime("%H:%M"),
        weekday=moment.strftime("%A"),
        timezone=zone_name,
        utc_offset=f"{offset[:3]}:{offset[3:]}" if offset else "+00:00",
        # "+03" style names say nothing the offset does not.
        abbreviation=abbreviation if abbreviation and abbreviation[0].isalpha() else None,
    )


def _place(zone: str) -> str:
    """``America/New_York`` -> ``New York``: a zone as a person names it."""
    return zone.rsplit("/", 1)[-1].replace("_", " ")


def _summary(result: ToolResult[DateTimeOutput]) -> str | None:
    """The answer as the card says it: "It is 21:40 on Monday in Tokyo"."""
    value = result.value
    if not result.ok or value is None:
        return None
    if value.timezone == "UTC":
        return f"It is {value.time} UTC on {value.weekday}"
    where = "" if value.timezone == "local" else f" in {_place(value.timezone)}"
    return f"It is {value.time} on {value.weekday}{where}"


@tool(
    name="getDateTime",
    title="Date and time",
    about="Tells Sammy the date and time, here or in another time zone.",
    summary=_summary,
    category=ToolCategory.CONTEXT,
    behavior=ToolBehavior.BLOCKING,
    timeout_s=5.0,
)
async def get_date_time(
    args: DateTimeInput, context: ToolContext
) -> DateTimeOutput | ToolResult[DateTimeOutput]:
    """Get the current date, time and weekday, here or in another time zone.

    Use it for "what time is it", "what's the date", or "what time is it in Tokyo". Pass an
    IANA time zone name (Region/City) for another place; leave timezone out for the
    person's local time.
    """
    privacy = context.services.settings().privacy
    if not privacy.share_time:
        # The same switch as getCurrentContext's: the time is context the person withholds.
        return ToolResult.failure(
            "The person does not share the date and time with you (Settings, Privacy). If "
            "they ask, say so and that they can change it there.",
            error_kind=ToolErrorKind.DENIED,
            display="You do not share the date and time with Sammy (Settings > Privacy).",
        )
    now = context.services.clock()
    if args.timezone is None or not args.timezone.strip():
        if not privacy.share_timezone:
            return ToolResult.success(
                _describe(now.astimezone(UTC), "UTC"),
                feedback=["The person does not share their time zone; this is the time in UTC."],
            )
        # The clock already gives local time; a naive one is taken as local.
        return _describe(now if now.tzinfo is not None else now.astimezone(), "local")
    lookup = resolve_zone(args.timezone)
    if lookup.zone is None:
        hint = (
            f" Did you mean {', '.join(lookup.suggestions)}?"
            if lookup.suggestions
            else " Use a Region/City name such as Europe/Paris."
        )
        return ToolResult.failure(
            f"{args.timezone!r} is not a time zone I know.{hint}",
            display=f"“{args.timezone.strip()}” is not a time zone Sammy knows.",
            validation={
                "timezone": ParameterFeedback.invalid(
                    "unknown time zone; use an IANA name (Region/City)",
                    suggested_values=lookup.suggestions or None,
                )
            },
        )
    try:
        zone = ZoneInfo(lookup.zone)
    except (ZoneInfoNotFoundError, ValueError) as error:
        # Listed but unreadable: a damaged tz database, not the model's fault.
        return ToolResult.failure(
            f"The time zone {lookup.zone} cannot be read here: {error}.",
            display=f"The time zone {_place(lookup.zone)} cannot be read on this computer.",
        )
    feedback = (
        [f"Interpreted {args.timezone!r} as {lookup.zone}."]
        if lookup.zone != args.timezone.strip()
        else []
    )
    return ToolResult.success(_describe(now.astimezone(zone), lookup.zone), feedback=feedback)
