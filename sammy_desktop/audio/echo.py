"""Acoustic echo cancellation with WebRTC's audio processing module.

Why this binding: ``livekit``'s :class:`rtc.AudioProcessingModule` wraps the WebRTC APM
(AEC3 echo canceller, noise suppression, high-pass filter) as maintained wheels for Linux,
Windows and macOS, which PyInstaller can bundle; the other Python bindings are unmaintained
or Linux-only. Measured here: more than 40 dB of echo removed from espeak speech while the
near-end voice stays (tests/audio/test_echo.py, bench/audio/).

The APM works on 10 ms frames. We feed it, on the asyncio loop:

* the *render* (far-end reference): exactly what the playback callback handed to the output
  device, silence included, so the reference is continuous;
* the *capture*: the microphone at 16 kHz, which comes back with the echo removed.

Their offset is the stream delay, from PortAudio's reported latencies; AEC3 also estimates
the delay itself, so the hint only has to be roughly right.

Delay: the modules hold the microphone's audio back by their own algorithmic delay (an
impulse in, measured: tests/audio/test_echo.py, bench/apm_delay.py): AEC3 by 8 ms (it works
in 64-sample blocks and keeps two), the noise suppressor by 6 ms (its 96-sample overlap),
the high-pass filter by nothing. Each 10 ms frame still comes out as soon as it went in;
it is the sound in it that is older. The engine runs the noise suppressor in hands-free
mode only (see :mod:`~sammy_desktop.audio.engine`); :attr:`EchoCanceller.delay_ms` says
what the microphone costs now.

Microphone closed (push-to-talk between turns, the default): nothing needs the echo
removed, so the reference is only kept (its last 300 ms, at the device's rate, untouched)
and handed to the module when the microphone opens. Resampling it and the module's reverse
stream were the largest part of the app's CPU while an answer played.

Idle: most of the time nothing plays (the assistant listens). Once nothing audible has been
played for ``idle_after_ms`` (longer than any echo path and room tail), the microphone goes
through a second, lighter module with only the noise suppressor and the high-pass filter, and
the silent reference is not fed: the echo canceller costs nothing until sound is played
again, while the microphone keeps the same clean-up. The first audible reference frame
switches back before its echo can reach the microphone (the reference is fed when it is
handed to the device, the echo comes an output plus input latency later).

Idle sooner in push-to-talk (:attr:`EchoCanceller.push_to_talk`): AEC3 keeps suppressing
for a few hundred milliseconds after the far end has gone quiet, most of all where it found
no echo to learn (headphones), and takes the start of whatever the person says then. A
warble said 100, 200, 300 and 400 ms after a loud answer, no echo, lost 172, 90, 32 and 5 ms
of its start (tests/audio/test_echo.py ``_start_lost_ms``; the bench's "speech lost at the
start of a turn, always ready" row read 18.7 ms). In hands-free the service's voice
detection hears the microphone, and a faint tail of the answer could make it think the
person spoke, so the canceller runs ``idle_after_ms`` (1 s) past the last sound. In
push-to-talk nothing listens for voice (the turns are marked), so it goes idle once the
direct echo of the last sound has come (:attr:`EchoCanceller.stream_delay_ms`) and
:data:`PUSH_TO_TALK_TAIL_MS` more of the room's reverberation, if that is sooner: the same
warbles lost 100, 0, 0 and 0 ms. A room's reverberation falls 60 dB in its reverberation
time (0.3-0.6 s in living rooms and offices), so what is left of it 150 ms on is 15-30 dB
below the echo itself, and it goes to the service inside the person's own turn. The quiet
kept while the microphone was closed counts towards it, so a microphone opened a moment
after an answer starts idle too.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Callable
from typing import Final

import numpy as np
from livekit import rtc

from sammy_desktop.audio.resampling import StreamResampler
from sammy_desktop.wire_audio import INPUT_RATE, SAMPLE_WIDTH

__all__ = ["APM_RATE", "HELD_REFERENCE_MS", "PUSH_TO_TALK_TAIL_MS", "EchoCanceller"]

APM_RATE: Final = INPUT_RATE
"""The rate the APM works at: the microphone's, as the capture delivers it for the wire.

The capture is cleaned up at the rate it is sent, so no resampling stands between the
echo canceller and the service; only the far-end reference is resampled to it.
"""
_FRAME: Final = APM_RATE // 100  # samples in one 10 ms frame
_FRAME_BYTES: Final = _FRAME * SAMPLE_WIDTH
_MAX_DELAY_MS: Final = 500  # WebRTC clamps larger hints anyway
HELD_REFERENCE_MS: Final = 300
"""How much of the reference is kept while the microphone is closed: an echo tail's worth."""
PUSH_TO_TALK_TAIL_MS: Final = 150
"""In push-to-talk, how long the canceller stays on after the direct echo of the last sound."""
_AEC_DELAY_MS: Final = 8.0  # AEC3's two 64-sample blocks at 16 kHz (see delay_ms)
_NS_DELAY_MS: Final = 6.0  # the noise suppressor's 96-sample overlap at 16 kHz


class EchoCanceller:
    """Removes what we play from what the microphone hears.

    Not thread-safe: call every method from the asyncio loop.

    Args:
        enabled: start with cancellation on (switchable with :attr:`enabled`).
        noise_suppression: also run WebRTC's noise suppressor on the microphone.
        high_pass_filter: also remove rumble below about 80 Hz.
        idle_after_ms: after this long without anything audible played, skip the echo
            canceller (see the module docstring); ``None`` never skips it.
        push_to_talk: the person marks their turns; the canceller may then go idle sooner
            (:attr:`push_to_talk`).

    Attributes:
        frames_processed: 10 ms microphone frames processed (by either module).
        frames_idle: of those, the frames that skipped the echo canceller.
        render_frames: 10 ms far-end reference frames given to the echo canceller.
    """

    def __init__(
        self,
        *,
        enabled: bool = True,
        noise_suppression: bool = True,
        high_pass_filter: bool = True,
        idle_after_ms: int | None = 1000,
        push_to_talk: bool = False,
    ) -> None:
        if idle_after_ms is not None and idle_after_ms < 300:
            # Shorter than a room's echo tail plus both device latencies: echo would leak.
            raise ValueError(f"idle_after_ms must be at least 300 (got {idle_after_ms})")
        self._noise_suppression = noise_suppression
        self._high_pass_filter = high_pass_filter
        self._idle_after_frames = None if idle_after_ms is None else idle_after_ms // 10
        self._push_to_talk = push_to_talk
        self._frames_since_audible = 0
        self._apm: rtc.AudioProcessingModule | None = None
        self._idle_apm: rtc.AudioProcessingModule | None = None
        self._render_resamplers: dict[int, StreamResampler] = {}
        self._render_pending = bytearray()
        self._capture_pending = bytearray()
        self._render_delay_ms = 0.0
        self._capture_delay_ms = 0.0
        self._delay_given = -1
        self.frames_processed = 0
        self.frames_idle = 0
        self.render_frames = 0
        self._wake_listener: Callable[[], None] | None = None
        self._microphone_open = True
        self._held: collections.deque[tuple[bytes | None, int, int]] = collections.deque()
        self._held_frames = 0
        self._enabled = False
        self.enabled = enabled

    @property
    def enabled(self) -> bool:
        """Whether cancellation runs; when off, :meth:`process_capture` passes audio through."""
        return self._enabled

    @enabled.setter
    def enabled(self, on: bool) -> None:
        if on == self._enabled:
            return
        self._enabled = on
        self._rebuild()

    @property
    def noise_suppression(self) -> bool:
        """Whether WebRTC's noise suppressor runs too (it delays the microphone by 6 ms)."""
        return self._noise_suppression

    @noise_suppression.setter
    def noise_suppression(self, on: bool) -> None:
        if on == self._noise_suppression:
            return
        self._noise_suppression = on
        if self._enabled:
            self._rebuild()

    @property
    def delay_ms(self) -> float:
        """How much later the microphone's audio comes out than it went in, now.

        The modules' own delay (measured: bench/apm_delay.py, tests/audio/test_echo.py):
        AEC3 works in 4 ms blocks and holds back two of them, the noise suppressor's
        overlap is 6 ms; the high-pass filter adds none. While idle only the lighter module
        runs.
        """
        if not self._enabled:
            return 0.0
        suppressor = _NS_DELAY_MS if self._noise_suppression else 0.0
        return suppressor + (0.0 if self.is_idle else _AEC_DELAY_MS)

    def _rebuild(self) -> None:
        on = self._enabled
        self._held.clear()
        self._held_frames = 0
        self._render_pending.clear()
        self._render_resamplers.clear()
        self._delay_given = -1
        self._frames_since_audible = self._idle_after_frames or 0  # nothing played yet
        # A fresh module on every switch-on: the old filter adapted to a room and a delay
        # that may have changed while it was off.
        self._apm = (
            rtc.AudioProcessingModule(
                echo_cancellation=True,
                noise_suppression=self._noise_suppression,
                high_pass_filter=self._high_pass_filter,
            )
            if on
            else None
        )
        self._idle_apm = (
            rtc.AudioProcessingModule(
                noise_suppression=self._noise_suppression,
                high_pass_filter=self._high_pass_filter,
            )
            if on and self._idle_after_frames is not None
            else None
        )

    @property
    def push_to_talk(self) -> bool:
        """Whether the person marks their turns (push-to-talk), rather than a voice detector.

        Then the canceller goes idle once the direct echo of the last sound and
        :data:`PUSH_TO_TALK_TAIL_MS` of the room's tail have come, if that is sooner than
        ``idle_after_ms``: AEC3 would otherwise take the start of what the person says
        after an answer (module docstring).
        """
        return self._push_to_talk

    @push_to_talk.setter
    def push_to_talk(self, on: bool) -> None:
        self._push_to_talk = on

    @property
    def is_idle(self) -> bool:
        """Whether the echo canceller is skipped now (nothing audible played for a while)."""
        limit = self._idle_after_frames
        if limit is None:
            return False
        if self._push_to_talk:
            # The direct echo of the last sound and the room's tail, in 10 ms frames.
            limit = min(limit, math.ceil((self.stream_delay_ms + PUSH_TO_TALK_TAIL_MS) / 10))
        return self._frames_since_audible >= limit

    def set_wake_listener(self, listener: Callable[[], None] | None) -> None:
        """Call ``listener`` when the canceller leaves idle, before it takes the reference.

        The capture uses it to leave its standby: from then on the canceller needs every
        microphone frame in time. The listener runs on the loop, inside
        :meth:`process_render`, while :attr:`is_idle` is still true.
        """
        self._wake_listener = listener

    @property
    def stream_delay_ms(self) -> int:
        """The delay hint given to the APM: output latency plus input latency."""
        return min(_MAX_DELAY_MS, round(self._render_delay_ms + self._capture_delay_ms))

    def set_render_delay(self, seconds: float) -> None:
        """How long audio handed to the output device takes to reach the speaker."""
        self._render_delay_ms = max(0.0, seconds * 1000.0)

    def set_capture_delay(self, seconds: float) -> None:
        """How long sound takes from the microphone to :meth:`process_capture`."""
        self._capture_delay_ms = max(0.0, seconds * 1000.0)

    @property
    def microphone_open(self) -> bool:
        """Whether the microphone's stream is open (see :meth:`set_microphone_open`)."""
        return self._microphone_open

    def set_microphone_open(self, on: bool) -> None:
        """The microphone's stream opened (``True``) or closed.

        While it is closed there is nothing to remove the echo from: the reference is not
        resampled or given to the module, only its last :data:`HELD_REFERENCE_MS` kept.
        When the microphone opens they go to the module first, since the echo of what
        played just before still reaches it; whether the canceller starts idle follows
        from them (nothing audible among them: idle).
        """
        if on == self._microphone_open:
            return
        self._microphone_open = on
        if not on:
            return
        held = list(self._held)
        self._held.clear()
        self._held_frames = 0
        if not any(pcm is not None for pcm, _rate, _frames in held):
            self._frames_since_audible = self._idle_after_frames or 0
            return
        for pcm, rate, frames in held:
            self.process_render(pcm, rate, frames)
        # The silence kept after the last sound has passed already: it counts towards idle.
        quiet_ms = 0
        for pcm, rate, frames in reversed(held):
            if pcm is not None:
                break
            quiet_ms += frames * 1000 // rate
        self._frames_since_audible = quiet_ms // 10

    def reference_resting(self) -> None:
        """The speaker's stream rests: nothing reaches the reference until it plays again.

        While the microphone is closed too, no clock runs for the canceller: what it kept
        would be of unknown age when the microphone opens, so it is dropped and the
        canceller starts idle (the speaker rests only after a quiet spell).
        """
        if not self._microphone_open:
            self._held.clear()
            self._held_frames = 0

    def process_render(self, pcm: bytes | None, sample_rate: int, frames: int) -> None:
        """Feed what was handed to the output device (the far-end reference).

        Args:
            pcm: mono PCM16 at ``sample_rate``; ``None`` for ``frames`` samples of silence.
            sample_rate: the output device's rate.
            frames: the number of samples in the block.
        """
        apm = self._apm
        if apm is None:
            return
        if not self._microphone_open:
            self._hold(pcm, sample_rate, frames)
            return
        if pcm is None:
            if self.is_idle:
                return  # silence long after the last sound: nothing to cancel
        else:
            if self._wake_listener is not None and self.is_idle:
                self._wake_listener()
            self._frames_since_audible = 0
        samples = np.zeros(frames, dtype=np.int16) if pcm is None else np.frombuffer(pcm, np.int16)
        if sample_rate != APM_RATE:
            resampler = self._render_resamplers.get(sample_rate)
            if resampler is None:
                resampler = StreamResampler(sample_rate, APM_RATE)
                self._render_resamplers[sample_rate] = resampler
            samples = resampler.process(samples)
        self._render_pending += samples.tobytes()
        while len(self._render_pending) >= _FRAME_BYTES:
            frame = rtc.AudioFrame(
                bytearray(self._render_pending[:_FRAME_BYTES]), APM_RATE, 1, _FRAME
            )
            del self._render_pending[:_FRAME_BYTES]
            apm.process_reverse_stream(frame)
            self.render_frames += 1

    def _hold(self, pcm: bytes | None, sample_rate: int, frames: int) -> None:
        """Keep the newest :data:`HELD_REFERENCE_MS` of the reference (microphone closed)."""
        self._held.append((pcm, sample_rate, frames))
        self._held_frames += frames
        limit = sample_rate * HELD_REFERENCE_MS // 1000
        while self._held and self._held_frames - self._held[0][2] >= limit:
            self._held_frames -= self._held.popleft()[2]

    def process_capture(self, pcm16k: bytes) -> bytes:
        """Remove the echo from microphone audio at 16 kHz.

        Audio is processed in 10 ms frames; a remainder shorter than a frame waits for the
        next call, so the output can be up to 9 ms shorter than the input (never longer
        than everything given so far).

        Args:
            pcm16k: mono PCM16 at 16 kHz.

        Returns:
            The processed audio; the input unchanged when cancellation is off.
        """
        apm = self._apm
        if apm is None:
            if self._capture_pending:
                pcm16k = bytes(self._capture_pending) + pcm16k
                self._capture_pending.clear()
            return pcm16k
        self._capture_pending += pcm16k
        usable = len(self._capture_pending) - len(self._capture_pending) % _FRAME_BYTES
        if usable == 0:
            return b""
        out = bytearray()
        delay = self.stream_delay_ms
        for start in range(0, usable, _FRAME_BYTES):
            frame = rtc.AudioFrame(
                bytearray(self._capture_pending[start : start + _FRAME_BYTES]),
                APM_RATE,
                1,
                _FRAME,
            )
            if self.is_idle and self._idle_apm is not None:
                self._idle_apm.process_stream(frame)
                self.frames_idle += 1
            else:
                if delay != self._delay_given:
                    # Each call is a round trip through the FFI; the APM keeps the last value.
                    apm.set_stream_delay_ms(delay)
                    self._delay_given = delay
                apm.process_stream(frame)
            self._frames_since_audible += 1
            out += frame.data.cast("B")
            self.frames_processed += 1
        del self._capture_pending[:usable]
        return bytes(out)
