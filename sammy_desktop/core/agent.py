"""The agent core: one conversation with the Live API that survives what the service does.

:class:`AgentCore` is the state machine the UI renders (Disconnected -> Connecting -> Ready
-> UserSpeaking -> Thinking -> AssistantSpeaking -> Ready, plus Reconnecting, Error, Ended;
every transition a :class:`~sammy_desktop.core.events.StateChanged` event) and the
supervisor of the connection:

* a receive loop dispatching each server message to one ``_handle_<kind>`` method;
* an outbox: microphone audio and turn markers are queued in order and sent by one sender
  task, so the audio thread's hand-off never waits on the network, and nothing is lost
  while disconnected (bounded; the oldest audio goes first when full);
* reconnection: on goAway at a quiet moment before the deadline, on an unexpected close
  with bounded exponential backoff and jitter; both resume with the newest resumable
  handle and re-send what the service may not have seen since that handle. A 1008 close
  (bad key) stops at once with an AUTH error. A connection that stays up long enough
  resets the failure count;
* tool calls run in their own tasks (the receive loop never waits for a tool) and every
  call is answered: the tool runner guarantees it, and the core checks it;
* a watchdog: no answer within N seconds after the person finished -> a NoResponse event
  and one nudge; a second silence -> NoResponse(gave_up) and back to Ready;
* per-turn statistics and the JSON-lines history, written as things happen;
* the desktop tool pack's needs: an open streaming call (a running timer) does not hold
  back a reconnect or the watchdog; timer notices go to the model as realtime text when
  the conversation is Ready; Google Search (``extra_tools``) is declared beside the
  functions; grounding sources become events; settings the pane saves arrive through
  :meth:`AgentCore.update_settings`.

Everything runs on the one asyncio loop; the public methods that the UI and the audio
layer call often (:meth:`AgentCore.send_audio`, :meth:`AgentCore.begin_talk`,
:meth:`AgentCore.end_talk`) are synchronous and never block.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sammy_desktop.config import Settings, TalkMode
from sammy_desktop.core.backoff import ReconnectPolicy
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
    UsageUpdated,
)
from sammy_desktop.core.grounding import GroundingSummary, grounding_sources
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.core.live import (
    FailureKind,
    LiveConnection,
    LiveConnectionError,
    RealtimeInput,
    RealtimeKind,
    build_live_config,
)
from sammy_desktop.core.outbox import RealtimeOutbox
from sammy_desktop.core.ports import AudioSink, ClientFactory, ToolRunner, TurnAwareSink
from sammy_desktop.core.turns import Turn
from sammy_desktop.eventbus import EventBus, Subscription
from sammy_desktop.live_sdk import genai, types
from sammy_desktop.tools.context import AgentStateSnapshot
from sammy_desktop.tools.desktop.events import TimerAnnouncementPending, TimersRunningAtQuit
from sammy_desktop.tools.events import EndSessionRequested

__all__ = ["AgentCore", "WatchdogPolicy"]

_log = logging.getLogger(__name__)

# 60 s of 16 kHz 16-bit mono: enough for any realistic gap, small enough to keep in RAM.
DEFAULT_BUFFER_BYTES = 16_000 * 2 * 60

_ACTIVE_STATES = frozenset(
    {
        AgentState.READY,
        AgentState.USER_SPEAKING,
        AgentState.THINKING,
        AgentState.ASSISTANT_SPEAKING,
    }
)
_RUNNING_STATES = _ACTIVE_STATES | {AgentState.CONNECTING, AgentState.RECONNECTING}

_WHAT_TO_DO = {
    ErrorKind.AUTH: "Check the API key in Settings > Account, then connect again.",
    ErrorKind.CONFIGURATION: "Check the model, voice and language in Settings, and for a "
    "custom endpoint its address and certificate (SSL_CERT_FILE).",
    ErrorKind.CONNECTION: "Check the internet connection, then connect again. The "
    "conversation so far is kept in the history.",
    ErrorKind.INTERNAL: "Connect again. If it happens again, the log file has the details.",
}

# What only the session setup carries: a change reconnects (resuming) at a quiet moment.
_SETUP_FIELDS = (
    "model",
    "voice",
    "language",
    "system_prompt",
    "vad_start_sensitivity",
    "vad_end_sensitivity",
    "silence_duration_ms",
)

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*s?\s*$")


def _no_extra_tools(settings: Settings) -> list[types.Tool]:
    return []


def _no_announcements() -> list[str]:
    return []


def _parse_time_left(value: str | None) -> float:
    """Seconds from a goAway ``timeLeft`` (``"50s"``, ``"0.5s"``); 0 when unreadable."""
    if not value:
        return 0.0
    match = _DURATION.match(value)
    return float(match.group(1)) if match else 0.0


@dataclass(frozen=True, slots=True)
class WatchdogPolicy:
    """When silence after the person's turn counts as "no response".

    Attributes:
        no_response_s: seconds without any answer before the first NoResponse and nudge.
        nudge_text: what the nudge says to the model (as realtime text).
        end_session_grace_s: after an endSession tool answer, how long to let the model say
            goodbye before closing anyway.
    """

    no_response_s: float = 10.0
    nudge_text: str = "(The person is still waiting for your answer. Please answer now.)"
    end_session_grace_s: float = 8.0


class AgentCore:
    """The conversation: state machine, connection supervisor, turn-taking API.

    Args:
        bus: where every event goes.
        settings: the settings at start; the app hands over each new object the settings
            pane saves with :meth:`update_settings`.
        tools: the tool runner (the tool layer's ``ToolManager``).
        sink: where the model's audio is played.
        client_factory: builds the genai client for a session (points it at the service,
            a proxy, or the simulator).
        history: the conversation log (one file per session under the history dir).
        reconnect: backoff and timeout numbers.
        watchdog: no-response timing.
        clock: monotonic seconds (for latency, stability and statistics).
        rng: randomness for backoff jitter.
        demo_mode: True when the endpoint is the offline simulator (tools can tell).
        buffer_bytes: bound on audio kept while disconnected or not yet confirmed.
        extra_tools: tools beside the function declarations, for the settings given
            (``search_tools``: Google Search); in the setup and in every context update.
        take_announcements: hands over texts the model must be told at the next quiet
            moment, and forgets them (``TimerService.take_announcements``).
        before_connect: awaited, in the Connecting state, before the first client of a
            session is built: whatever ``client_factory`` needs that may still be on its
            way (the app: the Live SDK loading after the window shows, and the demo's
            simulator). It may raise :class:`LiveConnectionError` like the factory.
    """

    def __init__(
        self,
        *,
        bus: EventBus,
        settings: Settings,
        tools: ToolRunner,
        sink: AudioSink,
        client_factory: ClientFactory,
        history: ConversationHistory,
        reconnect: ReconnectPolicy | None = None,
        watchdog: WatchdogPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        demo_mode: bool = False,
        buffer_bytes: int = DEFAULT_BUFFER_BYTES,
        extra_tools: Callable[[Settings], Sequence[types.Tool]] = _no_extra_tools,
        take_announcements: Callable[[], Sequence[str]] = _no_announcements,
        before_connect: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._bus = bus
        self._settings = settings
        self._tools = tools
        self._sink = sink
        self._client_factory = client_factory
        self._history = history
        self._policy = reconnect or ReconnectPolicy()
        self._watchdog_policy = watchdog or WatchdogPolicy()
        self._clock = clock
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not cryptography
        self._demo_mode = demo_mode
        self._extra_tools = extra_tools
        self._take_announcements = take_announcements
        self._before_connect = before_connect

        self._state = AgentState.DISCONNECTED
        self._progress = asyncio.Event()  # set on every state change and playback drain
        self._talk_mode = settings.talk_mode
        self._client: genai.Client | None = None
        self._connection: LiveConnection | None = None
        self._generation = 0  # counts connections; tool answers for an old one are dropped
        self._supervisor: asyncio.Task[None] | None = None
        self._ending: asyncio.Task[None] | None = None
        self._tool_tasks: set[asyncio.Task[None]] = set()
        self._subscriptions: list[Subscription] = []
        self._last_grounding: tuple[int, GroundingSummary] | None = None
        self._configured: tuple[object, ...] = ()  # see _setup_fingerprint

        self._handle: str | None = None
        self._was_connected = False
        self._outbox = RealtimeOutbox(buffer_bytes)
        # One handler per LiveServerMessage field, in the order they are applied.
        self._handlers: tuple[tuple[str, Callable[[Any], None]], ...] = (
            ("setup_complete", self._handle_setup_complete),
            ("session_resumption_update", self._handle_session_resumption_update),
            ("server_content", self._handle_server_content),
            ("tool_call", self._handle_tool_call),
            ("tool_call_cancellation", self._handle_tool_call_cancellation),
            ("usage_metadata", self._handle_usage_metadata),
            ("go_away", self._handle_go_away),
            ("voice_activity", self._handle_voice_activity),
            ("voice_activity_detection_signal", self._handle_voice_activity),
        )
        self._reconnect_now = asyncio.Event()
        self._reconnect_reason = ""
        self._reconnect_wanted = False
        self._go_away_received = False
        self._deadline_timer: asyncio.TimerHandle | None = None
        self._deadline_passed = False
        self._watchdog_timer: asyncio.TimerHandle | None = None
        self._nudged = False
        self._end_requested: str | None = None
        self._skip_input_transcripts = 0

        self._talking = False  # push-to-talk held (or, hands-free, the mic is live)
        self._mic_open = True
        self._turn = Turn(turn_id=0, completed=True)
        self._pending_calls: dict[str, tuple[str, float, int]] = {}
        # Calls already answered with will_continue (a running timer): kept open for their
        # later answers, but the model is not waiting on them, so they do not hold back a
        # reconnect or the watchdog. A dropped connection still cancels them.
        self._open_streams: set[str] = set()
        self._reconnects = 0
        self._session_tokens = 0
        self._session_started_at: datetime | None = None
        self._session_open = False

    # ------------------------------------------------------------------ public API

    @property
    def state(self) -> AgentState:
        """The current state."""
        return self._state

    @property
    def talk_mode(self) -> TalkMode:
        """Push-to-talk or hands-free, as used by the current connection."""
        return self._talk_mode

    @property
    def demo_mode(self) -> bool:
        """Whether the endpoint is the offline demo simulator (tools can tell)."""
        return self._demo_mode

    @demo_mode.setter
    def demo_mode(self, on: bool) -> None:
        self._demo_mode = on

    @property
    def reconnect_count(self) -> int:
        """Reconnections in this session (planned and unplanned)."""
        return self._reconnects

    @property
    def resumption_handle(self) -> str | None:
        """The newest resumable handle the service gave, or None."""
        return self._handle

    def snapshot(self) -> AgentStateSnapshot:
        """What ``ToolContext.state()`` returns: a read-only picture of the agent now."""
        return AgentStateSnapshot(
            state=str(self._state),
            talk_mode=str(self._talk_mode),
            model=self._settings.model,
            session_started_at=self._session_started_at,
            enabled_tools=self._enabled_tool_names(),
            demo_mode=self._demo_mode,
            reconnects=self._reconnects,
        )

    async def start(self) -> None:
        """Open a new conversation: a history file, then the connection (in the background).

        Returns at once; watch the StateChanged events (Connecting, then Ready or Error).
        Calling it while a session runs does nothing.
        """
        if self._state in _RUNNING_STATES:
            return
        self._reset_session()
        session_id = uuid.uuid4().hex[:12]
        path = await self._history.open(session_id)
        self._session_started_at = datetime.now(UTC)
        self._session_open = True
        self._history.record(
            "session_started",
            session_id=session_id,
            model=self._settings.model,
            talk_mode=str(self._talk_mode),
            voice=self._settings.voice,
            language=self._settings.language,
        )
        if not self._subscriptions:
            self._subscriptions = [
                self._bus.subscribe(EndSessionRequested, self._on_end_session_requested),
                self._bus.subscribe(TimerAnnouncementPending, self._on_announcement_pending),
                self._bus.subscribe(TimersRunningAtQuit, self._on_timers_running_at_quit),
            ]
        self._bus.emit(SessionStarted(session_id=session_id, history_file=path))
        self._set_state(AgentState.CONNECTING, "starting")
        self._supervisor = asyncio.create_task(self._supervise(), name="agent-supervisor")

    async def stop(self) -> None:
        """Close the conversation and everything it runs; the state becomes Disconnected."""
        await self._shutdown(AgentState.DISCONNECTED, "stopped by the person")

    async def end_session(self, reason: str) -> None:
        """End the conversation for good (the endSession tool, or the person); state Ended."""
        await self._shutdown(AgentState.ENDED, reason)

    def begin_talk(self, pre_roll: bytes = b"") -> bool:
        """The person starts speaking (push-to-talk pressed); hands-free: the mic is live.

        Args:
            pre_roll: audio captured just before the press, so the first syllable is kept.

        While the connection is still being made (Connecting, Reconnecting) the turn is
        queued and sent once connected, so what is said meanwhile is not lost.

        Returns:
            False when there is no conversation to talk to (nothing is sent).
        """
        if self._state not in _RUNNING_STATES:
            _log.info("begin_talk ignored in state %s", self._state)
            return False
        if self._talk_mode is TalkMode.HANDS_FREE:
            self._mic_open = True
            if pre_roll:
                self._outbox.put(RealtimeInput(RealtimeKind.AUDIO, audio=pre_roll))
            return True
        if self._talking:
            return True
        self._talking = True
        self._cancel_watchdog()
        if self._sink.is_playing or self._state is AgentState.ASSISTANT_SPEAKING:
            # The person pressed talk over the answer: silence it now, the service's
            # "interrupted" will follow.
            self._sink.flush()
            self._finish_assistant_line(interrupted=True)
        self._new_turn()
        self._outbox.put(RealtimeInput(RealtimeKind.ACTIVITY_START))
        if pre_roll:
            self._outbox.put(RealtimeInput(RealtimeKind.AUDIO, audio=pre_roll))
        if self._state in _ACTIVE_STATES:
            self._set_state(AgentState.USER_SPEAKING, "talk pressed")
        return True

    def end_talk(self) -> None:
        """The person stopped speaking (push-to-talk released); hands-free: the mic paused."""
        if self._talk_mode is TalkMode.HANDS_FREE:
            if self._mic_open and self._state in _RUNNING_STATES:
                self._mic_open = False
                self._outbox.put(RealtimeInput(RealtimeKind.AUDIO_STREAM_END))
            return
        if not self._talking:
            return
        self._talking = False
        self._outbox.put(RealtimeInput(RealtimeKind.ACTIVITY_END))
        self._turn.speech_ended_at = self._clock()
        self._arm_watchdog()
        # activityEnd first: the state change runs the window's reaction (labels, then a
        # repaint), which would otherwise go before the sender puts activityEnd on the wire.
        # The sender's wake-up is already queued; this goes after it.
        released_in = self._state
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._talk_released(released_in)
        else:
            loop.call_soon(self._talk_released, released_in)

    def _talk_released(self, released_in: AgentState) -> None:
        """Thinking, unless talk was pressed again or the state moved on meanwhile."""
        if not self._talking and self._state is released_in and released_in in _ACTIVE_STATES:
            self._set_state(AgentState.THINKING, "talk released")

    def send_audio(self, pcm16k: bytes) -> None:
        """Microphone audio (PCM16 LE mono 16 kHz); sent in order, buffered while offline.

        Push-to-talk: only between :meth:`begin_talk` and :meth:`end_talk`. Hands-free:
        whenever the mic is live, except while the assistant speaks when echo cancellation
        is switched off in the settings (it would hear itself and interrupt).
        """
        if not pcm16k or self._state not in _RUNNING_STATES:
            return
        if self._talk_mode is TalkMode.PUSH_TO_TALK:
            if not self._talking:
                return
        else:
            if (
                not self._settings.echo_cancellation
                and self._state is AgentState.ASSISTANT_SPEAKING
            ):
                return  # without echo cancellation the service would hear the answer
            self._mic_open = True
        self._outbox.put(RealtimeInput(RealtimeKind.AUDIO, audio=pcm16k))

    def send_text(self, text: str) -> bool:
        """A typed message, as a turn of its own.

        Returns:
            False when the text is empty or there is no conversation.
        """
        text = text.strip()
        if not text or self._state not in _RUNNING_STATES:
            return False
        if self._sink.is_playing:
            self._sink.flush()
            self._finish_assistant_line(interrupted=True)
        self._new_turn()
        self._turn.user_text = text
        self._finish_user_line()
        self._outbox.put(RealtimeInput(RealtimeKind.TEXT, text=text))
        self._turn.speech_ended_at = self._clock()
        self._arm_watchdog()
        if self._state in _ACTIVE_STATES:
            self._set_state(AgentState.THINKING, "text sent")
        return True

    async def set_talk_mode(self, mode: TalkMode) -> None:
        """Switch push-to-talk / hands-free.

        The service's activity detection is part of the session setup, so a running session
        reconnects (resuming the conversation) at the next quiet moment.
        """
        if mode is self._talk_mode:
            return
        if self._talking:
            self.end_talk()
        self._talk_mode = mode
        self._mic_open = True
        self._history.record("talk_mode_changed", talk_mode=str(mode))
        if self._state in _RUNNING_STATES:
            self._request_reconnect("talk mode changed")

    async def set_tool_enabled(self, name: str, on: bool) -> bool:
        """Switch a tool on or off, in the running session when possible.

        The new declarations are sent as a context update: no reconnection, the
        conversation goes on. Without a connection they apply at the next one.

        Returns:
            True when the running session was updated in place.
        """
        self._tools.set_enabled(name, on)
        enabled, applied = await self._send_tools_update()
        self._history.record("tools_changed", tool=name, enabled=on, applied_live=applied)
        self._bus.emit(ToolsChanged(enabled=enabled, applied_live=applied))
        return applied

    async def update_settings(self, settings: Settings) -> None:
        """Use ``settings`` from now on (the settings pane saved a new object).

        Read live: echo cancellation. Tools (Google Search on or off): a context update to
        the running session, no reconnection, and a :class:`ToolsChanged` event. The talk
        mode: as :meth:`set_talk_mode`. What only the session setup carries (model, voice,
        language, system prompt, activity detection): a reconnection that resumes the
        conversation at the next quiet moment. Without a session, all of it simply applies
        at the next connection.
        """
        old, self._settings = self._settings, settings
        if self._state not in _RUNNING_STATES:
            if settings.talk_mode is not old.talk_mode:
                self._talk_mode = settings.talk_mode
            return
        if settings.talk_mode is not old.talk_mode:
            await self.set_talk_mode(settings.talk_mode)
        changed = [
            field for field in _SETUP_FIELDS if getattr(old, field) != getattr(settings, field)
        ]
        if changed:
            self._history.record("settings_changed", fields=changed, applied_live=False)
            self._request_reconnect(f"settings changed: {', '.join(changed)}")
            return
        if _tool_dump(self._extra_tools(old)) == _tool_dump(self._extra_tools(settings)):
            return
        enabled, applied = await self._send_tools_update()
        self._history.record("settings_changed", fields=["tools"], applied_live=applied)
        self._bus.emit(ToolsChanged(enabled=enabled, applied_live=applied))

    async def _send_tools_update(self) -> tuple[tuple[str, ...], bool]:
        """Send the current tools to the running session; (enabled names, sent or not)."""
        tools = self._session_tools()
        applied = False
        connection = self._connection
        if connection is not None and connection.is_open:
            try:
                await connection.send_context_update(tools)
                applied = True
            except LiveConnectionError as exc:
                _log.info("context update not sent (%s); it applies on reconnection", exc)
        return self._enabled_tool_names(tools), applied

    def _setup_fingerprint(self, tools: Sequence[types.Tool]) -> tuple[object, ...]:
        """What a connection's setup was built from, to tell when it has gone stale."""
        return (
            *(getattr(self._settings, field) for field in _SETUP_FIELDS),
            self._talk_mode,
            _tool_dump(tools),
        )

    def _session_tools(self) -> list[types.Tool]:
        """``LiveConnectConfig.tools``: the enabled functions, then the extra tools."""
        return [
            *self._tools.declarations(self._settings.model),
            *self._extra_tools(self._settings),
        ]

    def on_playback_drained(self) -> None:
        """The audio sink finished playing everything queued (the app wires PlaybackDrained)."""
        self._progress.set()
        if self._state is AgentState.ASSISTANT_SPEAKING and self._turn.completed:
            self._set_state(AgentState.READY, "answer played")

    # ------------------------------------------------------------------ supervision

    async def _supervise(self) -> None:
        failures = 0
        planned = False
        last_reason = ""
        try:
            while True:
                connection = await self._open_connection(planned, attempt=failures + 1)
                if isinstance(connection, LiveConnectionError):
                    error = connection
                else:
                    connected_at = self._clock()
                    try:
                        await self._run_connection(connection)
                    except LiveConnectionError as exc:
                        error = exc
                    else:
                        planned, failures = True, 0
                        continue
                    finally:
                        await self._drop_connection()
                    if self._clock() - connected_at >= self._policy.stable_after_s:
                        failures = 0
                    if self._go_away_received and error.kind is FailureKind.TRANSIENT:
                        # The service closed as announced: resume without backoff.
                        planned = True
                        continue
                    self._bus.emit(ConnectionLost(code=error.code, reason=error.reason))
                    self._history.record("connection_lost", code=error.code, reason=error.reason)
                planned = False
                if error.kind is FailureKind.AUTH:
                    await self._give_up(
                        ErrorKind.AUTH, f"The service refused the API key: {error.reason}"
                    )
                    return
                if error.kind is FailureKind.CONFIGURATION:
                    await self._give_up(
                        ErrorKind.CONFIGURATION,
                        f"The service rejected the session setup: {error.reason}",
                    )
                    return
                failures += 1
                last_reason = error.reason
                if failures >= self._policy.max_attempts:
                    await self._give_up(
                        ErrorKind.CONNECTION,
                        f"Could not reach the assistant after {failures} attempts: {last_reason}",
                    )
                    return
                delay = self._policy.delay(failures, self._rng)
                if self._was_connected:
                    self._set_state(AgentState.RECONNECTING, error.reason)
                self._bus.emit(
                    Reconnecting(
                        attempt=failures,
                        max_attempts=self._policy.max_attempts,
                        delay_s=delay,
                        reason=error.reason,
                    )
                )
                await asyncio.sleep(delay)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a bug must become a visible error, not a dead task
            _log.exception("the agent supervisor failed")
            await self._give_up(ErrorKind.INTERNAL, "The assistant's connection manager failed.")

    async def _open_connection(
        self, planned: bool, *, attempt: int
    ) -> LiveConnection | LiveConnectionError:
        """Connect, resuming when there is a handle; falls back to a fresh session."""
        if self._client is None:
            try:
                if self._before_connect is not None:
                    await self._before_connect()
                self._client = self._client_factory()
            except LiveConnectionError as exc:  # no key, say: the factory explains
                return exc
        resuming = self._handle is not None
        if planned:
            self._bus.emit(
                Reconnecting(
                    attempt=1,
                    max_attempts=self._policy.max_attempts,
                    delay_s=0.0,
                    reason=self._reconnect_reason or "the service asked to reconnect",
                )
            )
        try:
            connection = await self._connect(self._handle)
        except LiveConnectionError as exc:
            if not (resuming and self._was_connected and exc.kind is not FailureKind.TRANSIENT):
                return exc
            # The handle was refused (expired, unknown). Start a fresh session and give
            # the model the transcript so far, so the conversation still reads as one.
            _log.warning("resumption refused (%s); starting a fresh session", exc)
            self._history.record("resumption_refused", code=exc.code, reason=exc.reason)
            self._handle = None
            try:
                connection = await self._connect(None)
            except LiveConnectionError as second:
                return second
        self._on_connected(
            connection, resumed=self._handle is not None, planned=planned, attempts=attempt
        )
        return connection

    async def _connect(self, handle: str | None) -> LiveConnection:
        assert self._client is not None
        tools = self._session_tools()
        self._configured = self._setup_fingerprint(tools)
        config = build_live_config(
            self._settings,
            tools,
            talk_mode=self._talk_mode,
            resume_handle=handle,
            earlier_conversation=""
            if handle is not None or not self._was_connected
            else self._history.transcript_text(),
        )
        connection = LiveConnection(
            self._client, self._settings.model, connect_timeout_s=self._policy.connect_timeout_s
        )
        await connection.connect(config)
        return connection

    def _on_connected(
        self, connection: LiveConnection, *, resumed: bool, planned: bool, attempts: int
    ) -> None:
        self._connection = connection
        self._generation += 1
        self._go_away_received = False
        self._reconnect_wanted = False
        self._reconnect_now.clear()
        self._deadline_passed = False
        self._cancel_deadline()
        replayed = 0
        if self._was_connected:
            self._reconnects += 1
            self._turn.reconnects += 1
            # What the service may not have seen (sent after the newest handle) goes first,
            # then what was captured while disconnected, in the original order.
            replayed = self._outbox.requeue_unconfirmed()
            self._bus.emit(
                Reconnected(
                    resumed=resumed,
                    attempts=attempts,
                    replayed_messages=replayed,
                    planned=planned,
                )
            )
            self._history.record(
                "reconnected",
                resumed=resumed,
                planned=planned,
                replayed_messages=replayed,
                dropped_audio_bytes=self._outbox.dropped_audio_bytes,
            )
        self._was_connected = True
        self._set_state(self._resting_state(), "connected")
        if self._configured != self._setup_fingerprint(self._session_tools()):
            # Settings, talk mode or tools changed while this connection was being set up:
            # its setup is already stale, and the wish to reconnect was just cleared.
            self._request_reconnect("settings changed while connecting")
        if self._turn.awaiting_answer:
            self._arm_watchdog()

    def _resting_state(self) -> AgentState:
        """The state to show once connected, from what the conversation was doing."""
        if self._state is AgentState.ASSISTANT_SPEAKING and self._sink.is_playing:
            return AgentState.ASSISTANT_SPEAKING  # the answer is still being heard
        if self._talking:
            return AgentState.USER_SPEAKING
        if self._turn.awaiting_answer:
            return AgentState.THINKING
        return AgentState.READY

    async def _run_connection(self, connection: LiveConnection) -> None:
        """Receive and send until the connection closes (raises) or a reconnect is due."""
        workers = {
            asyncio.create_task(self._receive(connection), name="live-receive"),
            asyncio.create_task(self._send_outbox(connection), name="live-send"),
        }
        due: asyncio.Task[Literal[True]] | None = None
        try:
            while True:
                due = asyncio.create_task(self._reconnect_now.wait(), name="live-reconnect-due")
                done, _ = await asyncio.wait({*workers, due}, return_when=asyncio.FIRST_COMPLETED)
                for task in done & workers:
                    exc = task.exception()
                    raise exc or LiveConnectionError(
                        FailureKind.TRANSIENT, None, "the connection ended"
                    )
                # Checked here, in the supervisor, right before tearing down: the person may
                # have started talking since the quiet moment that asked for the reconnect.
                if self._deadline_passed or self._is_quiet():
                    return
                self._reconnect_now.clear()
        finally:
            for worker in workers:
                worker.cancel()
            if due is not None:
                due.cancel()
                await asyncio.gather(due, return_exceptions=True)
            await asyncio.gather(*workers, return_exceptions=True)

    async def _drop_connection(self) -> None:
        connection, self._connection = self._connection, None
        self._cancel_watchdog()
        self._prepare_replay()
        if self._pending_calls:
            ids = list(self._pending_calls)
            # Answers for this connection can no longer be delivered; a resumed session
            # asks again if it still needs them.
            self._tools.cancel(ids)
            self._pending_calls.clear()
            self._open_streams.clear()
            self._history.record("tool_calls_abandoned", ids=ids)
        if connection is not None:
            await connection.close()

    def _prepare_replay(self) -> None:
        """A connection ended while an answer was due: get ready to ask again.

        What was sent after the newest handle is re-sent on the next connection, so the
        unanswered question will be answered from the start: the half-played answer is
        silenced and forgotten (not left as a cut-off line), and the service's second
        transcription of the question is skipped (it is in the transcript already).
        """
        turn = self._turn
        if not turn.awaiting_answer or not self._outbox.has_unconfirmed:
            return
        self._sink.flush()
        turn.assistant_text = ""
        turn.first_audio_at = None
        if turn.user_final and turn.user_text:
            self._skip_input_transcripts = 1

    async def _receive(self, connection: LiveConnection) -> None:
        async for message in connection.messages():
            self._dispatch(message)

    async def _send_outbox(self, connection: LiveConnection) -> None:
        while True:
            item = await self._outbox.get()
            try:
                await connection.send_realtime(item)
            except BaseException:
                # Closed, or cancelled for a reconnect: the next connection sends it.
                self._outbox.unget(item)
                raise
            self._outbox.sent(item)

    def _request_reconnect(self, reason: str) -> None:
        self._reconnect_wanted = True
        self._reconnect_reason = reason
        self._reconnect_if_quiet()

    def _is_quiet(self) -> bool:
        """Nobody is speaking and nothing is pending: a reconnect now goes unnoticed."""
        return (
            self._state is AgentState.READY
            and not self._awaiting_tools()
            and not self._talking
            and len(self._outbox) == 0
        )

    def _reconnect_if_quiet(self) -> None:
        if self._reconnect_wanted and self._is_quiet():
            self._reconnect_now.set()

    def _deadline_reached(self) -> None:
        self._deadline_timer = None
        self._deadline_passed = True
        self._reconnect_now.set()

    def _cancel_deadline(self) -> None:
        if self._deadline_timer is not None:
            self._deadline_timer.cancel()
            self._deadline_timer = None

    # ------------------------------------------------------------------ dispatch

    def _dispatch(self, message: types.LiveServerMessage) -> None:
        """Hand each part of ``message`` to its ``_handle_<kind>`` method."""
        handled = False
        for kind, handle in self._handlers:
            value = getattr(message, kind)
            if value is None:
                continue
            handled = True
            try:
                handle(value)
            except Exception:  # noqa: BLE001
                # One message we cannot handle must not end the conversation.
                _log.exception("failed to handle a %s message", kind)
        if not handled:
            _log.warning("unexpected message from the service, ignored: %r", message)

    def _handle_setup_complete(self, setup: types.LiveServerSetupComplete) -> None:
        _log.debug("setupComplete again on an open connection: %s", setup)

    def _handle_voice_activity(self, activity: object) -> None:
        _log.debug("voice activity signal: %s", activity)

    def _handle_session_resumption_update(
        self, update: types.LiveServerSessionResumptionUpdate | None
    ) -> None:
        if update is None or not update.resumable or not update.new_handle:
            return
        self._handle = update.new_handle
        # The service's state at this handle includes everything sent so far.
        self._outbox.confirm()

    def _handle_server_content(self, content: types.LiveServerContent | None) -> None:
        if content is None:
            return
        if content.interrupted:
            self._handle_interrupted()
        if content.input_transcription is not None:
            self._handle_input_transcription(content.input_transcription)
        if content.model_turn is not None:
            self._handle_model_turn(content.model_turn)
        if content.output_transcription is not None:
            self._handle_output_transcription(content.output_transcription)
        if content.grounding_metadata is not None:
            self._handle_grounding(content)
        if content.generation_complete:
            self._handle_generation_complete()
        if content.turn_complete:
            self._handle_turn_complete()

    def _handle_interrupted(self) -> None:
        self._sink.flush()
        self._history.record("interrupted", turn_id=self._turn.turn_id)
        self._finish_assistant_line(interrupted=True)
        if self._talk_mode is TalkMode.HANDS_FREE and not self._talking:
            self._set_state(AgentState.USER_SPEAKING, "interrupted by the person")

    def _handle_input_transcription(self, transcription: types.Transcription) -> None:
        if self._skip_input_transcripts:
            # The re-sent question transcribed a second time: it is in the transcript already.
            if transcription.finished:
                self._skip_input_transcripts -= 1
            return
        if self._talk_mode is TalkMode.HANDS_FREE and (
            self._turn.completed or self._turn.user_final
        ):
            # The service's VAD heard a new utterance: that starts the next turn.
            self._new_turn()
        if transcription.text:
            self._turn.user_text += transcription.text
            self._bus.emit(
                TranscriptUpdated(
                    speaker=Speaker.USER,
                    text=self._turn.user_text,
                    final=False,
                    turn_id=self._turn.turn_id,
                )
            )
            if self._talk_mode is TalkMode.HANDS_FREE and self._state is AgentState.READY:
                self._set_state(AgentState.USER_SPEAKING, "speech heard")
        if transcription.finished:
            self._finish_user_line()
            if self._talk_mode is TalkMode.HANDS_FREE and self._turn.speech_ended_at is None:
                self._turn.speech_ended_at = self._clock()
                self._arm_watchdog()
                if self._state is AgentState.USER_SPEAKING:
                    self._set_state(AgentState.THINKING, "speech ended")

    def _handle_model_turn(self, content: types.Content) -> None:
        for part in content.parts or ():
            blob = part.inline_data
            if blob is not None and blob.data and (blob.mime_type or "").startswith("audio/"):
                self._on_model_audio(blob.data)
            elif part.text and not part.thought:
                self._on_model_text(part.text)

    def _on_model_audio(self, pcm24k: bytes) -> None:
        self._mark_answered()
        if self._turn.first_audio_at is None:
            self._turn.first_audio_at = self._clock()
            if self._talk_mode is TalkMode.HANDS_FREE and self._turn.speech_ended_at is None:
                # Hands-free without a finished transcription: the answer itself tells us
                # the person had stopped.
                self._turn.speech_ended_at = self._turn.first_audio_at
            if not self._turn.user_final and self._turn.user_text:
                self._finish_user_line()
        self._sink.play(pcm24k)
        if self._state in (AgentState.READY, AgentState.THINKING) or (
            self._state is AgentState.USER_SPEAKING and not self._talking
        ):
            self._set_state(AgentState.ASSISTANT_SPEAKING, "answer started")

    def _on_model_text(self, text: str) -> None:
        # Audio-only sessions rarely send text parts; treat them like the transcript.
        self._mark_answered()
        self._append_assistant_text(text)

    def _handle_output_transcription(self, transcription: types.Transcription) -> None:
        self._mark_answered()
        if transcription.text:
            self._append_assistant_text(transcription.text)

    def _append_assistant_text(self, text: str) -> None:
        self._turn.assistant_text += text
        self._bus.emit(
            TranscriptUpdated(
                speaker=Speaker.ASSISTANT,
                text=self._turn.assistant_text,
                final=False,
                turn_id=self._turn.turn_id,
            )
        )

    def _handle_grounding(self, content: types.LiveServerContent) -> None:
        summary = grounding_sources(types.LiveServerMessage(server_content=content))
        if summary is None:
            return
        turn_id = self._turn.turn_id
        if self._last_grounding == (turn_id, summary):
            return  # the service repeats the metadata of a turn: show it once
        self._last_grounding = (turn_id, summary)
        self._history.record(
            "grounding_sources",
            turn_id=turn_id,
            sources=[{"title": s.title, "uri": s.uri, "domain": s.domain} for s in summary.sources],
            queries=list(summary.queries),
        )
        self._bus.emit(
            GroundingSourcesFound(turn_id=turn_id, sources=summary.sources, queries=summary.queries)
        )

    def _handle_generation_complete(self) -> None:
        self._mark_answered(opens_turn=False)

    def _handle_turn_complete(self) -> None:
        self._mark_answered(opens_turn=False)
        self._cancel_watchdog()
        turn = self._turn
        if not turn.user_final and turn.user_text:
            self._finish_user_line()
        self._finish_assistant_line(interrupted=False)
        if not turn.completed:
            turn.completed = True
            stats = turn.stats()
            self._history.record(
                "turn_stats",
                turn_id=stats.turn_id,
                first_audio_ms=stats.first_audio_ms,
                tool_ms=stats.tool_ms,
                tool_calls=stats.tool_calls,
                reconnects=stats.reconnects,
                total_tokens=stats.total_tokens,
            )
            self._bus.emit(stats)
        # Everything the person said before this answer has been consumed.
        self._outbox.confirm()
        if isinstance(self._sink, TurnAwareSink):
            self._sink.end_of_turn()
        if self._talking:
            return
        if self._state is AgentState.ASSISTANT_SPEAKING and self._sink.is_playing:
            return  # on_playback_drained() moves on to Ready
        if self._state in (
            AgentState.THINKING,
            AgentState.ASSISTANT_SPEAKING,
            AgentState.USER_SPEAKING,
        ):
            self._set_state(AgentState.READY, "answer complete")

    def _handle_tool_call(self, call: types.LiveServerToolCall | None) -> None:
        if call is None:
            return
        self._mark_answered()
        self._cancel_watchdog()
        now = self._clock()
        for function_call in call.function_calls or ():
            call_id = function_call.id or ""
            name = function_call.name or ""
            self._pending_calls[call_id] = (name, now, self._turn.turn_id)
            self._turn.tool_calls += 1
            self._history.record(
                "tool_call",
                turn_id=self._turn.turn_id,
                id=call_id,
                name=name,
                args=function_call.args or {},
            )
            self._history.add_tool_line(f"{name} called")
        if self._state in (AgentState.READY, AgentState.USER_SPEAKING) and not self._talking:
            self._set_state(AgentState.THINKING, "running tools")
        generation = self._generation
        task = asyncio.create_task(
            self._run_tool_call(call, generation),
            name=f"tool-call-{'-'.join(fc.id or '?' for fc in call.function_calls or ())}",
        )
        self._tool_tasks.add(task)
        task.add_done_callback(self._tool_tasks.discard)

    async def _run_tool_call(self, call: types.LiveServerToolCall, generation: int) -> None:
        ids = [fc.id or "" for fc in call.function_calls or ()]

        async def respond(responses: list[types.FunctionResponse]) -> None:
            await self._send_tool_responses(responses, generation)

        try:
            await self._tools.handle(call, respond)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the calls are answered below regardless
            _log.exception("the tool runner failed on %s", ids)
        # Every call must be answered: the tool runner's timeouts guarantee it; if one
        # still slipped through, answer it here rather than let the model wait forever.
        missing = [fc for fc in call.function_calls or () if (fc.id or "") in self._pending_calls]
        if missing and generation == self._generation:
            _log.error(
                "tool calls left unanswered by the tool runner: %s", [fc.id for fc in missing]
            )
            await self._send_tool_responses(
                [
                    types.FunctionResponse(
                        id=fc.id,
                        name=fc.name,
                        response={"error": "The tool did not answer. Tell the person it failed."},
                    )
                    for fc in missing
                ],
                generation,
            )

    async def _send_tool_responses(
        self, responses: list[types.FunctionResponse], generation: int
    ) -> None:
        connection = self._connection
        if generation != self._generation or connection is None:
            self._history.record(
                "tool_result_dropped",
                ids=[r.id for r in responses],
                reason="the connection it was for has closed",
            )
            return
        answered = [r for r in responses if (r.id or "") in self._pending_calls]
        if not answered:
            return  # cancelled by the service: nothing may be sent for those
        try:
            await connection.send_tool_response(answered)
        except LiveConnectionError as exc:
            _log.info("tool response not delivered: %s", exc)
            return
        now = self._clock()
        for response in answered:
            self._history.record(
                "tool_result",
                id=response.id,
                name=response.name,
                response=response.response,
                will_continue=bool(response.will_continue),
            )
            call_id = response.id or ""
            if response.will_continue:
                if call_id not in self._open_streams:
                    # The first answer is what the model waited for; later ones come on
                    # their own (a timer ending), so only this one counts as tool time.
                    self._open_streams.add(call_id)
                    self._add_tool_time(call_id, now)
                continue
            if call_id in self._open_streams:
                self._open_streams.discard(call_id)
            else:
                self._add_tool_time(call_id, now)
            self._pending_calls.pop(call_id)
        if not self._awaiting_tools():
            if self._end_requested is not None:
                self._schedule_end(self._end_requested)
            elif not self._turn.completed:
                self._arm_watchdog()
            self._reconnect_if_quiet()

    def _add_tool_time(self, call_id: str, now: float) -> None:
        _name, started, turn_id = self._pending_calls[call_id]
        if turn_id == self._turn.turn_id:
            self._turn.tool_ms += (now - started) * 1000

    def _awaiting_tools(self) -> bool:
        """True while the model waits for a tool answer (open streams do not count)."""
        return any(call_id not in self._open_streams for call_id in self._pending_calls)

    def _handle_tool_call_cancellation(
        self, cancellation: types.LiveServerToolCallCancellation | None
    ) -> None:
        if cancellation is None:
            return
        ids = [i for i in cancellation.ids or () if i]
        for call_id in ids:
            self._pending_calls.pop(call_id, None)
            self._open_streams.discard(call_id)
        self._tools.cancel(ids)
        self._history.record("tool_calls_cancelled", ids=ids)

    def _handle_usage_metadata(self, usage: types.UsageMetadata | None) -> None:
        if usage is None:
            return
        prompt = usage.prompt_token_count or 0
        response = usage.response_token_count or 0
        total = usage.total_token_count or (prompt + response)
        self._turn.prompt_tokens += prompt
        self._turn.response_tokens += response
        self._turn.total_tokens += total
        self._session_tokens += total
        self._bus.emit(
            UsageUpdated(
                prompt_tokens=prompt,
                response_tokens=response,
                total_tokens=total,
                session_total=self._session_tokens,
            )
        )

    def _handle_go_away(self, go_away: types.LiveServerGoAway | None) -> None:
        time_left = _parse_time_left(go_away.time_left if go_away else None)
        self._go_away_received = True
        self._history.record("go_away", time_left_s=time_left)
        self._request_reconnect(f"the service asked to reconnect within {time_left:g} s")
        self._cancel_deadline()
        loop = asyncio.get_running_loop()
        wait = max(0.0, time_left - self._policy.goaway_margin_s)
        self._deadline_timer = loop.call_later(wait, self._deadline_reached)

    # ------------------------------------------------------------------ turns

    def _new_turn(self) -> None:
        old = self._turn
        if not old.completed and old.turn_id:
            if old.user_text and not old.user_final:
                self._finish_user_line()
            self._finish_assistant_line(interrupted=True)
        self._turn = Turn(turn_id=old.turn_id + 1)
        self._nudged = False

    def _finish_user_line(self) -> None:
        turn = self._turn
        turn.user_final = True
        text = turn.user_text.strip()
        if not text:
            return
        self._history.add_line(Speaker.USER, text, turn.turn_id)
        self._bus.emit(
            TranscriptUpdated(speaker=Speaker.USER, text=text, final=True, turn_id=turn.turn_id)
        )

    def _finish_assistant_line(self, *, interrupted: bool) -> None:
        turn = self._turn
        text = turn.assistant_text.strip()
        turn.assistant_text = ""
        if not text:
            return
        extra = {"interrupted": True} if interrupted else {}
        self._history.add_line(Speaker.ASSISTANT, text, turn.turn_id, **extra)
        self._bus.emit(
            TranscriptUpdated(
                speaker=Speaker.ASSISTANT, text=text, final=True, turn_id=turn.turn_id
            )
        )

    def _mark_answered(self, *, opens_turn: bool = True) -> None:
        self._skip_input_transcripts = 0
        if opens_turn and self._turn.completed:
            # The model speaks without a new request from us (hands-free after audioStreamEnd,
            # or on its own): that is a turn of its own.
            self._new_turn()
        self._turn.answered = True
        self._cancel_watchdog()

    # ------------------------------------------------------------------ watchdog

    def _arm_watchdog(self) -> None:
        self._cancel_watchdog()
        loop = asyncio.get_running_loop()
        self._watchdog_timer = loop.call_later(
            self._watchdog_policy.no_response_s, self._on_watchdog
        )

    def _cancel_watchdog(self) -> None:
        if self._watchdog_timer is not None:
            self._watchdog_timer.cancel()
            self._watchdog_timer = None

    def _on_watchdog(self) -> None:
        self._watchdog_timer = None
        turn = self._turn
        if turn.completed or self._awaiting_tools() or self._state not in _ACTIVE_STATES:
            return
        waited = self._watchdog_policy.no_response_s
        if not self._nudged:
            self._nudged = True
            self._bus.emit(
                NoResponse(turn_id=turn.turn_id, waited_s=waited, nudged=True, gave_up=False)
            )
            self._history.record("no_response", turn_id=turn.turn_id, nudged=True)
            self._outbox.put(
                RealtimeInput(RealtimeKind.TEXT, text=self._watchdog_policy.nudge_text)
            )
            self._arm_watchdog()
            return
        self._bus.emit(
            NoResponse(turn_id=turn.turn_id, waited_s=waited * 2, nudged=True, gave_up=True)
        )
        self._history.record("no_response", turn_id=turn.turn_id, gave_up=True)
        turn.completed = True
        self._finish_assistant_line(interrupted=True)
        if not self._talking:
            self._set_state(AgentState.READY, "no response from the service")

    # ------------------------------------------------------------------ state, ending

    def _set_state(self, new: AgentState, reason: str = "") -> None:
        old = self._state
        if new is old:
            return
        self._state = new
        self._progress.set()
        _log.debug("state %s -> %s (%s)", old, new, reason)
        self._bus.emit(StateChanged(old=old, new=new, reason=reason))
        if new is AgentState.READY:
            if self._end_requested is not None and not self._awaiting_tools():
                self._schedule_end(self._end_requested)
            # Before the reconnect check: a notice queued now holds the reconnect back
            # until it has gone out.
            self._deliver_announcements()
            self._reconnect_if_quiet()

    async def _give_up(self, kind: ErrorKind, message: str) -> None:
        """Show the error and close the session (called by the supervisor, which then ends)."""
        self._history.record("error", kind=str(kind), message=message)
        self._set_state(AgentState.ERROR, message)
        self._bus.emit(ErrorRaised(kind=kind, message=message, what_to_do=_WHAT_TO_DO[kind]))
        await self._shutdown(AgentState.ERROR, message)

    def _on_end_session_requested(self, event: EndSessionRequested) -> None:
        if self._state not in _RUNNING_STATES:
            return
        self._end_requested = event.reason or "the assistant ended the session"
        self._history.record("end_session_requested", reason=self._end_requested)

    def _on_announcement_pending(self, event: TimerAnnouncementPending) -> None:
        self._deliver_announcements()

    def _deliver_announcements(self) -> None:
        """Tell the model what it must say out loud (a timer ended), at a quiet moment.

        Sent as realtime text, like the typed messages and the nudge: the core never mixes
        in ``client_content`` (the service does not want both in one conversation), and the
        outbox keeps it in order, across a reconnect, and re-sends it if the service may
        not have seen it. The "(Timer notice: ...)" framing tells the model it is not the
        person speaking. It is not a transcript line; the history records it.
        """
        if self._state is not AgentState.READY or self._talking or self._end_requested is not None:
            return  # the texts wait in the timer service for the next quiet moment
        try:
            texts = [text.strip() for text in self._take_announcements() if text.strip()]
        except Exception:  # noqa: BLE001 - a broken source must not stop the conversation
            _log.exception("taking the pending announcements failed")
            return
        if not texts:
            return
        self._history.record("timer_announcement", texts=texts)
        notice = " ".join(f"(Timer notice: {text})" for text in texts)
        self._outbox.put(RealtimeInput(RealtimeKind.TEXT, text=notice))

    def _on_timers_running_at_quit(self, event: TimersRunningAtQuit) -> None:
        # The app stops its timers before it stops the core, so the file still lists them.
        self._history.record(
            "timers_running_at_quit", timers=[timer.as_record() for timer in event.timers]
        )

    def _schedule_end(self, reason: str) -> None:
        if self._ending is not None:
            return

        async def end_after_goodbye() -> None:
            # Let the model finish its goodbye (Ready again) or give up after the grace.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._watchdog_policy.end_session_grace_s):
                    while self._state is not AgentState.READY or self._sink.is_playing:
                        self._progress.clear()
                        await self._progress.wait()
            await self._shutdown(AgentState.ENDED, reason)

        self._ending = asyncio.create_task(end_after_goodbye(), name="agent-end-session")

    async def _shutdown(self, final: AgentState, reason: str) -> None:
        current = asyncio.current_task()
        tasks = [
            t
            for t in (self._supervisor, self._ending, *self._tool_tasks)
            if t is not None and t is not current and not t.done()
        ]
        for task in tasks:
            task.cancel()
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=5)
            for task in pending:
                _log.error("task %s did not stop within 5 s", task.get_name())
        self._supervisor = None
        self._tool_tasks.clear()
        await self._drop_connection()
        self._cancel_watchdog()
        self._cancel_deadline()
        self._sink.flush()
        was_running, self._session_open = self._session_open, False
        if self._turn.turn_id and not self._turn.completed:
            if self._turn.user_text and not self._turn.user_final:
                self._finish_user_line()
            self._finish_assistant_line(interrupted=True)
        self._talking = False
        if self._client is not None:
            client, self._client = self._client, None
            with contextlib.suppress(Exception):
                await client.aio.aclose()
            with contextlib.suppress(Exception):
                client.close()
        for subscription in self._subscriptions:
            subscription.cancel()
        self._subscriptions = []
        path = self._history.path
        if was_running:
            self._history.record("session_ended", reason=reason)
        await self._history.close()
        self._set_state(final, reason)
        if was_running:
            self._bus.emit(SessionEnded(reason=reason, history_file=path))
        self._ending = None

    def _reset_session(self) -> None:
        self._handle = None
        self._was_connected = False
        self._outbox.clear()
        self._reconnect_now.clear()
        self._reconnect_wanted = False
        self._deadline_passed = False
        self._go_away_received = False
        self._end_requested = None
        self._ending = None
        self._skip_input_transcripts = 0
        self._talking = False
        self._mic_open = True
        self._turn = Turn(turn_id=0, completed=True)
        self._pending_calls.clear()
        self._open_streams.clear()
        self._last_grounding = None
        self._reconnects = 0
        self._session_tokens = 0

    def _enabled_tool_names(
        self, declarations: Iterable[types.Tool] | None = None
    ) -> tuple[str, ...]:
        tools = (
            self._tools.declarations(self._settings.model) if declarations is None else declarations
        )
        return tuple(
            fd.name for tool in tools for fd in tool.function_declarations or () if fd.name
        )


def _tool_dump(tools: Iterable[types.Tool]) -> list[dict[str, Any]]:
    """Tools as plain data, to tell whether two tool lists differ."""
    return [tool.model_dump(mode="json", exclude_none=True) for tool in tools]
