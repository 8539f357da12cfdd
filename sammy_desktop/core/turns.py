"""One exchange of the conversation at a time: what was said, and what it cost.

:class:`Turn` holds one exchange (the person's line, the model's line, whether it completed
or was interrupted, the numbers: latency to first audio, tool time, reconnections, tokens).
:class:`TurnTracker` owns the current turn and is the only writer of the transcript: it
emits ``TranscriptUpdated`` for each piece and each final line, ``TurnStats`` when an answer
completes, and ``UsageUpdated`` for the service's token counts. Times come from the
injected monotonic clock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sammy_desktop.core.events import Speaker, TranscriptUpdated, TurnStats, UsageUpdated
from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import types

__all__ = ["Turn", "TurnTracker"]


@dataclass(slots=True)
class Turn:
    """The state of one exchange. Mutable; owned by the :class:`TurnTracker`.

    Attributes:
        turn_id: 1 for the first exchange of a session, then counting up.
        user_text: the person's words so far (concatenated transcription pieces).
        assistant_text: the model's words so far.
        user_final: the person's line has been written to the transcript.
        speech_ended_at: when the person finished their turn (monotonic seconds): speech
            ended, text sent, or (hands-free, nothing transcribed) the answer began.
        spoken_end_at: when the person's *speech* ended, as heard (talk released, the last
            words transcribed); None for a typed turn. The latency counts from here.
        first_audio_at: when the first model audio of the answer arrived.
        tool_ms: time spent answering tool calls, in milliseconds.
        tool_wait_ms: of the wait for the first audio, the time the model spent waiting
            for tool answers (a tool running, the person approving it).
        tool_calls: number of tool calls made.
        reconnects: reconnections during this turn.
        prompt_tokens: input tokens reported for this turn.
        response_tokens: output tokens reported for this turn.
        total_tokens: all tokens reported for this turn.
        completed: the service said turnComplete (or the core gave up waiting).
        answered: the service did something in reply (audio, text, a tool call).
    """

    turn_id: int
    user_text: str = ""
    assistant_text: str = ""
    user_final: bool = False
    speech_ended_at: float | None = None
    spoken_end_at: float | None = None
    first_audio_at: float | None = None
    tool_ms: float = 0.0
    tool_wait_ms: float = 0.0
    tool_calls: int = 0
    reconnects: int = 0
    prompt_tokens: int = 0
    response_tokens: int = 0
    total_tokens: int = 0
    prompt_by_modality: dict[str, int] = field(default_factory=dict)
    response_by_modality: dict[str, int] = field(default_factory=dict)
    completed: bool = False
    answered: bool = False

    @property
    def awaiting_answer(self) -> bool:
        """The person has finished and the model has not completed its answer."""
        return self.speech_ended_at is not None and not self.completed

    def stats(self) -> TurnStats:
        """The numbers for the ``TurnStats`` event."""
        first_audio_ms = None
        spoken, heard = self.spoken_end_at, self.first_audio_at
        if spoken is not None and heard is not None and heard >= spoken:
            # What the person waited on the service for: not the tools, nor their own yes.
            first_audio_ms = max(0.0, (heard - spoken) * 1000 - self.tool_wait_ms)
        return TurnStats(
            turn_id=self.turn_id,
            first_audio_ms=first_audio_ms,
            tool_ms=self.tool_ms,
            tool_calls=self.tool_calls,
            reconnects=self.reconnects,
            prompt_tokens=self.prompt_tokens,
            response_tokens=self.response_tokens,
            total_tokens=self.total_tokens,
            prompt_by_modality=dict(self.prompt_by_modality),
            response_by_modality=dict(self.response_by_modality),
        )


class TurnTracker:
    """The current turn and the transcript lines it produces.

    Args:
        bus: where transcript, statistics and usage events go.
        clock: monotonic seconds.
    """

    def __init__(self, bus: EventBus, clock: Callable[[], float]) -> None:
        self._bus = bus
        self._clock = clock
        self._turn = Turn(turn_id=0, completed=True)
        self._session_tokens = 0

    @property
    def turn(self) -> Turn:
        """The current (or last) turn."""
        return self._turn

    def reset(self) -> None:
        """A new session: no turn yet, no tokens counted."""
        self._turn = Turn(turn_id=0, completed=True)
        self._session_tokens = 0

    def new_turn(self) -> Turn:
        """Start the next exchange; an open one is closed first (its answer as interrupted)."""
        self.close_open_turn()
        self._turn = Turn(turn_id=self._turn.turn_id + 1)
        return self._turn

    def close_open_turn(self) -> None:
        """An exchange still open ends here: lines kept, the answer marked interrupted."""
        turn = self._turn
        if turn.completed or not turn.turn_id:
            return
        if turn.user_text and not turn.user_final:
            self.finish_user_line()
        self.finish_assistant_line(interrupted=True)

    # ------------------------------------------------------------------ the person's line

    def add_user_text(self, text: str) -> None:
        """A piece of the person's transcription arrived."""
        turn = self._turn
        turn.user_text += text
        self._bus.emit(
            TranscriptUpdated(
                speaker=Speaker.USER, text=turn.user_text, final=False, turn_id=turn.turn_id
            )
        )

    def set_user_line(self, text: str) -> None:
        """The person's whole line, known at once (a typed message), made final."""
        self._turn.user_text = text
        self.finish_user_line()

    def finish_user_line(self) -> None:
        """The person's line will not grow any more: make it final (once, when not empty)."""
        turn = self._turn
        turn.user_final = True
        text = turn.user_text.strip()
        if text:
            self._bus.emit(
                TranscriptUpdated(speaker=Speaker.USER, text=text, final=True, turn_id=turn.turn_id)
            )

    def finish_pending_user_line(self) -> None:
        """Make the person's line final if it has words and is not final yet."""
        if self._turn.user_text and not self._turn.user_final:
            self.finish_user_line()

    # ------------------------------------------------------------------ the model's line

    def add_assistant_text(self, text: str) -> None:
        """A piece of the model's words arrived."""
        turn = self._turn
        turn.assistant_text += text
        self._bus.emit(
            TranscriptUpdated(
                speaker=Speaker.ASSISTANT,
                text=turn.assistant_text,
                final=False,
                turn_id=turn.turn_id,
            )
        )

    def finish_assistant_line(self, *, interrupted: bool) -> None:
        """The model's line so far becomes final (and a new one may start in the same turn)."""
        turn = self._turn
        text = turn.assistant_text.strip()
        turn.assistant_text = ""
        if text:
            self._bus.emit(
                TranscriptUpdated(
                    speaker=Speaker.ASSISTANT,
                    text=text,
                    final=True,
                    turn_id=turn.turn_id,
                    interrupted=interrupted,
                )
            )

    def forget_answer(self) -> None:
        """The answer so far will be asked for again (a replay): drop it without a line."""
        self._turn.assistant_text = ""
        self._turn.first_audio_at = None

    # ------------------------------------------------------------------ numbers

    def first_audio(self) -> bool:
        """The model's audio arrived; True when it is the first of this turn's answer."""
        turn = self._turn
        if turn.first_audio_at is not None:
            return False
        turn.first_audio_at = self._clock()
        return True

    def speech_ended(self, *, spoken: bool = True) -> None:
        """The person finished their turn.

        Speech ended (talk released, the last words heard), or, with ``spoken=False``,
        typed text was sent.
        """
        now = self._clock()
        self._turn.speech_ended_at = now
        self._turn.spoken_end_at = now if spoken else None

    def tools_waited(self, milliseconds: float) -> None:
        """The model waited this long for tool answers.

        Before the answer's first audio, that is not the service's latency.
        """
        if self._turn.first_audio_at is None:
            self._turn.tool_wait_ms += milliseconds

    def complete(self) -> TurnStats | None:
        """The answer is complete: the stats, emitted once (None when already completed)."""
        turn = self._turn
        if turn.completed:
            return None
        turn.completed = True
        stats = turn.stats()
        self._bus.emit(stats)
        return stats

    def add_usage(self, usage: types.UsageMetadata) -> None:
        """Token counts from the service, for this turn and the session."""
        prompt = usage.prompt_token_count or 0
        response = usage.response_token_count or 0
        total = usage.total_token_count or (prompt + response)
        turn = self._turn
        turn.prompt_tokens += prompt
        turn.response_tokens += response
        turn.total_tokens += total
        prompt_by = _by_modality(usage.prompt_tokens_details)
        response_by = _by_modality(usage.response_tokens_details)
        for mine, theirs in (
            (turn.prompt_by_modality, prompt_by),
            (turn.response_by_modality, response_by),
        ):
            for modality, count in theirs.items():
                mine[modality] = mine.get(modality, 0) + count
        self._session_tokens += total
        self._bus.emit(
            UsageUpdated(
                prompt_tokens=prompt,
                response_tokens=response,
                total_tokens=total,
                session_total=self._session_tokens,
                turn_id=turn.turn_id,
                prompt_by_modality=prompt_by,
                response_by_modality=response_by,
            )
        )


def _by_modality(details: Sequence[types.ModalityTokenCount] | None) -> dict[str, int]:
    """``promptTokensDetails`` as modality name -> tokens (``AUDIO``, ``TEXT``...)."""
    counts: dict[str, int] = {}
    for detail in details or ():
        if detail.modality is None or not detail.token_count:
            continue
        name = str(getattr(detail.modality, "value", detail.modality)).upper()
        counts[name] = counts.get(name, 0) + detail.token_count
    return counts
