"""The agent core: one conversation with the Live API that survives what the service does.

:class:`AgentCore` is the state machine the UI renders (Disconnected -> Connecting -> Ready
-> UserSpeaking -> Thinking -> AssistantSpeaking -> Ready, plus Reconnecting, Error, Ended;
every transition a ``StateChanged`` event) and the small coordinator of the parts that do
the work, each in its own module:

* :class:`~.conversation.Conversation`: turn-taking, the person's side and the service's;
* :class:`~.supervisor.ConnectionSupervisor`: connect, resume, back off, goAway, replay;
* :class:`~.idle_rest.IdleRest`: the connection rests after a quiet stretch, input wakes it;
* :class:`~.tool_calls.ToolCallRouter`: tool calls to the tool system and back;
* :class:`~.watchdog.ResponseWatchdog`: silence after the person's turn;
* :class:`~.announcements.Announcer`: notices the model must say at a quiet moment;
* :class:`~.setup.SessionSetup`: what each connection is set up with;
* :class:`~.history_recorder.HistoryRecorder`: the history, written from the events.

The coordinator owns what ties them together: the session's life (start, stop, end), the
quiet moment (Ready, nobody talking, nothing pending), the settings the pane saves
(:meth:`AgentCore.update_settings`), and the end of a session the model asked for.

Everything runs on the one asyncio loop; the public methods that the UI and the audio
layer call often (:meth:`AgentCore.send_audio`, :meth:`AgentCore.begin_talk`,
:meth:`AgentCore.end_talk`) are synchronous and never block.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

from sammy_desktop.config import Settings, TalkMode
from sammy_desktop.core.announcements import Announcer
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.conversation import Conversation
from sammy_desktop.core.dispatch import MessageDispatcher
from sammy_desktop.core.ending import SessionEnding
from sammy_desktop.core.events import (
    AgentState,
    ErrorKind,
    ErrorRaised,
    SessionEnded,
    SessionStarted,
    Speaker,
)
from sammy_desktop.core.failures import what_to_do
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.core.history_recorder import HistoryRecorder
from sammy_desktop.core.idle_rest import IdleRest
from sammy_desktop.core.live import RealtimeInput, RealtimeKind
from sammy_desktop.core.model_rules import ModelRules
from sammy_desktop.core.outbox import RealtimeOutbox
from sammy_desktop.core.ports import AudioSink, ClientFactory, ToolRunner
from sammy_desktop.core.reconfigure import Reconfigurer
from sammy_desktop.core.replay import EarlierConversation, HistoryReplay
from sammy_desktop.core.screen import MAX_FRAME_JPEG_BYTES, ScreenSharing, VideoFrame
from sammy_desktop.core.setup import SessionSetup
from sammy_desktop.core.state import AgentStateMachine
from sammy_desktop.core.supervisor import ConnectionSupervisor
from sammy_desktop.core.tool_calls import ToolCallRouter
from sammy_desktop.core.turns import TurnTracker
from sammy_desktop.core.watchdog import ResponseWatchdog, WatchdogPolicy
from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import types
from sammy_desktop.scheduling import Scheduler
from sammy_desktop.tools.context import AgentStateSnapshot
from sammy_desktop.wire_audio import INPUT_RATE, SAMPLE_WIDTH

__all__ = ["DEFAULT_BUFFER_BYTES", "AgentCore", "WatchdogPolicy"]

_log = logging.getLogger(__name__)

DEFAULT_BUFFER_BYTES = INPUT_RATE * SAMPLE_WIDTH * 60
"""60 s of microphone audio: enough for any realistic gap, small enough to keep in RAM."""


def _no_extra_tools(settings: Settings) -> list[types.Tool]:
    return []


class AgentCore:
    """The conversation: state machine, the parts' coordinator, the turn-taking API.

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
        before_connect: awaited, in the Connecting state, before the first client of a
            session is built: whatever ``client_factory`` needs that may still be on its
            way (the app: the Live SDK loading after the window shows, and the demo's
            simulator). It may raise :class:`LiveConnectionError` like the factory.
        scheduler: the watchdog's and the idle rest's clock; the running loop's by default.
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
        before_connect: Callable[[], Awaitable[None]] | None = None,
        scheduler: Scheduler | None = None,
    ) -> None:
        self._bus = bus
        self._settings = settings
        self._tools = tools
        self._sink = sink
        self._history = history
        self._demo_mode = demo_mode
        self._session_started_at: datetime | None = None
        self._session_open = False

        self._state = AgentStateMachine(bus, on_transition=self._on_transition)
        self._rules = ModelRules(lambda: self._settings, lambda: self.talk_mode)
        self._turns = TurnTracker(bus, clock)
        self._outbox = RealtimeOutbox(buffer_bytes)
        self._watchdog = ResponseWatchdog(
            watchdog or WatchdogPolicy(),
            bus,
            turn_id=lambda: self._turns.turn.turn_id,
            still_waiting=self._answer_due,
            nudge=lambda text: self._conversation.send_notice(text),
            give_up=lambda: self._conversation.give_up_on_turn(),
            scheduler=scheduler,
        )
        self._conversation = Conversation(
            bus=bus,
            state=self._state,
            turns=self._turns,
            sink=sink,
            outbox=self._outbox,
            watchdog=self._watchdog,
            talk_mode=settings.talk_mode,
            text_kind=self._rules.text_kind,
            silence_ms=lambda: self._settings.silence_duration_ms,
        )
        self._setup = SessionSetup(tools, extra_tools)
        self._supervisor = ConnectionSupervisor(
            bus=bus,
            host=_SupervisorHost(self),
            outbox=self._outbox,
            client_factory=client_factory,
            policy=reconnect or ReconnectPolicy(),
            clock=clock,
            rng=rng or random.Random(),  # noqa: S311 - jitter, not cryptography
            before_connect=before_connect,
        )
        self._idle_rest = IdleRest(
            bus=bus,
            state=self._state,
            outbox=self._outbox,
            minutes=lambda: self._settings.idle_rest_minutes,
            is_quiet=self._may_rest,
            rest=self._supervisor.rest,
            scheduler=scheduler,
        )
        self._router = ToolCallRouter(
            bus=bus,
            tools=tools,
            turns=self._turns,
            connection=lambda: self._supervisor.connection,
            clock=clock,
            on_settled=self._on_tools_settled,
        )
        self._announcer = Announcer(
            bus, may_deliver=self._may_announce, send=self._conversation.send_notice
        )
        self._earlier = EarlierConversation(bus)
        self._screen = ScreenSharing(bus, clock, session_open=lambda: self._session_open)
        self._recorder = HistoryRecorder(bus, history, tools=tools.get)
        self._ending = SessionEnding(
            bus,
            self._state,
            sink,
            grace_s=self._watchdog.policy.end_session_grace_s,
            end=lambda reason: self._shutdown(AgentState.ENDED, reason),
        )
        self._reconfigurer = Reconfigurer(
            bus=bus,
            state=self._state,
            settings=lambda: self._settings,
            tools=tools,
            setup=self._setup,
            conversation=self._conversation,
            supervisor=self._supervisor,
        )
        self._dispatcher = MessageDispatcher(
            (
                ("setup_complete", lambda s: _log.debug("setupComplete again: %s", s)),
                ("session_resumption_update", self._supervisor.on_resumption_update),
                # Before the content: usage rides in the turnComplete frame (R4) and
                # belongs to the turn that frame completes.
                ("usage_metadata", self._turns.add_usage),
                ("server_content", self._conversation.on_server_content),
                ("tool_call", self._on_tool_call),
                ("tool_call_cancellation", self._on_tool_call_cancellation),
                ("go_away", self._supervisor.on_go_away),
                ("voice_activity", lambda a: _log.debug("voice activity: %s", a)),
                ("voice_activity_detection_signal", lambda a: _log.debug("VAD: %s", a)),
            )
        )

    # ------------------------------------------------------------------ reading

    @property
    def state(self) -> AgentState:
        """The current state."""
        return self._state.state

    @property
    def talk_mode(self) -> TalkMode:
        """Push-to-talk or hands-free, as used by the current connection."""
        return self._conversation.talk_mode

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
        return self._supervisor.reconnect_count

    @property
    def resumption_handle(self) -> str | None:
        """The newest resumable handle the service gave, or None."""
        return self._supervisor.handle

    @property
    def pending_announcements(self) -> tuple[str, ...]:
        """Notices still waiting for a quiet moment to be told to the model."""
        return self._announcer.pending

    def snapshot(self) -> AgentStateSnapshot:
        """What ``ToolContext.state()`` returns: a read-only picture of the agent now."""
        return AgentStateSnapshot(
            state=str(self.state),
            talk_mode=str(self.talk_mode),
            model=self._settings.model,
            session_started_at=self._session_started_at,
            enabled_tools=self._setup.enabled_names(self._settings),
            demo_mode=self._demo_mode,
            reconnects=self.reconnect_count,
        )

    # ------------------------------------------------------------------ the session

    async def start(
        self,
        *,
        earlier: Sequence[tuple[Speaker, str]] = (),
        continues: str | None = None,
    ) -> None:
        """Open a new conversation: a history file, then the connection (in the background).

        Returns at once; watch the StateChanged events (Connecting, then Ready or Error).
        Calling it while a session runs does nothing.

        Args:
            earlier: an earlier conversation's final lines, to continue it: the model gets
                them as quoted turns right after the setup (never in the system instruction),
                the newest :data:`~sammy_desktop.core.replay.REPLAY_MAX_CHARS` of them.
            continues: that conversation's session id, for the history.
        """
        if self.state.is_running:
            return
        self._outbox.clear()
        self._ending.open()
        self._conversation.reset()
        session_id = uuid.uuid4().hex[:12]
        path = await self._recorder.open(session_id)
        self._session_started_at = datetime.now(UTC)
        self._session_open = True
        self._screen.session_started()
        self._bus.emit(
            SessionStarted(
                session_id=session_id,
                history_file=path,
                model=self._settings.model,
                talk_mode=str(self.talk_mode),
                voice=self._settings.voice,
                language=self._settings.language,
                continues=continues,
            )
        )
        if earlier:
            self._earlier.seed(earlier)
        self._state.set(AgentState.CONNECTING, "starting")
        self._supervisor.start()

    async def stop(self) -> None:
        """Close the conversation and everything it runs; the state becomes Disconnected."""
        await self._shutdown(AgentState.DISCONNECTED, "stopped by the person")

    async def end_session(self, reason: str) -> None:
        """End the conversation for good (the endSession tool, or the person); state Ended."""
        await self._shutdown(AgentState.ENDED, reason)

    # ------------------------------------------------------------------ the person

    def begin_talk(self, pre_roll: bytes = b"") -> bool:
        """The person starts speaking (push-to-talk pressed); hands-free: the mic is live.

        Args:
            pre_roll: audio captured just before the press, so the first syllable is kept.

        While the connection is still being made (Connecting, Reconnecting) the turn is
        queued and sent once connected, so what is said meanwhile is not lost.

        Returns:
            False when there is no conversation to talk to (nothing is sent).
        """
        return self._conversation.begin_talk(pre_roll)

    def end_talk(self) -> None:
        """The person stopped speaking (push-to-talk released); hands-free: the mic paused."""
        self._conversation.end_talk()

    def send_audio(self, pcm16k: bytes) -> None:
        """Microphone audio (PCM16 LE mono 16 kHz); sent in order, buffered while offline.

        Push-to-talk: only between :meth:`begin_talk` and :meth:`end_talk`. Hands-free:
        whenever the mic is live. Without echo cancellation the audio engine gates the
        microphone while the answer sounds (``sammy_desktop.audio.duplex``).
        """
        self._conversation.send_audio(pcm16k)

    def send_text(self, text: str) -> bool:
        """A typed message, as a turn of its own.

        Returns:
            False when the text is empty or there is no conversation.
        """
        return self._conversation.send_text(text)

    def send_video(self, frame: VideoFrame) -> bool:
        """One picture of the shared screen (JPEG, encoded by the window); never blocks.

        It goes through the same outbox as the microphone's audio, in order, and only to a
        connection that is up: a frame is a picture of now, so none is kept while
        connecting, reconnecting or resting (a frame never wakes a resting connection),
        none is re-sent after a reconnect, and a newer frame replaces one still waiting
        (core/outbox.py). Frames are never written anywhere; the history gets one line per
        sharing (:meth:`set_screen_sharing`).

        Returns:
            True when the frame went to the outbox for the service; False when it was
            dropped: no connection up, resting, empty, or over the frame budget
            (:data:`~sammy_desktop.core.screen.MAX_FRAME_JPEG_BYTES`).
        """
        if not self.state.is_connected or self._idle_rest.resting:
            return False
        connection = self._supervisor.connection
        if connection is None or not connection.is_open:
            return False
        size = len(frame.jpeg)
        if size == 0:
            return False
        if size > MAX_FRAME_JPEG_BYTES:
            _log.info(
                "screen frame refused: %d bytes (%dx%d) is over the %d a frame may carry",
                size,
                frame.width,
                frame.height,
                MAX_FRAME_JPEG_BYTES,
            )
            return False
        if not self._outbox.put(RealtimeInput(RealtimeKind.VIDEO, video=frame.jpeg)):
            return False
        self._screen.frame_sent(frame)
        return True

    def set_screen_sharing(self, active: bool, source: str = "") -> None:
        """The window started or stopped sharing the screen (``source``: what is shared).

        Emits ``ScreenSharingChanged``; while sharing, the frames sent and the last one's
        size are counted, and when it stops (or the session ends while it goes on)
        ``ScreenShared`` tells the history "screen shared: N frames, W x H".
        """
        self._screen.set(active, source)

    @property
    def screen_shared(self) -> bool:
        """Whether the window shares the screen now (as it last said)."""
        return self._screen.active

    def stop_speaking(self) -> bool:
        """Silence the answer for good (Esc, Stop speaking): nothing more of it is played.

        In push-to-talk the service is told as well, so it stops generating (an
        activityStart, the interruption it understands); the transcript marks the answer
        stopped (``AnswerStopped``).

        Returns:
            False when nothing was being answered.
        """
        return self._conversation.stop_answer()

    def on_playback_drained(self) -> None:
        """The audio sink finished playing everything queued (the app wires PlaybackDrained)."""
        self._conversation.on_playback_drained()

    # ------------------------------------------------------------------ what the setup holds

    async def set_talk_mode(self, mode: TalkMode) -> None:
        """Switch push-to-talk / hands-free.

        The service's activity detection is part of the session setup, so a running session
        reconnects (resuming the conversation) at the next quiet moment.
        """
        await self._reconfigurer.set_talk_mode(mode)

    async def set_tool_enabled(self, name: str, on: bool) -> bool:
        """Switch a tool on or off, in the running session when possible.

        The new declarations are sent as a context update: no reconnection, the
        conversation goes on. Without a connection they apply at the next one.

        Returns:
            True when the running session was updated in place.
        """
        return await self._reconfigurer.set_tool_enabled(name, on)

    async def update_settings(self, settings: Settings) -> None:
        """Use ``settings`` from now on (the settings pane saved a new object).

        Tools (Google Search on or off): a context update to the running session. The
        talk mode: as :meth:`set_talk_mode`. What only the session setup carries (model,
        voice, language, system prompt, activity detection): a reconnection that resumes
        the conversation at the next quiet moment. Without a session, all of it simply
        applies at the next connection.
        """
        old, self._settings = self._settings, settings
        self._idle_rest.settings_changed()
        await self._reconfigurer.settings_changed(old, settings)

    # ------------------------------------------------------------------ the parts' meeting points

    def _on_tool_call(self, call: types.LiveServerToolCall) -> None:
        self._conversation.on_tool_call()
        self._router.handle_call(call)

    def _on_tool_call_cancellation(
        self, cancellation: types.LiveServerToolCallCancellation
    ) -> None:
        self._router.handle_cancellation(cancellation)
        self._state.progress()  # held input may go now

    async def _input_allowed(self) -> None:
        """Wait while realtime input must be held back.

        That is while a tool call is unanswered on a model that closes the connection on
        input meanwhile (live-service.md T7).
        """
        if self._rules.holds_input_during_tool_calls():
            await self._state.wait_until(lambda: not self._router.awaiting_answer())

    def _answer_due(self) -> bool:
        """The watchdog's question: is the model still expected to answer this turn?"""
        return (
            not self._turns.turn.completed
            and not self._router.awaiting_answer()
            and self.state.is_connected
        )

    def _is_quiet(self) -> bool:
        """Nobody is speaking and nothing is pending: a reconnect now goes unnoticed."""
        return (
            self.state is AgentState.READY
            and not self._router.awaiting_answer()
            and not self._conversation.talking
            and len(self._outbox) == 0
        )

    def _may_announce(self) -> bool:
        # Resting too: the notice queued wakes the connection (core/idle_rest.py).
        return (
            self.state in (AgentState.READY, AgentState.RESTING)
            and not self._conversation.talking
            and not self._ending.requested
        )

    def _may_rest(self) -> bool:
        """A quiet moment with nothing waiting to be said: the connection may rest.

        Push-to-talk only: hands-free streams the open microphone to the service's voice
        detection all the time, and its audio would wake a resting connection at once.
        """
        return (
            self.talk_mode is TalkMode.PUSH_TO_TALK
            and self._is_quiet()
            and not self._announcer.pending
            and not self._ending.requested
        )

    def _on_transition(self, old: AgentState, new: AgentState) -> None:
        self._idle_rest.on_state(new)
        if new is not AgentState.READY:
            return
        if not self._router.awaiting_answer():
            self._ending.schedule()
        # Before the reconnect check: a notice queued now holds the reconnect back until it
        # has gone out.
        self._announcer.deliver()
        self._supervisor.reconnect_if_quiet()

    def _on_tools_settled(self) -> None:
        """The model waits for no tool answer any more."""
        self._state.progress()
        if self._ending.requested:
            self._ending.schedule()
        elif not self._turns.turn.completed:
            self._watchdog.arm()
        self._supervisor.reconnect_if_quiet()

    # ------------------------------------------------------------------ ending

    async def _give_up(self, kind: ErrorKind, message: str) -> None:
        """Show the error and close the session (called by the supervisor, which then ends)."""
        self._state.set(AgentState.ERROR, message)
        self._bus.emit(ErrorRaised(kind=kind, message=message, what_to_do=what_to_do(kind)))
        await self._shutdown(AgentState.ERROR, message)

    async def _shutdown(self, final: AgentState, reason: str) -> None:
        current = asyncio.current_task()
        tasks = [
            t
            for t in (self._supervisor.task(), self._ending.task(), *self._router.tasks())
            if t is not None and t is not current and not t.done()
        ]
        for task in tasks:
            task.cancel()
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=5)
            for task in pending:
                _log.error("task %s did not stop within 5 s", task.get_name())
        await self._supervisor.close()
        self._watchdog.cancel()
        self._idle_rest.cancel()
        self._sink.flush()
        if self._session_open:
            self._screen.session_ending()  # before the history closes: its one record
        was_running, self._session_open = self._session_open, False
        self._conversation.close()
        self._ending.close()
        path = self._history.path
        await self._recorder.close(reason if was_running else None)
        self._state.set(final, reason)
        if was_running:
            self._bus.emit(SessionEnded(reason=reason, history_file=path))


class _SupervisorHost:
    """What the connection supervisor sees of the agent (kept off its public API)."""

    def __init__(self, agent: AgentCore) -> None:
        self._agent = agent

    def setup_for(
        self, handle: str | None, *, history: HistoryReplay | None
    ) -> types.LiveConnectConfig:
        agent = self._agent
        return agent._setup.config(
            agent._settings,
            agent.talk_mode,
            resume_handle=handle,
            declare_history=history is not None and history.declared,
        )

    def earlier_conversation(self) -> HistoryReplay | None:
        agent = self._agent
        return agent._earlier.replay(agent._settings.model)

    def model(self) -> str:
        return self._agent._settings.model

    def is_quiet(self) -> bool:
        return self._agent._is_quiet()

    async def input_allowed(self) -> None:
        await self._agent._input_allowed()

    def on_message(self, message: types.LiveServerMessage) -> None:
        self._agent._dispatcher.dispatch(message)

    def on_connected(self, *, reconnected: bool) -> None:
        agent = self._agent
        agent._router.new_connection()
        if reconnected:
            agent._turns.turn.reconnects += 1
        agent._state.set(agent._conversation.resting_state(), "connected")
        if agent._setup.is_stale(agent._settings, agent.talk_mode):
            # Settings, talk mode or tools changed while this connection was being set up:
            # its setup is already stale, and the wish to reconnect was just cleared.
            agent._supervisor.request_reconnect("settings changed while connecting")
        if agent._turns.turn.awaiting_answer:
            agent._watchdog.arm()

    def on_dropped(self) -> None:
        agent = self._agent
        agent._watchdog.cancel()
        agent._conversation.prepare_replay()
        agent._router.abandon()

    def on_reconnecting(self, reason: str) -> None:
        self._agent._state.set(AgentState.RECONNECTING, reason)

    def on_context_update_refused(self) -> None:
        self._agent._reconfigurer.context_update_refused()

    async def give_up(self, kind: ErrorKind, message: str) -> None:
        await self._agent._give_up(kind, message)

    async def rest(self) -> None:
        await self._agent._idle_rest.hold()
