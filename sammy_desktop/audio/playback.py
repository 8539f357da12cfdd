"""Speaker playback: a jitter buffer of the model's 24 kHz speech, with instant flush.

The model's audio arrives in bursts. :meth:`AudioPlayback.play` resamples each chunk to the
device rate (when the device does not take 24 kHz itself) and appends it to a queue; output
starts once the jitter buffer's depth is buffered (or that long after the first chunk, for
short answers). The PortAudio callback copies from the queue into the device buffer and
pads with silence when the queue runs dry; it never waits for anything.

Adaptive depth: whatever is buffered when output starts stays buffered for as long as the
audio keeps coming at the rate it is played (a continuous stream never gets ahead of the
device), so the start depth is added to every sample's latency. It starts small
(``start_threshold_ms``, 10 ms by default: one 10 ms chunk); an underrun in the middle of
speech (the queue ran dry and more came) raises it by ``underrun_step_ms`` up to
``max_threshold_ms`` and re-buffers that much before playing on, so a jittery connection
costs one gap, not a stutter. An answer that plays to its end without an underrun lowers
it again by one step, never below ``start_threshold_ms``.

Barge-in: :meth:`AudioPlayback.flush` bumps a generation number that the callback checks on
every call, so at most the block being filled at that moment is still played: silence
within one callback period.

Effects (earcons: short interface sounds) take a second queue, :meth:`AudioPlayback.play_effect`,
that the callback mixes on top of the speech. They are part of what the device plays, so the
echo canceller gets them in its far-end reference, but they are not the assistant speaking:
no :class:`PlaybackStarted` / :class:`PlaybackDrained`, :attr:`AudioPlayback.is_playing`
unchanged, and :meth:`AudioPlayback.flush` leaves them alone (the "listening" earcon comes
exactly at barge-in and must not be cut by it).

Every block handed to the device (silence too) goes back to the loop, where it feeds the
echo canceller as the far-end reference and the output level meter, and where the
bookkeeping decides when the speech has fully played (:class:`PlaybackDrained`). The
callback queues these reports and wakes the loop for them about every 10 ms, or at once
when something changes (sound starts or stops, a flush). While the microphone is live it
hands a block to the loop every 10 ms anyway; the capture then calls :meth:`AudioPlayback.pump`
first (the echo canceller wants the reference before the microphone audio it explains), and
the callback stops waking the loop for steady-state reports: one wake-up per 10 ms for both
directions instead of two.

Standby (``standby_after_ms``): an output stream that plays silence still costs a few
percent of a core (PortAudio's thread and the sound server's wake up every period). So once
nothing has been queued or audible for that long, the stream is paused (kept open, no
callbacks); :meth:`play` and :meth:`play_effect` start it again in a few milliseconds. A
started stream's device buffer is empty, and PortAudio fills it from the callback in one
burst; the callback answers that burst with silence, so the speech that follows sits behind
the same device buffer of silence as on a running stream: same latency, and the same cushion
when the model's audio arrives no faster than it plays (taking the burst from the queue would
run it dry that much early: a gap). Meanwhile :meth:`pump` keeps the echo canceller's
far-end reference continuous with silence, so its view of time does not jump.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
import time
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import sounddevice as sd

from sammy_desktop.audio.devices import AudioDevice
from sammy_desktop.audio.echo import EchoCanceller
from sammy_desktop.audio.events import AudioLevel, PlaybackDrained, PlaybackStarted
from sammy_desktop.audio.levels import LevelMeter
from sammy_desktop.audio.resampling import StreamResampler
from sammy_desktop.audio.supervisor import (
    PortAudioStream,
    StreamSupervisor,
    open_at_first_rate,
)
from sammy_desktop.eventbus import EventBus

__all__ = ["MODEL_RATE", "AudioPlayback"]

_log = logging.getLogger(__name__)

MODEL_RATE: Final = 24_000
_PREFERRED_DEVICE_RATES: Final = (MODEL_RATE, 48_000)
_DEFAULT_MAX_DEPTH_MS: Final = 120
# How recently the capture must have pumped the reports for the callback to rely on it.
# Two and a half capture blocks: a late hand-off or two do not make the callback post.
_PUMP_FRESH_S: Final = 0.025


def _pcm16(pcm: object, caller: str) -> bytes:
    """``pcm`` as bytes of whole 16-bit samples, or a clear error naming ``caller``."""
    if not isinstance(pcm, bytes | bytearray | memoryview):
        raise TypeError(f"{caller} takes PCM16 bytes, not {type(pcm).__name__}")
    data = bytes(pcm)
    if len(data) % 2:
        raise ValueError(
            f"{caller} needs whole 16-bit samples; got {len(data)} bytes (an odd count)"
        )
    return data


_Report = tuple[int, int, int, bytes | None, int, float, float]
"""A batch of played blocks, as :meth:`AudioPlayback._on_played` takes it."""


class _PlayedBatch:
    """Blocks played by the callback and not yet reported to the loop (callback thread)."""

    __slots__ = (
        "audible",
        "blocks",
        "data",
        "flush_generation",
        "frames",
        "last_written",
        "written",
    )

    def __init__(self) -> None:
        self.data = bytearray()
        self.blocks = 0
        self.written = 0
        self.frames = 0
        self.flush_generation = 0
        self.last_written = 0
        self.audible = False  # speech or an effect in the batch (else all silence)

    def add(
        self, outdata: Any, written: int, frames: int, flush_generation: int, *, effect: bool
    ) -> None:
        self.data += outdata
        self.blocks += 1
        self.written += written
        self.frames += frames
        self.flush_generation = flush_generation
        self.last_written = written
        self.audible = self.audible or written > 0 or effect

    def clear(self) -> None:
        self.data.clear()
        self.blocks = 0
        self.written = 0
        self.frames = 0
        self.audible = False


class AudioPlayback:
    """Plays the model's PCM16 mono 24 kHz speech on the speaker.

    Args:
        bus: where :class:`PlaybackStarted`, :class:`PlaybackDrained`,
            :class:`AudioLevel` ("output") and stream events go.
        device: the output device name from the settings; empty for the system default.
        echo_canceller: receives everything handed to the device as far-end reference.
        start_threshold_ms: how much speech to buffer before starting to play (the
            jitter buffer's smallest depth); also the longest a short answer waits for more.
        underrun_step_ms: how much the depth grows after an underrun (and shrinks after a
            clean answer).
        max_threshold_ms: the deepest the jitter buffer grows; ``None``: 120 ms, or
            ``start_threshold_ms`` when that is more.
        drain_grace_ms: when the queue runs dry without :meth:`end_of_turn`, how long to
            wait for more audio before declaring the speech finished (a late chunk within
            that time is an underrun, not a new answer).
        block_ms: the device callback period: a flush is noticed within one period.
        device_latency_ms: how much audio the device may hold ahead (PortAudio's
            suggested latency). Flush -> silence is about this plus one period; less
            risks underflows (clicks) on a busy machine. On PulseAudio 5 ms periods with
            15 ms give about 18 ms of device buffer and flush -> silence near 20 ms.
        samplerate: force the device rate (testing the resampler); ``None`` prefers
            24 kHz, then 48 kHz, then the device's own rate.
        stall_timeout_s: a stream that delivers no callback for this long counts as dead
            and is reopened (generous: some sound servers take seconds to start one).
        max_effects_ms: the most effect audio that may wait to be played; more is dropped
            (a burst of earcons must not queue up sounds that play seconds late).
        standby_after_ms: pause the stream after this long with nothing played or
            queued (see the module docstring); ``None`` keeps it running.

    Attributes:
        underruns: times the queue ran dry in the middle of speech (more came within
            ``drain_grace_ms``); silence was played meanwhile, and the depth grew.
        device_underflows: callbacks PortAudio flagged (the device ran out of data).
        dropped_while_down: :meth:`play` calls dropped while the speaker was failing.
        effects_dropped: :meth:`play_effect` calls dropped (speaker failing, or more than
            ``max_effects_ms`` of effects already waiting).
        blocks: callbacks handled on the loop.
        loop_wakeups: times the callback woke the loop for its reports (the rest rode
            along with the capture's hand-offs, see :meth:`pump`).
        last_start_latency_s: from the first chunk of an answer to the callback that
            started playing it.
        last_flush_to_silence_s: from :meth:`flush` to the first silent callback.
        last_flush_to_dac_silence_s: the same plus that callback's output latency, i.e.
            until the silence reaches the speaker by PortAudio's clock.
        output_latency_s: the output latency PortAudio reports for the latest callback.
    """

    def __init__(
        self,
        bus: EventBus,
        *,
        device: str = "",
        echo_canceller: EchoCanceller | None = None,
        start_threshold_ms: int = 10,
        underrun_step_ms: int = 10,
        max_threshold_ms: int | None = None,
        drain_grace_ms: int = 150,
        block_ms: int = 5,
        device_latency_ms: int = 15,
        samplerate: int | None = None,
        stall_timeout_s: float = 5.0,
        max_effects_ms: int = 3000,
        standby_after_ms: int | None = None,
    ) -> None:
        if standby_after_ms is not None and standby_after_ms < 0:
            raise ValueError(f"standby_after_ms must not be negative (got {standby_after_ms})")
        if start_threshold_ms < 0 or drain_grace_ms < 0 or underrun_step_ms < 0:
            raise ValueError(
                "start_threshold_ms, underrun_step_ms and drain_grace_ms must not be negative"
            )
        if max_threshold_ms is None:
            max_threshold_ms = max(_DEFAULT_MAX_DEPTH_MS, start_threshold_ms)
        if max_threshold_ms < start_threshold_ms:
            raise ValueError(
                f"max_threshold_ms ({max_threshold_ms}) must not be below "
                f"start_threshold_ms ({start_threshold_ms})"
            )
        if not 5 <= block_ms <= 40:
            raise ValueError(f"block_ms must be between 5 and 40 (got {block_ms})")
        if device_latency_ms <= 0:
            raise ValueError(f"device_latency_ms must be positive (got {device_latency_ms})")
        self._bus = bus
        self._echo = echo_canceller
        self._min_threshold_s = start_threshold_ms / 1000
        self._threshold_s = self._min_threshold_s
        self._step_s = underrun_step_ms / 1000
        self._max_threshold_s = max_threshold_ms / 1000
        self._underrun_in_answer = False
        self._grace_s = drain_grace_ms / 1000
        self._block_ms = block_ms
        self._device_latency_s = device_latency_ms / 1000
        self._forced_rate = samplerate
        self._loop: asyncio.AbstractEventLoop | None = None
        self._supervisor = StreamSupervisor(
            bus,
            "output",
            device,
            self._open_stream,
            on_running=self._stream_running,
            stall_timeout_s=stall_timeout_s,
            on_failed=self._stream_failed,
            on_switching=self._stream_switching,
        )
        self._rate = MODEL_RATE
        self._resampler = StreamResampler(MODEL_RATE, MODEL_RATE)
        self._meter = LevelMeter(MODEL_RATE, self._report_level)
        # Shared with the callback thread. deque.append/popleft are atomic, and the other
        # fields each have one writer (the loop); the callback only reads them.
        self._chunks: collections.deque[tuple[int, memoryview]] = collections.deque()
        self._flush_generation = 0
        self._released = False
        # Effects: appended by the loop, consumed by the callback, independent of flush.
        # The count of queued effect bytes has one writer per side, like capture's counters.
        self._effects: collections.deque[memoryview] = collections.deque()
        self._effect_bytes_queued = 0  # written by the loop
        self._effect_bytes_played = 0  # written by the callback
        self._effects_epoch = 0  # bumped by the loop to drop queued effects
        self._max_effects_s = max_effects_ms / 1000
        # Reports of played blocks: appended by the callback, taken by the loop (pump()).
        self._reports: collections.deque[_Report] = collections.deque()
        self._pumped_at = 0.0  # when the capture last pumped them (written by the loop)
        # Standby (loop state).
        self._standby_after_s = None if standby_after_ms is None else standby_after_ms / 1000
        self._busy_at = 0.0  # the last time something was queued or audible
        self._reference_at = 0.0  # how far the echo canceller's reference reaches (pump)
        # Silence to prime a resumed stream with: requested by the loop (count, then the
        # request number), taken by the callback (the number it has seen, what is left).
        self._prime_blocks = 0
        self._prime_request = 0
        self._prime_seen = 0
        self._prime_left = 0
        # Callback-thread state.
        self._batch = _PlayedBatch()
        self._blocks_per_report = max(1, 10 // block_ms)
        self._current: memoryview | None = None
        self._current_offset = 0
        self._current_generation = -1
        self._effect: memoryview | None = None
        self._effect_offset = 0
        self._effect_epoch_seen = 0
        # Loop state.
        self._queued_bytes = 0
        self._playing = False
        self._sounding = False
        self._turn_ended = False
        self._start_handle: asyncio.TimerHandle | None = None
        self._drain_handle: asyncio.TimerHandle | None = None
        self._first_chunk_at = 0.0
        self._flushed_at = 0.0
        self.underruns = 0
        self.blocks = 0
        self.loop_wakeups = 0
        self.last_start_latency_s = 0.0
        self.last_flush_to_silence_s = 0.0
        self.last_flush_to_dac_silence_s = 0.0
        self.dropped_while_down = 0
        self.effects_dropped = 0
        self.device_underflows = 0
        self.output_latency_s = 0.0

    # -- public API ---------------------------------------------------------------------

    @property
    def is_playing(self) -> bool:
        """Whether speech is queued or sounding (from :meth:`play` until drained or flushed)."""
        return self._playing

    @property
    def is_running(self) -> bool:
        """Whether the output stream is open and healthy."""
        return self._supervisor.is_running

    @property
    def device(self) -> AudioDevice | None:
        """The device the stream runs on now."""
        return self._supervisor.device

    @property
    def device_samplerate(self) -> int:
        """The rate the output device runs at."""
        return self._rate

    @property
    def is_standby(self) -> bool:
        """Whether the stream is paused for lack of anything to play (see the module doc)."""
        return self._supervisor.is_paused

    def expect_speech(self, within_s: float) -> None:
        """Speech is likely to come within ``within_s``: start the stream now and keep it.

        Starting a resting stream takes a few milliseconds and a hop through a worker
        thread; done ahead (the talk key went up, an answer is coming) the answer finds it
        running. The stream may rest again once ``within_s`` has passed with nothing played.
        """
        self._wake()
        self._busy_at = max(self._busy_at, time.perf_counter() + within_s)

    def pump(self) -> None:
        """Handle the played blocks the callback reported since the last call (on the loop).

        The capture calls this before each microphone block; the callback itself wakes the
        loop for them only when nobody has pumped lately (see the module docstring).
        """
        now = time.perf_counter()
        self._pumped_at = now
        self._take_reports()
        if self._supervisor.is_paused and self._echo is not None:
            # The speaker rests: it plays silence, as far as the echo canceller is concerned.
            frames = round((now - self._reference_at) * self._rate)
            if frames > self._rate // 10:
                # Not pumped for a while (the microphone rested too): the canceller is idle
                # by now and only needs the reference to go on from here.
                frames, self._reference_at = self._rate // 10, now
            if frames > 0:
                self._echo.process_render(None, self._rate, frames)
                self._reference_at += frames / self._rate
        else:
            self._reference_at = now

    @property
    def depth_ms(self) -> float:
        """The jitter buffer's current start depth (grows after underruns), in milliseconds."""
        return self._threshold_s * 1000

    @property
    def buffered_ms(self) -> float:
        """Speech queued but not yet handed to the device, in milliseconds."""
        return self._queued_bytes / 2 / self._rate * 1000

    def set_device(self, name: str) -> None:
        """Move the output to the device called ``name`` (empty: the system default).

        The stream is reopened there in the background; this object stays the same.
        Speech still queued is dropped (``PlaybackDrained(interrupted=True)``): it would
        come out late on the new device. Then :class:`DeviceSwitched`, or
        :class:`DeviceFallback` first when no device has that name. The current name
        again does nothing.
        """
        self._supervisor.switch_device(name)

    @property
    def effects_buffered_ms(self) -> float:
        """Effect audio queued but not yet handed to the device, in milliseconds."""
        waiting = max(0, self._effect_bytes_queued - self._effect_bytes_played)
        return waiting / 2 / self._rate * 1000

    async def start(self) -> None:
        """Open the speaker. Device trouble becomes events and retries, never an error."""
        self._loop = asyncio.get_running_loop()
        self._busy_at = time.perf_counter()  # standby counts from here
        await self._supervisor.start()

    async def stop(self) -> None:
        """Drop queued speech (``PlaybackDrained(interrupted=True)`` if any) and close."""
        self.flush()
        await self._supervisor.stop()

    def play(self, pcm24k: bytes) -> None:
        """Queue PCM16 mono 24 kHz speech (as the Live API sends it).

        Args:
            pcm24k: little-endian 16-bit samples; an empty chunk is ignored.

        Raises:
            TypeError: ``pcm24k`` is not bytes-like.
            ValueError: it has an odd number of bytes (not whole 16-bit samples).
        """
        data = _pcm16(pcm24k, "play()")
        if not data:
            return
        if self._supervisor.is_down:
            # No speaker right now (it failed and is being reopened): speech that waited
            # would come out late and out of context, so it is dropped and counted.
            self.dropped_while_down += 1
            return
        loop = self._loop or asyncio.get_running_loop()
        self._loop = loop
        if self._drain_handle is not None:
            self._drain_handle.cancel()
            self._drain_handle = None
            if not self._turn_ended:
                # The queue ran dry and more speech came: a gap in the middle of speech.
                self._underrun()
        # New speech after end_of_turn() belongs to the next turn, which is not over yet.
        self._turn_ended = False
        if not self._playing:
            self._playing = True
            self._first_chunk_at = time.perf_counter()
        self._wake()
        samples = self._resampler.process(np.frombuffer(data, dtype=np.int16))
        self._enqueue(samples.tobytes())
        if not self._released:
            if self._queued_bytes >= self._threshold_bytes():
                self._release()
            elif self._start_handle is None:
                self._start_handle = loop.call_later(self._threshold_s, self._release)

    def play_effect(self, pcm24k: bytes) -> None:
        """Mix a short interface sound (an earcon) into the output, PCM16 mono 24 kHz.

        Effects are played in the order given, mixed on top of any speech (the sum is
        clipped to 16 bits, never wrapped around). They reach the echo canceller's far-end
        reference like speech does, but they are not the assistant speaking: no
        :class:`PlaybackStarted` / :class:`PlaybackDrained`, :attr:`is_playing` and the
        half-duplex gate stay as they are, and :meth:`flush` does not drop them.

        Args:
            pcm24k: little-endian 16-bit samples; an empty chunk is ignored.

        Raises:
            TypeError: ``pcm24k`` is not bytes-like.
            ValueError: it has an odd number of bytes (not whole 16-bit samples).
        """
        data = _pcm16(pcm24k, "play_effect()")
        if not data:
            return
        if self._supervisor.is_down:
            self.effects_dropped += 1  # a sound that comes seconds late means nothing
            return
        samples = np.frombuffer(data, dtype=np.int16)
        if self._rate != MODEL_RATE:
            # One whole sound: resample it in one go, filter tail included.
            resampler = StreamResampler(MODEL_RATE, self._rate)
            samples = np.concatenate([resampler.process(samples), resampler.drain()])
        out = samples.astype(np.int16, copy=False).tobytes()
        waiting = self._effect_bytes_queued - self._effect_bytes_played
        if waiting + len(out) > self._max_effects_s * self._rate * 2:
            self.effects_dropped += 1
            return
        self._effect_bytes_queued += len(out)
        self._effects.append(memoryview(out))
        self._wake()

    def end_of_turn(self) -> None:
        """Say that no more speech follows for now (the model's turn is complete).

        :class:`PlaybackDrained` then comes as soon as the queue has played, without the
        ``drain_grace_ms`` wait. Optional: without it the grace period decides.
        """
        if not self._playing:
            return
        self._turn_ended = True
        if not self._released:
            self._release()
        if self._drain_handle is not None:
            self._drain_handle.cancel()
            self._drain_handle = None
            self._schedule_drain()

    def flush(self) -> None:
        """Stop speaking now (barge-in): drop everything queued.

        The callback notices at its next period, so output is silent within one callback
        period plus the device's own buffer. Emits ``PlaybackDrained(interrupted=True)``
        when speech was queued or playing.
        """
        self._flush_generation += 1
        self._flushed_at = time.perf_counter()
        self._reset_queue()
        was_playing = self._playing
        self._playing = False
        self._sounding = False
        if was_playing:
            self._bus.emit(PlaybackDrained(interrupted=True))

    # -- queue --------------------------------------------------------------------------

    def _underrun(self) -> None:
        """A gap in the middle of speech: buffer deeper from here on, and re-buffer now."""
        self.underruns += 1
        self._underrun_in_answer = True
        self._threshold_s = min(self._max_threshold_s, self._threshold_s + self._step_s)
        # Silence is playing anyway: let the queue fill to the new depth before going on,
        # so the next late chunk finds a cushion instead of another gap.
        self._released = False
        _log.debug(
            "playback underrun %d: jitter buffer depth now %.0f ms",
            self.underruns,
            self._threshold_s * 1000,
        )

    def _threshold_bytes(self) -> int:
        return round(self._threshold_s * self._rate) * 2

    def _enqueue(self, data: bytes) -> None:
        if not data:
            return
        self._queued_bytes += len(data)
        self._chunks.append((self._flush_generation, memoryview(data)))

    def _release(self) -> None:
        if self._start_handle is not None:
            self._start_handle.cancel()
            self._start_handle = None
        if self._playing:
            self._released = True

    def _reset_queue(self) -> None:
        self._released = False
        self._chunks.clear()
        self._queued_bytes = 0
        self._underrun_in_answer = False
        self._turn_ended = False
        self._resampler.reset()
        for handle in (self._start_handle, self._drain_handle):
            if handle is not None:
                handle.cancel()
        self._start_handle = None
        self._drain_handle = None

    def _drop_effects(self) -> None:
        self._effects.clear()
        self._effects_epoch += 1  # the callback forgets the effect it is in the middle of
        self._effect_bytes_queued = self._effect_bytes_played

    def _schedule_drain(self) -> None:
        assert self._loop is not None
        delay = self.output_latency_s + (0.0 if self._turn_ended else self._grace_s)
        self._drain_handle = self._loop.call_later(delay, self._drained)

    def _drained(self) -> None:
        self._drain_handle = None
        if not self._underrun_in_answer:
            # A whole answer without a gap: the connection keeps up; trust it a step more.
            self._threshold_s = max(self._min_threshold_s, self._threshold_s - self._step_s)
        self._underrun_in_answer = False
        self._released = False
        self._turn_ended = False
        self._playing = False
        self._sounding = False
        self._resampler.reset()
        self._bus.emit(PlaybackDrained())

    # -- stream plumbing ----------------------------------------------------------------

    def _candidate_rates(self, device: AudioDevice) -> list[int]:
        if self._forced_rate is not None:
            return [self._forced_rate]
        native = round(device.default_samplerate)
        return [*_PREFERRED_DEVICE_RATES, *([] if native in _PREFERRED_DEVICE_RATES else [native])]

    def _open_stream(
        self, device: AudioDevice, generation: int, finished: Callable[[], None]
    ) -> PortAudioStream:
        """Open and start the output stream (worker thread).

        24 kHz first (the model's rate, no resampling), then 48 kHz, then the device's own
        rate: a device that refuses a rate ("Invalid sample rate") gets the next one.
        """
        return open_at_first_rate(
            sd.RawOutputStream,
            device,
            self._candidate_rates(device),
            block_ms=self._block_ms,
            what="speaker",
            latency=self._device_latency_s,
            callback=self._make_callback(generation),
            finished_callback=finished,
        )

    def _stream_running(self, stream: PortAudioStream, device: AudioDevice) -> None:
        raw: Any = stream
        rate = round(raw.samplerate)
        self.output_latency_s = float(raw.latency)
        if rate != self._rate:
            # Speech queued at the old rate would play at the wrong pitch: drop it.
            self._reset_queue()
            self._drop_effects()
            self._rate = rate
            self._resampler = StreamResampler(MODEL_RATE, rate)
            self._meter = LevelMeter(rate, self._report_level)
        if self._echo is not None:
            self._echo.set_render_delay(self.output_latency_s)
        _log.info(
            "speaker %r open at %d Hz, latency %.1f ms",
            device.name,
            rate,
            self.output_latency_s * 1000,
        )

    def _stream_switching(self) -> None:
        if self._playing:
            self.flush()
        self._drop_effects()

    def _stream_failed(self) -> None:
        # Whatever was queued cannot play now; the listener must not wait for a drain that
        # would never come.
        if self._playing:
            self.flush()

    def _make_callback(self, generation: int) -> Callable[[Any, int, Any, Any], None]:
        loop = self._loop
        assert loop is not None
        take_reports = self._take_reports

        def callback(outdata: Any, frames: int, time_info: Any, status: Any) -> None:
            # PortAudio's thread: copy queued speech, pad with silence, report. Never block.
            if status:
                self.device_underflows += 1  # written by this thread only
            needed = frames * 2
            written = 0
            flush_generation = self._flush_generation
            if self._prime_request != self._prime_seen:
                self._prime_seen = self._prime_request
                self._prime_left = self._prime_blocks
            if self._prime_left > 0:
                self._prime_left -= 1  # priming a resumed stream: silence, queue untouched
            elif self._released:
                while written < needed:
                    current = self._current
                    if current is None or self._current_generation != flush_generation:
                        try:
                            chunk_generation, current = self._chunks.popleft()
                        except IndexError:
                            self._current = None
                            break
                        if chunk_generation != flush_generation:
                            continue  # queued before a flush
                        self._current = current
                        self._current_offset = 0
                        self._current_generation = chunk_generation
                    offset = self._current_offset
                    take = min(needed - written, len(current) - offset)
                    outdata[written : written + take] = current[offset : offset + take]
                    written += take
                    offset += take
                    if offset >= len(current):
                        self._current = None
                    else:
                        self._current_offset = offset
            if written < needed:
                outdata[written:needed] = bytes(needed - written)
            effect = self._mix_effects(outdata, needed) if self._effects or self._effect else False
            batch = self._batch
            # Blocks go to the loop in batches of about 10 ms (one wake-up instead of two
            # at 5 ms periods), except that a change -- sound starts or stops, a flush --
            # goes at once, so the loop's bookkeeping and timing stay exact.
            changed = flush_generation != batch.flush_generation or (written > 0) != (
                batch.last_written > 0
            )
            if changed and batch.blocks:
                self._queue_batch(generation, batch, time_info)
            batch.add(outdata, written, frames, flush_generation, effect=effect)
            if changed or batch.blocks >= self._blocks_per_report:
                self._queue_batch(generation, batch, time_info)
                # Wake the loop for them, unless the capture pumps them anyway.
                if changed or time.perf_counter() - self._pumped_at > _PUMP_FRESH_S:
                    self.loop_wakeups += 1  # written by this thread only
                    with contextlib.suppress(RuntimeError):  # the loop closed: shutting down
                        loop.call_soon_threadsafe(take_reports)

        return callback

    def _mix_effects(self, outdata: Any, needed: int) -> bool:
        """Add queued effects to the block (PortAudio's thread); whether any was mixed."""
        if self._effects_epoch != self._effect_epoch_seen:
            # The loop dropped the effects (device switch): forget the one half played.
            self._effect_epoch_seen = self._effects_epoch
            self._effect = None
        mixed = 0
        block: np.ndarray | None = None
        while mixed < needed:
            effect = self._effect
            if effect is None:
                try:
                    effect = self._effects.popleft()
                except IndexError:
                    break
                self._effect = effect
                self._effect_offset = 0
            offset = self._effect_offset
            take = min(needed - mixed, len(effect) - offset)
            if block is None:
                block = np.frombuffer(outdata, dtype=np.int16, count=needed // 2).astype(np.int32)
            part = np.frombuffer(effect[offset : offset + take], dtype=np.int16)
            block[mixed // 2 : (mixed + take) // 2] += part
            mixed += take
            offset += take
            self._effect_bytes_played += take
            if offset >= len(effect):
                self._effect = None
            else:
                self._effect_offset = offset
        if block is None:
            return False
        # Speech plus an earcon may exceed 16 bits: clip, never wrap (a wrap is a loud click).
        np.clip(block, -32768, 32767, out=block)
        outdata[:needed] = block.astype(np.int16).tobytes()
        return True

    def _queue_batch(self, generation: int, batch: _PlayedBatch, time_info: Any) -> None:
        """Queue the batch's report for the loop and start a new batch (callback thread)."""
        self._reports.append(
            (
                generation,
                batch.flush_generation,
                batch.written,
                bytes(batch.data) if batch.audible else None,
                batch.frames,
                float(time_info.outputBufferDacTime - time_info.currentTime),
                time.perf_counter(),
            )
        )
        batch.clear()

    def _take_reports(self) -> None:
        reports = self._reports
        while reports:
            self._on_played(*reports.popleft())

    def _on_played(
        self,
        generation: int,
        flush_generation: int,
        written: int,
        played: bytes | None,
        frames: int,
        dac_delay: float,
        stamp: float,
    ) -> None:
        if generation != self._supervisor.generation:
            return
        self._supervisor.alive(generation)
        self.blocks += 1
        if played is not None:
            self._busy_at = max(self._busy_at, stamp)
        elif (
            self._standby_after_s is not None
            and stamp - self._busy_at >= self._standby_after_s
            and self._may_rest()
        ):
            self._supervisor.pause()
        if dac_delay > 0:
            self.output_latency_s = dac_delay
        if self._echo is not None:
            if dac_delay > 0:
                self._echo.set_render_delay(dac_delay)
            self._echo.process_render(played, self._rate, frames)
        if played is None:
            self._meter.feed_silence(frames)
        else:
            self._meter.feed(np.frombuffer(played, dtype=np.int16))
        if self._flushed_at and written == 0 and stamp > self._flushed_at:
            # The first callback after flush() that played nothing: silence from here on.
            self.last_flush_to_silence_s = stamp - self._flushed_at
            # ...and when that silence reaches the speaker, by PortAudio's clock.
            self.last_flush_to_dac_silence_s = self.last_flush_to_silence_s + max(0.0, dac_delay)
            self._flushed_at = 0.0
        if flush_generation != self._flush_generation:
            return  # consumption of speech a flush has since discarded
        if written:
            self._queued_bytes -= written
            if not self._sounding and self._playing:
                self._sounding = True
                self.last_start_latency_s = stamp - self._first_chunk_at
                self._bus.emit(PlaybackStarted())
        if (
            self._sounding
            and self._released
            and self._queued_bytes <= 0
            and self._drain_handle is None
        ):
            tail = self._resampler.drain()
            if tail.size:
                self._enqueue(tail.tobytes())
                return
            self._schedule_drain()

    def _wake(self) -> None:
        """Something is about to play: start the stream if it rests."""
        self._busy_at = max(self._busy_at, time.perf_counter())
        if self._supervisor.is_paused:
            # The device buffer is empty now, and PortAudio fills it from the callback at
            # once: that much silence first, as a running stream has queued (see the module
            # docstring).
            self._prime_blocks = max(1, math.ceil(self.output_latency_s * 1000 / self._block_ms))
            self._prime_request += 1
        self._supervisor.resume()

    def _may_rest(self) -> bool:
        """Whether nothing needs the stream running: no speech and no effects waiting."""
        return not self._playing and self._effect_bytes_queued <= self._effect_bytes_played

    def _report_level(self, dbfs: float) -> None:
        self._bus.emit(AudioLevel("output", dbfs))
