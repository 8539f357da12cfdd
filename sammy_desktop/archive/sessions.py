"""A session's history file read back: its summary, its lines and its tool cards, in order.

The JSON-lines files are the source of truth (:mod:`sammy_desktop.core.history` writes
them, :mod:`sammy_desktop.core.history_recorder` decides what each record holds). This
module turns one file into what a person wants to see of it:

* :class:`SessionSummary`: when it started and ended, how long it took, the first thing
  the person said, the tools used, the tokens counted and the model: a line of the list;
* :class:`Session`: the summary with every spoken line (:class:`SpokenLine`) and every tool
  call with its answers (:class:`ToolCard`), in the order they happened, for reading one
  conversation again and exporting it.

:class:`SessionTally` folds records into a summary one at a time, so the search index can
keep a summary up to date from a file's new lines alone, and the list needs no file read
again. Damaged lines are skipped and named in ``problems``; nothing here raises for what
a file contains.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

from sammy_desktop.archive.records import (
    NumberedRecord,
    int_field,
    mapping_field,
    parse_lines,
    parse_time,
    text_field,
    time_field,
)
from sammy_desktop.tools.wording import argument_lines, human_value, title_from_name

__all__ = [
    "HISTORY_SUFFIX",
    "Entry",
    "Session",
    "SessionSummary",
    "SessionTally",
    "SpokenLine",
    "ToolAnswer",
    "ToolCard",
    "ToolUse",
    "read_session",
    "readable_arguments",
    "result_summary",
    "session_from_records",
    "short_id",
    "tool_search_text",
]

_log = logging.getLogger(__name__)

HISTORY_SUFFIX: Final = ".jsonl"

# core/history.py names a file "<UTC start %Y%m%d-%H%M%S>-<session id>.jsonl".
_STEM = re.compile(r"(?P<stamp>\d{8}-\d{6})-(?P<session>.+)")

# How much of a tool's answer goes into its one-line summary.
_MAX_RESULT_SUMMARY_CHARS: Final = 2000

Speaker: TypeAlias = Literal["user", "assistant"]


def short_id(session_id: str) -> str:
    """The session's own id from its file's stem: ``20261130-091500-1a2b3c`` -> ``1a2b3c``.

    The date is already in the list beside it; what is left is short enough to type.
    """
    match = _STEM.fullmatch(session_id)
    return match["session"] if match else session_id


def _time_from_stem(session_id: str) -> datetime | None:
    match = _STEM.fullmatch(session_id)
    if match is None:
        return None
    try:
        return datetime.strptime(match["stamp"], "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def _readable(value: Any) -> Any:
    """``value`` with each withheld field (``{"withheld_chars": N}``) said in words."""
    if isinstance(value, Mapping):
        if set(value) == {"withheld_chars"}:
            return f"({value['withheld_chars']} characters, not kept)"
        return {key: _readable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_readable(item) for item in value]
    return value


def readable_arguments(arguments: Mapping[str, Any]) -> list[str]:
    """A call's arguments as ``Label: value`` lines; a withheld one says it was not kept."""
    return argument_lines(_readable(arguments))


def result_summary(response: Mapping[str, Any]) -> str:
    """A tool's recorded answer in words: its value, or "Failed: " and the problems.

    The answer is the ``response`` the model got (``{"output": {"ok": true, "value": ...}}``
    or ``{"error": {"ok": false, "problems": [...]}}``, or an MCP server's own shape), as the
    history kept it (a private field is only its length there).
    """
    response = _readable(response)
    if "error" in response:
        error = response["error"]
        problems = error.get("problems") if isinstance(error, Mapping) else error
        words = human_value(problems) if problems not in (None, "", []) else "it did not work"
        summary = f"Failed: {words}"
    else:
        output = response.get("output", response)
        if isinstance(output, Mapping) and "value" in output:
            output = output["value"]
        summary = "Done" if output in (None, "", {}, []) else human_value(output)
    if len(summary) > _MAX_RESULT_SUMMARY_CHARS:
        summary = summary[: _MAX_RESULT_SUMMARY_CHARS - 1] + "…"
    return summary


def tool_search_text(name: str, arguments: Mapping[str, Any]) -> str:
    """What a search finds a tool call by: its name, its title, its arguments as words."""
    title = title_from_name(name)
    heading = name if title.lower() == name.lower() else f"{title} ({name})"
    return "\n".join([heading, *readable_arguments(arguments)])


# ------------------------------------------------------------------ what a session holds


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A tool the session used and how many times it was called."""

    name: str
    count: int


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One conversation in the list: a history file's facts, without its lines.

    Attributes:
        id: the file's name without ``.jsonl`` (``20261130-091500-1a2b3c4d5e6f``); what
            every other call of the archive takes.
        path: the history file.
        started: when the session started (its first record; else the file's name).
        ended: its last record's time: when it ended, or so far when it has not.
        ended_reason: why it ended (``session_ended``); None while it goes on, or when the
            app stopped before it could say.
        first_said: the first thing the person said, or "" when they said nothing.
        tools: the tools called, in the order first used, each with its count.
        tokens: every token the service counted for the session (its turns' totals).
        prompt_tokens: of those, the input tokens, where the history records them.
        response_tokens: the output tokens, where the history records them.
        prompt_by_modality: the input tokens by modality (``AUDIO``, ``TEXT``), where the
            service broke them down; with the model, what a cost estimate needs
            (:func:`~sammy_desktop.config.prices.estimate_cost`).
        response_by_modality: the output tokens by modality.
        model: the Live model it ran with.
        continues: the id of the session this one continued ("Continue this
            conversation"), or None.
        spoken_lines: how many lines the person and the assistant said.
        problems: one sentence per line of the file that could not be read.
    """

    id: str
    path: Path
    started: datetime | None
    ended: datetime | None
    ended_reason: str | None
    first_said: str
    tools: tuple[ToolUse, ...]
    tokens: int
    prompt_tokens: int
    response_tokens: int
    model: str
    spoken_lines: int
    problems: tuple[str, ...] = ()
    prompt_by_modality: Mapping[str, int] = field(default_factory=dict)
    response_by_modality: Mapping[str, int] = field(default_factory=dict)
    continues: str | None = None

    @property
    def short_id(self) -> str:
        """The id without its date (see :func:`short_id`), for the command line."""
        return short_id(self.id)

    @property
    def duration(self) -> timedelta | None:
        """From the start to the last record; None when the file has no times."""
        if self.started is None or self.ended is None:
            return None
        return max(self.ended - self.started, timedelta(0))

    @property
    def tool_calls(self) -> int:
        """How many tool calls the session made."""
        return sum(use.count for use in self.tools)

    @property
    def finished(self) -> bool:
        """Whether the file says the session ended (not still going, nor cut by a crash)."""
        return self.ended_reason is not None


@dataclass(frozen=True, slots=True)
class SpokenLine:
    """A final line of the transcript, the person's or the assistant's.

    Attributes:
        line: its line in the history file (a search hit names the same line).
        at: when it was recorded.
        turn_id: the exchange it belongs to.
        speaker: ``user`` (the person) or ``assistant``.
        text: what was said.
        interrupted: the assistant was cut off by the person while saying it.
    """

    line: int
    at: datetime | None
    turn_id: int | None
    speaker: Speaker
    text: str
    interrupted: bool = False


@dataclass(frozen=True, slots=True)
class ToolAnswer:
    """One answer a tool call gave, as the history kept it."""

    at: datetime | None
    response: Mapping[str, Any]
    will_continue: bool = False

    @property
    def ok(self) -> bool:
        """False when the answer is a failure (its ``error`` key)."""
        return "error" not in self.response

    @property
    def summary(self) -> str:
        """The answer in words (:func:`result_summary`)."""
        return result_summary(self.response)


@dataclass(frozen=True, slots=True)
class ToolCard:
    """A tool call the model made, its arguments and its answers.

    Attributes:
        line: the line of the call in the history file.
        at: when the call came in.
        turn_id: the exchange it belongs to.
        call_id: the service's id for the call.
        name: the tool's function name (``getTime``, ``myserver__search``).
        arguments: the arguments as recorded (a private one is only its length).
        answers: what was sent back, oldest first (a tool that reports as it goes sends
            several); empty when none was sent.
        cancelled: the service cancelled the call, or the session dropped it, before it
            was answered.
    """

    line: int
    at: datetime | None
    turn_id: int | None
    call_id: str
    name: str
    arguments: Mapping[str, Any]
    answers: tuple[ToolAnswer, ...] = ()
    cancelled: bool = False

    @property
    def title(self) -> str:
        """The tool's name in words, as its card in the window says it ("Get time")."""
        return title_from_name(self.name)

    @property
    def argument_lines(self) -> list[str]:
        """The arguments as ``Label: value`` lines (see :func:`readable_arguments`)."""
        return readable_arguments(self.arguments)

    @property
    def result(self) -> ToolAnswer | None:
        """The last answer, or None when the call was never answered."""
        return self.answers[-1] if self.answers else None

    @property
    def result_summary(self) -> str:
        """The last answer in words; "cancelled" or "no answer" without one."""
        if self.result is not None:
            return self.result.summary
        return "cancelled" if self.cancelled else "no answer"


Entry: TypeAlias = SpokenLine | ToolCard


@dataclass(frozen=True, slots=True)
class Session:
    """One conversation read back whole: its summary and its entries in order.

    Attributes:
        summary: its line of the list.
        entries: every spoken line and tool card, in the order they happened (a tool card
            where the call came in; its answers are on it).
        problems: one sentence per line of the file that could not be read.
    """

    summary: SessionSummary
    entries: tuple[Entry, ...]
    problems: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """The session's id (its file's stem)."""
        return self.summary.id

    @property
    def lines(self) -> list[SpokenLine]:
        """Only the spoken lines."""
        return [entry for entry in self.entries if isinstance(entry, SpokenLine)]

    @property
    def tool_cards(self) -> list[ToolCard]:
        """Only the tool calls."""
        return [entry for entry in self.entries if isinstance(entry, ToolCard)]


# ------------------------------------------------------------------ folding records


@dataclass(slots=True)
class SessionTally:
    """A session's summary built one record at a time, and saved between reads.

    The search index keeps one per file (:meth:`to_json`) and adds only the file's new
    records to it, so the list of sessions stays up to date without reading files again.
    When what it counts changes, raise the index's ``SCHEMA_VERSION``: the tallies kept
    by an older index are then counted again from the files.
    """

    started: str | None = None
    last_at: str | None = None
    ended_reason: str | None = None
    model: str = ""
    first_said: str = ""
    tools: dict[str, int] = field(default_factory=dict)
    tokens: int = 0
    prompt_tokens: int = 0
    response_tokens: int = 0
    spoken_lines: int = 0
    problems: list[str] = field(default_factory=list)
    prompt_by_modality: dict[str, int] = field(default_factory=dict)
    response_by_modality: dict[str, int] = field(default_factory=dict)
    continues: str | None = None

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one record in."""
        at = record.get("at")
        if parse_time(at) is not None:
            assert isinstance(at, str)
            if self.started is None:
                self.started = at
            self.last_at = at
        kind = record.get("type")
        if kind == "session_started":
            self.model = text_field(record, "model") or self.model
            self.continues = text_field(record, "continues") or self.continues
        elif kind == "session_ended":
            self.ended_reason = text_field(record, "reason") or "ended"
        elif kind in ("user", "assistant"):
            self.spoken_lines += 1
            text = text_field(record, "text").strip()
            if kind == "user" and text and not self.first_said:
                self.first_said = text
        elif kind == "tool_call":
            name = text_field(record, "name") or "unnamed tool"
            self.tools[name] = self.tools.get(name, 0) + 1
        elif kind == "turn_stats":
            self.tokens += int_field(record, "total_tokens") or 0
            self.prompt_tokens += int_field(record, "prompt_tokens") or 0
            self.response_tokens += int_field(record, "response_tokens") or 0
            _add_counts(self.prompt_by_modality, record.get("prompt_by_modality"))
            _add_counts(self.response_by_modality, record.get("response_by_modality"))

    def summary(self, session_id: str, path: Path) -> SessionSummary:
        """The summary so far of the session ``session_id`` kept in ``path``."""
        started = parse_time(self.started) or _time_from_stem(session_id)
        return SessionSummary(
            id=session_id,
            path=path,
            started=started,
            ended=parse_time(self.last_at) or started,
            ended_reason=self.ended_reason,
            first_said=self.first_said,
            tools=tuple(ToolUse(name, count) for name, count in self.tools.items()),
            tokens=self.tokens,
            prompt_tokens=self.prompt_tokens,
            response_tokens=self.response_tokens,
            model=self.model,
            spoken_lines=self.spoken_lines,
            problems=tuple(self.problems),
            prompt_by_modality=dict(self.prompt_by_modality),
            response_by_modality=dict(self.response_by_modality),
            continues=self.continues,
        )

    def to_json(self) -> str:
        """The tally as JSON, to be kept beside the file's place in the index."""
        return json.dumps(
            {
                "started": self.started,
                "last_at": self.last_at,
                "ended_reason": self.ended_reason,
                "model": self.model,
                "first_said": self.first_said,
                "tools": self.tools,
                "tokens": self.tokens,
                "prompt_tokens": self.prompt_tokens,
                "response_tokens": self.response_tokens,
                "spoken_lines": self.spoken_lines,
                "problems": self.problems,
                "prompt_by_modality": self.prompt_by_modality,
                "response_by_modality": self.response_by_modality,
                "continues": self.continues,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> SessionTally:
        """A tally saved by :meth:`to_json`.

        Raises:
            ValueError: ``text`` is not JSON.
            TypeError: it is JSON, but not a saved tally (the file is then read again).
        """
        value = json.loads(text)
        if not isinstance(value, dict):
            raise TypeError("a tally is a JSON object")

        def optional(key: str) -> str | None:
            item = value.get(key)
            return item if isinstance(item, str) else None

        tools: dict[str, int] = {}
        _add_counts(tools, value.get("tools"))
        prompt_by_modality: dict[str, int] = {}
        _add_counts(prompt_by_modality, value.get("prompt_by_modality"))
        response_by_modality: dict[str, int] = {}
        _add_counts(response_by_modality, value.get("response_by_modality"))
        problems = value.get("problems")
        return cls(
            started=optional("started"),
            last_at=optional("last_at"),
            ended_reason=optional("ended_reason"),
            model=text_field(value, "model"),
            first_said=text_field(value, "first_said"),
            tools=tools,
            tokens=int_field(value, "tokens") or 0,
            prompt_tokens=int_field(value, "prompt_tokens") or 0,
            response_tokens=int_field(value, "response_tokens") or 0,
            spoken_lines=int_field(value, "spoken_lines") or 0,
            problems=[str(p) for p in problems] if isinstance(problems, list) else [],
            prompt_by_modality=prompt_by_modality,
            response_by_modality=response_by_modality,
            continues=optional("continues"),
        )


def _add_counts(counts: dict[str, int], more: object) -> None:
    """Add a record's ``{name: count}`` object to ``counts`` (what is not a count is left)."""
    if not isinstance(more, Mapping):
        return
    for name, count in more.items():
        if isinstance(count, int) and not isinstance(count, bool):
            counts[str(name)] = counts.get(str(name), 0) + count


@dataclass(slots=True)
class _CardDraft:
    """A tool card while its file is read: its answers and its cancellation come later."""

    line: int
    at: datetime | None
    turn_id: int | None
    call_id: str
    name: str
    arguments: dict[str, Any]
    answers: list[ToolAnswer] = field(default_factory=list)
    cancelled: bool = False

    def card(self) -> ToolCard:
        return ToolCard(
            line=self.line,
            at=self.at,
            turn_id=self.turn_id,
            call_id=self.call_id,
            name=self.name,
            arguments=self.arguments,
            answers=tuple(self.answers),
            cancelled=self.cancelled and not self.answers,
        )


class _EntriesBuilder:
    """The entries of a session from its records; a call's answers join its card."""

    def __init__(self) -> None:
        self._entries: list[SpokenLine | _CardDraft] = []
        self._calls: dict[str, _CardDraft] = {}

    def add(self, numbered: NumberedRecord) -> None:
        record = numbered.record
        kind = record.get("type")
        at = time_field(record)
        if kind in ("user", "assistant"):
            self._entries.append(
                SpokenLine(
                    line=numbered.line,
                    at=at,
                    turn_id=int_field(record, "turn_id"),
                    speaker="user" if kind == "user" else "assistant",
                    text=text_field(record, "text"),
                    interrupted=record.get("interrupted") is True,
                )
            )
        elif kind == "tool_call":
            draft = _CardDraft(
                line=numbered.line,
                at=at,
                turn_id=int_field(record, "turn_id"),
                call_id=text_field(record, "id"),
                name=text_field(record, "name") or "unnamed tool",
                arguments=mapping_field(record, "args"),
            )
            self._entries.append(draft)
            self._calls[draft.call_id] = draft
        elif kind == "tool_result":
            call_id = text_field(record, "id")
            answered = self._calls.get(call_id)
            if answered is None:  # an answer whose call is not in the file: a card of its own
                answered = _CardDraft(
                    line=numbered.line,
                    at=at,
                    turn_id=None,
                    call_id=call_id,
                    name=text_field(record, "name") or "unnamed tool",
                    arguments={},
                )
                self._entries.append(answered)
                self._calls[call_id] = answered
            answered.answers.append(
                ToolAnswer(
                    at=at,
                    response=mapping_field(record, "response"),
                    will_continue=record.get("will_continue") is True,
                )
            )
        elif kind in ("tool_calls_cancelled", "tool_calls_abandoned", "tool_result_dropped"):
            ids = record.get("ids")
            for dropped in ids if isinstance(ids, list) else ():
                if (pending := self._calls.get(str(dropped))) is not None:
                    pending.cancelled = True

    def entries(self) -> tuple[Entry, ...]:
        return tuple(
            entry if isinstance(entry, SpokenLine) else entry.card() for entry in self._entries
        )


def session_from_records(
    session_id: str, path: Path, records: Iterable[NumberedRecord], problems: Iterable[str] = ()
) -> Session:
    """A session from its numbered records (what :func:`read_session` parses)."""
    tally = SessionTally(problems=list(problems))
    builder = _EntriesBuilder()
    for numbered in records:
        tally.add(numbered.record)
        builder.add(numbered)
    summary = tally.summary(session_id, path)
    return Session(summary=summary, entries=builder.entries(), problems=summary.problems)


def read_session(path: Path) -> Session:
    """Read a history file whole: its summary, its lines and tool cards, its problems.

    A damaged line is skipped and named in ``problems``; a last line cut short (the app
    stopped in the middle of writing it, or is writing it now) is skipped quietly.

    Raises:
        OSError: the file cannot be read.
    """
    data = path.read_bytes()
    parsed = parse_lines(data, first_line=1, file_name=path.name)
    if parsed.cut_short:
        _log.info("the last line of %s is not whole yet (or was cut short); left out", path)
    return session_from_records(path.stem, path, parsed.records, parsed.problems)
