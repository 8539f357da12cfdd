"""One simulated Live connection: its reader loop and its player task.

:class:`SimulatedConnection` serves one accepted websocket of a session
(:class:`~sammy_desktop.sim.session.SessionState`). After setupComplete, a reader loop
records and interprets every client frame and offers each input to the next turn's trigger;
a player task plays the turns that fire, one at a time, and runs their timers while idle.
Its parts: an :class:`~sammy_desktop.sim.performer.ActionPerformer` carries out each action;
what the model sends, and how a strict profile shapes it, is
:class:`~sammy_desktop.sim.turn_output.TurnOutput`'s; the function-call rules are
:mod:`sammy_desktop.sim.tool_calls`'; the person's audio and its end are a
:class:`~sammy_desktop.sim.user_audio.UserAudio`'s; every frame goes out through an
:class:`~sammy_desktop.sim.outbound.Outbound`.

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
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed

from sammy_desktop.sim.actions import Action, TranscriptEntry, TurnContext
from sammy_desktop.sim.client_input import REALTIME_INPUT, ignored_input, record_of
from sammy_desktop.sim.clock import Clock, RealClock
from sammy_desktop.sim.history import HISTORY_NOT_CLOSED, ContentVerdict, InitialHistory
from sammy_desktop.sim.jpeg import jpeg_size
from sammy_desktop.sim.outbound import (
    INTERNAL_ERROR_REASON,
    Outbound,
    bypass_stall,
    close_websocket,
)
from sammy_desktop.sim.pcm import pcm_rms
from sammy_desktop.sim.performer import ActionPerformer
from sammy_desktop.sim.profiles import (
    INVALID_ARGUMENT_REASON,
    LENIENT,
    NOT_SUPPORTED_REASON,
    Pacing,
    ServiceProfile,
)
from sammy_desktop.sim.recorder import Received, Recorder
from sammy_desktop.sim.tool_calls import (
    answers_are_silent,
    calls_cancelled_by_input,
    cancel_calls,
    refuses_input_during_calls,
)
from sammy_desktop.sim.triggers import InputSignal, SignalKind, timer_of
from sammy_desktop.sim.turn_output import TurnOutput
from sammy_desktop.sim.user_audio import UserAudio
from sammy_desktop.sim.wire import (
    ActivityEnd,
    ActivityStart,
    AudioStreamEnd,
    ClientContent,
    ClientMessage,
    CloseCode,
    ContextUpdate,
    ProtocolError,
    RealtimeAudio,
    RealtimeText,
    RealtimeVideo,
    Setup,
    ToolResponse,
    format_duration,
    parse_client_frame,
)

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from sammy_desktop.sim.scenario import Turn
    from sammy_desktop.sim.session import SessionState

__all__ = ["ConnectionLimits", "SimulatedConnection"]

_log = logging.getLogger(__name__)


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
        self._limits = limits or ConnectionLimits()
        self.profile = profile or LENIENT
        self._clock: Clock = clock or RealClock()
        self.pacing: Pacing = pacing or (
            "realtime" if realtime else (self.profile.audio_pacing or "fast")
        )
        self._out = Outbound(websocket, simulator_running=running, record=self._record)
        self._output = TurnOutput(
            send=self._out.send,
            state=state,
            setup=setup,
            profile=self.profile,
            clock=self._clock,
            pacing=self.pacing,
            issue_handle=issue_handle,
        )
        self._performer = ActionPerformer(
            output=self._output,
            out=self._out,
            state=state,
            profile=self.profile,
            clock=self._clock,
            close=self.close,
        )
        self._ready: deque[tuple[Turn, TurnContext]] = deque()
        self._wake = asyncio.Event()
        self._turn_task: asyncio.Task[None] | None = None
        self._side_tasks: set[asyncio.Task[None]] = set()
        self._user_audio = UserAudio(state.scenario.vad)
        self._history = InitialHistory(setup, self.profile)
        self._closing = False

    # ------------------------------------------------------------ lifecycle

    async def run(self) -> None:
        """Send setupComplete, then serve the connection until it closes."""
        # setupComplete waits out a stall, unless the client gives up first.
        setup_complete = asyncio.create_task(
            self._out.send({"setupComplete": {"sessionId": self.state.session_id}}),
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
        """True after a ``Stall`` action: this connection never answers again."""
        return self._out.stalled

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
            bypass_stall()
            context = self._context(InputSignal(SignalKind.INJECTED), consume=False)
            await self._performer.perform(action, context)

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
        await self._out.send({"goAway": {"timeLeft": format_duration(notice)}})
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

    def _record(self, kind: str, data: Mapping[str, Any] | None = None, raw: bytes = b"") -> None:
        video = kind == Received.VIDEO
        self._recorder.record(
            kind,
            connection_id=self.connection_id,
            session_id=self.state.session_id,
            data=data,
            audio=b"" if video else raw,
            picture=raw if video else b"",
        )

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
        aad = self.setup.automatic_activity_detection
        if isinstance(message, ClientContent) and await self._take_history(message):
            return
        if isinstance(message, REALTIME_INPUT) and await self._gate_realtime_input(message):
            return
        kind, data, raw = record_of(message)
        self._record(kind, data, raw)
        if isinstance(message, REALTIME_INPUT) and self._history.holds_realtime_input():
            # S7: "After `turn_complete` is `true`, the client can start the realtime
            # conversation via `realtime_input`."
            self._ignore(str(kind), HISTORY_NOT_CLOSED)
            return
        ignored = ignored_input(message, self.profile, automatic_activity_detection=aad)
        if ignored is not None:
            self._ignore(*ignored)
            return
        if isinstance(message, RealtimeAudio):
            await self._on_audio(message)
        elif isinstance(message, ActivityStart):
            if self._can_barge_in():
                await self._barge_in()
            self._user_audio.restart()
        elif isinstance(message, ActivityEnd):
            self._fire(InputSignal(SignalKind.ACTIVITY_END))
        elif isinstance(message, AudioStreamEnd):
            if aad and self._user_audio.stream_ended():
                self._fire(InputSignal(SignalKind.SPEECH_END))
            self._fire(InputSignal(SignalKind.AUDIO_STREAM_END))
        elif isinstance(message, RealtimeVideo):
            await self._on_video(message)
        elif isinstance(message, RealtimeText):
            self.state.transcript.append(TranscriptEntry("user", message.text))
            self._fire(InputSignal(SignalKind.TEXT, text=message.text))
        elif isinstance(message, ClientContent):
            self._on_client_content(message)
        elif isinstance(message, ToolResponse):
            self._on_tool_response(message)
        elif isinstance(message, ContextUpdate):
            await self._on_context_update(message)

    async def _gate_realtime_input(self, message: ClientMessage) -> bool:
        """Apply T7 (realtime input while a blocking call is pending); True: stop here."""
        if refuses_input_during_calls(self.state, self.profile):
            # T7: "rejects all sendRealtimeInput calls ... responds with error 1008".
            await self._refuse(CloseCode.POLICY, NOT_SUPPORTED_REASON)
            return True
        cancelled = calls_cancelled_by_input(message, self.state, self.profile, self.setup)
        if cancelled:
            await self._output.tool_call_cancellation(cancelled)
        return False

    async def _take_history(self, message: ClientContent) -> bool:
        """Apply S7 to a client_content; True when it was history or refused (stop here)."""
        verdict = self._history.judge(message)
        if verdict is ContentVerdict.TURN:
            return False
        if verdict is ContentVerdict.REFUSED:
            kind, data, _ = record_of(message)
            self._record(kind, data)
            # S7: 3.1 closes on model turns outside declared history, 2.5 on a seed that
            # does not end with the person's turn.
            await self._refuse(CloseCode.INVALID_ARGUMENT, INVALID_ARGUMENT_REASON)
            return True
        turns = [{"role": role, "text": text} for role, text in message.entries]
        self._record(
            Received.HISTORY,
            {
                "turns": turns,
                "turn_complete": message.turn_complete,
                "declared": self._history.declared,
            },
        )
        self.state.transcript.extend(TranscriptEntry(role, text) for role, text in message.entries)
        return True

    def _on_client_content(self, message: ClientContent) -> None:
        state = self.state
        state.client_content_text.append(message.text)
        if message.turn_complete:
            text = "".join(state.client_content_text)
            state.client_content_text.clear()
            state.transcript.append(TranscriptEntry("user", text))
            self._fire(InputSignal(SignalKind.TEXT, text=text))

    async def _on_context_update(self, message: ContextUpdate) -> None:
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

    async def _on_video(self, message: RealtimeVideo) -> None:
        """A frame of the shared screen (S6): the model sees it when it is a JPEG."""
        size = jpeg_size(message.data)
        if size is None:
            if self.profile.non_jpeg_video == "refused":
                await self._refuse(CloseCode.INVALID_ARGUMENT, INVALID_ARGUMENT_REASON)
            else:
                self._ignore("video", "the frame is not a JPEG picture")
            return
        state = self.state
        state.video_frames += 1
        state.video_size = (size.width, size.height)
        state.video_frames_unbilled += 1

    async def _on_audio(self, message: RealtimeAudio) -> None:
        self._user_audio.add(message.pcm, message.sample_rate)
        if not self.setup.automatic_activity_detection:
            # Push-to-talk: the client decides turns with activityStart/activityEnd.
            return
        if self._can_barge_in() and pcm_rms(message.pcm) >= self.state.scenario.vad.threshold_rms:
            await self._barge_in()
        if self._user_audio.speech_ended(message.pcm, message.sample_rate):
            self._fire(InputSignal(SignalKind.SPEECH_END))

    def _on_tool_response(self, message: ToolResponse) -> None:
        # What each answered call asked for, read before the answers forget the calls.
        arguments = {
            r.id: self.state.call_arguments[r.id]
            for r in message.responses
            if r.id in self.state.call_arguments
        }
        if answers_are_silent(message, self.state, self.profile):
            # T4: SILENT "Only add the result to the conversation context, do not ...
            # trigger generation."
            self._ignore("tool_response", "scheduling SILENT adds it to the context only")
            return
        self._fire(
            InputSignal(
                SignalKind.TOOL_RESPONSE,
                tool_responses=message.responses,
                pending_calls=len(self.state.pending_calls),
                call_arguments=arguments,
            )
        )

    # ------------------------------------------------------------ turns

    def _fire(self, signal: InputSignal) -> None:
        """Offer an input to the next turn; queue the turn when its trigger matches."""
        if self._out.stalled:
            return
        turn = self.state.scenario.turn_at(self.state.position)
        if turn is None or not turn.trigger.matches(signal):
            return
        self.state.position += 1
        self._ready.append((turn, self._context(signal, consume=True)))
        self._wake.set()

    def _context(self, signal: InputSignal, *, consume: bool) -> TurnContext:
        audio, speech = self._user_audio.take(consume=consume)
        return TurnContext(
            signal=signal,
            user_audio=audio,
            user_audio_rate=self._user_audio.sample_rate,
            user_speech=speech,
            function_names=self.state.function_names,
            declarations=self.state.declarations,
            transcript=tuple(self.state.transcript),
            session_id=self.state.session_id,
            setup=self.setup,
            video_frames=self.state.video_frames,
            video_size=self.state.video_size,
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
            timer = None if next_turn is None or self._out.stalled else timer_of(next_turn.trigger)
            if timer is None:
                await self._wake.wait()
                continue
            try:
                await asyncio.wait_for(self._wake.wait(), timer)
            except TimeoutError:
                self._fire(InputSignal(SignalKind.TIMER))

    async def _play(self, turn: Turn, context: TurnContext) -> None:
        self._output.begin(context)
        task = asyncio.create_task(
            self._performer.perform_all(turn.actions, context),
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
            await self._output.flush_late_input()
            return
        if isinstance(error, ConnectionClosed):
            return
        _log.error("scenario %r failed: %s", self.state.scenario.name, error, exc_info=error)
        await self.close(CloseCode.INTERNAL, INTERNAL_ERROR_REASON)

    def _can_barge_in(self) -> bool:
        """Whether the client's speech now interrupts the model (R1)."""
        if not self.profile.turn_complete_after_interrupted:
            return self._output.audio_streaming  # the lenient simulator: only while audio streams
        task = self._turn_task
        turn = self._output.turn
        return (
            task is not None
            and not task.done()
            and turn.first_audio_at is not None
            and not turn.completed
        )

    async def _barge_in(self) -> None:
        task = self._turn_task
        if task is None or task.done():
            return
        task.cancel()
        await asyncio.wait({task})
        await self._output.barged_in()
        if self.state.scenario.cancel_tool_calls_on_interrupt and self.state.pending_calls:
            await self._output.tool_call_cancellation(cancel_calls(self.state))
