"""Intents: what a person asks for in plain words, as data a scenario can answer.

An :class:`Intent` is one thing a person may ask for ("what time is it", "set a timer for
two minutes"): the patterns that recognise it, the *slots* read from the person's words (a
duration, the text of a note), the function it calls with which arguments, and the
sentences said from that function's answer. The
:class:`~sammy_desktop.sim.actions.AnswerIntents` action answers with a table of intents
(:mod:`sammy_desktop.sim.intent_answers` turns it into actions); the offline demo
(:mod:`sammy_desktop.sim.demo`) is such a table. This module is the reading of words and
the filling of templates, and nothing else.

Patterns are regular expressions searched in the person's words, ignoring case; of an
intent's patterns the first that matches counts, and its named groups are the slots' words;
of the intents, the one matching earliest in the words wins (:func:`understand`). A slot
that is not a group of the matching pattern is read from the whole text (a duration may be
anywhere: "remind me in ten minutes"). Slot readers (:data:`SLOT_READERS`):

* ``duration``: the first length of time in the words, in digits or words ("two minutes",
  "5 min", "90 seconds", "an hour and a half", "1h30m"), as a compact duration ("2m",
  "5m", "90s", "1.5h"); nothing when the words name none;
* ``sentence``: the words as a sentence (a capital, a full stop);
* ``words``: the words without the punctuation around them.

The whole text is always the slot ``request``.

Templates are ``str.format`` fields with dotted paths (``{value.time}``, ``{args.timezone}``,
``{said.duration}``); a template fills only when every field it names has a value, so a
list of templates is tried in order and the first that fills is said. Argument templates
that do not fill leave their argument out.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ConfigDict

__all__ = [
    "SLOT_READERS",
    "Intent",
    "Understood",
    "fill",
    "fill_first",
    "read_duration",
    "spoken_name",
    "understand",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Intent:
    """One thing a person may ask for, and how the simulated model answers it.

    Attributes:
        name: What it is called in logs and tests ("time", "timer").
        patterns: Regular expressions searched in the person's words (ignoring case), in
            order; named groups are slots.
        example: A phrasing to suggest to the person ("set a timer for two minutes").
        call: The function to call; None for an intent answered with words alone.
        args: The call's arguments: constants, or templates over ``said`` (the slots).
        slots: Slot name to reader name (:data:`SLOT_READERS`).
        required: Slots without which the intent asks again (``say_missing``).
        say: Templates said after a successful answer (``value``: the answer's value,
            ``args``: the call's arguments), or at once when there is no ``call``.
        say_failed: Templates said after a failed answer (``args``, ``problem``).
        say_missing: Said when a required slot was not found in the words.
        say_unavailable: Said when the client did not declare ``call``.
    """

    # The JSON scenario format reads intents with pydantic: an unknown key is an error.
    __pydantic_config__ = ConfigDict(extra="forbid")

    name: str
    patterns: tuple[str, ...]
    example: str = ""
    call: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    slots: Mapping[str, str] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    say: tuple[str, ...] = ()
    say_failed: tuple[str, ...] = ()
    say_missing: str = ""
    say_unavailable: str = ""

    def __post_init__(self) -> None:
        if not self.patterns:
            raise ValueError(f"intent {self.name!r} needs at least one pattern")
        for pattern in self.patterns:
            try:
                re.compile(pattern)  # a bad pattern fails when the scenario is built
            except re.error as error:
                raise ValueError(
                    f"intent {self.name!r}: bad pattern {pattern!r}: {error}"
                ) from None
        unknown = sorted(set(self.slots.values()) - set(SLOT_READERS))
        if unknown:
            raise ValueError(
                f"intent {self.name!r}: unknown slot reader(s) {unknown}; "
                f"expected {sorted(SLOT_READERS)}"
            )

    def arguments(self, said: Mapping[str, str]) -> dict[str, Any]:
        """The call's arguments for the slots ``said``; unfilled templates are left out."""
        arguments: dict[str, Any] = {}
        for name, template in self.args.items():
            if not isinstance(template, str):
                arguments[name] = template
                continue
            value = fill(template, {"said": said})
            if value is not None:
                arguments[name] = value
        return arguments


@dataclass(frozen=True, slots=True)
class Understood:
    """An intent recognised in the person's words.

    Attributes:
        intent: The intent.
        said: The slots read from the words (only those that were found).
        missing: Required slots that were not found.
    """

    intent: Intent
    said: Mapping[str, str]
    missing: tuple[str, ...] = ()


def understand(text: str, intents: Sequence[Intent]) -> Understood | None:
    """The intent ``text`` asks for, with its slots read; None when none matches.

    Each intent's first matching pattern counts; of the intents that match, the one that
    matches earliest in the text wins ("note that the meeting time is at 3" is a note,
    "what time is it, bye" the time), and of those matching at the same place the first in
    ``intents``.
    """
    request = _words(text)
    if not request:
        return None
    best: tuple[int, Intent, re.Match[str]] | None = None
    for intent in intents:
        match = next(
            (m for p in intent.patterns if (m := re.search(p, request, re.IGNORECASE))), None
        )
        if match is not None and (best is None or match.start() < best[0]):
            best = (match.start(), intent, match)
    if best is None:
        return None
    _, intent, match = best
    groups = {k: v for k, v in match.groupdict().items() if v}
    said: dict[str, str] = {"request": request}
    for slot, reader in intent.slots.items():
        words = groups.get(slot)
        if words is None and reader != "duration":
            continue  # only a duration is looked for in the whole text
        value = SLOT_READERS[reader](words if words is not None else request)
        if value:
            said[slot] = value
    missing = tuple(slot for slot in intent.required if slot not in said)
    return Understood(intent, said, missing)


# -- templates ----------------------------------------------------------------------------

_FORMATTER = string.Formatter()


def fill(template: str, scope: Mapping[str, Any]) -> str | None:
    """``template`` with its fields looked up in ``scope``; None when one has no value.

    A field is a dotted path into nested mappings (``value.time``); a value that is
    missing, None, empty or not a plain value (a list, a mapping) leaves the template
    unfilled.
    """
    parts: list[str] = []
    try:
        parsed = list(_FORMATTER.parse(template))
    except ValueError:
        return None
    for literal, name, _spec, _conversion in parsed:
        parts.append(literal)
        if name is None:
            continue
        value: Any = scope
        for key in name.split("."):
            value = value.get(key) if isinstance(value, Mapping) else None
        if value is None or isinstance(value, Mapping | list | tuple | bool):
            return None
        text = _plain(value)
        if not text:
            return None
        parts.append(text)
    return "".join(parts)


def fill_first(templates: Sequence[str], scope: Mapping[str, Any]) -> str | None:
    """The first of ``templates`` that fills from ``scope``."""
    for template in templates:
        filled = fill(template, scope)
        if filled is not None:
            return filled
    return None


def _plain(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


# -- slot readers -------------------------------------------------------------------------


def _words(text: str) -> str:
    """``text`` with its whitespace collapsed and the punctuation around it stripped."""
    return " ".join(text.split()).strip(" \t.,;:!?\"'\u201c\u201d\u2018\u2019")


def _sentence(text: str) -> str:
    words = _words(text)
    if not words:
        return ""
    return words[0].upper() + words[1:] + "."


_NUMBER_WORDS: Mapping[str, int] = {
    word: value
    for value, word in enumerate(
        (
            *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
            *("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"),
            *("seventeen", "eighteen", "nineteen"),
        )
    )
}
_TENS: Mapping[str, int] = {
    word: 10 * (index + 2)
    for index, word in enumerate(
        ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
    )
}
# "half an hour", "a quarter of an hour", "a couple of minutes"
_AMOUNTS: Mapping[str, float] = {"half": 0.5, "quarter": 0.25, "couple": 2.0}
_UNITS: Mapping[str, str] = {
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "h"),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), "m"),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "s"),
}
_TOKEN = re.compile(r"\d+(?:[.,]\d+)?|[a-z]+")
_ARTICLES = frozenset({"a", "an"})


def read_duration(text: str) -> str:
    """The first length of time named in ``text``, as a compact duration; "" for none.

    "two minutes" -> "2m", "5 min" -> "5m", "90 seconds" -> "90s", "an hour and a half"
    -> "1.5h", "half an hour" -> "0.5h", "1 hour and 30 minutes" -> "1h30m", "1h30m" ->
    "1h30m", "twenty-five minutes" -> "25m". Digits and English number words up to 999.
    """
    tokens = _TOKEN.findall(text.lower())
    for start in range(len(tokens)):
        parts, _ = _duration_at(tokens, start)
        if parts:
            return "".join(f"{_plain(round(value, 3))}{unit}" for value, unit in parts)
    return ""


def _duration_at(tokens: list[str], start: int) -> tuple[list[tuple[float, str]], int]:
    """The number-and-unit parts that begin at ``tokens[start]`` ("1 hour and 30 minutes")."""
    parts: list[tuple[float, str]] = []
    position = start
    while position < len(tokens):
        part = _one_part(tokens, position)
        if part is None:
            break
        value, unit, position = part
        parts.append((value, unit))
        # "1 hour and 30 minutes", "1 hour 30 minutes", "2 minutes, 30 seconds"
        if position < len(tokens) and tokens[position] == "and":
            following = _one_part(tokens, position + 1)
            if following is None:
                break
            position += 1
    return parts, position


def _one_part(tokens: list[str], position: int) -> tuple[float, str, int] | None:
    """One "number unit" at ``position``: (value, unit, the position after it)."""
    number = _number_at(tokens, position)
    if number is None:
        return None
    value, position = number
    # "one and a half hours"
    value, position = _and_a_half(tokens, position, value)
    # "half an hour", "a quarter of an hour", "a couple of minutes"
    while position < len(tokens) and tokens[position] in {"of", "a", "an"}:
        position += 1
    if position >= len(tokens) or tokens[position] not in _UNITS:
        return None
    unit = _UNITS[tokens[position]]
    position += 1
    # "an hour and a half"
    value, position = _and_a_half(tokens, position, value)
    if value <= 0:
        return None
    return value, unit, position


def _and_a_half(tokens: list[str], position: int, value: float) -> tuple[float, int]:
    for phrase in (("and", "a", "half"), ("and", "half")):
        if tuple(tokens[position : position + len(phrase)]) == phrase:
            return value + 0.5, position + len(phrase)
    return value, position


def _number_at(tokens: list[str], position: int) -> tuple[float, int] | None:
    """A number in digits or words at ``position``: (value, the position after it)."""
    first = tokens[position]
    if first[0].isdigit():
        return float(first.replace(",", ".")), position + 1
    following = tokens[position + 1] if position + 1 < len(tokens) else ""
    if first in _ARTICLES:
        if following in _AMOUNTS:
            return _number_at(tokens, position + 1)
        return (1.0, position + 1) if following in _UNITS else None
    if first in _AMOUNTS:
        return _AMOUNTS[first], position + 1
    total = 0
    found = False
    while position < len(tokens):
        word = tokens[position]
        if word in _TENS:
            total += _TENS[word]
        elif word in _NUMBER_WORDS:
            total += _NUMBER_WORDS[word]
        elif word == "hundred" and found:
            total *= 100
        elif word == "and" and found and position + 1 < len(tokens):
            # "one hundred and twenty", not "two and a half" (that is _and_a_half's)
            if tokens[position + 1] in _TENS or tokens[position + 1] in _NUMBER_WORDS:
                position += 1
                continue
            break
        else:
            break
        found = True
        position += 1
    return (float(total), position) if found else None


SLOT_READERS: Mapping[str, Callable[[str], str]] = {
    "duration": read_duration,
    "sentence": _sentence,
    "words": _words,
}
"""How each kind of slot is read from the person's words ("" when it is not there)."""


# -- names --------------------------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def spoken_name(function_name: str) -> str:
    """A function's name as words: ``sayHello`` -> "say hello", ``get_time`` -> "get time"."""
    return " ".join(_CAMEL.sub(" ", function_name).replace("_", " ").split()).lower()
