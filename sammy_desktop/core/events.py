"""The events the agent core emits: its state, the transcript, latency, connection health.

Every event is a frozen dataclass deriving from :class:`sammy_desktop.eventbus.Event`, so
the UI bridge (``bus.subscribe(Event, ...)``) and the history writer see them all. Each one
carries what a listener needs to render it without asking the core anything back.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

from sammy_desktop.eventbus import Event
from sammy_desktop.tools.desktop.web_search import GroundingSource

__all__ = [
    "AgentState",
    "ConnectionLost",
    "ErrorKind",
    "ErrorRaised",
    "GroundingSourcesFound",
    "NoResponse",
    "Reconnected",
    "Reconnecting",
    "SessionEnded",
    "SessionStarted",
    "Speaker",
    "StateChanged",
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
_RUNNING_STATES = _CONNECTED_STATES | {AgentState.CONNECTING, AgentState.RECONNECTING}


class Speaker(enum.StrEnum):
    """Who said a transcript line."""

    USER = "user"
    ASSISTANT = "assistant"


class ErrorKind(enum.StrEnum):
    """Why the core stopped; decides what the UI offers the person."""

    AUTH = "auth"
    """The service refused the API key (close code 1008): retrying cannot help."""
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
    it shows for ``(turn_id, speaker)``. ``final`` is True once the line will not change.
    """

    speaker: Speaker
    text: str
    final: bool
    turn_id: int

    @property
    def partial(self) -> bool:
        """True while the line may still grow."""
        return not self.final


@dataclass(frozen=True, slots=True)
class TurnStats(Event):
    """What one turn cost, emitted when the assistant's answer is complete.

    Attributes:
        turn_id: the turn these numbers belong to.
        first_audio_ms: from the end of the person's speech to the first model audio, or
            None when the model answered without audio.
        tool_ms: total time spent running tools for this turn.
        tool_calls: how many tool calls the turn made.
        reconnects: reconnections that happened during the turn.
        prompt_tokens: input tokens reported by the service for the turn.
        response_tokens: output tokens reported for the turn.
        total_tokens: all tokens reported for the turn.
    """

    turn_id: int
    first_audio_ms: float | None
    tool_ms: float
    tool_calls: int
    reconnects: int
    prompt_tokens: int
    response_tokens: int
    total_tokens: int


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
    """

    resumed: bool
    attempts: int
    replayed_messages: int
    planned: bool


@dataclass(frozen=True, slots=True)
class ErrorRaised(Event):
    """Something the person must know about; ``what_to_do`` is the advice to show."""

    kind: ErrorKind
    message: str
    what_to_do: str


@dataclass(frozen=True, slots=True)
class UsageUpdated(Event):
    """Token counts from the service's usageMetadata; ``session_total`` accumulates."""

    prompt_tokens: int
    response_tokens: int
    total_tokens: int
    session_total: int


@dataclass(frozen=True, slots=True)
class SessionStarted(Event):
    """A conversation began; its history is appended to ``history_file``."""

    session_id: str
    history_file: Path | None


@dataclass(frozen=True, slots=True)
class SessionEnded(Event):
    """The conversation is over (stop, endSession, or a fatal error)."""

    reason: str
    history_file: Path | None


@dataclass(frozen=True, slots=True)
class ToolsChanged(Event):
    """The set of tools the model may use changed.

    ``applied_live`` is True when the running session was updated in place (a context
    update, no reconnection); False when the change waits for the next connection.
    """

    enabled: tuple[str, ...]
    applied_live: bool


@dataclass(frozen=True, slots=True)
class GroundingSourcesFound(Event):
    """The model grounded (part of) an answer in a Google Search; the transcript shows where.

    Emitted for each server message whose content carries grounding metadata (an exact
    repeat within the same turn is left out).

    Attributes:
        turn_id: the turn whose answer used these sources.
        sources: the web pages, in the service's order, without duplicates.
        queries: the searches the model ran.
    """

    turn_id: int
    sources: tuple[GroundingSource, ...]
    queries: tuple[str, ...]
