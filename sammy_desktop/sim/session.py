"""One simulated Live connection: reads client frames, fires turns, plays their actions.

:class:`SessionState` is what a Live session keeps across resumed connections (scenario
position, transcript, pending function calls). :class:`SimulatedConnection` serves one
websocket: a reader loop records and interprets every client frame, and a player task plays
the turns the scenario fires, one at a time.

Barge-in follows the service: while the model speaks, an ``activityStart`` (or, with
automatic activity detection on, a chunk of audio louder than the VAD threshold) cancels the
playing turn, then ``interrupted`` is sent, then (strict profiles) ``turnComplete`` for the
interrupted turn. The rest of that turn is dropped.

How strictly the rest of the service is imitated is the connection's
:class:`~sammy_desktop.sim.profiles.ServiceProfile`; each strict behaviour names its entry of
docs/live-service.md in a comment.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import logging
import re
from collections import deque
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed

from sammy_desktop.sim.clock import Clock, RealClock
from sammy_desktop.sim.pcm import (
    EnergyVad,
    chunk_pcm,
    pcm_rms,
    read_wav_pcm,
    resample_pcm16,
    tone_pcm,
    trim_silence,
)
from sammy_desktop.sim.profiles import (
    INVALID_ARGUMENT_REASON,
    LENIENT,
    NOT_SUPPORTED_REASON,
    Pacing,
    ServiceProfile,
    usage_estimate,
)
from sammy_desktop.sim.recorder import Received, Recorder
from sammy_desktop.sim.scenario import (
    Action,
    CallTools,
    CancelToolCalls,
    Close,
    Delay,
    EchoAudio,
    GenerationComplete,
    GoAway,
    InputSignal,
    InputTranscription,
    Interrupted,
    ModelText,
    OutputTranscription,
    PcmAudio,
    RawMessage,
    Respond,
    ResumptionUpdate,
    Scenario,
    SignalKind,
    Stall,
    Tone,
    TranscriptEntry,
    Turn,
    TurnComplete,
    TurnContext,
    Usage,
    WavAudio,
    timer_of,
)
from sammy_desktop.sim.wire import (
    MAX_FRAME_BYTES,
    ActivityEnd,
    ActivityStart,
    AudioStreamEnd,
    ClientContent,
    ClientMessage,
    CloseCode,
    ContextUpdate,
    FunctionDeclarationInfo,
    ProtocolError,
    RealtimeAudio,
    RealtimeText,
    RealtimeVideo,
    Setup,
    ToolResponse,
    audio_message,
    format_duration,
    parse_client_frame,
    server_content_message,
)
from sammy_desktop.wire_audio import INPUT_RATE, OUTPUT_RATE

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

__all__ = [
    "ConnectionLimits",
    "SessionState",
    "SimulatedConnection",
    "SimulatorScenarioError",
    "close_websocket",
    "split_text",
]

_log = logging.getLogger(__name__)

# Raw PCM per frame: base64 grows it by 4/3, plus JSON; 512 KiB stays well under 1 MiB.
_DEFAULT_ECHO_PADDING_MS = 100  # trim_silence's default, which TurnContext.user_speech has
_MAX_AUDIO_BYTES_PER_FRAME = 512 * 1024
# Keep at most this much microphone audio for echo (hands-free streams never stop).
_MAX_USER_AUDIO_SECONDS = 120
# Close reasons are limited to 123 bytes by the websocket protocol.
_MAX_REASON_BYTES = 123
_INTERNAL_ERROR_REASON = "Internal error encountered."

# Set inside tasks started by test controls, so they get through a stall.
_bypass_stall: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "sammy_sim_bypass_stall", default=False
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectionLimits:
    """How long the simulated service keeps one connection open, like the real ~10 minutes.

    Attributes:
        lifetime_s: Close the connection this long after setupComplete (None: never).
        go_away_notice_s: Send goAway this long before the close.
        close_code: Code of the final close.
        close_reason: Reason of the final close.
    """

    lifetime_s: float | None = None
    go_away_notice_s: float = 50.0
    close_code: int = 1011
    close_reason: str = "Deadline expired before operation could complete."


class SimulatorScenarioError(RuntimeError):
    """A scenario action that cannot be carried out (e.g. a frame that would exceed 1 MiB)."""


def split_text(text: str, pieces: int) -> list[str]:
    """Split text into at most ``pieces`` non-empty parts at word boundaries.

    Joining the parts gives back the text exactly.
    """
    words = re.findall(r"\s*\S+\s*", text) or ([text] if text else [])
    count = max(1, min(pieces, len(words)))
    parts = []
    for index in range(count):
        start = index * len(words) // count
        end = (index + 1) * len(words) // count
        parts.append("".join(words[start:end]))
    return [part for part in parts if part]


def _truncate_reason(reason: str) -> str:
    encoded = reason.encode("utf-8")[:_MAX_REASON_BYTES]
    return encoded.decode("utf-8", errors="ignore")


async def close_websocket(websocket: ServerConnection, code: int | None, reason: str = "") -> None:
    """Close with ``code``; None or 1006 drops the TCP link with no close frame.

    Args:
        websocket: The server side of a connection.
        code: A websocket close code, or None / 1006 for an abrupt close.
        reason: The close reason (cut to the protocol's 123 bytes).
    """
    if code is None or code == CloseCode.ABNORMAL:
        websocket.transport.abort()
        return
    await websocket.close(code, _truncate_reason(reason))


class SessionState:
    """What one Live session keeps across resumed connections.

    Args:
        session_id: Sent in setupComplete; shared by every connection of the session.
        scenario: The script this session plays.

    Attributes:
        profile: Name of the service profile that serves the session's model.
    """

    def __init__(self, session_id: str, scenario: Scenario) -> None:
        self.session_id = session_id
        self.scenario = scenario
        self.profile = "lenient"
        self.position = 0
        self.transcript: list[TranscriptEntry] = []
        self.function_names: tuple[str, ...] = ()
        self.declarations: tuple[FunctionDeclarationInfo, ...] = ()
        self.pending_calls: dict[str, str] = {}
        self.pending_behaviors: dict[str, str] = {}
        self.next_call_number = 1
        self.client_messages = 0
        self.client_content_text: list[str] = []

    def next_call_id(self) -> str:
        """Return a fresh function call id (``fc-1``, ``fc-2``...)."""
        call_id = f"fc-{self.next_call_number}"
        self.next_call_number += 1
        return call_id

    def declaration(self, name: str) -> FunctionDeclarationInfo | None:
        """The declaration of function ``name`` (setup, then context updates)."""
        return next((d for d in self.declarations if d.name == name), None)

    def blocking_calls(self) -> list[str]:
        """Ids of unanswered calls that block the conversation (docs/live-service.md T4)."""
        return [
            call_id
            for call_id in self.pending_calls
            if self.pending_behaviors.get(call_id, "BLOCKING") != "NON_BLOCKING"
        ]

    def forget_calls(self, ids: Sequence[str]) -> None:
        """Drop calls that were answered or cancelled."""
        for call_id in ids:
            self.pending_calls.pop(call_id, None)
            self.pending_behaviors.pop(call_id, None)


@dataclass(slots=True)
class _TurnOutput:
    """What the current turn has sent so far, for the strict profiles' ordering rules.

    Attributes:
        first_audio_at: Clock time of the first answer audio frame (None: none yet).
        audio_seconds: Answer audio sent so far.
        model_output: Anything of the model's (audio, text, transcription) was sent.
        generation_complete: generationComplete was sent for this turn.
        completed: turnComplete was sent; the turn can no longer be interrupted.
        usage: usageMetadata held back for the turnComplete frame (R4).
        late_input: Input transcription pieces held back until the answer audio starts (R2).
        input_audio_s: Microphone audio that led to this turn.
        text_chars: Typed text that led to this turn.
    """

    first_audio_at: float | None = None
    audio_seconds: float = 0.0
    model_output: bool = False
    generation_complete: bool = False
    completed: bool = False
    usage: dict[str, Any] | None = None
    late_input: deque[str] = field(default_factory=deque)
    input_audio_s: float = 0.0
    text_chars: int = 0

    def playback_end(self) -> float | None:
        """When the client finishes playing the answer, if it started playing at once."""
        if self.first_audio_at is None:
            return None
        return self.first_audio_at + self.audio_seconds


class SimulatedConnection:
    """Serves one accepted and authenticated websocket.

    Args:
        websocket: The server side of the connection (setup already read).
        connection_id: Number of this connection in the simulator's life.
        state: The session it belongs to (new or resumed).
        setup: The setup message this connection sent.
        recorder: Where every frame is recorded.
        issue_handle: Gives out a resumption handle for a session.
        running: Set while the simulator is not stalled; every outbound frame waits for it.
        realtime: Default pacing of model audio (True: real time) when ``pacing`` is None.
        limits: Connection lifetime (goAway, then close), off by default.
        profile: How strictly the service is imitated (the lenient profile by default).
        clock: Pacing, playback waits and delays use it.
        pacing: ``"burst"``, ``"realtime"`` or ``"fast"``; None derives it from ``realtime``
            and the profile.
    """

    def __init__(
        self,
        *,
        websocket: ServerConnection,
        connection_id: int,
        state: SessionState,
        setup: Setup,
        recorder: Recorder,
        issue_handle: Callable[[SessionState], str],
        running: asyncio.Event,
        realtime: bool,
        limits: ConnectionLimits | None = None,
        profile: ServiceProfile | None = None,
        clock: Clock | None = None,
        pacing: Pacing | None = None,
    ) -> None:
        self._ws = websocket
        self.connection_id = connection_id
        self.state = state
        self.setup = setup
        self._recorder = recorder
        self._issue_handle = issue_handle
        self._simulator_running = running
        self._realtime = realtime
        self._limits = limits or ConnectionLimits()
        self.profile = profile or LENIENT
        self._clock: Clock = clock or RealClock()
        self.pacing: Pacing = pacing or (
            "realtime" if realtime else (self.profile.audio_pacing or "fast")
        )
        self._connection_running = asyncio.Event()
        self._connection_running.set()
        self._stalled = False
        self._send_lock = asyncio.Lock()
        self._ready: deque[tuple[Turn, TurnContext]] = deque()
        self._wake = asyncio.Event()
        self._turn_task: asyncio.Task[None] | None = None
        self._side_tasks: set[asyncio.Task[None]] = set()
        self._audio_streaming = False
        self._turn = _TurnOutput()
        self._vad = EnergyVad(state.scenario.vad)
        self._user_audio = bytearray()
        self._user_audio_rate = INPUT_RATE
        self._closing = False

    # ------------------------------------------------------------ lifecycle

    async def run(self) -> None:
        """Send setupComplete, then serve the connection until it closes."""
        # setupComplete waits out a stall, unless the client gives up first.
        setup_complete = asyncio.create_task(
            self._send({"setupComplete": {"sessionId": self.state.session_id}}),
            name=f"sim-setup-complete-{self.connection_id}",
        )
        closed = asyncio.create_task(
            self._ws.wait_closed(), name=f"sim-wait-closed-{self.connection_id}"
        )
        await asyncio.wait({setup_complete, closed}, return_when=asyncio.FIRST_COMPLETED)
        closed.cancel()
        sent = setup_complete.done() and not setup_complete.cancelled()
        if sent and setup_complete.exception() is not None:
            sent = False
        if not sent:
            setup_complete.cancel()
        await asyncio.wait({setup_complete, closed})
        if not sent:
            return
        player = asyncio.create_task(self._play_turns(), name=f"sim-player-{self.connection_id}")
        if self._limits.lifetime_s is not None:
            self._start_side_task(self._end_of_life(self._limits.lifetime_s), "lifetime")
        try:
            async for frame in self._ws:
                await self._handle_frame(frame)
        except ConnectionClosed:
            pass
        finally:
            tasks = [player, *self._side_tasks]
            if self._turn_task is not None:
                tasks.append(self._turn_task)
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks, timeout=5)

    def wake(self) -> None:
        """Re-check timers and the stall state (called when the simulator un-stalls)."""
        self._wake.set()

    @property
    def stalled(self) -> bool:
        """True after a :class:`Stall` action: this connection never answers again."""
        return self._stalled

    @property
    def closing(self) -> bool:
        """True once the simulator decided to close this connection."""
        return self._closing

    async def close(self, code: int | None, reason: str = "") -> None:
        """Close with ``code``; None or 1006 drops the TCP link with no close frame."""
        self._closing = True
        await close_websocket(self._ws, code, reason)

    async def perform_now(self, action: Action) -> None:
        """Carry out ``action`` at once, beside the playing turn and through a stall.

        Raises:
            Exception: Whatever the action raised, except a closed connection.
        """

        async def perform() -> None:
            # The context variable is set inside the new task only, never in the caller's.
            _bypass_stall.set(True)
            context = self._context(InputSignal(SignalKind.INJECTED), consume=False)
            await self._perform(action, context)

        task = self._start_side_task(perform(), "inject")
        await asyncio.wait({task})
        if task.cancelled():
            return
        error = task.exception()
        if error is not None and not isinstance(error, ConnectionClosed):
            raise error

    def _start_side_task(self, work: Coroutine[Any, Any, None], what: str) -> asyncio.Task[None]:
        task = asyncio.create_task(work, name=f"sim-{what}-{self.connection_id}")
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)
        return task

    async def _end_of_life(self, lifetime_s: float) -> None:
        notice = min(self._limits.go_away_notice_s, lifetime_s)
        await asyncio.sleep(lifetime_s - notice)
        await self._send({"goAway": {"timeLeft": format_duration(notice)}})
        await asyncio.sleep(notice)
        await self.close(self._limits.close_code, self._limits.close_reason)

    async def _refuse(self, code: int, reason: str) -> None:
        """Close because of something the client sent, as the service does."""
        _log.info("connection %d: closing %d %s", self.connection_id, code, reason)
        self._record(Received.REFUSED, {"code": int(code), "reason": reason})
        await self.close(code, reason)

    def _ignore(self, what: str, why: str) -> None:
        """Record input the service takes but does not act on."""
        self._record(Received.IGNORED, {"what": what, "why": why})

    # ------------------------------------------------------------ input

    async def _handle_frame(self, frame: str | bytes) -> None:
        self.state.client_messages += 1
        if self._closing:
            return
        try:
            messages = parse_client_frame(frame)
        except ProtocolError as error:
            reason = str(error)
            _log.warning("connection %d: refusing frame: %s", self.connection_id, reason)
            await self._refuse(CloseCode.INVALID_ARGUMENT, reason)
            return
        for message in messages:
            if self.closing:
                return
            await self._handle_message(message)

    async def _handle_message(self, message: ClientMessage) -> None:
        state = self.state
        profile = self.profile
        aad = self.setup.automatic_activity_detection
        if isinstance(message, _REALTIME_INPUT) and await self._gate_realtime_input(message):
            return
        if isinstance(message, RealtimeAudio):
            self._record(
                Received.AUDIO,
                {"mime_type": message.mime_type, "byte_count": len(message.pcm)},
                audio=message.pcm,
            )
            await self._on_audio(message)
        elif isinstance(message, RealtimeVideo):
            self._record(
                Received.VIDEO, {"mime_type": message.mime_type, "byte_count": len(message.data)}
            )
        elif isinstance(message, ActivityStart):
            self._record(Received.ACTIVITY_START)
            if profile.activity_signals_need_aad_off and aad:
                # S3: activity signals are for clients that turned detection off.
                self._ignore("activity_start", "automatic activity detection is on")
                return
            if self._can_barge_in():
                await self._barge_in()
            self._user_audio.clear()
            self._vad.reset()
        elif isinstance(message, ActivityEnd):
            self._record(Received.ACTIVITY_END)
            if profile.activity_signals_need_aad_off and aad:
                self._ignore("activity_end", "automatic activity detection is on")
                return
            self._fire(InputSignal(SignalKind.ACTIVITY_END))
        elif isinstance(message, AudioStreamEnd):
            self._record(Received.AUDIO_STREAM_END)
            if profile.activity_signals_need_aad_off and not aad:
                # S3: audioStreamEnd is for clients whose detection is on.
                self._ignore("audio_stream_end", "automatic activity detection is off")
                return
            if aad and self._vad.end_of_stream():
                self._fire(InputSignal(SignalKind.SPEECH_END))
            self._fire(InputSignal(SignalKind.AUDIO_STREAM_END))
        elif isinstance(message, RealtimeText):
            self._record(Received.TEXT, {"text": message.text})
            if profile.realtime_text_needs_aad and not aad:
                # S2: "If disabled, the client must send activity signals."
                self._ignore("text", "automatic activity detection is off")
                return
            state.transcript.append(TranscriptEntry("user", message.text))
            self._fire(InputSignal(SignalKind.TEXT, text=message.text))
        elif isinstance(message, ClientContent):
            self._on_client_content(message)
        elif isinstance(message, ToolResponse):
            self._on_tool_response(message)
        elif isinstance(message, ContextUpdate):
            await self._on_context_update(message)

    async def _gate_realtime_input(self, message: ClientMessage) -> bool:
        """Apply T7 (realtime input while a blocking call is pending); True: stop here."""
        mode = self.profile.realtime_input_during_tool_call
        blocking = self.state.blocking_calls()
        if mode == "accepted" or not blocking:
            return False
        if mode == "close_1008":
            # T7: "rejects all sendRealtimeInput calls ... responds with error 1008".
            await self._refuse(CloseCode.POLICY, NOT_SUPPORTED_REASON)
            return True
        # "cancel": new input cancels the blocking call (Vertex, Gemini 3.8 Live).
        is_new_input = isinstance(message, ActivityStart | RealtimeText) or (
            isinstance(message, RealtimeAudio)
            and self.setup.automatic_activity_detection
            and pcm_rms(message.pcm) >= self.state.scenario.vad.threshold_rms
        )
        if is_new_input:
            self.state.forget_calls(blocking)
            await self._send({"toolCallCancellation": {"ids": blocking}})
        return False

    def _on_client_content(self, message: ClientContent) -> None:
        state = self.state
        self._record(
            Received.CLIENT_CONTENT,
            {
                "turns": list(message.turns),
                "turn_complete": message.turn_complete,
                "text": message.text,
            },
        )
        state.client_content_text.append(message.text)
        if message.turn_complete:
            text = "".join(state.client_content_text)
            state.client_content_text.clear()
            state.transcript.append(TranscriptEntry("user", text))
            self._fire(InputSignal(SignalKind.TEXT, text=text))

    async def _on_context_update(self, message: ContextUpdate) -> None:
        self._record(Received.CONTEXT_UPDATE, dict(message.raw))
        mode = self.profile.context_update
        if mode == "refused":
            # S4: no source shows a model applying it; refuse as an unknown field.
            await self._refuse(CloseCode.INVALID_ARGUMENT, INVALID_ARGUMENT_REASON)
            return
        if mode == "ignored":
            self._ignore("context_update", "this profile does not apply context updates")
            return
        if message.function_names is not None:
            self.state.function_names = message.function_names
        if message.declarations is not None:
            self.state.declarations = message.declarations

    async def _on_audio(self, message: RealtimeAudio) -> None:
        if message.sample_rate != self._user_audio_rate:
            self._user_audio.clear()
            self._user_audio_rate = message.sample_rate
        self._user_audio += message.pcm
        limit = _MAX_USER_AUDIO_SECONDS * self._user_audio_rate * 2
        if len(self._user_audio) > limit:
            del self._user_audio[: len(self._user_audio) - limit]
        if not self.setup.automatic_activity_detection:
            # Push-to-talk: the client decides turns with activityStart/activityEnd.
            return
        if self._can_barge_in() and pcm_rms(message.pcm) >= self.state.scenario.vad.threshold_rms:
            await self._barge_in()
        if self._vad.feed(message.pcm, message.sample_rate):
            self._fire(InputSignal(SignalKind.SPEECH_END))

    def _on_tool_response(self, message: ToolResponse) -> None:
        state = self.state
        profile = self.profile
        self._record(
            Received.TOOL_RESPONSE,
            {
                "function_responses": [
                    {
                        "id": r.id,
                        "name": r.name,
                        "response": dict(r.response),
                        "scheduling": r.scheduling,
                        "will_continue": r.will_continue,
                    }
                    for r in message.responses
                ]
            },
        )
        silent = True
        for response in message.responses:
            behavior = state.pending_behaviors.get(response.id, "BLOCKING")
            non_blocking = behavior == "NON_BLOCKING"
            # T4: will_continue and scheduling "Only applicable to NON_BLOCKING function
            # calls, is ignored otherwise"; the lenient profile takes them as sent.
            will_continue = bool(response.will_continue) and (non_blocking or not profile.strict)
            scheduling = (
                response.scheduling if non_blocking and profile.scheduling_supported else None
            )
            if not will_continue:
                state.forget_calls([response.id])
            if str(scheduling).upper() != "SILENT" or not profile.strict:
                silent = False
            state.transcript.append(
                TranscriptEntry("tool", f"{response.name}: {json.dumps(dict(response.response))}")
            )
        if silent:
            # T4: SILENT "Only add the result to the conversation context, do not ...
            # trigger generation."
            self._ignore("tool_response", "scheduling SILENT adds it to the context only")
            return
        self._fire(
            InputSignal(
                SignalKind.TOOL_RESPONSE,
                tool_responses=message.responses,
                pending_calls=len(state.pending_calls),
            )
        )

    def _record(self, kind: str, data: Mapping[str, Any] | None = None, audio: bytes = b"") -> None:
        self._recorder.record(
            kind,
            connection_id=self.connection_id,
            session_id=self.state.session_id,
            data=data,
            audio=audio,
        )

    # ------------------------------------------------------------ turns

    def _fire(self, signal: InputSignal) -> None:
        """Offer an input to the next turn; queue the turn when its trigger matches."""
        if self._stalled:
            return
        turn = self.state.scenario.turn_at(self.state.position)
        if turn is None or not turn.trigger.matches(signal):
            return
        self.state.position += 1
        self._ready.append((turn, self._context(signal, consume=True)))
        self._wake.set()

    def _context(self, signal: InputSignal, *, consume: bool) -> TurnContext:
        audio = bytes(self._user_audio)
        if consume:
            self._user_audio.clear()
        speech = trim_silence(
            audio,
            sample_rate=self._user_audio_rate,
            threshold_rms=self.state.scenario.vad.threshold_rms,
        )
        return TurnContext(
            signal=signal,
            user_audio=audio,
            user_audio_rate=self._user_audio_rate,
            user_speech=speech,
            function_names=self.state.function_names,
            transcript=tuple(self.state.transcript),
            session_id=self.state.session_id,
            setup=self.setup,
        )

    async def _play_turns(self) -> None:
        """The player task: plays ready turns in order and runs timers while idle."""
        while True:
            if self._ready:
                turn, context = self._ready.popleft()
                await self._play(turn, context)
                continue
            self._wake.clear()
            next_turn = self.state.scenario.turn_at(self.state.position)
            timer = None if next_turn is None or self._stalled else timer_of(next_turn.trigger)
            if timer is None:
                await self._wake.wait()
                continue
            try:
                await asyncio.wait_for(self._wake.wait(), timer)
            except TimeoutError:
                self._fire(InputSignal(SignalKind.TIMER))

    async def _play(self, turn: Turn, context: TurnContext) -> None:
        self._turn = _TurnOutput(
            input_audio_s=len(context.user_speech) / (2 * context.user_audio_rate),
            text_chars=len(context.text),
        )
        task = asyncio.create_task(
            self._perform_all(turn.actions, context),
            name=f"sim-turn-{self.connection_id}-{self.state.position}",
        )
        self._turn_task = task
        try:
            await asyncio.wait({task})
        finally:
            self._turn_task = None
        if task.cancelled():
            return
        error = task.exception()
        if error is None:
            await self._flush_late_input()
            return
        if isinstance(error, ConnectionClosed):
            return
        _log.error("scenario %r failed: %s", self.state.scenario.name, error, exc_info=error)
        await self.close(CloseCode.INTERNAL, _INTERNAL_ERROR_REASON)

    def _can_barge_in(self) -> bool:
        """Whether the client's speech now interrupts the model (R1)."""
        if not self.profile.turn_complete_after_interrupted:
            return self._audio_streaming  # the lenient simulator: only while audio streams
        task = self._turn_task
        return (
            task is not None
            and not task.done()
            and self._turn.first_audio_at is not None
            and not self._turn.completed
        )

    async def _barge_in(self) -> None:
        task = self._turn_task
        if task is None or task.done():
            return
        task.cancel()
        await asyncio.wait({task})
        self._audio_streaming = False
        await self._send(server_content_message(interrupted=True))
        if self.profile.turn_complete_after_interrupted:
            # R1: "it will go through interrupted > turn_complete" (no generationComplete).
            await self._send_turn_complete(TurnComplete(), wait_for_playback=False)
        if self.state.scenario.cancel_tool_calls_on_interrupt and self.state.pending_calls:
            ids = list(self.state.pending_calls)
            self.state.forget_calls(ids)
            await self._send({"toolCallCancellation": {"ids": ids}})

    # ------------------------------------------------------------ actions

    async def _perform_all(self, actions: Sequence[Action], context: TurnContext) -> None:
        for action in actions:
            await self._perform(action, context)

    async def _perform(self, action: Action, context: TurnContext) -> None:
        if isinstance(action, Respond):
            result = action.handler(context)
            actions = await result if inspect.isawaitable(result) else result
            await self._perform_all(actions, context)
        elif isinstance(action, InputTranscription):
            await self._send_input_transcription(action)
        elif isinstance(action, OutputTranscription):
            self.state.transcript.append(TranscriptEntry("model", action.text))
            if self.setup.output_transcription:
                self._turn.model_output = True
                for piece in split_text(action.text, action.pieces):
                    await self._send(server_content_message(outputTranscription={"text": piece}))
        elif isinstance(action, ModelText):
            self.state.transcript.append(TranscriptEntry("model", action.text))
            self._turn.model_output = True
            for piece in split_text(action.text, action.pieces):
                await self._send(server_content_message(modelTurn={"parts": [{"text": piece}]}))
        elif isinstance(action, Tone | WavAudio | EchoAudio | PcmAudio):
            await self._play_audio(action, await self._audio_for(action, context))
        elif isinstance(action, CallTools):
            await self._call_tools(action)
        elif isinstance(action, CancelToolCalls):
            ids = list(self.state.pending_calls) if action.ids is None else list(action.ids)
            self.state.forget_calls(ids)
            await self._send({"toolCallCancellation": {"ids": ids}})
        elif isinstance(action, GenerationComplete):
            self._turn.generation_complete = True
            await self._send(server_content_message(generationComplete=True))
        elif isinstance(action, TurnComplete):
            await self._send_turn_complete(action, wait_for_playback=True)
        elif isinstance(action, Interrupted):
            await self._send(server_content_message(interrupted=True))
        elif isinstance(action, ResumptionUpdate):
            await self._send_resumption_update(resumable=action.resumable)
        elif isinstance(action, GoAway):
            await self._send({"goAway": {"timeLeft": format_duration(action.time_left_s)}})
        elif isinstance(action, Usage):
            total = action.total_tokens
            if total is None:
                total = action.prompt_tokens + action.response_tokens
            usage = {
                "promptTokenCount": action.prompt_tokens,
                "responseTokenCount": action.response_tokens,
                "totalTokenCount": total,
            }
            if self.profile.usage_with_turn_complete and not self._turn.completed:
                # R4: usage rides in the turnComplete frame.
                self._turn.usage = usage
            else:
                await self._send({"usageMetadata": usage})
        elif isinstance(action, Delay):
            await self._clock.sleep(action.seconds)
        elif isinstance(action, Stall):
            self._stalled = True
            self._connection_running.clear()
        elif isinstance(action, Close):
            await self.close(action.code, action.reason)
        elif isinstance(action, RawMessage):
            await self._send(dict(action.message))

    async def _send_turn_complete(self, action: TurnComplete, *, wait_for_playback: bool) -> None:
        profile = self.profile
        turn = self._turn
        if profile.turn_complete_after_playback and wait_for_playback:
            if turn.model_output and not turn.generation_complete:
                # R5: generationComplete marks the end of generation...
                turn.generation_complete = True
                await self._send(server_content_message(generationComplete=True))
            end = turn.playback_end()
            if end is not None:
                # R5: ...and turnComplete waits "for playback to finish".
                await self._clock.sleep(end - self._clock.monotonic())
        await self._flush_late_input()
        message = server_content_message(
            turnComplete=True,
            turnCompleteReason=action.reason,
            waitingForInput=action.waiting_for_input,
        )
        if profile.usage_with_turn_complete:
            usage = turn.usage
            if usage is None:
                prompt, response = usage_estimate(
                    input_audio_s=turn.input_audio_s,
                    text_chars=turn.text_chars,
                    output_audio_s=turn.audio_seconds,
                )
                usage = {
                    "promptTokenCount": prompt,
                    "responseTokenCount": response,
                    "totalTokenCount": prompt + response,
                }
            message["usageMetadata"] = usage
        turn.completed = True
        turn.usage = None
        await self._send(message)
        if self.state.scenario.auto_resumption_updates and self.setup.resumption_requested:
            await self._send_resumption_update(resumable=True)
        # Whatever the scenario does after turnComplete (goAway, a close...) starts afresh.
        self._turn = _TurnOutput(completed=True)

    async def _send_input_transcription(self, action: InputTranscription) -> None:
        self.state.transcript.append(TranscriptEntry("user", action.text))
        if not self.setup.input_transcription:
            return
        profile = self.profile
        pieces = split_text(action.text, action.pieces)
        now = pieces
        if profile.input_transcription_late and self._turn.first_audio_at is None:
            # R2: pieces keep coming after the answer's audio began.
            now = pieces[: len(pieces) // 2]
            self._turn.late_input.extend(pieces[len(pieces) // 2 :])
        for index, piece in enumerate(now):
            last = index == len(pieces) - 1
            transcription: dict[str, Any] = {"text": piece}
            # R2: the service never sets `finished` on these models.
            if last and action.finished and profile.input_transcription_finished:
                transcription["finished"] = True
            await self._send(server_content_message(inputTranscription=transcription))

    async def _send_late_input_piece(self) -> None:
        if self._turn.late_input:
            piece = self._turn.late_input.popleft()
            await self._send(server_content_message(inputTranscription={"text": piece}))

    async def _flush_late_input(self) -> None:
        while self._turn.late_input:
            await self._send_late_input_piece()

    async def _call_tools(self, action: CallTools) -> None:
        state = self.state
        profile = self.profile
        calls = []
        for spec in action.calls:
            call_id = spec.id or state.next_call_id()
            declaration = state.declaration(spec.name)
            args = dict(spec.args)
            if (
                profile.json_schema_parameters == "ignored"
                and declaration is not None
                and declaration.schema == "parameters_json_schema"
            ):
                # T1: the 2.5 models see no arguments declared this way and call with {}.
                args = {}
            behavior: str = profile.default_behavior
            if profile.nonblocking_supported and declaration is not None and declaration.behavior:
                behavior = declaration.behavior  # T4
            if not profile.nonblocking_supported:
                behavior = "BLOCKING"  # T4: 3.1 calls are synchronous whatever is declared
            state.pending_calls[call_id] = spec.name
            state.pending_behaviors[call_id] = behavior
            state.transcript.append(TranscriptEntry("model", f"{spec.name}({json.dumps(args)})"))
            calls.append({"id": call_id, "name": spec.name, "args": args})
        await self._send({"toolCall": {"functionCalls": calls}})
        if profile.resumable_only_when_idle and self.setup.resumption_requested:
            # R9: "not possible to resume ... Example of such case could be model executing
            # function calls".
            await self._send_resumption_update(resumable=False)
        await self._send_late_input_piece()

    async def _send_resumption_update(self, *, resumable: bool) -> None:
        if resumable and self.profile.resumable_only_when_idle and self.state.pending_calls:
            resumable = False  # R9
        update: dict[str, Any] = {"resumable": resumable}
        if resumable:
            update["newHandle"] = self._issue_handle(self.state)
        await self._send({"sessionResumptionUpdate": update})

    async def _audio_for(
        self, action: Tone | WavAudio | EchoAudio | PcmAudio, context: TurnContext
    ) -> bytes:
        if isinstance(action, Tone):
            return tone_pcm(action.frequency_hz, action.duration_s, amplitude=action.amplitude)
        if isinstance(action, WavAudio):
            # File I/O and resampling off the loop.
            return await asyncio.to_thread(read_wav_pcm, Path(action.path))
        if isinstance(action, EchoAudio):
            source = context.user_speech if action.trim else context.user_audio
            if action.trim and action.padding_ms != _DEFAULT_ECHO_PADDING_MS:
                source = trim_silence(
                    context.user_audio,
                    sample_rate=context.user_audio_rate,
                    threshold_rms=self.state.scenario.vad.threshold_rms,
                    padding_ms=action.padding_ms,
                )
            return resample_pcm16(source, context.user_audio_rate, OUTPUT_RATE)
        return resample_pcm16(action.pcm, action.sample_rate, OUTPUT_RATE)

    def _pacing_of(self, action: Tone | WavAudio | EchoAudio | PcmAudio) -> Pacing:
        if action.realtime is None:
            return self.pacing
        return "realtime" if action.realtime else "fast"

    async def _play_audio(self, action: Tone | WavAudio | EchoAudio | PcmAudio, pcm: bytes) -> None:
        chunk_bytes = min(
            OUTPUT_RATE * 2 * max(1, action.chunk_ms) // 1000, _MAX_AUDIO_BYTES_PER_FRAME
        )
        chunks = chunk_pcm(pcm, chunk_bytes)
        transcript_pieces: dict[int, str] = {}
        if action.transcript:
            self.state.transcript.append(TranscriptEntry("model", action.transcript))
            if self.setup.output_transcription:
                self._turn.model_output = True
                pieces = split_text(action.transcript, max(1, len(chunks)))
                for index, piece in enumerate(pieces):
                    transcript_pieces[index * max(1, len(chunks)) // len(pieces)] = piece
        if not chunks:
            for piece in transcript_pieces.values():
                await self._send(server_content_message(outputTranscription={"text": piece}))
            return
        pacing = self._pacing_of(action)
        clock = self._clock
        started = clock.monotonic()
        burst_bytes = max(2, OUTPUT_RATE * 2 * self.profile.burst_ms // 1000)
        in_burst = 0
        seconds_sent = 0.0
        turn = self._turn
        turn.model_output = True
        self._audio_streaming = True
        try:
            for index, chunk in enumerate(chunks):
                if turn.first_audio_at is None:
                    turn.first_audio_at = clock.monotonic()
                await self._send(audio_message(chunk, OUTPUT_RATE, transcript_pieces.get(index)))
                chunk_seconds = len(chunk) / (2 * OUTPUT_RATE)
                seconds_sent += chunk_seconds
                turn.audio_seconds += chunk_seconds
                # R2: held-back input transcription goes out between the answer's frames.
                await self._send_late_input_piece()
                if pacing == "realtime":
                    await clock.sleep(started + seconds_sent - clock.monotonic())
                    continue
                in_burst += len(chunk)
                if pacing == "burst" and in_burst >= burst_bytes:
                    # R6: "generated as quickly as possible, and not in real time".
                    in_burst = 0
                    due = started + seconds_sent / self.profile.burst_speed
                    await clock.sleep(due - clock.monotonic())
                # Let the reader see a barge-in between frames.
                await asyncio.sleep(0)
        finally:
            self._audio_streaming = False

    # ------------------------------------------------------------ output

    async def _send(self, message: Mapping[str, Any]) -> None:
        """Send one frame, waiting while the simulator or this connection is stalled."""
        if not _bypass_stall.get():
            await self._simulator_running.wait()
            await self._connection_running.wait()
        frame = json.dumps(message, separators=(",", ":"))
        size = len(frame.encode("utf-8"))
        if size >= MAX_FRAME_BYTES:
            raise SimulatorScenarioError(
                f"a {next(iter(message), '?')} frame of {size} bytes would exceed the client's "
                "1 MiB limit"
            )
        async with self._send_lock:
            await self._ws.send(frame)
        for key, body in message.items():
            self._record(f"sent.{key}", {key: _summarise(body)})


_REALTIME_INPUT = (
    RealtimeAudio | RealtimeVideo | ActivityStart | ActivityEnd | AudioStreamEnd | RealtimeText
)


def _summarise(body: Any) -> Any:
    """Replace audio payloads by their size so the recorder stays small."""
    if not isinstance(body, Mapping):
        return body
    turn = body.get("modelTurn")
    if not isinstance(turn, Mapping):
        return body
    parts = []
    for part in turn.get("parts", []):
        inline = part.get("inlineData") if isinstance(part, Mapping) else None
        if isinstance(inline, Mapping):
            data = inline.get("data", "")
            parts.append(
                {"inlineData": {"mimeType": inline.get("mimeType"), "base64_chars": len(data)}}
            )
        else:
            parts.append(part)
    return {**body, "modelTurn": {"parts": parts}}
