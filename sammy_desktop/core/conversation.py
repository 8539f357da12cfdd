"""Turn-taking: who speaks when, on the person's side and on the service's.

:class:`Conversation` turns the person's actions (talk pressed and released, microphone
audio, a typed message) into realtime input in the outbox, and the service's server
content (interrupted, transcriptions, the model's audio and text, turnComplete) into turns,
transcript lines, playback and state changes. Push-to-talk brackets each turn with
activityStart / activityEnd; hands-free leaves turn detection to the service and follows
its transcription and its answers. It never touches the connection itself.

Stopping an answer (Esc, Stop speaking, a talk press over it) silences it for good: playback
is flushed and whatever of it still arrives is dropped. In push-to-talk the service is told
with an activityStart, the interruption it understands (docs/live-service.md S8); that
activity stays open and the next turn carries on in it (its activityEnd closes it), or an
activityEnd closes it before typed text. Hands-free has no client interruption, so there
the rest of the answer is only dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sammy_desktop.config import TalkMode
from sammy_desktop.core.events import (
    AgentState,
    AnswerInterrupted,
    AnswerStopped,
    CodeExecuted,
    GroundingSourcesFound,
)
from sammy_desktop.core.generations import AnswerGenerations
from sammy_desktop.core.grounding import GroundingReporter, GroundingSummary
from sammy_desktop.core.live import RealtimeInput, RealtimeKind
from sammy_desktop.core.outbox import RealtimeOutbox
from sammy_desktop.core.ports import AudioSink, TurnAwareSink
from sammy_desktop.core.quiet_audio import QuietAudioJoiner
from sammy_desktop.core.state import AgentStateMachine
from sammy_desktop.core.turns import TurnTracker
from sammy_desktop.core.watchdog import ResponseWatchdog
from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import types

__all__ = ["Conversation"]

_log = logging.getLogger(__name__)


class Conversation:
    """The person's turns and the service's answers, as transcript, playback and state.

    Args:
        bus: where transcript-level events go.
        state: the agent's state.
        turns: the current turn and its transcript lines.
        sink: where the model's voice is played.
        outbox: where realtime input waits for the sender.
        watchdog: times the silence after the person's turn.
        talk_mode: push-to-talk or hands-free, to start with.
        text_kind: how typed text goes to the service now (a ``client_content`` turn where
            activity detection is off, realtime text where it is on).
        silence_ms: hands-free, the service's silence duration now (``silence_duration_ms``):
            how long after speech the microphone still goes block by block.
    """

    def __init__(
        self,
        *,
        bus: EventBus,
        state: AgentStateMachine,
        turns: TurnTracker,
        sink: AudioSink,
        outbox: RealtimeOutbox,
        watchdog: ResponseWatchdog,
        talk_mode: TalkMode,
        text_kind: Callable[[], RealtimeKind] = lambda: RealtimeKind.TEXT,
        silence_ms: Callable[[], int] = lambda: 700,
    ) -> None:
        self._bus = bus
        self._state = state
        self._turns = turns
        self._sink = sink
        self._outbox = outbox
        self._watchdog = watchdog
        self._talk_mode = talk_mode
        self._text_kind = text_kind
        # Hands-free: quiet blocks go in larger chunks, speech block by block.
        self._quiet_audio = QuietAudioJoiner(self._outbox.put, silence_ms)
        self._talking = False  # push-to-talk held (or, hands-free, the mic is live)
        self._mic_open = True
        # An activityStart sent to stop an answer, with no activityEnd yet (push-to-talk).
        self._activity_open = False
        # After a replay: the service transcribes the re-sent question again, late (R2), up
        # to the turnComplete of its answer. That copy is in the transcript already.
        self._skip_replayed_transcription = False
        self._generations = AnswerGenerations()
        self._grounding = GroundingReporter(self._grounded)

    @property
    def talking(self) -> bool:
        """Push-to-talk is held."""
        return self._talking

    @property
    def talk_mode(self) -> TalkMode:
        """Push-to-talk or hands-free."""
        return self._talk_mode

    def reset(self) -> None:
        """A new session: no turn, nobody talking (the talk mode stays)."""
        self._talking = False
        self._mic_open = True
        self._activity_open = False
        self._skip_replayed_transcription = False
        self._quiet_audio.reset()
        self._generations.reset()
        self._turns.reset()
        self._grounding.reset()

    def close(self) -> None:
        """The session ends: an open turn keeps its lines, its answer is marked interrupted."""
        self._quiet_audio.flush()
        self._turns.close_open_turn()
        self._talking = False

    def set_talk_mode(self, mode: TalkMode) -> None:
        """Switch push-to-talk / hands-free (the setup follows on the next connection)."""
        if self._talking:
            self.end_talk()
        self._quiet_audio.flush()
        self._talk_mode = mode
        self._mic_open = True

    # ------------------------------------------------------------------ the person

    def begin_talk(self, pre_roll: bytes = b"") -> bool:
        """The person starts speaking (see :meth:`AgentCore.begin_talk`)."""
        if not self._state.state.is_running:
            _log.info("begin_talk ignored in state %s", self._state.state)
            return False
        if self._talk_mode is TalkMode.HANDS_FREE:
            self._mic_open = True
            self._cut_in()  # a talk press over the answer silences it, as in push-to-talk
            if pre_roll:
                self._put(RealtimeInput(RealtimeKind.AUDIO, audio=pre_roll))
            return True
        if self._talking:
            return True
        self._talking = True
        self._watchdog.cancel()
        self._cut_in()
        self._new_turn()
        if self._activity_open:
            self._activity_open = False  # the stop's activityStart opened this turn already
        else:
            self._put(RealtimeInput(RealtimeKind.ACTIVITY_START))
        if pre_roll:
            self._put(RealtimeInput(RealtimeKind.AUDIO, audio=pre_roll))
        if self._state.state.is_connected:
            self._state.set(AgentState.USER_SPEAKING, "talk pressed")
        return True

    def end_talk(self) -> None:
        """The person stopped speaking (see :meth:`AgentCore.end_talk`)."""
        if self._talk_mode is TalkMode.HANDS_FREE:
            if self._mic_open and self._state.state.is_running:
                self._mic_open = False
                self._put(RealtimeInput(RealtimeKind.AUDIO_STREAM_END))
            return
        if not self._talking:
            return
        self._talking = False
        self._put(RealtimeInput(RealtimeKind.ACTIVITY_END))
        self._turns.speech_ended()
        self._watchdog.arm()
        # activityEnd first: the state change runs the window's reaction (labels, then a
        # repaint), which would otherwise go before the sender puts activityEnd on the wire.
        # The sender's wake-up is already queued; this goes after it.
        released_in = self._state.state
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._talk_released(released_in)
        else:
            loop.call_soon(self._talk_released, released_in)

    def _talk_released(self, released_in: AgentState) -> None:
        """Thinking, unless talk was pressed again or the state moved on meanwhile."""
        if not self._talking and self._state.state is released_in and released_in.is_connected:
            self._state.set(AgentState.THINKING, "talk released")

    def send_audio(self, pcm16k: bytes) -> None:
        """Microphone audio (see :meth:`AgentCore.send_audio`).

        Whether the microphone may hear the answer (no echo cancellation) is the audio
        engine's business (``sammy_desktop.audio.duplex``): it knows when speech sounds.
        """
        if not pcm16k or not self._state.state.is_running:
            return
        if self._talk_mode is TalkMode.PUSH_TO_TALK:
            if self._talking:
                self._outbox.put(RealtimeInput(RealtimeKind.AUDIO, audio=pcm16k))
            return
        self._mic_open = True
        self._quiet_audio.audio(pcm16k)

    def _put(self, item: RealtimeInput) -> None:
        """Queue ``item`` after the quiet microphone audio still held for a chunk."""
        self._quiet_audio.flush()
        self._outbox.put(item)

    def send_text(self, text: str) -> bool:
        """A typed message, as a turn of its own (see :meth:`AgentCore.send_text`)."""
        text = text.strip()
        if not text or not self._state.state.is_running:
            return False
        self._cut_in()
        self._new_turn()
        self._turns.set_user_line(text)
        self._close_open_activity()
        self._put(RealtimeInput(self._text_kind(), text=text))
        self._turns.speech_ended(spoken=False)
        self._watchdog.arm()
        if self._state.state.is_connected:
            self._state.set(AgentState.THINKING, "text sent")
        return True

    def send_notice(self, text: str) -> None:
        """Text for the model that is not the person speaking (a nudge, an announcement)."""
        self._close_open_activity()
        self._put(RealtimeInput(self._text_kind(), text=text))

    def stop_answer(self) -> bool:
        """The person silences the answer (Esc, Stop speaking), for good.

        The service is told where it can be (see the module docstring). False when nothing
        was answering.
        """
        if self._talking:
            return False  # the talk press already cut the answer
        stopped = self._cut_in()
        if not stopped:
            return False
        told = False
        if (
            self._talk_mode is TalkMode.PUSH_TO_TALK
            and not self._activity_open
            and self._state.state.is_connected
        ):
            self._put(RealtimeInput(RealtimeKind.ACTIVITY_START))
            self._activity_open = True
            told = True
        self._watchdog.cancel()
        self._turns.finish_pending_user_line()
        self._turns.complete()
        self._outbox.confirm()  # the stopped turn is over: nothing of it is asked again
        self._bus.emit(AnswerStopped(turn_id=self._turns.turn.turn_id, service_told=told))
        if self._state.state in (AgentState.THINKING, AgentState.ASSISTANT_SPEAKING):
            self._state.set(AgentState.READY, "answer stopped")
        return True

    def _close_open_activity(self) -> None:
        """Typed text or a notice after a stop: the stop's activity ends first."""
        if self._activity_open and self._talk_mode is TalkMode.PUSH_TO_TALK:
            self._activity_open = False
            self._put(RealtimeInput(RealtimeKind.ACTIVITY_END))

    def _cut_in(self) -> bool:
        """The person starts a turn over the answer: silence it now, for good.

        The service's "interrupted" follows, then (R1) the cut answer's turnComplete, which
        must not close the new turn; what is still on its way of the old answer is dropped.
        True when there was an answer to cut.
        """
        cut = self._generations.supersede()
        if cut or self._sink.is_playing or self._state.state is AgentState.ASSISTANT_SPEAKING:
            self._sink.flush()
            self._turns.finish_assistant_line(interrupted=True)
            return True
        return False

    # ------------------------------------------------------------------ the service

    def on_tool_call(self) -> None:
        """The model called tools: it answered, and it thinks while they run.

        Run even when it may be a cut answer's: an unanswered call can hold the service.
        """
        self.mark_answered()
        self._watchdog.cancel()
        if self._state.state in (AgentState.READY, AgentState.USER_SPEAKING) and not self._talking:
            self._state.set(AgentState.THINKING, "running tools")

    def on_server_content(self, content: types.LiveServerContent) -> None:
        """One ``serverContent``: each of its parts in the order they take effect."""
        if content.interrupted:
            self._on_interrupted()
        if content.input_transcription is not None:
            self._on_input_transcription(content.input_transcription)
        if content.model_turn is not None:
            self._on_model_turn(content.model_turn)
        if content.output_transcription is not None and self._generations.accepting:
            self.mark_answered()
            if content.output_transcription.text:
                self._turns.add_assistant_text(content.output_transcription.text)
        if content.grounding_metadata is not None:
            self._grounding.report(self._turns.turn.turn_id, content)
        if content.generation_complete and self._generations.accepting:
            self._generations.generation_complete()
            self.mark_answered(opens_turn=False)
        if content.turn_complete:
            self._on_turn_complete()

    def on_playback_drained(self) -> None:
        """The sink played everything queued: a completed answer has been heard."""
        self._state.progress()
        if self._state.state is AgentState.ASSISTANT_SPEAKING and self._turns.turn.completed:
            self._state.set(AgentState.READY, "answer played")

    def mark_answered(self, *, opens_turn: bool = True) -> None:
        """The service did something in reply; without an open turn it starts its own."""
        if opens_turn and self._turns.turn.completed:
            # The model speaks without a new request from us (hands-free after audioStreamEnd,
            # or on its own): that is a turn of its own.
            self._new_turn()
        self._turns.turn.answered = True
        self._watchdog.cancel()

    def give_up_on_turn(self) -> None:
        """The watchdog gave up: the turn ends without an answer."""
        self._turns.turn.completed = True
        self._turns.finish_assistant_line(interrupted=True)
        if not self._talking:
            self._state.set(AgentState.READY, "no response from the service")

    def resting_state(self) -> AgentState:
        """The state to show once connected, from what the conversation was doing."""
        turn = self._turns.turn
        if self._state.state is AgentState.ASSISTANT_SPEAKING and self._sink.is_playing:
            return AgentState.ASSISTANT_SPEAKING  # the answer is still being heard
        if self._talking:
            return AgentState.USER_SPEAKING
        if turn.awaiting_answer:
            return AgentState.THINKING
        return AgentState.READY

    def prepare_replay(self) -> None:
        """A connection ended while an answer was due: get ready to ask again.

        What was sent after the newest handle is re-sent on the next connection, so the
        unanswered question will be answered from the start: the half-played answer is
        silenced and forgotten (not left as a cut-off line), and the service's second
        transcription of the question is skipped (it is in the transcript already).
        """
        # A new connection starts with nothing of the service's in flight.
        self._generations.reset()
        turn = self._turns.turn
        if not turn.awaiting_answer or not self._outbox.has_unconfirmed:
            return
        self._sink.flush()
        self._turns.forget_answer()
        if turn.user_text:
            # What was heard of the question is its line; the service will transcribe the
            # re-sent audio again, and that second copy is skipped until the answer begins.
            self._turns.finish_pending_user_line()
            self._skip_replayed_transcription = True

    # ------------------------------------------------------------------ parts of content

    def _new_turn(self) -> None:
        self._turns.new_turn()
        self._watchdog.new_turn()

    def _on_interrupted(self) -> None:
        self._sink.flush()
        self._bus.emit(AnswerInterrupted(turn_id=self._turns.turn.turn_id))
        self._turns.finish_assistant_line(interrupted=True)
        if self._generations.interrupted():
            # The service stopped the current turn's answer itself (its voice detection
            # heard the person): that turn ends here; its turnComplete that follows is the
            # cut answer's, and the person's new words start the next turn.
            self._watchdog.cancel()
            self._turns.finish_pending_user_line()
            self._turns.complete()
            self._outbox.confirm()
            if not self._talking and self._state.state in (
                AgentState.THINKING,
                AgentState.ASSISTANT_SPEAKING,
            ):
                self._state.set(AgentState.READY, "answer interrupted")
        if self._talk_mode is TalkMode.HANDS_FREE and not self._talking:
            self._state.set(AgentState.USER_SPEAKING, "interrupted by the person")

    def _on_input_transcription(self, transcription: types.Transcription) -> None:
        if self._skip_replayed_transcription:
            return  # the re-sent question, transcribed a second time
        turn = self._turns.turn
        hands_free = self._talk_mode is TalkMode.HANDS_FREE
        if hands_free and (turn.completed or turn.user_final):
            # The service's VAD heard a new utterance: that starts the next turn.
            self._new_turn()
        # The person's line is collected until the turn completes: the service never marks
        # a piece finished and sends some after the answer has begun (R2).
        if transcription.text:
            self._turns.add_user_text(transcription.text)
            if hands_free:
                if self._state.state is AgentState.READY:
                    self._state.set(AgentState.USER_SPEAKING, "speech heard")
                if not self._turns.turn.answered:
                    # The last words heard before an answer: the silence that counts
                    # (latency, the watchdog) starts here, finished or not.
                    self._turns.speech_ended()
                    self._watchdog.arm()
        if transcription.finished and hands_free and self._state.state is AgentState.USER_SPEAKING:
            self._state.set(AgentState.THINKING, "speech ended")  # where a service says so

    def _on_model_turn(self, content: types.Content) -> None:
        if not self._generations.content():
            return  # the rest of an answer the person cut: never played into the new turn
        for part in content.parts or ():
            blob = part.inline_data
            if blob is not None and blob.data and (blob.mime_type or "").startswith("audio/"):
                self._on_model_audio(blob.data)
            elif part.text and not part.thought:
                # Audio-only sessions rarely send text parts; treat them like the transcript.
                self.mark_answered()
                self._turns.add_assistant_text(part.text)
            elif part.executable_code is not None or part.code_execution_result is not None:
                self.mark_answered()
                self._bus.emit(_code_event(self._turns.turn.turn_id, part))

    def _on_model_audio(self, pcm24k: bytes) -> None:
        self.mark_answered()
        turn = self._turns.turn
        if (
            self._turns.first_audio()
            and self._talk_mode is TalkMode.HANDS_FREE
            and turn.speech_ended_at is None
        ):
            # Hands-free without any transcription: the answer itself tells us the person
            # had stopped.
            turn.speech_ended_at = turn.first_audio_at
        self._sink.play(pcm24k)
        state = self._state.state
        if state in (AgentState.READY, AgentState.THINKING) or (
            state is AgentState.USER_SPEAKING and not self._talking
        ):
            self._state.set(AgentState.ASSISTANT_SPEAKING, "answer started")

    def _on_turn_complete(self) -> None:
        if not self._generations.turn_complete():
            _log.debug("turnComplete of the answer the person cut in on; the new turn goes on")
            return
        if self._talking:
            # Push-to-talk held: the service cannot have completed a turn still being
            # spoken; this is the end of something earlier (an answer that had not begun).
            _log.debug("turnComplete while the person talks; the turn goes on")
            return
        self._skip_replayed_transcription = False
        self.mark_answered(opens_turn=False)
        self._watchdog.cancel()
        self._turns.finish_pending_user_line()
        self._turns.finish_assistant_line(interrupted=False)
        self._turns.complete()
        # Everything the person said before this answer has been consumed.
        self._outbox.confirm()
        if isinstance(self._sink, TurnAwareSink):
            self._sink.end_of_turn()
        state = self._state.state
        if state is AgentState.ASSISTANT_SPEAKING and self._sink.is_playing:
            return  # on_playback_drained() moves on to Ready
        if state in (AgentState.THINKING, AgentState.ASSISTANT_SPEAKING, AgentState.USER_SPEAKING):
            self._state.set(AgentState.READY, "answer complete")

    def _grounded(self, turn_id: int, summary: GroundingSummary) -> None:
        self._bus.emit(
            GroundingSourcesFound(
                turn_id=turn_id,
                sources=summary.sources,
                queries=summary.queries,
                search_entry_point=summary.search_entry_point,
            )
        )


def _code_event(turn_id: int, part: types.Part) -> CodeExecuted:
    """The ``CodeExecuted`` for an ``executableCode`` or ``codeExecutionResult`` part."""
    if part.executable_code is not None:
        code = part.executable_code
        language = str(code.language.value) if code.language is not None else "PYTHON"
        return CodeExecuted(
            turn_id=turn_id, code=code.code or "", language=language, code_id=code.id
        )
    result = part.code_execution_result
    assert result is not None
    outcome = str(result.outcome.value) if result.outcome is not None else "OUTCOME_UNSPECIFIED"
    return CodeExecuted(
        turn_id=turn_id,
        code="",
        language="",
        outcome=outcome,
        output=result.output or "",
        code_id=result.id,
    )
