"""One exchange of the conversation: what was said, and what it cost.

What the person said, what the model answered, and the numbers (latency to first audio,
tool time, reconnections, tokens).

The agent core keeps one :class:`Turn` at a time and turns it into a ``TurnStats`` event
when the answer is complete. Times come from the core's injected monotonic clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from sammy_desktop.core.events import TurnStats

__all__ = ["Turn"]


@dataclass(slots=True)
class Turn:
    """The state of one exchange. Mutable; owned by the agent core.

    Attributes:
        turn_id: 1 for the first exchange of a session, then counting up.
        user_text: the person's words so far (concatenated transcription pieces).
        assistant_text: the model's words so far.
        user_final: the person's line has been written to the history.
        speech_ended_at: when the person finished speaking (monotonic seconds).
        first_audio_at: when the first model audio of the answer arrived.
        tool_ms: time spent answering tool calls, in milliseconds.
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
    first_audio_at: float | None = None
    tool_ms: float = 0.0
    tool_calls: int = 0
    reconnects: int = 0
    prompt_tokens: int = 0
    response_tokens: int = 0
    total_tokens: int = 0
    completed: bool = False
    answered: bool = False

    @property
    def awaiting_answer(self) -> bool:
        """The person has finished and the model has not completed its answer."""
        return self.speech_ended_at is not None and not self.completed

    def stats(self) -> TurnStats:
        """The numbers for the ``TurnStats`` event."""
        first_audio_ms = None
        if self.first_audio_at is not None and self.speech_ended_at is not None:
            first_audio_ms = max(0.0, (self.first_audio_at - self.speech_ended_at) * 1000)
        return TurnStats(
            turn_id=self.turn_id,
            first_audio_ms=first_audio_ms,
            tool_ms=self.tool_ms,
            tool_calls=self.tool_calls,
            reconnects=self.reconnects,
            prompt_tokens=self.prompt_tokens,
            response_tokens=self.response_tokens,
            total_tokens=self.total_tokens,
        )
