"""The speaker's jitter buffer: the queue of the model's speech, with an adaptive start depth.

The model's audio arrives in bursts. :meth:`JitterBuffer.push` resamples each chunk to the
device rate and appends it to a queue; the queue is *released* (the device callback may take
from it) once the buffer's depth is queued, or that long after the first chunk, for short
answers and for speech that comes paced at real time (:attr:`JitterBuffer.paced`). The
callback copies from the queue with :meth:`JitterBuffer.fill` and pads with silence when it
runs dry; it never waits for anything.

Adaptive depth (:mod:`~sammy_desktop.audio.jitter_depth`): the depth is added to every
sample's latency, so it starts small (``start_threshold_ms``); an underrun in the middle of
speech (the queue ran dry and more came within ``drain_grace_ms``) raises it by
``underrun_step_ms`` up to ``max_threshold_ms`` and re-buffers that much before playing on,
so a jittery connection costs one gap, not a stutter; it comes down a step after
``lower_after_ms`` of speech without a gap whose every chunk had that step to spare.

Standing queue (:mod:`~sammy_desktop.audio.jitter_drain`): after an underrun the late chunks
stand on top of the deeper cushion for the rest of the answer; :meth:`JitterBuffer.push`
drains such a standing excess back to the depth within about a second, taking samples out
of the incoming chunk (quiet runs first, crossfaded cuts of loud audio otherwise), so the
device callback stays a plain copy. :attr:`JitterBuffer.drained_ms` and
:attr:`JitterBuffer.drain_cuts` count what it did (``bench/jitter_drain.py`` measures it).

Barge-in: :meth:`JitterBuffer.flush` bumps a generation number that the callback checks on
every call, so at most the block being filled at that moment is still played.

The end of speech: the loop tells the buffer what the device has taken
(:meth:`JitterBuffer.played`); when the queue is empty and nothing more is held in the
resampler, the speech is over after the device's own latency (the last block has to reach
the speaker) plus, unless :meth:`JitterBuffer.end_of_turn` said no more follows, the grace
period in which a late chunk is an underrun rather than a new answer.

No PortAudio here: the owner (:class:`~sammy_desktop.audio.playback.AudioPlayback`) calls
:meth:`fill` from its device callback and :meth:`played` with the callback's reports, and
turns :attr:`on_started` / :attr:`on_drained` into events. Time comes from a
:class:`~sammy_desktop.scheduling.Scheduler`, so the tests drive it by hand.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from sammy_desktop.audio.jitter_depth import DEFAULT_MAX_DEPTH_MS, AdaptiveDepth
from sammy_desktop.audio.jitter_drain import StandingDrain
from sammy_desktop.audio.resampling import StreamResampler
from sammy_desktop.scheduling import Cancellable, LoopScheduler, Scheduler
from sammy_desktop.wire_audio import OUTPUT_RATE, SAMPLE_WIDTH

__all__ = ["DEFAULT_MAX_DEPTH_MS", "JitterBuffer"]

_log = logging.getLogger(__name__)


class JitterBuffer:
    """The model's speech between :meth:`push` on the loop and :meth:`fill` on the device thread.

    Threading: :meth:`fill` runs on the device callback's thread, everything else on the
    loop. They share the queue (``deque.append`` / ``popleft`` are atomic), the generation
    number and the released flag; each of those has one writer (the loop), and the
    callback's own position in the queue has one writer (the callback).

    Args:
        on_started: called on the loop when the first sample of queued speech has been
            handed to the device.
        on_drained: called on the loop when queued speech has stopped playing, with
            ``True`` when :meth:`flush` cut it short and ``False`` when it played to its end.
        start_threshold_ms: how much speech to queue before releasing it (the smallest
            depth); also the longest a short answer waits for more.
        underrun_step_ms: how much the depth grows after an underrun (and shrinks once
            trusted again, see ``lower_after_ms``).
        max_threshold_ms: the deepest it grows; ``None``: :data:`DEFAULT_MAX_DEPTH_MS`, or
            ``start_threshold_ms`` when that is more.
        drain_grace_ms: when the queue runs dry without :meth:`end_of_turn`, how long to
            wait for more audio before declaring the speech finished.
        drain_tolerance_ms: how far above the depth a standing queue may stand before
            :meth:`push` drains it back (module docstring); ``None``: never.
        lower_after_ms: how long speech plays without an underrun, across answers, before
            the depth may come down a step (if every chunk in that time had a step of
            slack); ``None``: it never comes down.
        scheduler: the clock and timers (the running loop's by default).

    Attributes:
        underruns: times the queue ran dry in the middle of speech and more came.
        last_start_latency_s: from the first chunk of an answer to the report of the block
            that started playing it.
        output_latency_s: how long the device holds audio before the speaker plays it; the
            owner keeps it current, and the end of speech waits for it.
        paced: the speech arrives at real time, not ahead of it (the owner sets it from
            :mod:`~sammy_desktop.audio.pace`). Then the start, and the re-buffering after an
            underrun, wait the depth in time after the chunk that begins them, not until
            the depth is queued: each chunk of paced speech comes about when the one before
            it has played, so the queue just before a chunk (its trough) holds only the
            time waited, however large the chunk; a 100 ms chunk let go at once leaves a
            late next one no cushion at all, and a deeper depth would change nothing.
    """

    def __init__(
        self,
        *,
        on_started: Callable[[], None],
        on_drained: Callable[[bool], None],
        start_threshold_ms: int = 10,
        underrun_step_ms: int = 10,
        max_threshold_ms: int | None = None,
        drain_grace_ms: int = 150,
        drain_tolerance_ms: int | None = 10,
        lower_after_ms: int | None = 8000,
        scheduler: Scheduler | None = None,
    ) -> None:
        if start_threshold_ms < 0 or drain_grace_ms < 0 or underrun_step_ms < 0:
            raise ValueError(
                "start_threshold_ms, underrun_step_ms and drain_grace_ms must not be negative"
            )
        self._drain = StandingDrain(drain_tolerance_ms)
        self._depth = AdaptiveDepth(
            start_ms=start_threshold_ms,
            step_ms=underrun_step_ms,
            max_ms=max_threshold_ms,
            lower_after_ms=lower_after_ms,
        )
        self._on_started = on_started
        self._on_drained = on_drained
        self._scheduler: Scheduler = scheduler if scheduler is not None else LoopScheduler()
        self._grace_s = drain_grace_ms / 1000
        self._rate = OUTPUT_RATE
        self._resampler = StreamResampler(OUTPUT_RATE, OUTPUT_RATE)
        # Samples into and out of the resampler's stream, and the most it ever held back.
        self._resampled_in = 0
        self._resampled_out = 0
        self._most_held = 0
        # Shared with the callback thread; written by the loop only.
        self._chunks: collections.deque[tuple[int, memoryview]] = collections.deque()
        self._generation = 0
        self._released = False
        # The callback's place in the queue; written by the callback only.
        self._current: memoryview | None = None
        self._current_offset = 0
        self._current_generation = -1
        # Loop state.
        self._queued_bytes = 0
        self._playing = False
        self._sounding = False
        self._turn_ended = False
        self._start_handle: Cancellable | None = None
        self._drain_handle: Cancellable | None = None
        self._first_chunk_at = 0.0
        self._dry_at = 0.0  # when the queue last ran dry
        self._released_at = 0.0  # when the queue was last let go...
        self._due_samples = 0  # ...and the speech queued since, due at the device's rate
        self.underruns = 0
        self.last_start_latency_s = 0.0
        self.output_latency_s = 0.0
        self.paced = False

    # -- the loop's side ----------------------------------------------------------------

    @property
    def is_playing(self) -> bool:
        """Whether speech is queued or sounding (from :meth:`push` until drained or flushed)."""
        return self._playing

    @property
    def generation(self) -> int:
        """The flush generation: queued chunks and played reports of an older one are stale."""
        return self._generation

    @property
    def rate(self) -> int:
        """The device rate the queue holds its samples at."""
        return self._rate

    @property
    def depth_ms(self) -> float:
        """The current start depth (grows after underruns), in milliseconds."""
        return self._depth.seconds * 1000

    @property
    def depth(self) -> AdaptiveDepth:
        """The depth and what it has learnt (:meth:`~AdaptiveDepth.learnt`, ``restore``)."""
        return self._depth

    @property
    def buffered_ms(self) -> float:
        """Speech queued but not yet handed to the device, in milliseconds."""
        return self._queued_bytes / SAMPLE_WIDTH / self._rate * 1000

    @property
    def backlog_ms(self) -> float:
        """How long a sample pushed now would wait before the device takes it, in ms.

        :attr:`buffered_ms` plus what the resampler holds back: its output comes in blocks
        (soxr's 24 -> 48 kHz stream gives 940 samples at a time), so it holds from about
        1 to 20 ms, and the queue wobbles by as much while the backlog stays level.
        """
        return (self._queued_bytes // SAMPLE_WIDTH + self._held_samples()) / self._rate * 1000

    @property
    def drained_ms(self) -> float:
        """Speech the standing-queue drain took out so far (quiet runs and cuts), in ms."""
        return self._drain.drained_s * 1000

    @property
    def drain_cuts(self) -> int:
        """Cuts of loud audio the standing-queue drain made (its fallback)."""
        return self._drain.cuts

    @property
    def draining(self) -> bool:
        """Whether a standing excess is being drained (from the last :meth:`push`)."""
        return self._drain.draining

    def set_rate(self, rate: int) -> bool:
        """Hold samples at the device rate ``rate`` from now on.

        Speech queued at another rate would play at the wrong pitch, so a change drops it.

        Returns:
            Whether the rate changed.
        """
        if rate == self._rate:
            return False
        self._reset_queue()
        self._rate = rate
        self._resampler = StreamResampler(OUTPUT_RATE, rate)
        self._count_resampler_from_scratch()
        self._most_held = 0
        return True

    def push(self, pcm: bytes) -> None:
        """Queue a chunk of the model's speech (whole PCM16 samples at the wire rate)."""
        if self._drain_handle is not None:
            self._drain_handle.cancel()
            self._drain_handle = None
            if not self._turn_ended:
                # The queue ran dry and more speech came: a gap in the middle of speech.
                self._underrun()
        # New speech after end_of_turn() belongs to the next turn, which is not over yet.
        self._turn_ended = False
        now = self._scheduler.time()
        if not self._playing:
            self._playing = True
            self._first_chunk_at = now
            self._depth.answer_starts(now)
            # What stands from an answer's start is how it came (its first chunk, the
            # speaker starting): its own cushion, left alone until a gap or a lowered depth.
            self._drain.answer_starts(now)
        held = self._held_samples()
        if self._released:
            # How early this chunk came for the device, on the play clock of the release:
            # after what was queued since, and what the resampler still holds of the
            # chunks before (up to 20 ms, not queued yet but due first).
            due_at = self._released_at + (self._due_samples + held) / self._rate
            if self._depth.chunk_came(due_at - now, now):
                self._drain.allow()  # the drain takes the queue down to the new depth
        wire = np.frombuffer(pcm, dtype=np.int16)
        samples = self._resampler.process(wire)
        self._resampled_in += len(wire)
        self._resampled_out += len(samples)
        self._most_held = max(self._most_held, self._held_samples())
        # The lowest the queue gets while the resampler holds the most it does.
        level = self._queued_bytes // SAMPLE_WIDTH + held - self._most_held
        samples = self._drain.take(
            samples,
            now=now,
            level=level,
            rate=self._rate,
            depth=round(self._depth.seconds * self._rate),
            released=self._released,
        )
        self._enqueue(samples.tobytes())
        if not self._released:
            if not self.paced and self._queued_bytes >= self._threshold_bytes():
                self._release()
            elif self._start_handle is None:
                self._start_handle = self._scheduler.call_later(self._depth.seconds, self._release)

    def end_of_turn(self) -> None:
        """No more speech follows for now: drain as soon as the queue has played."""
        if not self._playing:
            return
        self._turn_ended = True
        if not self._released:
            self._release()
        if self._drain_handle is not None:
            # Already waiting out the grace period: wait only for the device now.
            self._drain_handle.cancel()
            self._drain_handle = None
            self._schedule_drain()

    def flush(self) -> None:
        """Drop everything queued; :attr:`on_drained` (interrupted) if speech was playing."""
        self._generation += 1
        if self._released:
            # Cut short, not late: the speech heard until now counts towards a step down.
            self._depth.cut_short(self._scheduler.time())
        self._reset_queue()
        was_playing = self._playing
        self._playing = False
        self._sounding = False
        if was_playing:
            self._on_drained(True)

    def played(self, generation: int, written: int, stamp: float) -> None:
        """The device took ``written`` bytes of the queue of flush ``generation`` (on the loop).

        Args:
            generation: the flush generation :meth:`fill` saw.
            written: the bytes of speech it copied (0: silence only).
            stamp: when, on the scheduler's clock.
        """
        if generation != self._generation:
            return  # consumption of speech a flush has since discarded
        if written:
            self._queued_bytes -= written
            if not self._sounding and self._playing:
                self._sounding = True
                self.last_start_latency_s = stamp - self._first_chunk_at
                self._on_started()
        if (
            self._sounding
            and self._released
            and self._queued_bytes <= 0
            and self._drain_handle is None
        ):
            tail = self._resampler.drain()
            self._count_resampler_from_scratch()
            if tail.size:
                self._enqueue(tail.tobytes())
                return
            self._dry_at = stamp
            self._schedule_drain()

    # -- the device callback's side -----------------------------------------------------

    def fill(self, outdata: Any, needed: int, generation: int) -> int:
        """Copy released speech of flush ``generation`` into ``outdata[:needed]`` (device thread).

        Args:
            outdata: the device's buffer (writable bytes).
            needed: how many bytes it takes.
            generation: :attr:`generation` as read at the start of this callback.

        Returns:
            How many bytes were copied; the caller pads the rest with silence.
        """
        if not self._released:
            return 0
        written = 0
        while written < needed:
            current = self._current
            if current is None or self._current_generation != generation:
                try:
                    chunk_generation, current = self._chunks.popleft()
                except IndexError:
                    self._current = None
                    break
                if chunk_generation != generation:
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
        return written

    # -- bookkeeping ----------------------------------------------------------------------

    def _underrun(self) -> None:
        """A gap in the middle of speech: buffer deeper from here on, and re-buffer now."""
        self.underruns += 1
        self._drain.gap()
        self._depth.gap(self._scheduler.time())
        # Silence is playing anyway: let the queue fill to the new depth before going on,
        # so the next late chunk finds a cushion instead of another gap.
        self._released = False
        _log.debug(
            "playback underrun %d: jitter buffer depth now %.0f ms",
            self.underruns,
            self._depth.seconds * 1000,
        )

    def _threshold_bytes(self) -> int:
        return round(self._depth.seconds * self._rate) * SAMPLE_WIDTH

    # -- the resampler's share of the queue (on the loop) ---------------------------------

    def _held_samples(self) -> int:
        """What the resampler holds back (device samples): its output comes in blocks."""
        if self._rate == OUTPUT_RATE:
            return 0
        return self._resampled_in * self._rate // OUTPUT_RATE - self._resampled_out

    def _count_resampler_from_scratch(self) -> None:
        # (The most it held is the resampler's own: kept until the rate changes.)
        self._resampled_in = 0
        self._resampled_out = 0

    def _enqueue(self, data: bytes) -> None:
        if not data:
            return
        self._queued_bytes += len(data)
        if self._released:
            self._due_samples += len(data) // SAMPLE_WIDTH
        self._chunks.append((self._generation, memoryview(data)))

    def _release(self) -> None:
        if self._start_handle is not None:
            self._start_handle.cancel()
            self._start_handle = None
        if self._playing:
            self._released = True
            # The device plays on from here at its rate: what is queued now is due first.
            self._released_at = self._scheduler.time()
            self._due_samples = self._queued_bytes // SAMPLE_WIDTH

    def _reset_queue(self) -> None:
        self._drain.forget()
        self._released = False
        self._chunks.clear()
        self._queued_bytes = 0
        self._turn_ended = False
        self._resampler.reset()
        self._count_resampler_from_scratch()
        for handle in (self._start_handle, self._drain_handle):
            if handle is not None:
                handle.cancel()
        self._start_handle = None
        self._drain_handle = None

    def _schedule_drain(self) -> None:
        delay = self.output_latency_s + (0.0 if self._turn_ended else self._grace_s)
        self._drain_handle = self._scheduler.call_later(delay, self._drained)

    def _drained(self) -> None:
        self._drain_handle = None
        # The answer's speech since its start or its last gap counts towards a step down.
        self._depth.ended(self._dry_at, self._scheduler.time())
        self._released = False
        self._turn_ended = False
        self._playing = False
        self._sounding = False
        self._resampler.reset()
        self._count_resampler_from_scratch()
        self._drain.forget()
        self._on_drained(False)
