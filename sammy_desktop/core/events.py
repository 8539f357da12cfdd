"""The events the agent core emits: its state, the transcript, latency, connection health.

Every event is a frozen dataclass deriving from :class:`sammy_desktop.eventbus.Event`, so
the UI bridge (``bus.subscribe(Event, ...)``) and the history recorder
(:class:`~sammy_desktop.core.history_recorder.HistoryRecorder`) see them all. Each one
carries what a listener needs to render or record it without asking the core anything back.
The events at the bottom exist mainly for the history: facts the window does not show.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sammy_desktop.core.grounding import GroundingSource
from sammy_desktop.eventbus import Event

__all__ = [
    "END_SESSION_DEFAULT_REASON",
    "AgentState",
    "AnnouncementsDelivered",
    "AnswerInterrupted",
    "AnswerStopped",
    "CodeExecuted",
    "ConnectionLost",
    "ConnectionResting",
    "ConnectionWaking",
    "ErrorKind",
    "ErrorRaised",
    "GoAwayReceived",
    "GroundingSourcesFound",
    "NoResponse",
    "Reconnected",
    "Reconnecting",
    "ResumptionRefused",
    "ScreenShared",
    "ScreenSharingChanged",
    "SentToolAnswer",
    "SessionEnded",
    "SessionStarted",
    "SettingsApplied",
    "Speaker",
    "StateChanged",
    "TalkModeChanged",
    "ToolAnswersDropped",
    "ToolAnswersSent",
    "ToolCallsAbandoned",
    "ToolCallsCancelled",
    "ToolCallsReceived",
    "ToolsChanged",
    "TranscriptUpdated",
    "TurnStats",
    "UsageUpdated",
]


class AgentState(enum.StrEnum):
    """Where the conversation stands; the UI shows exactly one of these at a time."""

    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    READY = "ready"
    USER_SPEAKING = "user_speaking"
    THINKING = "thinking"
    ASSISTANT_SPEAKING = "assistant_speaking"
    RECONNECTING = "reconnecting"
    RESTING = "resting"
    """The session goes on without a connection after a quiet stretch; input wakes it."""
    ERROR = "error"
    ENDED = "ended"

    @property
    def is_connected(self) -> bool:
        """A connection is up: the conversation can take speech and text now."""
        return self in _CONNECTED_STATES

    @property
    def is_running(self) -> bool:
        """A session exists: connected, or on its way to a connection."""
        return self in _RUNNING_STATES


_CONNECTED_STATES = frozenset(
    {
        AgentState.READY,
        AgentState.USER_SPEAKING,
        AgentState.THINKING,
        AgentState.ASSISTANT_SPEAKING,
    }
)
_RUNNING_STATES = _CONNECTED_STATES | {
    AgentState.CONNECTING,
    AgentState.RECONNECTING,
    AgentState.RESTING,
}


class Speaker(enum.StrEnum):
    """Who said a transcript line."""

    USER = "user"
    ASSISTANT = "assistant"


class ErrorKind(enum.StrEnum):
    """Why the core stopped; decides what the UI offers the person."""

    AUTH = "auth"
    """The service refused the API key (or there is none): retrying cannot help."""
    MODEL = "model"
    """The chosen model is not available to this key on this API version."""
    QUOTA = "quota"
    """The key's quota is used up."""
    CONNECTION = "connection"
    """The service could not be reached or kept dropping the connection."""
    CONFIGURATION = "configuration"
    """The service rejected the session setup (model, voice, language...)."""
    INTERNAL = "internal"
    """A bug in this app; the log has the details."""


@dataclass(frozen=True, slots=True)
class StateChanged(Event):
    """The agent moved from ``old`` to ``new``; ``reason`` says why, for the log and tooltips."""

    old: AgentState
    new: AgentState
    reason: str = ""


@dataclass(frozen=True, slots=True)
class TranscriptUpdated(Event):
    """A transcript line grew or was completed.

    ``text`` is the whole line so far (not the delta), so a listener can simply replace what
    it shows for ``(turn_id, speaker)``. ``final`` is True once the line will not change;
    ``interrupted`` is True on a final assistant line that was cut off (a barge-in, a stop,
    a session that ended mid-answer).
    """

    speaker: Speaker
    text: str
    final: bool
    turn_id: int
    interrupted: bool = False

    @property
    def partial(self) -> bool:
        """True while the line may still grow."""
        return not self.final


@dataclass(frozen=True, slots=True)
class TurnStats(Event):
    """What one turn cost, emitted when the assistant's answer is complete.

    Attributes:
        turn_id: the turn these numbers belong to.
        first_audio_ms: from the end of the person's speech to the first model audio of the
            turn, less the time the model waited for tools (and the person's approvals); None
            for a turn without speech (typed) or without audio, and when the audio came
            before the speech ended (leftovers of a cut answer).
        tool_ms: total time spent running tools for this turn.
        tool_calls: how many tool calls the turn made.
        reconnects: reconnections that happened during the turn.
        prompt_tokens: input tokens reported by the service for the turn.
        response_tokens: output tokens reported for the turn.
        total_tokens: all tokens reported for the turn.
        prompt_by_modality: the input tokens by modality (``AUDIO``, ``TEXT``...) where the
            service's ``promptTokensDetails`` gave them; empty where it did not.
        response_by_modality: the output tokens by modality (``responseTokensDetails``).
    """

    turn_id: int
    first_audio_ms: float | None
    tool_ms: float
    tool_calls: int
    reconnects: int
    prompt_tokens: int
    response_tokens: int
    total_tokens: int
    prompt_by_modality: Mapping[str, int] = field(default_factory=dict)
    response_by_modality: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NoResponse(Event):
    """The service said nothing for ``waited_s`` seconds after the person finished.

    ``nudged`` is True when the core has sent one nudge asking for an answer; a second
    NoResponse with ``gave_up`` True means the core returned to Ready without an answer.
    """

    turn_id: int
    waited_s: float
    nudged: bool
    gave_up: bool


@dataclass(frozen=True, slots=True)
class ConnectionLost(Event):
    """The connection closed unexpectedly; ``code`` is the websocket close code if known."""

    code: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Reconnecting(Event):
    """A reconnection attempt starts after ``delay_s`` seconds (attempt 1 is the first)."""

    attempt: int
    max_attempts: int
    delay_s: float
    reason: str


@dataclass(frozen=True, slots=True)
class Reconnected(Event):
    """The conversation continues on a new connection.

    Attributes:
        resumed: True when the service restored the conversation from a resumption handle;
            False when a fresh session had to be started (the transcript so far is then
            given to the model as context).
        attempts: how many attempts it took.
        replayed_messages: realtime inputs re-sent because the service may not have seen
            them, plus those buffered while disconnected.
        planned: True for a reconnection the service asked for (goAway).
        dropped_audio_bytes: microphone audio lost because the buffer was full meanwhile.
    """

    resumed: bool
    attempts: int
    replayed_messages: int
    planned: bool
    dropped_audio_bytes: int = 0


@dataclass(frozen=True, slots=True)
class ConnectionResting(Event):
    """After a quiet stretch the connection was closed on purpose, keeping the handle.

    The session goes on (state Resting): the next input reconnects, resuming.

    Attributes:
        quiet_s: how long nobody had talked.
    """

    quiet_s: float


@dataclass(frozen=True, slots=True)
class ConnectionWaking(Event):
    """Something needs the model while resting: the connection is being made again.

    Attributes:
        woken_by: what came in (``activity_start``, ``text``...: the first input's kind).
    """

    woken_by: str


@dataclass(frozen=True, slots=True)
class ErrorRaised(Event):
    """Something the person must know about; ``what_to_do`` is the advice to show."""

    kind: ErrorKind
    message: str
    what_to_do: str


@dataclass(frozen=True, slots=True)
class UsageUpdated(Event):
    """Token counts from one usageMetadata of the service; ``session_total`` accumulates.

    The Live API bills each turn's whole context again (field reports, docs/live-service.md
    R4): what a session costs is the sum of these, not the last one.
    """

    prompt_tokens: int
    response_tokens: int
    total_tokens: int
    session_total: int
    turn_id: int = 0
    prompt_by_modality: Mapping[str, int] = field(default_factory=dict)
    response_by_modality: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SessionStarted(Event):
    """A conversation began; its history is appended to ``history_file``.

    The rest is what the conversation was set up with, as the history records it.
    """

    session_id: str
    history_file: Path | None
    model: str = ""
    talk_mode: str = ""
    voice: str = ""
    language: str = ""
    continues: str | None = None


@dataclass(frozen=True, slots=True)
class SessionEnded(Event):
    """The conversation is over (stop, endSession, or a fatal error)."""

    reason: str
    history_file: Path | None


@dataclass(frozen=True, slots=True)
class ToolsChanged(Event):
    """The set of tools the model may use changed.

    ``applied_live`` is True when the running session was updated in place (a context
    update, no reconnection); ``after_this_answer`` when the running conversation takes it
    by reconnecting quietly (resuming) at its next quiet moment; both False when the change
    waits for the next connection. ``tool`` and ``tool_enabled`` name the switch that changed
    it, when it was one tool's; ``source`` names where tools came or went at run time (an MCP
    server started or changed its tools).
    """

    enabled: tuple[str, ...]
    applied_live: bool
    tool: str | None = None
    tool_enabled: bool | None = None
    after_this_answer: bool = False
    source: str | None = None


@dataclass(frozen=True, slots=True)
class GroundingSourcesFound(Event):
    """The model grounded (part of) an answer in a Google Search; the transcript shows where.

    Emitted for each server message whose content carries grounding metadata (an exact
    repeat within the same turn is left out).

    Attributes:
        turn_id: the turn whose answer used these sources.
        sources: the web pages, in the service's order, without duplicates.
        queries: the searches the model ran: the Search Suggestions the window shows.
        search_entry_point: the service's Search Suggestions snippet (HTML), when sent.
    """

    turn_id: int
    sources: tuple[GroundingSource, ...]
    queries: tuple[str, ...]
    search_entry_point: str | None = None


END_SESSION_DEFAULT_REASON = "the assistant ended the session"
"""Why the session ended when ``endSession`` gave no reason."""


# ---------------------------------------------------------------- mainly for the history


@dataclass(frozen=True, slots=True)
class ToolCallsReceived(Event):
    """The service asked for tool calls (one ``toolCall`` message).

    Attributes:
        turn_id: the turn the calls belong to.
        calls: ``(id, name, arguments)`` of each call, as sent.
    """

    turn_id: int
    calls: tuple[tuple[str, str, Mapping[str, Any]], ...]


@dataclass(frozen=True, slots=True)
class SentToolAnswer:
    """One function response as it went to the service."""

    call_id: str
    name: str
    response: Mapping[str, Any]
    will_continue: bool


@dataclass(frozen=True, slots=True)
class ToolAnswersSent(Event):
    """Tool answers went to the service."""

    answers: tuple[SentToolAnswer, ...]


@dataclass(frozen=True, slots=True)
class ToolAnswersDropped(Event):
    """Tool answers were not sent; ``reason`` says why (their connection had closed)."""

    ids: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class ToolCallsCancelled(Event):
    """The service cancelled tool calls (``toolCallCancellation``); nothing is sent for them."""

    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ToolCallsAbandoned(Event):
    """The connection closed with these calls unanswered; they were cancelled.

    A resumed session asks again if it still needs them.
    """

    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AnswerInterrupted(Event):
    """The service said the answer of ``turn_id`` was interrupted (barge-in)."""

    turn_id: int


@dataclass(frozen=True, slots=True)
class AnswerStopped(Event):
    """The person silenced the answer of ``turn_id``: nothing more of it is played.

    Esc or the tray's Stop speaking; a talk press over the answer cuts it too.

    Attributes:
        turn_id: the turn whose answer was stopped.
        service_told: the service was asked to stop generating too (push-to-talk sends it
            an activityStart, the interruption it understands; hands-free has no such
            signal, so the rest of the answer is dropped as it arrives).
    """

    turn_id: int
    service_told: bool


@dataclass(frozen=True, slots=True)
class GoAwayReceived(Event):
    """The service will close the connection in ``time_left_s`` seconds."""

    time_left_s: float


@dataclass(frozen=True, slots=True)
class ResumptionRefused(Event):
    """The service refused the resumption handle; a fresh session is started instead."""

    code: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class AnnouncementsDelivered(Event):
    """Notices the model must say out loud (a timer ended) were sent to it.

    Attributes:
        texts: each notice as written by its source (without the core's framing).
        sources: who asked, in the same order (``Timer``).
    """

    texts: tuple[str, ...]
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TalkModeChanged(Event):
    """Push-to-talk or hands-free was switched for the running conversation."""

    talk_mode: str


@dataclass(frozen=True, slots=True)
class SettingsApplied(Event):
    """Settings the session depends on changed.

    Attributes:
        fields: the settings that changed (``tools`` for Google Search and the like).
        applied_live: True when the running session took them in place; False when they
            wait for a reconnection at the next quiet moment.
    """

    fields: tuple[str, ...]
    applied_live: bool


@dataclass(frozen=True, slots=True)
class CodeExecuted(Event):
    """The model ran code on the service's side (``executableCode`` and its result).

    Emitted for each ``executableCode`` part, then again with the outcome when its
    ``codeExecutionResult`` arrives (same ``code_id`` when the service gives one).

    Attributes:
        turn_id: the turn the code belongs to.
        code: the code the model wrote.
        language: its language (``PYTHON``).
        outcome: ``OUTCOME_OK``, ``OUTCOME_FAILED``, ``OUTCOME_DEADLINE_EXCEEDED``, or None
            while it runs.
        output: what it printed, or the error.
        code_id: the service's id linking the code to its result, when it gives one.
    """

    turn_id: int
    code: str
    language: str
    outcome: str | None = None
    output: str = ""
    code_id: str | None = None


@dataclass(frozen=True, slots=True)
class ScreenSharingChanged(Event):
    """The window started or stopped sharing the screen with the assistant.

    Attributes:
        active: whether the screen is shared now.
        source: what is shared ("Screen 1", a window's title), as the window named it.
    """

    active: bool
    source: str


@dataclass(frozen=True, slots=True)
class ScreenShared(Event):
    """How much of the screen a sharing sent (the history's one record of it).

    Emitted when a sharing stops, or when the session ends while one goes on. Never the
    pictures themselves: only how many went out and the size of the last.

    Attributes:
        frames: frames that went to the service.
        width: the last frame's width in pixels (0 when none went).
        height: its height.
        seconds: how long the sharing lasted (in this session).
        source: what was shared, as the window named it.
    """

    frames: int
    width: int
    height: int
    seconds: float
    source: str
