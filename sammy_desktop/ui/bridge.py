"""The one bridge from the event bus to Qt: every event the UI shows becomes a typed Signal.

:class:`EventBridge` subscribes to every :class:`~sammy_desktop.eventbus.Event` and re-emits
the ones the UI knows as Qt signals carrying the (frozen) event object. Widgets connect to
these signals and never subscribe to the bus themselves, so Qt never leaks into the core
and a widget can be tested by feeding the bridge real events.

Events are normally emitted on the asyncio loop, which under qasync is the Qt thread; a
signal emitted from another thread is queued to the Qt thread by Qt itself, so a stray
emission from an audio thread cannot touch a widget off-thread.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal, SignalInstance

from sammy_desktop.audio.events import (
    AudioDevicesChanged,
    AudioLevel,
    BluetoothMicrophone,
    DeviceFallback,
    DeviceSwitched,
    MicrophoneInUse,
    MicrophoneListening,
    MicrophoneOpening,
    MicrophoneUnavailable,
    PlaybackDrained,
    PlaybackStarted,
    StreamError,
    StreamRecovered,
)
from sammy_desktop.core.events import (
    AnswerStopped,
    CodeExecuted,
    ConnectionLost,
    ConnectionResting,
    ErrorRaised,
    GroundingSourcesFound,
    NoResponse,
    Reconnected,
    Reconnecting,
    SessionEnded,
    SessionStarted,
    StateChanged,
    ToolsChanged,
    TranscriptUpdated,
    TurnStats,
    UsageUpdated,
)
from sammy_desktop.eventbus import Event, EventBus, Subscription
from sammy_desktop.tools.desktop.events import TimerCancelled, TimerFired, TimerStarted
from sammy_desktop.tools.events import (
    ConfirmationRequested,
    ConfirmationResolved,
    ContextShared,
    EndSessionRequested,
    EscalationRaised,
    ToolCallCancelled,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
    ToolEnabledChanged,
)
from sammy_desktop.tools.mcp.events import McpConfigRead, McpServerStatusChanged

__all__ = ["EventBridge"]

_log = logging.getLogger(__name__)


class EventBridge(QObject):
    """Turns bus events into Qt signals. Each signal carries the event object itself.

    Args:
        bus: the app's event bus.
        parent: the Qt parent that owns the bridge.
    """

    # -- agent core ---------------------------------------------------------------------
    state_changed = Signal(StateChanged)
    transcript_updated = Signal(TranscriptUpdated)
    turn_stats = Signal(TurnStats)
    no_response = Signal(NoResponse)
    connection_lost = Signal(ConnectionLost)
    reconnecting = Signal(Reconnecting)
    reconnected = Signal(Reconnected)
    error_raised = Signal(ErrorRaised)
    usage_updated = Signal(UsageUpdated)
    session_started = Signal(SessionStarted)
    session_ended = Signal(SessionEnded)
    tools_changed = Signal(ToolsChanged)
    grounding_sources_found = Signal(GroundingSourcesFound)
    connection_resting = Signal(ConnectionResting)
    code_executed = Signal(CodeExecuted)
    answer_stopped = Signal(AnswerStopped)
    """The model ran code on the service's side, or its result came (the transcript's card)."""
    # -- tools --------------------------------------------------------------------------
    tool_call_started = Signal(ToolCallStarted)
    tool_call_progress = Signal(ToolCallProgress)
    tool_call_finished = Signal(ToolCallFinished)
    tool_call_failed = Signal(ToolCallFailed)
    tool_call_cancelled = Signal(ToolCallCancelled)
    confirmation_requested = Signal(ConfirmationRequested)
    confirmation_resolved = Signal(ConfirmationResolved)
    tool_enabled_changed = Signal(ToolEnabledChanged)
    end_session_requested = Signal(EndSessionRequested)
    context_shared = Signal(ContextShared)
    escalation_raised = Signal(EscalationRaised)
    timer_started = Signal(TimerStarted)
    timer_fired = Signal(TimerFired)
    timer_cancelled = Signal(TimerCancelled)
    mcp_server_status_changed = Signal(McpServerStatusChanged)
    """An MCP server is starting, ready, failed, restarting or stopped (Settings > Tools)."""
    mcp_config_read = Signal(McpConfigRead)
    """``mcp.json`` was read: its usable servers and its problems (Settings > Tools)."""
    # -- audio --------------------------------------------------------------------------
    input_level = Signal(float)
    """The microphone's level in dBFS, about 30 times a second."""
    output_level = Signal(float)
    """The level of what is played, in dBFS, about 20 times a second."""
    playback_started = Signal(PlaybackStarted)
    playback_drained = Signal(PlaybackDrained)
    device_fallback = Signal(DeviceFallback)
    device_switched = Signal(DeviceSwitched)
    audio_devices_changed = Signal(AudioDevicesChanged)
    """A device was plugged in or went (the devices page lists them again)."""
    stream_error = Signal(StreamError)
    stream_recovered = Signal(StreamRecovered)
    microphone_in_use = Signal(MicrophoneInUse)
    """A capture stream was opened or closed (the window's "mic on" mark, the tray)."""
    microphone_opening = Signal(MicrophoneOpening)
    microphone_listening = Signal(MicrophoneListening)
    """The talk press is heard: the cue (word, ring, earcon) comes now."""
    microphone_unavailable = Signal(MicrophoneUnavailable)
    bluetooth_microphone = Signal(BluetoothMicrophone)

    def __init__(self, bus: EventBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._routes: dict[type[Event], SignalInstance] = {
            StateChanged: self.state_changed,
            TranscriptUpdated: self.transcript_updated,
            TurnStats: self.turn_stats,
            NoResponse: self.no_response,
            ConnectionLost: self.connection_lost,
            Reconnecting: self.reconnecting,
            Reconnected: self.reconnected,
            ErrorRaised: self.error_raised,
            UsageUpdated: self.usage_updated,
            SessionStarted: self.session_started,
            SessionEnded: self.session_ended,
            ToolsChanged: self.tools_changed,
            GroundingSourcesFound: self.grounding_sources_found,
            CodeExecuted: self.code_executed,
            AnswerStopped: self.answer_stopped,
            ToolCallStarted: self.tool_call_started,
            ToolCallProgress: self.tool_call_progress,
            ToolCallFinished: self.tool_call_finished,
            ToolCallFailed: self.tool_call_failed,
            ToolCallCancelled: self.tool_call_cancelled,
            ConfirmationRequested: self.confirmation_requested,
            ConfirmationResolved: self.confirmation_resolved,
            ToolEnabledChanged: self.tool_enabled_changed,
            EndSessionRequested: self.end_session_requested,
            ContextShared: self.context_shared,
            EscalationRaised: self.escalation_raised,
            TimerStarted: self.timer_started,
            TimerFired: self.timer_fired,
            TimerCancelled: self.timer_cancelled,
            McpServerStatusChanged: self.mcp_server_status_changed,
            McpConfigRead: self.mcp_config_read,
            PlaybackStarted: self.playback_started,
            PlaybackDrained: self.playback_drained,
            DeviceFallback: self.device_fallback,
            DeviceSwitched: self.device_switched,
            AudioDevicesChanged: self.audio_devices_changed,
            StreamError: self.stream_error,
            StreamRecovered: self.stream_recovered,
            MicrophoneInUse: self.microphone_in_use,
            MicrophoneOpening: self.microphone_opening,
            MicrophoneListening: self.microphone_listening,
            MicrophoneUnavailable: self.microphone_unavailable,
            BluetoothMicrophone: self.bluetooth_microphone,
            ConnectionResting: self.connection_resting,
        }
        self._subscription: Subscription | None = bus.subscribe(Event, self._on_event)

    def close(self) -> None:
        """Stop listening to the bus (the app calls it at shutdown)."""
        if self._subscription is not None:
            self._subscription.cancel()
            self._subscription = None

    def _on_event(self, event: Event) -> None:
        if isinstance(event, AudioLevel):
            level = self.input_level if event.direction == "input" else self.output_level
            level.emit(float(event.dbfs))
            return
        for cls in type(event).__mro__:
            signal = self._routes.get(cls)
            if signal is not None:
                signal.emit(event)
                return
        _log.debug("no UI signal for %s", type(event).__name__)
