"""Actions: what the simulated model does when a turn of its scenario plays.

Each action is a frozen dataclass the connection carries out in order: transcriptions and
model text in pieces, model audio (a tone, a WAV file, an echo of what the person said, raw
PCM), tool calls and their cancellation, ``generationComplete``, ``turnComplete``,
``interrupted``, resumption updates, goAway, usage, a delay, a stall, a close, or any frame
as is. :class:`Respond` computes the actions from the :class:`TurnContext` (what fired the
turn, and the session so far) when the turn plays; :class:`AnswerIntents` answers typed
requests from a declared table of intents. :data:`ACTION_TYPES` names each action in
the JSON scenario format (:mod:`sammy_desktop.sim.scenario_json`); :class:`Respond` and
:class:`PcmAudio` exist in Python only.

As in the service, input and output transcriptions are only sent when the client's setup
asked for them (``inputAudioTranscription`` / ``outputAudioTranscription``); they always go
into the session transcript. How a strict profile reshapes what the actions send is
:mod:`sammy_desktop.sim.turn_output`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sammy_desktop.sim.intents import Intent
from sammy_desktop.sim.triggers import InputSignal
from sammy_desktop.sim.wire import FunctionDeclarationInfo, Setup
from sammy_desktop.wire_audio import INPUT_RATE, OUTPUT_RATE

__all__ = [
    "ACTION_TYPES",
    "Action",
    "AnswerIntents",
    "CallTools",
    "CancelToolCalls",
    "Close",
    "Delay",
    "EchoAudio",
    "FunctionCallSpec",
    "GenerationComplete",
    "GoAway",
    "InputTranscription",
    "Interrupted",
    "ModelText",
    "OutputTranscription",
    "PcmAudio",
    "RawMessage",
    "Respond",
    "ResumptionUpdate",
    "Stall",
    "Tone",
    "TranscriptEntry",
    "TurnComplete",
    "TurnContext",
    "Usage",
    "WavAudio",
]


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
        declarations: Their declarations, with the arguments each takes.
        transcript: The session transcript up to now.
        session_id: The Live session id.
        setup: The setup message of the current connection.
        video_frames: The shared screen's JPEG frames this session received so far (S6).
        video_size: The last one's width and height, or None before the first.
    """

    signal: InputSignal
    user_audio: bytes = b""
    user_audio_rate: int = INPUT_RATE
    user_speech: bytes = b""
    function_names: tuple[str, ...] = ()
    declarations: tuple[FunctionDeclarationInfo, ...] = ()
    transcript: tuple[TranscriptEntry, ...] = ()
    session_id: str = ""
    setup: Setup | None = None
    video_frames: int = 0
    video_size: tuple[int, int] | None = None

    @property
    def speech_seconds(self) -> float:
        """Length of ``user_speech`` in seconds."""
        return len(self.user_speech) / (2 * self.user_audio_rate)

    @property
    def text(self) -> str:
        """The typed text that fired the turn ("" for other inputs)."""
        return self.signal.text

    def declaration(self, name: str) -> FunctionDeclarationInfo | None:
        """The declaration of function ``name``, if the client declared it."""
        return next((d for d in self.declarations if d.name == name), None)


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


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerIntents:
    """Answer typed text from a table of intents (:mod:`sammy_desktop.sim.intents`).

    Typed text is matched against ``intents`` in order; the first that matches calls its
    function with arguments from the person's words (or says its sentence, or asks for what
    is missing), and the answer to that call is said as the intent's sentence, filled from
    the answer's value. Other input (speech, timers) gets nothing from this action. How it
    becomes actions is :mod:`sammy_desktop.sim.intent_answers`'.

    Attributes:
        intents: The intents, tried in order.
        otherwise: Said when no intent matches; ``{examples}`` lists the intents' examples
            whose function is declared.
        without_tools: Said instead of ``otherwise`` when no intent's function is declared.
        call_named_tools: A declared function named in the text ("sayHello", "say hello")
            that takes no required argument is called with none, and its answer said.
        chime_hz: The pitch of the short tone that carries each sentence (0: text only).
    """

    intents: tuple[Intent, ...] = ()
    otherwise: str = "I did not understand that. Try {examples}."
    without_tools: str = "I did not understand that."
    call_named_tools: bool = True
    chime_hz: float = 660.0


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
    | AnswerIntents
)


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
    "intents": AnswerIntents,
}
