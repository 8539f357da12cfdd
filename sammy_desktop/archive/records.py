"""The history files' lines read back as numbered records, from the start or from an offset.

A session's file (:mod:`sammy_desktop.core.history`) is a JSON object per line, appended as
the conversation happens. Reading it back has to survive three things: a line damaged on
disk (skipped, and said in a sentence the window can show), the last line cut short when
the app stopped in the middle of a write (skipped quietly, as
:func:`~sammy_desktop.core.history.read_history` does), and a file still being written
(only whole lines are taken, so the search index can come back later for the rest and
read only what is new).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "NumberedRecord",
    "ParsedLines",
    "int_field",
    "mapping_field",
    "parse_lines",
    "parse_time",
    "text_field",
    "time_field",
]


@dataclass(frozen=True, slots=True)
class NumberedRecord:
    """One record of a history file and the line it is on (1 is the first)."""

    line: int
    record: Mapping[str, Any]


@dataclass(slots=True)
class ParsedLines:
    """What :func:`parse_lines` made of a run of bytes.

    Attributes:
        records: the records, in file order.
        consumed: how many bytes were read to the end (a later read starts there).
        lines: how many lines those bytes held (blank and damaged ones included).
        ends_mid_line: the last record taken had no line break after it yet (the writer
            was about to add it, or stopped before it could).
        cut_short: bytes were left at the end that are not a whole record yet.
        problems: one sentence per damaged line.
    """

    records: list[NumberedRecord] = field(default_factory=list)
    consumed: int = 0
    lines: int = 0
    ends_mid_line: bool = False
    cut_short: bool = False
    problems: list[str] = field(default_factory=list)


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested beyond reason
        return _NOT_JSON


_NOT_JSON: Any = object()


def parse_lines(data: bytes, *, first_line: int, file_name: str) -> ParsedLines:
    """Read the whole lines of ``data`` (bytes of a history file) as records.

    Args:
        data: the file's bytes from some offset on, which starts a line.
        first_line: the number of the line ``data`` starts with, for the problems' words.
        file_name: the file's name, for the problems' words.

    A last stretch without a line break is taken when it is a whole record (a record is one
    JSON object, so a part of one never parses as one); otherwise it is left for a later
    read (``consumed`` stops before it) and ``cut_short`` says so.
    """
    parsed = ParsedLines()
    position = 0
    line = first_line
    while position < len(data):
        end = data.find(b"\n", position)
        last = end == -1
        raw = data[position:] if last else data[position:end]
        if raw.strip():
            value = _decode(raw)
            if last and not isinstance(value, dict):
                parsed.cut_short = True
                break
            if isinstance(value, dict):
                parsed.records.append(NumberedRecord(line, value))
            elif value is _NOT_JSON:
                parsed.problems.append(
                    f"history file {file_name} line {line} is not valid JSON; skipped"
                )
            else:
                parsed.problems.append(
                    f"history file {file_name} line {line} is not a record; skipped"
                )
        elif last:
            break  # spaces after the last line break: nothing to take yet
        parsed.lines += 1
        line += 1
        position = len(data) if last else end + 1
        parsed.consumed = position
        parsed.ends_mid_line = last
    return parsed


# -- a record's fields, whatever the file holds ---------------------------------------------
# A record is whatever JSON the line held: a field may be missing or of another type (a file
# edited by hand, written by another version). Each reader below gives a usable value.


def text_field(record: Mapping[str, Any], key: str) -> str:
    """The string field ``key``, or "" when it is missing or not a string."""
    value = record.get(key)
    return value if isinstance(value, str) else ""


def int_field(record: Mapping[str, Any], key: str) -> int | None:
    """The number field ``key`` as an int, or None when it is missing or not a number."""
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def mapping_field(record: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The object field ``key`` (string keys), or an empty one when it is not an object."""
    value = record.get(key)
    return {str(k): item for k, item in value.items()} if isinstance(value, Mapping) else {}


def time_field(record: Mapping[str, Any], key: str = "at") -> datetime | None:
    """The ISO 8601 time in ``key`` (UTC when it names no zone), or None."""
    return parse_time(record.get(key))


def parse_time(value: object) -> datetime | None:
    """``value`` as an aware datetime when it is an ISO 8601 string, else None."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
