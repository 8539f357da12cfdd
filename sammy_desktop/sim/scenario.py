"""Scenarios: what the simulated model says, and when.

A :class:`Scenario` is an ordered list of :class:`Turn` objects. Each turn waits for its
trigger (the person stopped talking, typed text, answered a tool call, a timer ran out...) and
then plays its actions in order (transcriptions, model audio, tool calls, turnComplete,
goAway, a close...). Input that does not match the next turn's trigger is recorded and
otherwise ignored. With ``repeat=True`` the list starts over after the last turn, which is
how reactive scenarios such as the offline demo are written (one turn whose
:class:`Respond` action decides what to do from the :class:`TurnContext`).

Scenarios are written in Python::

    Scenario(turns=[
        Turn(OnText(contains="time"), [
            CallTools(calls=[FunctionCallSpec(name="get_time")]),
        ]),
        Turn(OnToolResponse(), [
            Tone(duration_s=0.5, transcript="It is noon."),
            TurnComplete(),
        ]),
    ])

or loaded from JSON with :meth:`Scenario.from_json` / :meth:`Scenario.load`. The JSON format
mirrors the Python classes: each trigger and action is an object whose ``"type"`` names the
class (the table in ``TRIGGER_TYPES`` / ``ACTION_TYPES``) and whose other keys are the
dataclass fields::

    {
      "repeat": false,
      "vad": {"threshold_rms": 500, "silence_ms": 700},
      "auto_resumption_updates": true,
      "cancel_tool_calls_on_interrupt": false,
      "turns": [
        {"on": {"type": "text", "contains": "time"},
         "actions": [
           {"type": "call_tools", "calls": [{"name": "get_time", "args": {}}]}
         ]},
        {"on": {"type": "any", "of": [{"type": "tool_response"}, {"type": "timer", "after_s": 5}]},
         "actions": [
           {"type": "input_transcription", "text": "what time is it", "pieces": 2},
           {"type": "tone", "frequency_hz": 440, "duration_s": 0.5, "transcript": "It is noon."},
           {"type": "wav", "path": "answer.wav"},
           {"type": "echo"},
           {"type": "usage", "prompt_tokens": 10, "response_tokens": 20},
           {"type": "generation_complete"},
           {"type": "turn_complete"},
           {"type": "go_away", "time_left_s": 50},
           {"type": "close", "code": 1011, "reason": "Internal error encountered."}
         ]}
      ]
    }

Trigger types: ``activity_end``, ``audio_stream_end``, ``speech_end`` (energy VAD, hands-free),
``text`` (realtime text or client content; ``contains`` / ``pattern`` filter),
``tool_response`` (``name``, ``wait_for_all``), ``timer`` (``after_s`` since the previous turn
finished), ``any`` (``of``: a list of triggers).

Action types: ``input_transcription``, ``output_transcription``, ``model_text`` (``text``,
``pieces``), ``tone``, ``wav`` (``path``, relative to the JSON file), ``echo`` (what the
person said, 16 -> 24 kHz), audio actions share ``transcript``, ``chunk_ms``, ``realtime``;
``call_tools`` (``calls``: ``name``, ``args``, ``id``), ``cancel_tool_calls`` (``ids``, all
pending when omitted), ``generation_complete``, ``turn_complete`` (``reason``,
``waiting_for_input``), ``interrupted``, ``resumption_update`` (``resumable``), ``go_away``
(``time_left_s``), ``usage`` (``prompt_tokens``, ``response_tokens``, ``total_tokens``),
``delay`` (``seconds``), ``stall``, ``close`` (``code``: null or 1006 drops TCP with no close
frame; ``reason``), ``raw`` (``message``: any JSON object sent as is).
:class:`Respond` and :class:`PcmAudio` exist in Python only. ``tone`` takes
``frequency_hz``, ``duration_s``, ``amplitude``; ``echo`` takes ``trim`` (cut the silence
around the speech, default true) and ``padding_ms`` (quiet audio kept around it, 100).

As in the service, input and output transcriptions are only sent when the client's setup
asked for them (``inputAudioTranscription`` / ``outputAudioTranscription``); they always go
into the session transcript. A barge-in (see :mod:`sammy_desktop.sim.session`) drops the rest
of the playing turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

import pydantic

from sammy_desktop.sim.pcm import VadSettings
from sammy_desktop.sim.wire import FunctionResponseRecord, Setup
from sammy_desktop.wire_audio import INPUT_RATE, OUTPUT_RATE

__all__ = [
    "ACTION_TYPES",
    "TRIGGER_TYPES",
    "Action",
    "CallTools",
    "CancelToolCalls",
    "Close",
    "Delay",
    "EchoAudio",
    "FunctionCallSpec",
    "GenerationComplete",
    "GoAway",
    "InputSignal",
    "InputTranscription",
    "Interrupted",
    "ModelText",
    "OnActivityEnd",
    "OnAny",
    "OnAudioStreamEnd",
    "OnSpeechEnd",
    "OnText",
    "OnTimer",
    "OnToolResponse",
    "OutputTranscription",
    "PcmAudio",
    "RawMessage",
    "Respond",
    "ResumptionUpdate",
    "Scenario",
    "ScenarioError",
    "SignalKind",
    "Stall",
    "Tone",
    "TranscriptEntry",
    "Trigger",
    "Turn",
    "TurnComplete",
    "TurnContext",
    "Usage",
    "WavAudio",
]


class ScenarioError(ValueError):
    """A scenario that cannot be loaded; the message says where and why."""


# ---------------------------------------------------------------- what the client did


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
    """

    kind: SignalKind
    text: str = ""
    tool_responses: tuple[FunctionResponseRecord, ...] = ()
    pending_calls: int = 0


@dataclass(frozen=True, slots=True)
class TranscriptEntry:
    """One line of the session transcript (kept across resumed connections)."""

    role: str  # "user", "model" or "tool"
    text: str


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What a turn's actions may use: the input that fired it and the session so far.

    Attributes:
        signal: The input that fired the turn.
        user_audio: Microphone audio since the previous turn fired (PCM16 LE mono).
        user_audio_rate: Sample rate of ``user_audio``.
        user_speech: ``user_audio`` with leading/trailing silence cut (or all of it when
            nothing was loud enough).
        function_names: Functions the client declared (setup, then context updates).
        transcript: The session transcript up to now.
        session_id: The Live session id.
        setup: The setup message of the current connection.
    """

    signal: InputSignal
    user_audio: bytes = b""
    user_audio_rate: int = INPUT_RATE
    user_speech: bytes = b""
    function_names: tuple[str, ...] = ()
    transcript: tuple[TranscriptEntry, ...] = ()
    session_id: str = ""
    setup: Setup | None = None

    @property
    def speech_seconds(self) -> float:
        """Length of ``user_speech`` in seconds."""
        return len(self.user_speech) / (2 * self.user_audio_rate)

    @property
    def text(self) -> str:
        """The typed text that fired the turn ("" for other inputs)."""
        return self.signal.text


# ---------------------------------------------------------------- triggers


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


# ---------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True, kw_only=True)
class InputTranscription:
    """Send an input transcription (what the person said), streamed in ``pieces``."""

    text: str
    pieces: int = 1
    finished: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class OutputTranscription:
    """Send an output transcription (what the model says), streamed in ``pieces``."""

    text: str
    pieces: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelText:
    """Send model text parts (what a TEXT-modality model answers), in ``pieces``."""

    text: str
    pieces: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class _AudioAction:
    """Fields shared by every model-audio action.

    Attributes:
        transcript: Output transcription spread over the audio chunks (same frames).
        chunk_ms: Audio per frame; frames are split further to stay under 1 MiB.
        realtime: Pace the frames at real time (True), send them as fast as possible
            (False), or follow the simulator's ``realtime`` setting (None).
    """

    transcript: str | None = None
    chunk_ms: int = 100
    realtime: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Tone(_AudioAction):
    """Model audio: a sine tone."""

    frequency_hz: float = 440.0
    duration_s: float = 1.0
    amplitude: float = 0.3


@dataclass(frozen=True, slots=True, kw_only=True)
class WavAudio(_AudioAction):
    """Model audio: a 16-bit WAV file, resampled to 24 kHz mono."""

    path: str


@dataclass(frozen=True, slots=True, kw_only=True)
class EchoAudio(_AudioAction):
    """Model audio: what the person said before this turn, resampled to 24 kHz.

    Attributes:
        trim: Cut the silence before and after the speech.
        padding_ms: Quiet audio kept before and after the speech when trimming (the
            benchmarks use 0: the answer then starts with the first loud 20 ms frame, the
            same for every client, whatever it sent before the speech).
    """

    trim: bool = True
    padding_ms: int = 100

    def __post_init__(self) -> None:
        if self.padding_ms < 0:
            raise ValueError(f"padding_ms must not be negative (got {self.padding_ms})")


@dataclass(frozen=True, slots=True, kw_only=True)
class PcmAudio(_AudioAction):
    """Model audio from bytes (Python only): PCM16 LE mono at ``sample_rate``."""

    pcm: bytes
    sample_rate: int = OUTPUT_RATE


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionCallSpec:
    """One function call; ``id`` is generated (``fc-1``, ``fc-2``...) when omitted."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CallTools:
    """Send one toolCall message carrying one or several function calls."""

    calls: Sequence[FunctionCallSpec]


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelToolCalls:
    """Send toolCallCancellation for ``ids`` (every pending call when None)."""

    ids: Sequence[str] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GenerationComplete:
    """Send ``generationComplete``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnComplete:
    """Send ``turnComplete`` (which ends the SDK's ``session.receive()`` iteration)."""

    reason: str | None = None
    waiting_for_input: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Interrupted:
    """Send ``interrupted`` as if the person barged in."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumptionUpdate:
    """Send sessionResumptionUpdate; a new handle is issued when ``resumable``."""

    resumable: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class GoAway:
    """Send goAway: the connection will end in ``time_left_s``."""

    time_left_s: float = 50.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """Send usageMetadata; ``total_tokens`` defaults to the sum."""

    prompt_tokens: int = 0
    response_tokens: int = 0
    total_tokens: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Delay:
    """Wait (always in real time, even when audio is not paced)."""

    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Stall:
    """Stop answering: input is still read and recorded, no further turn ever fires."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Close:
    """Close the connection with ``code``; None or 1006 drops TCP without a close frame."""

    code: int | None = 1000
    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class RawMessage:
    """Send any JSON object as is (to test how the client copes with odd frames)."""

    message: Mapping[str, Any]


ActionList = Sequence["Action"]


@dataclass(frozen=True, slots=True)
class Respond:
    """Compute the actions from the context when the turn fires (Python only).

    The handler may be a plain or an async function returning a list of actions.
    """

    handler: Callable[[TurnContext], ActionList | Awaitable[ActionList]]


Action = (
    InputTranscription
    | OutputTranscription
    | ModelText
    | Tone
    | WavAudio
    | EchoAudio
    | PcmAudio
    | CallTools
    | CancelToolCalls
    | GenerationComplete
    | TurnComplete
    | Interrupted
    | ResumptionUpdate
    | GoAway
    | Usage
    | Delay
    | Stall
    | Close
    | RawMessage
    | Respond
)


# ---------------------------------------------------------------- turns and scenarios


@dataclass(frozen=True, slots=True)
class Turn:
    """A trigger and the actions it plays, in order."""

    trigger: Trigger
    actions: Sequence[Action] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    """A script for the simulated model.

    Attributes:
        turns: Played in order, each when its trigger fires.
        repeat: Start over after the last turn (for reactive scenarios).
        vad: Energy VAD settings for hands-free end-of-speech and barge-in.
        auto_resumption_updates: When the client asked for resumption, send a fresh handle
            after every turnComplete, as the service does.
        cancel_tool_calls_on_interrupt: On barge-in, also send toolCallCancellation for
            every unanswered function call (the service does this when the person
            interrupts a turn that called tools).
        name: Shown in logs.
    """

    turns: Sequence[Turn] = ()
    repeat: bool = False
    vad: VadSettings = field(default_factory=VadSettings)
    auto_resumption_updates: bool = True
    cancel_tool_calls_on_interrupt: bool = False
    name: str = "scenario"

    def turn_at(self, position: int) -> Turn | None:
        """Return the turn played at ``position`` (None when the scenario is over)."""
        if not self.turns:
            return None
        if self.repeat:
            return self.turns[position % len(self.turns)]
        return self.turns[position] if position < len(self.turns) else None

    @classmethod
    def from_json(cls, text: str, *, base_dir: Path | None = None, name: str = "") -> Scenario:
        """Build a scenario from the JSON format described in this module's docstring.

        Args:
            text: The JSON document.
            base_dir: Folder that relative WAV paths are resolved against.
            name: A name for logs (defaults to the document's ``name`` key).

        Raises:
            ScenarioError: For invalid JSON or an unknown or malformed trigger or action.
        """
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise ScenarioError(f"scenario is not valid JSON: {error}") from error
        return _ScenarioLoader(base_dir or Path.cwd()).scenario(document, name)

    @classmethod
    def load(cls, path: Path) -> Scenario:
        """Read a JSON scenario file (relative WAV paths are relative to it)."""
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ScenarioError(f"cannot read scenario {path}: {error}") from error
        return cls.from_json(text, base_dir=path.parent, name=path.stem)


TRIGGER_TYPES: Mapping[str, type[Any]] = {
    "activity_end": OnActivityEnd,
    "audio_stream_end": OnAudioStreamEnd,
    "speech_end": OnSpeechEnd,
    "text": OnText,
    "tool_response": OnToolResponse,
    "timer": OnTimer,
}

ACTION_TYPES: Mapping[str, type[Any]] = {
    "input_transcription": InputTranscription,
    "output_transcription": OutputTranscription,
    "model_text": ModelText,
    "tone": Tone,
    "wav": WavAudio,
    "echo": EchoAudio,
    "call_tools": CallTools,
    "cancel_tool_calls": CancelToolCalls,
    "generation_complete": GenerationComplete,
    "turn_complete": TurnComplete,
    "interrupted": Interrupted,
    "resumption_update": ResumptionUpdate,
    "go_away": GoAway,
    "usage": Usage,
    "delay": Delay,
    "stall": Stall,
    "close": Close,
    "raw": RawMessage,
}


class _ScenarioLoader:
    """Turns a parsed JSON document into a :class:`Scenario`, naming the place of any error."""

    def __init__(self, base_dir: Path) -> None:
        self._base_dir = base_dir

    def scenario(self, document: Any, name: str) -> Scenario:
        if not isinstance(document, dict):
            raise ScenarioError("a scenario must be a JSON object with a 'turns' list")
        known = {
            "turns",
            "repeat",
            "vad",
            "auto_resumption_updates",
            "cancel_tool_calls_on_interrupt",
            "name",
        }
        unknown = sorted(set(document) - known)
        if unknown:
            raise ScenarioError(f"unknown scenario keys {unknown}; expected {sorted(known)}")
        turns = document.get("turns")
        if not isinstance(turns, list):
            raise ScenarioError("scenario 'turns' must be a list")
        vad = self._build(VadSettings, document.get("vad") or {}, "vad")
        return Scenario(
            turns=tuple(self._turn(turn, f"turns[{index}]") for index, turn in enumerate(turns)),
            repeat=self._bool(document.get("repeat", False), "repeat"),
            vad=vad,
            auto_resumption_updates=self._bool(
                document.get("auto_resumption_updates", True), "auto_resumption_updates"
            ),
            cancel_tool_calls_on_interrupt=self._bool(
                document.get("cancel_tool_calls_on_interrupt", False),
                "cancel_tool_calls_on_interrupt",
            ),
            name=str(document.get("name") or name or "scenario"),
        )

    @staticmethod
    def _bool(value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise ScenarioError(f"{where} must be true or false, got {value!r}")
        return value

    def _turn(self, turn: Any, where: str) -> Turn:
        if not isinstance(turn, dict) or set(turn) - {"on", "actions"} or "on" not in turn:
            raise ScenarioError(f"{where} must be an object with 'on' and 'actions'")
        actions = turn.get("actions", [])
        if not isinstance(actions, list):
            raise ScenarioError(f"{where}.actions must be a list")
        return Turn(
            trigger=self._trigger(turn["on"], f"{where}.on"),
            actions=tuple(
                self._action(action, f"{where}.actions[{index}]")
                for index, action in enumerate(actions)
            ),
        )

    def _typed(
        self, spec: Any, where: str, table: Mapping[str, type[Any]]
    ) -> tuple[str, dict[str, Any]]:
        if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
            raise ScenarioError(f"{where} must be an object with a 'type'")
        params = dict(spec)
        kind = params.pop("type")
        if kind not in table and kind != "any":
            raise ScenarioError(f"{where}: unknown type {kind!r}; expected one of {sorted(table)}")
        return kind, params

    def _trigger(self, spec: Any, where: str) -> Trigger:
        kind, params = self._typed(spec, where, TRIGGER_TYPES)
        if kind == "any":
            children = params.get("of")
            if set(params) != {"of"} or not isinstance(children, list) or not children:
                raise ScenarioError(f"{where}: 'any' needs a non-empty 'of' list and nothing else")
            return OnAny(
                tuple(self._trigger(child, f"{where}.of[{i}]") for i, child in enumerate(children))
            )
        trigger: Trigger = self._build(TRIGGER_TYPES[kind], params, f"{where} ({kind})")
        return trigger

    def _action(self, spec: Any, where: str) -> Action:
        kind, params = self._typed(spec, where, ACTION_TYPES)
        if kind == "any":
            raise ScenarioError(f"{where}: 'any' is a trigger, not an action")
        if kind == "wav" and isinstance(params.get("path"), str):
            path = self._base_dir / params["path"]
            if not path.is_file():
                raise ScenarioError(f"{where} (wav): no such file {path}")
            params["path"] = str(path)
        action: Action = self._build(ACTION_TYPES[kind], params, f"{where} ({kind})")
        return action

    @staticmethod
    def _build(cls: type[Any], params: Any, where: str) -> Any:
        if not isinstance(params, dict):
            raise ScenarioError(f"{where} must be a JSON object")
        allowed = {f.name for f in fields(cls)}
        unknown = sorted(set(params) - allowed)
        if unknown:
            raise ScenarioError(f"{where}: unknown field(s) {unknown}; expected {sorted(allowed)}")
        try:
            return pydantic.TypeAdapter(cls).validate_python(params)
        except pydantic.ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in problem['loc']) or 'value'}: {problem['msg']}"
                for problem in error.errors()
            )
            raise ScenarioError(f"{where}: {problems}") from error
