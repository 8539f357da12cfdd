"""Speaker playback: the model's speech and the interface's sounds on one output stream.

:class:`AudioPlayback` owns the output stream and composes the parts that decide what it
plays, each in its own module and each free of PortAudio:

* :class:`~sammy_desktop.audio.jitter.JitterBuffer`: the queue of the model's speech, with
  its adaptive start depth, instant flush (barge-in) and the end-of-speech bookkeeping;
* :class:`~sammy_desktop.audio.effects.EffectsMixer`: earcons mixed on top of the speech,
  which are not the assistant speaking (no :class:`PlaybackStarted` /
  :class:`PlaybackDrained`, :attr:`AudioPlayback.is_playing` unchanged, not flushed);
* :class:`~sammy_desktop.audio.played.PlayedReports`: every block handed to the device
  (silence too), batched back to the loop, where it feeds the echo canceller as the far-end
  reference and the output level meter and tells the jitter buffer what has played;
* :class:`~sammy_desktop.audio.standby.SpeakerStandby`: when nothing is queued or audible
  for ``standby_after_ms`` the stream rests (kept open, no callbacks) and :meth:`play` or
  :meth:`~AudioPlayback.play_effect` wakes it without a gap;
* :class:`~sammy_desktop.audio.pace.AnswerPace`: whether answers arrive in bursts ahead of
  real time (the service) or paced; with bursts a woken stream starts with the answer's
  first frame instead of a device buffer of silence, paced the jitter buffer holds each
  answer's start for its depth in time (:attr:`JitterBuffer.paced`);
* :class:`~sammy_desktop.audio.stream_owner.StreamOwner`: the stream itself through device
  failures and switches, shared with the capture.

The device callback, on PortAudio's thread, only combines them: speech (or priming silence)
from the jitter buffer, the effects on top, the block to the reports; it never waits for
anything. While the microphone is live the capture takes the reports with each of its blocks
(:meth:`AudioPlayback.pump`), so the speaker's callback rarely has to wake the loop itself.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import sounddevice as sd

from sammy_desktop.audio.effects import EffectsMixer
from sammy_desktop.audio.events import AudioLevel, PlaybackDrained, PlaybackStarted
from sammy_desktop.audio.jitter import JitterBuffer
from sammy_desktop.audio.jitter_depth import AdaptiveDepth
from sammy_desktop.audio.levels import LevelMeter
from sammy_desktop.audio.pace import AnswerPace
from sammy_desktop.audio.played import PlayedReport, PlayedReports
from sammy_desktop.audio.standby import FirstFill, SpeakerStandby
from sammy_desktop.audio.stream_owner import DeviceCallback, OpenedStream, StreamOwner
from sammy_desktop.eventbus import EventBus
from sammy_desktop.scheduling import LoopScheduler
from sammy_desktop.wire_audio import OUTPUT_RATE, SAMPLE_WIDTH

if TYPE_CHECKING:
    import asyncio

    from sammy_desktop.audio.devices import AudioDevice
    from sammy_desktop.audio.echo import EchoCanceller

__all__ = ["AudioPlayback"]

_log = logging.getLogger(__name__)

# The wire rate first (no resampling), then the rate most devices run at natively.
_PREFERRED_DEVICE_RATES: Final = (OUTPUT_RATE, 48_000)
FIRST_FILL_WAIT_S: Final = 0.01
"""How long :meth:`AudioPlayback.play` may hold the loop while a resting speaker, woken by an
answer in bursts, takes the answer's first frames (:class:`~.standby.FirstFill`): about 2 ms
as measured, never more than this (a frame of the window at 60 Hz is 16 ms)."""
OUTPUT_LEVEL_HZ: Final = 20.0
"""Readings a second of what plays (the microphone's are 30). Each reading repaints the
window's ring and meter while an answer plays, the largest part of the app's CPU then under
software rendering (docs/benchmarks.md, "Where the time goes"); 20 a second still moves
with the voice, and the microphone, which the person watches to see they are heard,
keeps 30."""


def _pcm16(pcm: object, caller: str) -> bytes:
    """``pcm`` as bytes of whole 16-bit samples, or a clear error naming ``caller``."""
    if not isinstance(pcm, bytes | bytearray | memoryview):
        raise TypeError(f"{caller} takes PCM16 bytes, not {type(pcm).__name__}")
    data = bytes(pcm)
    if len(data) % SAMPLE_WIDTH:
        raise ValueError(
            f"{caller} needs whole 16-bit samples; got {len(data)} bytes (an odd count)"
        )
    return data


class AudioPlayback:
    """Plays the model's PCM16 mono 24 kHz speech on the speaker.

    Args:
        bus: where :class:`PlaybackStarted`, :class:`PlaybackDrained`,
            :class:`AudioLevel` ("output") and stream events go.
        device: the output device name from the settings; empty for the system default.
        echo_canceller: receives everything handed to the device as far-end reference.
        start_threshold_ms: how much speech to buffer before starting to play (the
            jitter buffer's smallest depth); also the longest a short answer waits for more.
        underrun_step_ms: how much the depth grows after an underrun (and shrinks once
            trusted again).
        lower_after_ms: how long speech plays without an underrun, across answers, before
            the depth may come down a step (see :class:`~.jitter.JitterBuffer`).
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
            queued (see :mod:`sammy_desktop.audio.standby`); ``None`` keeps it running.

    Attributes:
        device_underflows: callbacks PortAudio flagged (the device ran out of data).
        dropped_while_down: :meth:`play` calls dropped while the speaker was failing.
        effects_dropped: :meth:`play_effect` calls dropped (speaker failing, or more than
            ``max_effects_ms`` of effects already waiting).
        blocks: played reports handled on the loop.
        last_flush_to_silence_s: from :meth:`flush` to the first silent callback, or to
            the device buffer dropped (see :meth:`flush`), whichever came first.
        last_flush_to_dac_silence_s: until the silence reaches the speaker: the first
            silent callback's time plus its output latency by PortAudio's clock, or the
            time the device buffer was dropped.
        buffer_drops: flushes that dropped the device buffer.
        flushes: :meth:`flush` calls so far.
        measured_flush: the number (counting with ``flushes``) of the flush the two
            ``last_flush_*`` times are of; they come a few milliseconds after it.
        first_fill_waits: times :meth:`play` waited for a resting speaker, woken by an
            answer in bursts, to take the answer's first frames (see :meth:`_wake`).
        first_fill_misses: of those, the waits that ran out (FIRST_FILL_WAIT_S) first.
    """

    def __init__(
        self,
        bus: EventBus,
        *,
        device: str = "",
        echo_canceller: EchoCanceller | None = None,
        start_threshold_ms: int = 10,
        underrun_step_ms: int = 10,
        lower_after_ms: int | None = 8000,
        max_threshold_ms: int | None = None,
        drain_grace_ms: int = 150,
        block_ms: int = 5,
        device_latency_ms: int = 15,
        samplerate: int | None = None,
        stall_timeout_s: float = 5.0,
        max_effects_ms: int = 3000,
        standby_after_ms: int | None = None,
    ) -> None:
        self._standby = SpeakerStandby(standby_after_ms, block_ms=block_ms)
        self._first_fill = FirstFill()
        self._pace = AnswerPace()
        # The loop's timers, and the clock the callback stamps its reports with.
        self._scheduler = LoopScheduler()
        self._jitter = JitterBuffer(
            on_started=self._speech_started,
            on_drained=self._speech_drained,
            start_threshold_ms=start_threshold_ms,
            underrun_step_ms=underrun_step_ms,
            lower_after_ms=lower_after_ms,
            max_threshold_ms=max_threshold_ms,
            drain_grace_ms=drain_grace_ms,
            scheduler=self._scheduler,
        )
        if not 5 <= block_ms <= 40:
            raise ValueError(f"block_ms must be between 5 and 40 (got {block_ms})")
        if device_latency_ms <= 0:
            raise ValueError(f"device_latency_ms must be positive (got {device_latency_ms})")
        self._bus = bus
        self._echo = echo_canceller
        self._effects = EffectsMixer(max_effects_ms=max_effects_ms)
        self._reports = PlayedReports(block_ms, clock=self._scheduler.time)
        self._meter = LevelMeter(OUTPUT_RATE, self._report_level, rate_hz=OUTPUT_LEVEL_HZ)
        self._stream = StreamOwner(
            bus,
            "output",
            device,
            stream_class=sd.RawOutputStream,
            what="speaker",
            preferred_rates=_PREFERRED_DEVICE_RATES,
            samplerate=samplerate,
            block_ms=block_ms,
            latency=device_latency_ms / 1000,
            make_callback=self._make_callback,
            on_running=self._stream_running,
            on_failed=self._stream_failed,
            on_switching=self._stream_switching,
            on_paused=self._stream_paused,
            stall_timeout_s=stall_timeout_s,
        )
        self._flushed_at = 0.0
        self._dropping = False  # a flush's device buffer being dropped (see flush())
        self.blocks = 0
        self.last_flush_to_silence_s = 0.0
        self.last_flush_to_dac_silence_s = 0.0
        self.dropped_while_down = 0
        self.effects_dropped = 0
        self.device_underflows = 0
        self.buffer_drops = 0
        self.flushes = 0
        self.measured_flush = 0
        self.first_fill_waits = 0
        self.first_fill_misses = 0

    # -- state --------------------------------------------------------------------------

    @property
    def is_playing(self) -> bool:
        """Whether speech is queued or sounding (from :meth:`play` until drained or flushed)."""
        return self._jitter.is_playing

    @property
    def is_running(self) -> bool:
        """Whether the output stream is open and healthy."""
        return self._stream.is_running

    @property
    def device(self) -> AudioDevice | None:
        """The device the stream runs on now."""
        return self._stream.device

    @property
    def device_samplerate(self) -> int:
        """The rate the output device runs at."""
        return self._stream.samplerate

    @property
    def is_standby(self) -> bool:
        """Whether the stream is paused for lack of anything to play."""
        return self._stream.is_paused

    @property
    def depth_ms(self) -> float:
        """The jitter buffer's current start depth (grows after underruns), in milliseconds."""
        return self._jitter.depth_ms

    @property
    def depth(self) -> AdaptiveDepth:
        """The jitter buffer's depth and what it has learnt of the connection."""
        return self._jitter.depth

    @property
    def buffered_ms(self) -> float:
        """Speech queued but not yet handed to the device, in milliseconds."""
        return self._jitter.buffered_ms

    @property
    def effects_buffered_ms(self) -> float:
        """Effect audio queued but not yet handed to the device, in milliseconds."""
        return self._effects.buffered_ms

    @property
    def underruns(self) -> int:
        """Times the queue ran dry in the middle of speech (more came within the grace).

        Silence was played meanwhile, and the jitter buffer's depth grew.
        """
        return self._jitter.underruns

    @property
    def last_start_latency_s(self) -> float:
        """From the first chunk of an answer to the callback that started playing it."""
        return self._jitter.last_start_latency_s

    @property
    def output_latency_s(self) -> float:
        """The output latency PortAudio reports for the latest callback, in seconds."""
        return self._jitter.output_latency_s

    @property
    def loop_wakeups(self) -> int:
        """Times the callback woke the loop for its reports (the rest rode along, see pump)."""
        return self._reports.loop_wakeups

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Open the speaker. Device trouble becomes events and retries, never an error."""
        self._standby.busy(self._scheduler.time())  # standby counts from here
        await self._stream.start()

    async def stop(self) -> None:
        """Drop queued speech (``PlaybackDrained(interrupted=True)`` if any) and close."""
        self.flush()
        await self._stream.stop()

    def set_device(self, name: str) -> None:
        """Move the output to the device called ``name`` (empty: the system default).

        The stream is reopened there in the background; this object stays the same.
        Speech still queued is dropped (``PlaybackDrained(interrupted=True)``): it would
        come out late on the new device. Then :class:`DeviceSwitched`, or
        :class:`DeviceFallback` first when no device has that name. The current name
        again does nothing.
        """
        self._stream.set_device(name)

    def devices_changed(self) -> None:
        """The audio devices changed: see :meth:`StreamSupervisor.devices_changed`."""
        self._stream.supervisor.devices_changed()

    # -- what to play -------------------------------------------------------------------

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
        if self._stream.is_down:
            # No speaker right now (it failed and is being reopened): speech that waited
            # would come out late and out of context, so it is dropped and counted.
            self.dropped_while_down += 1
            return
        seconds = len(data) / SAMPLE_WIDTH / OUTPUT_RATE
        self._pace.arrived(seconds, self._scheduler.time(), new_answer=not self._jitter.is_playing)
        self._jitter.paced = not self._pace.bursts
        # Queued before a resting stream's start is handed over: its first callback plays
        # it. Handing the start over first overlapped the queueing (0.3 ms) with PortAudio's
        # start, but the resampler lets go of the GIL, and on a busy machine one or two
        # callbacks of silence went ahead of the answer (tests/audio/test_playback_standby.py).
        self._jitter.push(data)
        self._wake(speech=True)

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
        if self._stream.is_down:
            self.effects_dropped += 1  # a sound that comes seconds late means nothing
            return
        if not self._effects.add(np.frombuffer(data, dtype=np.int16)):
            self.effects_dropped += 1
            return
        self._wake()

    def end_of_turn(self) -> None:
        """Say that no more speech follows for now (the model's turn is complete).

        :class:`PlaybackDrained` then comes as soon as the queue has played, without the
        ``drain_grace_ms`` wait. Optional: without it the grace period decides.
        """
        self._jitter.end_of_turn()

    def flush(self) -> None:
        """Stop speaking now (barge-in): drop everything queued, and what the device holds.

        The callback plays silence from its next period; while speech was playing, the
        device buffer (15-20 ms of it) is dropped too (the stream stopped and started again
        in a worker thread, :meth:`StreamOwner.drop_buffered`), so the speaker is silent
        within a millisecond or two instead of once that buffer has played out. Not while
        an effect is still being mixed in: a barge-in must not cut an earcon (the last
        device buffer of one handed over just before can be). Emits
        ``PlaybackDrained(interrupted=True)`` when speech was queued or playing.
        """
        flushed_at = self._flushed_at = self._scheduler.time()
        self.flushes += 1
        self._dropping = False
        speaking = self._jitter.is_playing
        self._jitter.flush()
        if not speaking or not self._effects.is_idle:
            return

        def dropped() -> None:
            if self._flushed_at == flushed_at:  # no newer flush since
                self._dropping = False
                self.buffer_drops += 1
                self.last_flush_to_silence_s = self._scheduler.time() - flushed_at
                # Dropped, not played out: silent at the speaker from here, not a buffer later.
                self.last_flush_to_dac_silence_s = self.last_flush_to_silence_s
                self.measured_flush = self.flushes
                self._flushed_at = 0.0

        # Meanwhile a callback's silence is not the measure: the drop's moment is.
        self._dropping = self._stream.drop_buffered(dropped)

    def expect_speech(self, within_s: float) -> None:
        """Speech is likely to come within ``within_s``: get the stream ready for it.

        Where answers arrive paced at real time (:mod:`~sammy_desktop.audio.pace`), a
        started stream plays a device buffer of silence first anyway, and starting it
        takes a few milliseconds and a hop through a worker thread: it is started now and
        kept, so the answer finds it running; it may rest again once ``within_s`` has
        passed with nothing played. Where answers come in bursts, the stream is left to
        rest as usual (a running one, after the sound it plays now, such as the talk
        key's earcon): the answer's first frame starts it, with no silence ahead.
        """
        if self._pace.bursts:
            return
        self._wake()
        self._standby.busy(self._scheduler.time() + within_s)

    def pump(self) -> None:
        """Handle the played blocks the callback reported since the last call (on the loop).

        The capture calls this before each microphone block; the callback itself wakes the
        loop for them only when nobody has pumped lately.
        """
        now = self._scheduler.time()
        self._reports.pumped(now)
        self._take_reports()
        rate = self._stream.samplerate
        # While the speaker rests it plays silence, as far as the echo canceller is concerned.
        frames = self._standby.silent_reference_frames(
            now, rate, resting=self._stream.is_paused and self._echo is not None
        )
        if frames and self._echo is not None:
            self._echo.process_render(None, rate, frames)

    # -- the stream's events (on the loop) ----------------------------------------------

    def _stream_running(self, opened: OpenedStream) -> None:
        # The end of speech waits for the device's latency: the last block must be heard.
        self._jitter.output_latency_s = opened.latency_s
        rate = opened.samplerate
        if self._jitter.set_rate(rate):
            # Speech and sounds queued at the old rate would play at the wrong pitch.
            self._effects.set_rate(rate)
            self._meter = LevelMeter(rate, self._report_level)
        if self._echo is not None:
            self._echo.set_render_delay(self.output_latency_s)

    def _stream_switching(self) -> None:
        if self.is_playing:
            self.flush()
        self._effects.drop()

    def _stream_paused(self) -> None:
        # Everything played before the rest is handled now, not with the first block after it.
        self._reports.stream_stopped()
        self._take_reports()
        self._standby.stream_stopped(self._scheduler.time())

    def _stream_failed(self) -> None:
        # A drop under way failed with the stream: the reopened one's silence is the measure.
        self._dropping = False
        # Whatever was queued cannot play now; the listener must not wait for a drain that
        # would never come.
        if self.is_playing:
            self.flush()

    def _speech_started(self) -> None:
        self._bus.emit(PlaybackStarted())

    def _speech_drained(self, interrupted: bool) -> None:
        self._pace.answer_ended()
        self._bus.emit(PlaybackDrained(interrupted=interrupted))

    def _report_level(self, dbfs: float) -> None:
        self._bus.emit(AudioLevel("output", dbfs))

    # -- the device callback (PortAudio's thread) ---------------------------------------

    def _make_callback(self, loop: asyncio.AbstractEventLoop, generation: int) -> DeviceCallback:
        jitter = self._jitter
        effects = self._effects
        standby = self._standby
        reports = self._reports
        take_reports = self._take_reports
        first_fill = self._first_fill

        def callback(outdata: Any, frames: int, time_info: Any, status: Any) -> None:
            # Speech (or silence to prime a woken stream), effects on top, then report.
            # Never block here.
            if status:
                self.device_underflows += 1  # written by this thread only
            needed = frames * SAMPLE_WIDTH
            flush_generation = jitter.generation
            written = 0 if standby.priming() else jitter.fill(outdata, needed, flush_generation)
            if written < needed:
                outdata[written:needed] = bytes(needed - written)
            effect = effects.mix_into(outdata, needed)
            first_fill.played(frames)
            if reports.add(
                generation,
                outdata,
                written,
                frames,
                flush_generation,
                effect=effect,
                time_info=time_info,
            ):
                with contextlib.suppress(RuntimeError):  # the loop closed: shutting down
                    loop.call_soon_threadsafe(take_reports)

        return callback

    # -- what was played (on the loop) --------------------------------------------------

    def _take_reports(self) -> None:
        for report in self._reports.take():
            self._on_played(report)

    def _on_played(self, report: PlayedReport) -> None:
        if not self._stream.is_current(report.generation):
            return
        self.blocks += 1
        played, stamp, dac_delay = report.played, report.stamp, report.dac_delay
        if played is not None:
            self._standby.busy(stamp)
        elif self._standby.may_rest_at(stamp) and self._may_rest():
            self._stream.pause()
            if self._echo is not None:
                self._echo.reference_resting()
        if dac_delay > 0:
            self._jitter.output_latency_s = dac_delay
        rate = self._stream.samplerate
        if self._echo is not None:
            if dac_delay > 0:
                self._echo.set_render_delay(dac_delay)
            self._echo.process_render(played, rate, report.frames)
        if played is None:
            self._meter.feed_silence(report.frames)
        else:
            self._meter.feed(np.frombuffer(played, dtype=np.int16))
        if (
            self._flushed_at
            and not self._dropping
            and report.written == 0
            and stamp > self._flushed_at
        ):
            # The first callback after flush() that played nothing: silence from here on.
            self.last_flush_to_silence_s = stamp - self._flushed_at
            # ...and when that silence reaches the speaker, by PortAudio's clock.
            self.last_flush_to_dac_silence_s = self.last_flush_to_silence_s + max(0.0, dac_delay)
            self.measured_flush = self.flushes
            self._flushed_at = 0.0
        self._jitter.played(report.flush_generation, report.written, stamp)

    # -- standby --------------------------------------------------------------------------

    def _wake(self, *, speech: bool = False) -> None:
        """Something is about to play: start the stream if it rests.

        A resting stream woken by an answer in bursts starts with the answer itself, and
        this waits, :data:`FIRST_FILL_WAIT_S` at most and with the GIL released, until the
        device has taken the answer's first buffer (:class:`~.standby.FirstFill`): measured
        in the app, the first sample came 2.3 ms sooner than with the loop going on to
        parse the burst's later messages meanwhile (docs/benchmarks.md).

        Args:
            speech: speech was just queued (:meth:`play`), not an effect.
        """
        if not self._stream.is_paused:
            self._standby.busy(self._scheduler.time())
            self._stream.resume()  # a pause asked for may still be on its way
            return
        if speech and self._starts_with_speech(self._jitter.buffered_ms):
            self._wake_with_speech()
            return
        # The device buffer is empty now, and PortAudio fills it from the callback at
        # once: that much silence first, as a running stream has queued.
        self._standby.busy(self._scheduler.time())
        self._standby.waking(self.output_latency_s)
        self._stream.resume()

    def _wake_with_speech(self) -> None:
        """Start the resting stream with the speech queued.

        The answer fills the device buffer: this waits (the GIL released) until it has.
        """
        self._standby.busy(self._scheduler.time())
        self._first_fill.arm(round(self.output_latency_s * self._stream.samplerate))
        started = self._stream.resume()
        if started:
            self.first_fill_waits += 1
            if not self._first_fill.wait(FIRST_FILL_WAIT_S):
                self.first_fill_misses += 1
        else:
            self._first_fill.disarm()

    def _starts_with_speech(self, buffered_ms: float) -> bool:
        """Whether a resting stream starts with the speech itself when ``buffered_ms`` is queued.

        Where answers come in bursts ahead of real time (docs/live-service.md R6) and the
        speech fills a started stream's device buffer and a cushion: then there is no
        silence ahead of it, the first sample goes out as soon as the stream runs, and the
        jitter buffer's depth is still queued behind it. The service's first frame of an
        answer usually does.
        """
        return self._pace.bursts and (
            buffered_ms >= self.output_latency_s * 1000 + self._jitter.depth_ms
        )

    def _may_rest(self) -> bool:
        """Whether nothing needs the stream running: no speech and no effects waiting."""
        return not self.is_playing and self._effects.is_idle
