"""A conversation, or what a search found, as Markdown, plain text or JSON.

Exports are for keeping and sharing outside the app, so they hold everything the history
does of a session: every spoken line with its time, every tool call with its arguments,
its answers (in words in Markdown and text; as recorded in JSON) and whether it was
cancelled, and the session's facts (start, end, length, model, tokens, tools). What the
history withheld (a private field kept as its length) stays withheld here.

Plain text is also what "Copy" puts on the clipboard (:func:`copy_text`). JSON is for
programs: the times are ISO 8601 as recorded (UTC), the answers as the model got them, and
``format``/``version`` say what the document is. Markdown and text say times on the
person's clock.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import tzinfo
from typing import Any, Final

from sammy_desktop.archive.formats import EXPORT_FORMATS, ExportFormat
from sammy_desktop.archive.index import SearchHit
from sammy_desktop.archive.sessions import (
    Session,
    SessionSummary,
    SpokenLine,
    ToolCard,
    short_id,
)
from sammy_desktop.archive.wording import (
    count_words,
    long_duration,
    on_clock,
    speaker_name,
)

__all__ = [
    "EXPORT_FORMATS",
    "ExportFormat",
    "copy_text",
    "export_hits",
    "export_session",
]


_JSON_VERSION: Final = 1
_CLOCK: Final = "%H:%M:%S"
_DAY_AND_CLOCK: Final = "%Y-%m-%d %H:%M:%S"
_INDENT: Final = "    "

# Characters Markdown would read as formatting in a person's words.
_MARKDOWN_SPECIAL: Final = re.compile(r"([\\`*_\[\]<>#|~])")


def export_session(session: Session, fmt: ExportFormat, *, tz: tzinfo | None = None) -> str:
    """The whole conversation in ``fmt``; ``tz`` is the clock times are said on (md, txt).

    Raises:
        ValueError: ``fmt`` is not one of :data:`EXPORT_FORMATS`.
    """
    if fmt == "json":
        return _session_json(session)
    if fmt == "md":
        return _session_markdown(session, tz)
    if fmt == "txt":
        return _session_text(session, tz)
    raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(EXPORT_FORMATS)}")


def copy_text(session: Session, *, tz: tzinfo | None = None) -> str:
    """What "Copy" puts on the clipboard: the plain-text export."""
    return export_session(session, "txt", tz=tz)


def export_hits(
    hits: Sequence[SearchHit], query: str, fmt: ExportFormat, *, tz: tzinfo | None = None
) -> str:
    """What a search for ``query`` found, in ``fmt``, best match first.

    Raises:
        ValueError: ``fmt`` is not one of :data:`EXPORT_FORMATS`.
    """
    if fmt == "json":
        document = {
            "format": "sammy-desktop search",
            "version": _JSON_VERSION,
            "query": query,
            "hits": [_hit_json(hit) for hit in hits],
        }
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    if fmt not in ("md", "txt"):
        raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(EXPORT_FORMATS)}")
    found = count_words(len(hits), "match", "matches")
    heading = f"{found[0].upper()}{found[1:]} for “{query}”"
    if fmt == "md":
        lines = [f"# {_md(heading)}", ""]
        lines += [f"- {_md(_hit_place(hit, tz))}: {_md_marked(hit)}" for hit in hits]
        return "\n".join(lines) + "\n"
    lines = [f"{heading}:" if hits else heading]
    lines += [f"{_hit_place(hit, tz)}: {_one_line(hit.marked())}" for hit in hits]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ the facts of a session


def _said_by(hit: SearchHit) -> str:
    if hit.speaker == "tool":
        return f"Tool {hit.tool_name or ''}".rstrip()
    return speaker_name(hit.speaker)


def _hit_place(hit: SearchHit, tz: tzinfo | None) -> str:
    """Where a hit is: when, the session (its short id), the turn, who said it."""
    turn = f"  turn {hit.turn_id}" if hit.turn_id is not None else ""
    return f"{on_clock(hit.at, tz)}  {short_id(hit.session_id)}{turn}  {_said_by(hit)}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _facts(summary: SessionSummary, tz: tzinfo | None) -> list[tuple[str, str]]:
    """The session's facts as (label, words) pairs, shared by Markdown and text."""
    last = on_clock(summary.ended, tz, _DAY_AND_CLOCK)
    ending = (
        f"{last} ({summary.ended_reason})"
        if summary.finished
        else f"not recorded (last line {last})"
    )
    tools = ", ".join(
        use.name if use.count == 1 else f"{use.name} ({use.count} calls)" for use in summary.tools
    )
    tokens = count_words(summary.tokens, "token")
    if summary.prompt_tokens or summary.response_tokens:
        tokens += f" ({summary.prompt_tokens:,} in, {summary.response_tokens:,} out)"
    facts = [
        ("Session", summary.id),
        ("Started", on_clock(summary.started, tz, _DAY_AND_CLOCK + " %z")),
        ("Ended", ending),
        ("Length", long_duration(summary.duration)),
        ("Model", summary.model or "not recorded"),
        ("Tokens", tokens),
        ("Tools", tools or "none"),
    ]
    if summary.continues:
        facts.append(("Continues", summary.continues))
    return facts


def _title(summary: SessionSummary, tz: tzinfo | None) -> str:
    return f"Conversation of {on_clock(summary.started, tz)}"


def _answer_lines(card: ToolCard) -> list[str]:
    """A card's arguments and answers as ``Label: value`` lines."""
    lines = list(card.argument_lines)
    if not card.answers:
        lines.append("Result: cancelled" if card.cancelled else "Result: no answer")
    for answer in card.answers:
        label = "Progress" if answer.will_continue else "Result"
        lines.append(f"{label}: {answer.summary}")
    return lines


# ------------------------------------------------------------------ plain text


def _session_text(session: Session, tz: tzinfo | None) -> str:
    summary = session.summary
    out = [_title(summary, tz), ""]
    out += [f"{label}: {words}" for label, words in _facts(summary, tz)]
    out.append("")
    for entry in session.entries:
        at = on_clock(entry.at, tz, _CLOCK)
        if isinstance(entry, SpokenLine):
            cut = " (interrupted)" if entry.interrupted else ""
            out.append(f"[{at}] {speaker_name(entry.speaker)}{cut}: {_indented(entry.text)}")
        else:
            out.append(f"[{at}] Tool: {entry.title} ({entry.name})")
            out += [f"{_INDENT}{_indented(line)}" for line in _answer_lines(entry)]
    out += _problems_text(session.problems)
    return "\n".join(out) + "\n"


def _indented(text: str) -> str:
    """A text's later lines indented, so each entry still starts its own line."""
    return text.strip().replace("\n", "\n" + _INDENT)


def _problems_text(problems: Sequence[str]) -> list[str]:
    if not problems:
        return []
    return ["", "Not shown:", *(f"- {problem}" for problem in problems)]


# ------------------------------------------------------------------ Markdown


def _md(text: str) -> str:
    """A person's or a tool's words as Markdown shows them: as written, never formatting."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", text.strip())
    # A line starting "-", "+" or "1." would become a list item.
    escaped = re.sub(r"(?m)^(\s*)([-+])(\s)", r"\1\\\2\3", escaped)
    escaped = re.sub(r"(?m)^(\s*\d+)\.(\s)", r"\1\\.\2", escaped)
    return escaped.replace("\n", "  \n")


def _md_marked(hit: SearchHit) -> str:
    """A hit's snippet on one line, its matched words in bold."""
    pieces = [_MARKDOWN_SPECIAL.sub(r"\\\1", part.text) for part in hit.snippet]
    marked = "".join(
        f"**{piece}**" if part.matched else piece
        for part, piece in zip(hit.snippet, pieces, strict=True)
    )
    return _one_line(marked)


def _session_markdown(session: Session, tz: tzinfo | None) -> str:
    summary = session.summary
    out = [f"# {_title(summary, tz)}", ""]
    out += [f"- **{label}:** {_md(words)}" for label, words in _facts(summary, tz)]
    out.append("")
    for entry in session.entries:
        at = on_clock(entry.at, tz, _CLOCK)
        if isinstance(entry, SpokenLine):
            cut = " (interrupted)" if entry.interrupted else ""
            out += [f"**{speaker_name(entry.speaker)}** · {at}{cut}  ", _md(entry.text), ""]
        else:
            out.append(f"**Tool: {_md(entry.title)}** (`{entry.name}`) · {at}  ")
            out += [f"- {_md(line)}" for line in _answer_lines(entry)]
            out.append("")
    if session.problems:
        out += ["## Not shown", ""]
        out += [f"- {_md(problem)}" for problem in session.problems]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# ------------------------------------------------------------------ JSON


def _time_json(moment: Any) -> str | None:
    return None if moment is None else moment.isoformat()


def _summary_json(summary: SessionSummary) -> dict[str, Any]:
    duration = summary.duration
    return {
        "id": summary.id,
        "started": _time_json(summary.started),
        "ended": _time_json(summary.ended),
        "ended_reason": summary.ended_reason,
        "duration_s": None if duration is None else duration.total_seconds(),
        "model": summary.model,
        "first_said": summary.first_said,
        "spoken_lines": summary.spoken_lines,
        "tokens": summary.tokens,
        "prompt_tokens": summary.prompt_tokens,
        "response_tokens": summary.response_tokens,
        "prompt_by_modality": dict(summary.prompt_by_modality),
        "response_by_modality": dict(summary.response_by_modality),
        "continues": summary.continues,
        "tools": [{"name": use.name, "count": use.count} for use in summary.tools],
    }


def _entry_json(entry: SpokenLine | ToolCard) -> dict[str, Any]:
    if isinstance(entry, SpokenLine):
        return {
            "type": entry.speaker,
            "line": entry.line,
            "at": _time_json(entry.at),
            "turn_id": entry.turn_id,
            "text": entry.text,
            "interrupted": entry.interrupted,
        }
    return {
        "type": "tool_call",
        "line": entry.line,
        "at": _time_json(entry.at),
        "turn_id": entry.turn_id,
        "call_id": entry.call_id,
        "name": entry.name,
        "title": entry.title,
        "arguments": dict(entry.arguments),
        "answers": [
            {
                "at": _time_json(answer.at),
                "ok": answer.ok,
                "summary": answer.summary,
                "response": dict(answer.response),
                "will_continue": answer.will_continue,
            }
            for answer in entry.answers
        ],
        "cancelled": entry.cancelled,
    }


def _session_json(session: Session) -> str:
    document = {
        "format": "sammy-desktop conversation",
        "version": _JSON_VERSION,
        "session": _summary_json(session.summary),
        "entries": [_entry_json(entry) for entry in session.entries],
        "problems": list(session.problems),
    }
    return json.dumps(document, ensure_ascii=False, indent=2, default=str) + "\n"


def _hit_json(hit: SearchHit) -> dict[str, Any]:
    return {
        "session_id": hit.session_id,
        "line": hit.line,
        "turn_id": hit.turn_id,
        "speaker": hit.speaker,
        "tool_name": hit.tool_name,
        "at": _time_json(hit.at),
        "snippet": hit.marked(),
        "text": hit.text,
        "matched": hit.matched_words,
        "relevance": hit.relevance,
    }
