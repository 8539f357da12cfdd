"""The answer's audio: what each audio action sounds like, its frames, and when they go.

:func:`answer_pcm` makes the 24 kHz PCM of a tone, a WAV file, an echo of what the person
said, or raw PCM; :func:`frame_bytes` cuts it into frames well under the client's 1 MiB
limit; an :class:`AudioPacer` spaces the frames of one action: at real time, as fast as
possible, or as the service sends them, in bursts faster than real time (docs/live-service.md
R6).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from sammy_desktop.sim.actions import EchoAudio, PcmAudio, Tone, WavAudio
from sammy_desktop.sim.pcm import read_wav_pcm, resample_pcm16, tone_pcm, trim_silence
from sammy_desktop.wire_audio import OUTPUT_RATE

if TYPE_CHECKING:
    from sammy_desktop.sim.actions import TurnContext
    from sammy_desktop.sim.clock import Clock
    from sammy_desktop.sim.profiles import Pacing

__all__ = ["AudioAction", "AudioPacer", "answer_pcm", "frame_bytes", "pacing_of"]

AudioAction = Tone | WavAudio | EchoAudio | PcmAudio

_DEFAULT_ECHO_PADDING_MS = 100  # trim_silence's default, which TurnContext.user_speech has
# Raw PCM per frame: base64 grows it by 4/3, plus JSON; 512 KiB stays well under 1 MiB.
_MAX_AUDIO_BYTES_PER_FRAME = 512 * 1024


async def answer_pcm(action: AudioAction, context: TurnContext, *, threshold_rms: float) -> bytes:
    """The PCM16 LE mono 24 kHz audio of ``action``.

    Args:
        action: The audio action.
        context: What fired the turn (an echo plays the person's audio from it).
        threshold_rms: The scenario's VAD threshold, for an echo trimmed with its own padding.
    """
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
                threshold_rms=threshold_rms,
                padding_ms=action.padding_ms,
            )
        return resample_pcm16(source, context.user_audio_rate, OUTPUT_RATE)
    return resample_pcm16(action.pcm, action.sample_rate, OUTPUT_RATE)


def frame_bytes(action: AudioAction) -> int:
    """Bytes of audio per frame: the action's ``chunk_ms``, at most 512 KiB."""
    return min(OUTPUT_RATE * 2 * max(1, action.chunk_ms) // 1000, _MAX_AUDIO_BYTES_PER_FRAME)


def pacing_of(action: AudioAction, default: Pacing) -> Pacing:
    """The action's own pacing (``realtime=True/False``), else the connection's."""
    if action.realtime is None:
        return default
    return "realtime" if action.realtime else "fast"


class AudioPacer:
    """Spaces the frames of one audio action, from the moment it is made.

    Args:
        pacing: ``"realtime"``, ``"fast"`` or ``"burst"``.
        clock: The simulator's clock.
        burst_ms: Audio sent at once in a burst.
        burst_speed: How much faster than real time the bursts go overall.
    """

    def __init__(self, pacing: Pacing, clock: Clock, *, burst_ms: int, burst_speed: float) -> None:
        self._pacing = pacing
        self._clock = clock
        self._started = clock.monotonic()
        self._burst_bytes = max(2, OUTPUT_RATE * 2 * burst_ms // 1000)
        self._burst_speed = burst_speed
        self._in_burst = 0
        self._seconds_sent = 0.0

    async def sent(self, frame: bytes) -> None:
        """Wait until the frame after ``frame`` may go."""
        clock = self._clock
        self._seconds_sent += len(frame) / (2 * OUTPUT_RATE)
        if self._pacing == "realtime":
            await clock.sleep(self._started + self._seconds_sent - clock.monotonic())
            return
        self._in_burst += len(frame)
        if self._pacing == "burst" and self._in_burst >= self._burst_bytes:
            # R6: "generated as quickly as possible, and not in real time".
            self._in_burst = 0
            due = self._started + self._seconds_sent / self._burst_speed
            await clock.sleep(due - clock.monotonic())
        # Let the reader see a barge-in between frames.
        await asyncio.sleep(0)
