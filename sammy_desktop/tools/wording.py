"""How the tool system says things to people: durations, tool titles, what a call did.

Kept apart from any tool pack so that the window (which may not import the desktop pack)
and the pack's tools word the same fact the same way. Everything here is for a person's
eyes: what the model is told stays in the tool's answer, written for the model.

* :func:`title_from_name` gives a tool without a title a readable one from its function
  name (``convertUnits`` -> "Convert units");
* :func:`failure_sentence` says, per :class:`~sammy_desktop.tools.results.ToolErrorKind`,
  what went wrong in a sentence;
* :func:`default_summary` is the one line a card shows for a result no tool worded;
* :func:`argument_lines` shows a call's arguments as ``Label: value`` lines, no JSON;
* :func:`invalid_arguments_sentence` says what was wrong with a call's arguments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from sammy_desktop.tools.results import ToolErrorKind

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from sammy_desktop.tools.results import ToolResult

__all__ = [
    "argument_label",
    "argument_lines",
    "default_summary",
    "failure_sentence",
    "human_duration",
    "human_value",
    "invalid_arguments_sentence",
    "title_from_name",
]


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


# -- names as words -----------------------------------------------------------------------

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_ACRONYMS: Final = {
    "api": "API",
    "id": "ID",
    "ids": "IDs",
    "url": "URL",
    "urls": "URLs",
    "uri": "URI",
    "html": "HTML",
    "http": "HTTP",
    "pdf": "PDF",
    "ip": "IP",
}


def _words(name: str) -> list[str]:
    """``getHTTPStatus`` -> ``["get", "HTTP", "status"]``; ``convert_units`` alike."""
    words = []
    for word in _WORD.findall(name):
        lowered = word.lower()
        if lowered in _ACRONYMS:
            words.append(_ACRONYMS[lowered])
        elif len(word) > 1 and word.isupper():
            words.append(word)  # an acronym nobody listed: keep it as written
        else:
            words.append(lowered)
    return words


def _sentence_case(words: Sequence[str]) -> str:
    if not words:
        return ""
    first = words[0]
    return " ".join([first[:1].upper() + first[1:], *words[1:]])


def title_from_name(name: str) -> str:
    """A readable title for a tool that has none, from its function name.

    ``convertUnits``, ``convert_units`` and ``my.plugin:convert-units`` all become
    "Convert units"; a name with no letters at all becomes "Tool".
    """
    last = re.split(r"[.:]", name.strip())[-1] if name.strip() else ""
    return _sentence_case(_words(last)) or _sentence_case(_words(name)) or "Tool"


def argument_label(name: str, title: str | None = None) -> str:
    """How an argument is named for a person: its declared title, or words from its name."""
    if title:
        return title
    return _sentence_case(_words(name)) or name


# -- values as words ----------------------------------------------------------------------

_IDENTIFIER = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+")


def human_value(value: Any) -> str:
    """A value as plain words: text as it is, yes/no, lists joined, no braces or quotes."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, str):
        # A choice from a closed set ("technical_support") reads as words.
        return value.replace("_", " ") if _IDENTIFIER.fullmatch(value) else value
    if isinstance(value, int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, Mapping):
        parts = [
            f"{argument_label(str(key)).lower()} {human_value(item)}" for key, item in value.items()
        ]
        return "; ".join(parts) if parts else "none"
    if isinstance(value, list | tuple | set | frozenset):
        items = [human_value(item) for item in value]
        return ", ".join(items) if items else "none"
    jsonable = to_jsonable_python(value, fallback=str)
    return jsonable if isinstance(jsonable, str) else human_value(jsonable)


def argument_lines(
    arguments: Mapping[str, Any], titles: Mapping[str, str] | None = None
) -> list[str]:
    """A call's arguments as ``Label: value`` lines, in the order given.

    Args:
        arguments: the arguments (as the model sent them, or validated).
        titles: a human label per argument name, where the tool declared one.
    """
    names = titles or {}
    return [
        f"{argument_label(str(key), names.get(str(key)))}: {human_value(value)}"
        for key, value in arguments.items()
    ]


# -- what went wrong ----------------------------------------------------------------------

_FAILURE_SENTENCES: Final[dict[ToolErrorKind, str]] = {
    ToolErrorKind.MISSING_NAME: "Sammy asked for a tool without naming it, so nothing was done.",
    ToolErrorKind.MISSING_ID: "Sammy's request could not be answered, so it was not run.",
    ToolErrorKind.DUPLICATE_ID: "Sammy asked for this twice at once, so it was not run.",
    ToolErrorKind.TOO_MANY_CALLS: "Sammy asked for too much at once, so this was not run.",
    ToolErrorKind.UNKNOWN_TOOL: "Sammy asked for a tool this app does not have.",
    ToolErrorKind.DISABLED: "This tool is switched off in Settings > Tools.",
    ToolErrorKind.INVALID_ARGUMENTS: "Sammy's request was not complete, so nothing was done.",
    ToolErrorKind.DENIED: "You did not allow it.",
    ToolErrorKind.TIMEOUT: "It took too long and was stopped.",
    ToolErrorKind.HANDLER_ERROR: "The tool ran into a problem and stopped. The log file has "
    "the details.",
    ToolErrorKind.INVALID_OUTPUT: "The tool gave an answer Sammy could not use.",
    ToolErrorKind.TOOL_FAILURE: "The tool could not do it.",
    ToolErrorKind.SHUTTING_DOWN: "The app was closing, so it was not run.",
}


def failure_sentence(kind: ToolErrorKind | None) -> str:
    """What went wrong, in a sentence for the person, for a failure of ``kind``."""
    return _FAILURE_SENTENCES.get(kind or ToolErrorKind.TOOL_FAILURE, "It did not work.")


def default_summary(result: ToolResult[Any]) -> str:
    """The line shown for a result no tool worded: its ``display``, "Done", or the failure."""
    if result.display:
        return result.display
    if result.ok:
        return "Done"
    return failure_sentence(result.error_kind)


def _joined(items: Iterable[str]) -> str:
    names = list(dict.fromkeys(items))
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def invalid_arguments_sentence(
    errors: Sequence[ErrorDetails], titles: Mapping[str, str] | None = None
) -> str:
    """What was wrong with a call's arguments, from pydantic's errors, in words.

    "Sammy did not say the duration, so nothing was done." for a missing argument; "The
    duration Sammy gave could not be used, so nothing was done." for a wrong one.

    Args:
        errors: ``ValidationError.errors()`` of the input model.
        titles: a human label per argument name, where the tool declared one.
    """
    names = titles or {}
    missing: list[str] = []
    wrong: list[str] = []
    unknown = False
    for item in errors:
        location = item.get("loc", ())
        top = str(location[0]) if location else ""
        if item.get("type") == "extra_forbidden":
            unknown = True
            continue
        if not top:
            wrong.append("request")
            continue
        label = "the " + argument_label(top, names.get(top)).lower()
        (missing if item.get("type") == "missing" else wrong).append(label)
    if missing and not wrong:
        return f"Sammy did not say {_joined(missing)}, so nothing was done."
    if wrong:
        what = _joined(w for w in wrong)
        verb = "were" if len(set(wrong)) > 1 else "was"
        if what == "request":
            return failure_sentence(ToolErrorKind.INVALID_ARGUMENTS)
        return f"{what[:1].upper()}{what[1:]} Sammy gave {verb} not usable, so nothing was done."
    if unknown:
        return "Sammy asked in a way this tool does not understand, so nothing was done."
    return failure_sentence(ToolErrorKind.INVALID_ARGUMENTS)
