"""Events the tool layer publishes on the :class:`~sammy_desktop.eventbus.EventBus`.

Every call ends in exactly one of :class:`ToolCallFinished` (a success),
:class:`ToolCallFailed` (any failure, including one the tool reported itself) or
:class:`ToolCallCancelled` (the server cancelled it, or the app is closing), after one
:class:`ToolCallStarted`. The UI turns these into Qt signals; the history writer records them.
The built-in tools add their own events at the bottom.

What the window shows of a call comes on the events in words for the person: the tool's
``title`` ("Open a web page") and, once it has ended, a one-line ``summary`` ("Opened
wikipedia.org", "You did not allow it"). An event built without them still reads well: the
title is made from the name, the summary from the result (see
:mod:`~sammy_desktop.tools.wording`). ``model_output`` and ``problems`` are what the model
was told, for the history and the tests, never for the window.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sammy_desktop.eventbus import Event
from sammy_desktop.tools.results import ToolErrorKind, ToolResult
from sammy_desktop.tools.wording import default_summary, failure_sentence, title_from_name

__all__ = [
    "AnnouncementPending",
    "ConfirmationRequested",
    "ConfirmationResolved",
    "ContextShared",
    "EndSessionRequested",
    "EscalationRaised",
    "HistoryEvent",
    "ToolCallCancelled",
    "ToolCallFailed",
    "ToolCallFinished",
    "ToolCallProgress",
    "ToolCallStarted",
    "ToolEnabledChanged",
    "ToolSetChanged",
]


@dataclass(frozen=True, slots=True)
class ToolCallStarted(Event):
    """The model called a tool; emitted before anything is checked.

    Attributes:
        call_id: the function call id ("" when the server sent none).
        name: the function name as sent ("" when missing).
        arguments: the raw arguments as sent.
        title: the tool's title for the person (made from ``name`` when not given).
    """

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    title: str = ""

    def __post_init__(self) -> None:
        _fill_title(self)


@dataclass(frozen=True, slots=True)
class ToolCallProgress(Event):
    """A NON_BLOCKING streaming tool sent an intermediate answer (``will_continue``)."""

    call_id: str
    name: str
    result: ToolResult[Any]
    model_output: Mapping[str, Any]
    title: str = ""
    summary: str = ""
    """What this step did, in a line for the person."""

    def __post_init__(self) -> None:
        _fill_title(self)
        _fill_summary(self, self.result)


@dataclass(frozen=True, slots=True)
class ToolCallFinished(Event):
    """A call succeeded.

    Attributes:
        call_id: the function call id.
        name: the tool's name.
        result: the full result (``result.ok`` is True), for the UI.
        model_output: exactly the ``response`` object sent to the model.
        duration_s: from the call's arrival to its answer, in seconds.
        title: the tool's title for the person.
        summary: what the call did, in a line for the person ("Timer for 5 minutes set").
    """

    call_id: str
    name: str
    result: ToolResult[Any]
    model_output: Mapping[str, Any]
    duration_s: float
    title: str = ""
    summary: str = ""

    def __post_init__(self) -> None:
        _fill_title(self)
        _fill_summary(self, self.result)


@dataclass(frozen=True, slots=True)
class ToolCallFailed(Event):
    """A call failed; the model was told why (unless ``kind`` is ``MISSING_ID``).

    Attributes:
        call_id: the function call id ("" when the server sent none).
        name: the function name as sent.
        kind: why it failed.
        problems: the sentences the model was given (written for the model: not shown).
        duration_s: from the call's arrival to its answer, in seconds.
        result: the failure result.
        model_output: exactly the ``response`` object sent to the model (empty when nothing
            could be sent).
        title: the tool's title for the person.
        summary: what went wrong, in a sentence for the person ("You did not allow it"):
            the tool's own words, or the failure's kind in words.
    """

    call_id: str
    name: str
    kind: ToolErrorKind
    problems: tuple[str, ...]
    duration_s: float
    result: ToolResult[Any]
    model_output: Mapping[str, Any]
    title: str = ""
    summary: str = ""

    def __post_init__(self) -> None:
        _fill_title(self)
        if not self.summary:
            words = self.result.display or failure_sentence(self.kind)
            object.__setattr__(self, "summary", words)


@dataclass(frozen=True, slots=True)
class ToolCallCancelled(Event):
    """A call was cancelled (server ``toolCallCancellation`` or shutdown); nothing was sent."""

    call_id: str
    name: str
    title: str = ""

    def __post_init__(self) -> None:
        _fill_title(self)


@dataclass(frozen=True, slots=True)
class ConfirmationRequested(Event):
    """A tool asks the person before it runs; the UI shows the question."""

    call_id: str
    name: str
    prompt: str
    arguments: Mapping[str, Any]
    timeout_s: float
    target: str | None = None
    """What an "always this session" yes would cover besides the tool (a site, an app)."""
    token: str = ""
    """The question's own key (:attr:`~sammy_desktop.tools.context.ConfirmationRequest.token`)."""
    title: str = ""
    """The tool's title for the person (made from ``name`` when not given)."""

    def __post_init__(self) -> None:
        _fill_title(self)


@dataclass(frozen=True, slots=True)
class ConfirmationResolved(Event):
    """The person's answer arrived, or the question timed out.

    Attributes:
        call_id: the call that asked.
        approved: True only for an explicit yes in time.
        reason: ``approved``, ``denied``, ``timed out``, ``no confirmation available`` or
            ``confirmation failed``.
        name: the tool that asked.
    """

    call_id: str
    approved: bool
    reason: str
    name: str = ""


@dataclass(frozen=True, slots=True)
class ToolEnabledChanged(Event):
    """A tool was switched on or off at run time; the core re-declares the tools."""

    name: str
    enabled: bool


@dataclass(frozen=True, slots=True)
class ToolSetChanged(Event):
    """Tools came or went at run time (an MCP server started, or changed its tools).

    The core declares the new set to a running conversation the way a switch is.

    Attributes:
        source: where they come from ("MCP server time").
        added: the names declared now that were not before.
        removed: the names no longer declared.
    """

    source: str
    added: tuple[str, ...]
    removed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HistoryEvent(Event):
    """An event a tool pack wants in the conversation history; it says how to record it.

    The history recorder (in the core, which knows no pack) writes
    :meth:`history_record` of every event of this kind while a session is open.
    """

    def history_record(self) -> tuple[str, Mapping[str, Any]]:
        """The record's type and its fields (plain JSON values)."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class AnnouncementPending(Event):
    """Something the model must tell the person at the next quiet moment (a timer ended).

    Any tool may emit it. The agent core keeps it until the conversation is Ready and
    nobody talks, then sends it to the model as ``({source} notice: {text})``, once. It is
    not a transcript line.

    Attributes:
        text: what the model is told, written for the model (one or two sentences).
        source: who asks, in a word (``Timer``); it frames the notice.
    """

    text: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class EndSessionRequested(Event):
    """``endSession`` was confirmed.

    Emitted while the call runs, before its answer is sent: the core saves the conversation
    and closes the session once ``ToolManager.handle`` has returned (the answer is out).
    """

    reason: str
    call_id: str = ""


@dataclass(frozen=True, slots=True)
class ContextShared(Event):
    """``getCurrentContext`` answered; this is what the model learnt and what it did not.

    Attributes:
        call_id: the call that asked.
        shared: exactly the value sent to the model.
        withheld: names of the privacy switches that held something back.
        reason: why the model asked, in its own words.
    """

    call_id: str
    shared: Mapping[str, Any]
    withheld: tuple[str, ...]
    reason: str = ""


@dataclass(frozen=True, slots=True)
class EscalationRaised(Event):
    """``escalate`` saved a record for human review.

    Attributes:
        record_id: the record's id, also told to the model and the person.
        record_path: the JSON file written.
        channel_opened: the support URL opened, None when none was (not configured, no UI,
            or the system refused).
        call_id: the call that escalated.
        reason: why the model escalated.
        category: the escalation category.
        urgency: ``low``, ``medium`` or ``high``.
    """

    record_id: str
    record_path: Path
    channel_opened: str | None
    call_id: str = ""
    reason: str = ""
    category: str = ""
    urgency: str = ""


def _fill_title(event: Any) -> None:
    """An event built without a title gets a readable one from the tool's name."""
    if not event.title:
        object.__setattr__(event, "title", title_from_name(event.name))


def _fill_summary(event: Any, result: ToolResult[Any]) -> None:
    if not event.summary:
        object.__setattr__(event, "summary", default_summary(result))
