"""Triggers: which client input fires the next turn of a scenario.

The connection turns what the client sends into an :class:`InputSignal` (push-to-talk
released, the hands-free microphone paused, the end of speech the energy VAD heard, typed
text, an answer to function calls, a timer running out) and offers it to the next turn's
trigger; the turn plays when the trigger's ``matches`` says yes. :data:`TRIGGER_TYPES`
names each trigger in the JSON scenario format (:mod:`sammy_desktop.sim.scenario_json`);
``any`` is :class:`OnAny`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sammy_desktop.sim.wire import FunctionResponseRecord

__all__ = [
    "TRIGGER_TYPES",
    "InputSignal",
    "OnActivityEnd",
    "OnAny",
    "OnAudioStreamEnd",
    "OnSpeechEnd",
    "OnText",
    "OnTimer",
    "OnToolResponse",
    "SignalKind",
    "Trigger",
    "timer_of",
]


class SignalKind(StrEnum):
    """The client inputs that can fire a turn."""

    ACTIVITY_END = "activity_end"
    AUDIO_STREAM_END = "audio_stream_end"
    SPEECH_END = "speech_end"
    TEXT = "text"
    TOOL_RESPONSE = "tool_response"
    TIMER = "timer"
    INJECTED = "injected"  # an action a test injected; never fires a turn


@dataclass(frozen=True, slots=True)
class InputSignal:
    """One client input, as the scenario engine offers it to the next turn's trigger.

    Attributes:
        kind: What happened.
        text: The typed text for ``TEXT``.
        tool_responses: The responses for ``TOOL_RESPONSE``.
        pending_calls: Function calls still unanswered after this input.
        call_arguments: For ``TOOL_RESPONSE``, the arguments each answered call was made
            with, by call id (what the simulated model asked for, to word the answer).
    """

    kind: SignalKind
    text: str = ""
    tool_responses: tuple[FunctionResponseRecord, ...] = ()
    pending_calls: int = 0
    call_arguments: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class OnActivityEnd:
    """Fires when the client sends activityEnd (push-to-talk released)."""

    def matches(self, signal: InputSignal) -> bool:
        """Return True when ``signal`` fires this trigger."""
        return signal.kind is SignalKind.ACTIVITY_END


@dataclass(frozen=True, slots=True, kw_only=True)
class OnAudioStreamEnd:
    """Fires when the client sends audioStreamEnd (hands-free mic paused)."""

    def matches(self, signal: InputSignal) -> bool:
        """Return True when ``signal`` fires this trigger."""
        return signal.kind is SignalKind.AUDIO_STREAM_END


@dataclass(frozen=True, slots=True, kw_only=True)
class OnSpeechEnd:
    """Fires when the energy VAD hears the end of an utterance (hands-free only).

    As with the service, it never fires when the client disabled automatic activity
    detection. An audioStreamEnd during speech also ends the utterance.
    """

    def matches(self, signal: InputSignal) -> bool:
        """Return True when ``signal`` fires this trigger."""
        return signal.kind is SignalKind.SPEECH_END


@dataclass(frozen=True, slots=True, kw_only=True)
class OnText:
    """Fires on typed text: realtime text, or client content with turnComplete.

    Attributes:
        contains: Only text containing this (case-insensitive) fires.
        pattern: Only text matching this regular expression (``re.search``, ignoring case).
    """

    contains: str | None = None
    pattern: str | None = None

    def matches(self, signal: InputSignal) -> bool:
        """Return True when ``signal`` fires this trigger."""
        if signal.kind is not SignalKind.TEXT:
            return False
        if self.contains is not None and self.contains.lower() not in signal.text.lower():
            return False
        return (
            self.pattern is None or re.search(self.pattern, signal.text, re.IGNORECASE) is not None
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class OnToolResponse:
    """Fires when the client answers function calls.

    Attributes:
        name: Only a response for this function fires.
        wait_for_all: Wait until every pending call is answered (several calls in one
            toolCall may be answered in several frames).
    """

    name: str | None = None
    wait_for_all: bool = True

    def matches(self, signal: InputSignal) -> bool:
        """Return True when ``signal`` fires this trigger."""
        if signal.kind is not SignalKind.TOOL_RESPONSE:
            return False
        if self.name is not None and all(r.name != self.name for r in signal.tool_responses):
            return False
        return not self.wait_for_all or signal.pending_calls == 0


@dataclass(frozen=True, slots=True, kw_only=True)
class OnTimer:
    """Fires ``after_s`` seconds after the previous turn finished (or the session began)."""

    after_s: float = 0.0

    def matches(self, signal: InputSignal) -> bool:
        """Return True when ``signal`` fires this trigger."""
        return signal.kind is SignalKind.TIMER


@dataclass(frozen=True, slots=True)
class OnAny:
    """Fires when any of its triggers does, e.g. ``OnAny((OnText(), OnTimer(after_s=5)))``."""

    triggers: tuple[Trigger, ...]

    def matches(self, signal: InputSignal) -> bool:
        """Return True when ``signal`` fires this trigger."""
        return any(trigger.matches(signal) for trigger in self.triggers)


Trigger = OnActivityEnd | OnAudioStreamEnd | OnSpeechEnd | OnText | OnToolResponse | OnTimer | OnAny


def timer_of(trigger: Trigger) -> float | None:
    """Return the shortest timer inside ``trigger`` (None when it has none)."""
    if isinstance(trigger, OnTimer):
        return trigger.after_s
    if isinstance(trigger, OnAny):
        timers = [t for t in (timer_of(child) for child in trigger.triggers) if t is not None]
        return min(timers) if timers else None
    return None


TRIGGER_TYPES: Mapping[str, type[Any]] = {
    "activity_end": OnActivityEnd,
    "audio_stream_end": OnAudioStreamEnd,
    "speech_end": OnSpeechEnd,
    "text": OnText,
    "tool_response": OnToolResponse,
    "timer": OnTimer,
}
