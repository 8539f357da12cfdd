"""What the simulated model sends in a turn, shaped by the profile's rules.

:class:`TurnOutput` sends the model's side of one connection: transcriptions and text in
pieces, the answer's audio, tool calls and their cancellation, ``generationComplete``,
``turnComplete``, usage and resumption updates. A :class:`TurnProgress` keeps what the
current turn has sent so far, which is what the strict profiles' ordering rules need
(each names its entry of docs/live-service.md):

* the input transcription's last pieces are held back and sent between the answer's audio
  frames, never with ``finished`` (R2);
* usage rides in the ``turnComplete`` frame, estimated when the scenario gave none (R4);
* ``generationComplete`` follows the answer, and ``turnComplete`` waits until its audio has
  had time to play (R5);
* an interrupted turn gets ``turnComplete`` after ``interrupted`` (R1);
* no resumption handle while a function call is pending (R9).
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sammy_desktop.sim.actions import TranscriptEntry, TurnComplete
from sammy_desktop.sim.faults import fault_of
from sammy_desktop.sim.model_audio import AudioPacer, frame_bytes, pacing_of
from sammy_desktop.sim.pcm import chunk_pcm
from sammy_desktop.sim.profiles import usage_estimate, video_frame_tokens
from sammy_desktop.sim.wire import audio_message, server_content_message
from sammy_desktop.wire_audio import OUTPUT_RATE

if TYPE_CHECKING:
    from sammy_desktop.sim.actions import (
        InputTranscription,
        ModelText,
        OutputTranscription,
        TurnContext,
        Usage,
    )
    from sammy_desktop.sim.clock import Clock
    from sammy_desktop.sim.model_audio import AudioAction
    from sammy_desktop.sim.profiles import Pacing, ServiceProfile
    from sammy_desktop.sim.session import SessionState
    from sammy_desktop.sim.wire import Setup

__all__ = ["TurnOutput", "TurnProgress", "split_text"]


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


@dataclass(slots=True)
class TurnProgress:
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


class TurnOutput:
    """The model's side of one connection.

    Args:
        send: Sends one frame (the connection's :class:`~sammy_desktop.sim.outbound.Outbound`).
        state: The session (its transcript and pending calls).
        setup: The connection's setup (which transcriptions it asked for, resumption).
        profile: The service profile serving the connection.
        clock: Pacing and the wait for playback use it.
        pacing: The connection's audio pacing, unless an action sets its own.
        issue_handle: Gives out a resumption handle for the session.

    Attributes:
        turn: What the current turn has sent so far.
        audio_streaming: True while an audio action sends its frames.
    """

    def __init__(
        self,
        *,
        send: Callable[[Mapping[str, Any]], Awaitable[None]],
        state: SessionState,
        setup: Setup,
        profile: ServiceProfile,
        clock: Clock,
        pacing: Pacing,
        issue_handle: Callable[[SessionState], str],
    ) -> None:
        self._send = send
        self._state = state
        self._setup = setup
        self._profile = profile
        self._clock = clock
        self._pacing = pacing
        self._issue_handle = issue_handle
        self.turn = TurnProgress()
        self.audio_streaming = False

    def begin(self, context: TurnContext) -> None:
        """Start the record of a new turn, fired by ``context``'s input."""
        self.turn = TurnProgress(
            input_audio_s=len(context.user_speech) / (2 * context.user_audio_rate),
            text_chars=len(context.text),
        )

    # ------------------------------------------------------------ text

    async def input_transcription(self, action: InputTranscription) -> None:
        """What the person said; with R2 its last pieces wait for the answer's audio."""
        self._state.transcript.append(TranscriptEntry("user", action.text))
        if not self._setup.input_transcription:
            return
        profile = self._profile
        pieces = split_text(action.text, action.pieces)
        now = pieces
        if profile.input_transcription_late and self.turn.first_audio_at is None:
            # R2: pieces keep coming after the answer's audio began.
            now = pieces[: len(pieces) // 2]
            self.turn.late_input.extend(pieces[len(pieces) // 2 :])
        for index, piece in enumerate(now):
            last = index == len(pieces) - 1
            transcription: dict[str, Any] = {"text": piece}
            # R2: the service never sets `finished` on these models.
            if last and action.finished and profile.input_transcription_finished:
                transcription["finished"] = True
            await self._send(server_content_message(inputTranscription=transcription))

    async def send_late_input_piece(self) -> None:
        """Send the next held-back input transcription piece, if any (R2)."""
        if self.turn.late_input:
            piece = self.turn.late_input.popleft()
            await self._send(server_content_message(inputTranscription={"text": piece}))

    async def flush_late_input(self) -> None:
        """Send every held-back input transcription piece (R2)."""
        while self.turn.late_input:
            await self.send_late_input_piece()

    async def output_transcription(self, action: OutputTranscription) -> None:
        """What the model says, when the setup asked for output transcription."""
        self._state.transcript.append(TranscriptEntry("model", action.text))
        if self._setup.output_transcription:
            self.turn.model_output = True
            for piece in split_text(action.text, action.pieces):
                await self._send(server_content_message(outputTranscription={"text": piece}))

    async def model_text(self, action: ModelText) -> None:
        """Model text parts, as a TEXT-modality model answers."""
        self._state.transcript.append(TranscriptEntry("model", action.text))
        self.turn.model_output = True
        for piece in split_text(action.text, action.pieces):
            await self._send(server_content_message(modelTurn={"parts": [{"text": piece}]}))

    # ------------------------------------------------------------ audio

    async def audio(self, action: AudioAction, pcm: bytes) -> None:
        """The answer's audio in frames, with its transcript spread over them."""
        chunks = chunk_pcm(pcm, frame_bytes(action))
        transcript_pieces: dict[int, str] = {}
        if action.transcript:
            self._state.transcript.append(TranscriptEntry("model", action.transcript))
            if self._setup.output_transcription:
                self.turn.model_output = True
                pieces = split_text(action.transcript, max(1, len(chunks)))
                for index, piece in enumerate(pieces):
                    transcript_pieces[index * max(1, len(chunks)) // len(pieces)] = piece
        if not chunks:
            for piece in transcript_pieces.values():
                await self._send(server_content_message(outputTranscription={"text": piece}))
            return
        clock = self._clock
        pacer = AudioPacer(
            pacing_of(action, self._pacing),
            clock,
            burst_ms=self._profile.burst_ms,
            burst_speed=self._profile.burst_speed,
        )
        turn = self.turn
        turn.model_output = True
        self.audio_streaming = True
        try:
            for index, chunk in enumerate(chunks):
                if turn.first_audio_at is None:
                    turn.first_audio_at = clock.monotonic()
                await self._send(audio_message(chunk, OUTPUT_RATE, transcript_pieces.get(index)))
                turn.audio_seconds += len(chunk) / (2 * OUTPUT_RATE)
                # R2: held-back input transcription goes out between the answer's frames.
                await self.send_late_input_piece()
                await pacer.sent(chunk)
        finally:
            self.audio_streaming = False

    # ------------------------------------------------------------ the end of a turn

    async def generation_complete(self) -> None:
        """Send ``generationComplete``."""
        self.turn.generation_complete = True
        await self._send(server_content_message(generationComplete=True))

    async def barged_in(self) -> None:
        """The person spoke over the answer: ``interrupted``, then with R1 ``turnComplete``."""
        self.audio_streaming = False
        await self._send(server_content_message(interrupted=True))
        if self._profile.turn_complete_after_interrupted:
            # R1: "it will go through interrupted > turn_complete" (no generationComplete).
            await self.turn_complete(TurnComplete(), wait_for_playback=False)

    async def usage(self, action: Usage) -> None:
        """Send usageMetadata, or with R4 keep it for the turnComplete frame."""
        total = action.total_tokens
        if total is None:
            total = action.prompt_tokens + action.response_tokens
        usage = _usage_metadata(action.prompt_tokens, action.response_tokens, total)
        if self._profile.usage_with_turn_complete and not self.turn.completed:
            # R4: usage rides in the turnComplete frame.
            self.turn.usage = usage
        else:
            await self._send({"usageMetadata": usage})

    async def turn_complete(self, action: TurnComplete, *, wait_for_playback: bool) -> None:
        """Send ``turnComplete`` as the profile does (R2, R4, R5), then a fresh handle.

        Args:
            action: The reason and ``waitingForInput`` to send.
            wait_for_playback: Whether R5's wait for the answer to have played applies (not
                to an interrupted turn).
        """
        profile = self._profile
        turn = self.turn
        if profile.turn_complete_after_playback and wait_for_playback:
            if turn.model_output and not turn.generation_complete:
                # R5: generationComplete marks the end of generation...
                turn.generation_complete = True
                await self._send(server_content_message(generationComplete=True))
            end = turn.playback_end()
            if end is not None:
                # R5: ...and turnComplete waits "for playback to finish".
                await self._clock.sleep(end - self._clock.monotonic())
        await self.flush_late_input()
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
                # S6: the shared screen's frames since the last usage, at the setup's
                # mediaResolution, under the profile's modality name (IMAGE).
                frames = self._state.video_frames_unbilled
                self._state.video_frames_unbilled = 0
                video_in = frames * video_frame_tokens(self._setup.media_resolution)
                usage = _usage_metadata(prompt + video_in, response, prompt + video_in + response)
                # The service's breakdown by modality (R4): the microphone's seconds as
                # AUDIO, the rest (typed text, the setup) as TEXT; an audio answer's AUDIO.
                audio_in = min(prompt, math.ceil(turn.input_audio_s * 32))
                usage["promptTokensDetails"] = [
                    {"modality": modality, "tokenCount": count}
                    for modality, count in (
                        ("TEXT", prompt - audio_in),
                        ("AUDIO", audio_in),
                        (profile.video_usage_modality, video_in),
                    )
                    if count
                ]
                usage["responseTokensDetails"] = [{"modality": "AUDIO", "tokenCount": response}]
            message["usageMetadata"] = usage
        turn.completed = True
        turn.usage = None
        await self._send(message)
        if self._state.scenario.auto_resumption_updates and self._setup.resumption_requested:
            await self.resumption_update(resumable=True)
        # Whatever the scenario does after turnComplete (goAway, a close...) starts afresh.
        self.turn = TurnProgress(completed=True)

    async def resumption_update(self, *, resumable: bool) -> None:
        """Send sessionResumptionUpdate, with a new handle when resumable (never with R9)."""
        if resumable and self._profile.resumable_only_when_idle and self._state.pending_calls:
            resumable = False  # R9
        if fault_of(self._profile, "resumption_handles") == "withheld":
            resumable = False  # a test-facing fault (sim/faults.py): never a handle
        update: dict[str, Any] = {"resumable": resumable}
        if resumable:
            update["newHandle"] = self._issue_handle(self._state)
        await self._send({"sessionResumptionUpdate": update})

    # ------------------------------------------------------------ tool calls

    async def tool_call(self, calls: Sequence[Mapping[str, Any]]) -> None:
        """Send one toolCall; with R9 the session is no longer resumable until it is answered."""
        await self._send({"toolCall": {"functionCalls": list(calls)}})
        if self._profile.resumable_only_when_idle and self._setup.resumption_requested:
            # R9: "not possible to resume ... Example of such case could be model executing
            # function calls".
            await self.resumption_update(resumable=False)
        await self.send_late_input_piece()

    async def tool_call_cancellation(self, ids: Sequence[str]) -> None:
        """Send toolCallCancellation for ``ids``."""
        await self._send({"toolCallCancellation": {"ids": list(ids)}})


def _usage_metadata(prompt: int, response: int, total: int) -> dict[str, Any]:
    return {"promptTokenCount": prompt, "responseTokenCount": response, "totalTokenCount": total}
