"""The agent core: one Live API conversation that survives what the service does (no Qt).

:class:`AgentCore` is the coordinator the UI drives (its parts are listed in
:mod:`.agent`); :class:`LiveConnection` wraps one google-genai Live session;
:class:`ConversationHistory` writes the JSON-lines log; the events the UI renders are in
:mod:`.events`; the ports the app plugs the audio layer and the tool manager into are in
:mod:`.ports`. docs/architecture.md maps every module.
"""

from sammy_desktop.core.agent import DEFAULT_BUFFER_BYTES, AgentCore, WatchdogPolicy
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.endpoint import (
    API_BASE_URL_ENV,
    API_VERSION_ENV,
    DEFAULT_API_VERSION,
    client_options,
    make_client_factory,
    resolve_api_base_url,
    resolve_api_version,
)
from sammy_desktop.core.events import (
    AgentState,
    ConnectionLost,
    ErrorKind,
    ErrorRaised,
    GroundingSourcesFound,
    NoResponse,
    Reconnected,
    Reconnecting,
    SessionEnded,
    SessionStarted,
    Speaker,
    StateChanged,
    ToolsChanged,
    TranscriptUpdated,
    TurnStats,
    UsageUpdated,
)
from sammy_desktop.core.history import ConversationHistory, read_history
from sammy_desktop.core.live import (
    FailureKind,
    LiveConnection,
    LiveConnectionError,
    RealtimeInput,
    RealtimeKind,
)
from sammy_desktop.core.ports import AudioSink, ClientFactory, ToolRunner, TurnAwareSink
from sammy_desktop.core.setup import build_live_config

__all__ = [
    "API_BASE_URL_ENV",
    "API_VERSION_ENV",
    "DEFAULT_API_VERSION",
    "DEFAULT_BUFFER_BYTES",
    "AgentCore",
    "AgentState",
    "AudioSink",
    "ClientFactory",
    "ConnectionLost",
    "ConversationHistory",
    "ErrorKind",
    "ErrorRaised",
    "FailureKind",
    "GroundingSourcesFound",
    "LiveConnection",
    "LiveConnectionError",
    "NoResponse",
    "RealtimeInput",
    "RealtimeKind",
    "ReconnectPolicy",
    "Reconnected",
    "Reconnecting",
    "SessionEnded",
    "SessionStarted",
    "Speaker",
    "StateChanged",
    "ToolRunner",
    "ToolsChanged",
    "TranscriptUpdated",
    "TurnAwareSink",
    "TurnStats",
    "UsageUpdated",
    "WatchdogPolicy",
    "build_live_config",
    "client_options",
    "make_client_factory",
    "read_history",
    "resolve_api_base_url",
    "resolve_api_version",
]
