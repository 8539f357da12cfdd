"""A local Gemini Live-compatible server: the offline demo backend and the test double.

It speaks the real Live wire protocol over TLS on loopback, so the stock google-genai client
talks to it unmodified (see ``docs/live-service.md``). A :class:`Scenario` scripts the
simulated model; a :class:`Recorder` keeps everything the client sent; test controls on
:class:`LiveSimulator` inject goAway, dropped connections, stalls and any action at any time.
A :class:`ServiceProfile` says how strictly the real service is imitated (``"service"``, one
model family, or ``"lenient"``). :func:`demo_scenario` is the honest "Offline demo" the app
offers without an API key: a table of :class:`Intent` answered by :class:`AnswerIntents`.
"""

from sammy_desktop.sim.actions import (
    Action,
    AnswerIntents,
    CallTools,
    CancelToolCalls,
    Close,
    Delay,
    EchoAudio,
    FunctionCallSpec,
    GenerationComplete,
    GoAway,
    InputTranscription,
    Interrupted,
    ModelText,
    OutputTranscription,
    PcmAudio,
    RawMessage,
    Respond,
    ResumptionUpdate,
    Stall,
    Tone,
    TranscriptEntry,
    TurnComplete,
    TurnContext,
    Usage,
    WavAudio,
)
from sammy_desktop.sim.admission import INVALID_HANDLE_REASON, INVALID_KEY_REASON
from sammy_desktop.sim.clock import Clock, RealClock, VirtualClock
from sammy_desktop.sim.connection import ConnectionLimits
from sammy_desktop.sim.demo import DEMO_RECORD_LIMIT, demo_scenario
from sammy_desktop.sim.intents import Intent
from sammy_desktop.sim.pcm import VadSettings
from sammy_desktop.sim.profiles import (
    BAD_KEY_REASON,
    DEFAULT_PROFILE,
    INVALID_ARGUMENT_REASON,
    NOT_SUPPORTED_REASON,
    PROFILES,
    QUOTA_REASON,
    SERVICE,
    ServiceProfile,
    SetupRule,
    not_found_reason,
)
from sammy_desktop.sim.recorder import Received, RecordedEvent, Recorder, RecordLimit
from sammy_desktop.sim.scenario import Scenario, ScenarioError, Turn
from sammy_desktop.sim.server import LiveSimulator
from sammy_desktop.sim.session import SessionState
from sammy_desktop.sim.triggers import (
    InputSignal,
    OnActivityEnd,
    OnAny,
    OnAudioStreamEnd,
    OnSpeechEnd,
    OnText,
    OnTimer,
    OnToolResponse,
    SignalKind,
    Trigger,
)
from sammy_desktop.sim.wire import MAX_FRAME_BYTES, CloseCode

__all__ = [
    "BAD_KEY_REASON",
    "DEFAULT_PROFILE",
    "DEMO_RECORD_LIMIT",
    "INVALID_ARGUMENT_REASON",
    "INVALID_HANDLE_REASON",
    "INVALID_KEY_REASON",
    "MAX_FRAME_BYTES",
    "NOT_SUPPORTED_REASON",
    "PROFILES",
    "QUOTA_REASON",
    "SERVICE",
    "Action",
    "AnswerIntents",
    "CallTools",
    "CancelToolCalls",
    "Clock",
    "Close",
    "CloseCode",
    "ConnectionLimits",
    "Delay",
    "EchoAudio",
    "FunctionCallSpec",
    "GenerationComplete",
    "GoAway",
    "InputSignal",
    "InputTranscription",
    "Intent",
    "Interrupted",
    "LiveSimulator",
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
    "RealClock",
    "Received",
    "RecordLimit",
    "RecordedEvent",
    "Recorder",
    "Respond",
    "ResumptionUpdate",
    "Scenario",
    "ScenarioError",
    "ServiceProfile",
    "SessionState",
    "SetupRule",
    "SignalKind",
    "Stall",
    "Tone",
    "TranscriptEntry",
    "Trigger",
    "Turn",
    "TurnComplete",
    "TurnContext",
    "Usage",
    "VadSettings",
    "VirtualClock",
    "WavAudio",
    "demo_scenario",
    "not_found_reason",
]
