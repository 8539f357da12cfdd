"""The speaker's jitter buffer: the queue of the model's speech, with an adaptive start depth.

The model's audio arrives in bursts. :meth:`JitterBuffer.push` resamples each chunk to the
device rate and appends it to a queue; the queue is *released* (the device callback may take
from it) once the buffer's depth is queued, or that long after the first chunk, for short
answers and for speech that comes paced at real time (:attr:`JitterBuffer.paced`). The
callback copies from the queue with :meth:`JitterBuffer.fill` and pads with silence when it
runs dry; it never waits for anything.

Adaptive depth: whatever is buffered when output starts stays buffered for as long as the
audio keeps coming at the rate it is played (a continuous stream never gets ahead of the
device), so the start depth is added to every sample's latency. It starts small
(``start_threshold_ms``); an underrun in the middle of speech (the queue ran dry and more
came within ``drain_grace_ms``) raises it by ``underrun_step_ms`` up to ``max_threshold_ms``
and re-buffers that much before playing on, so a jittery connection costs one gap, not a
stutter. It comes down a step, never below ``start_threshold_ms``, after ``lower_after_ms``
(8 s) of speech heard without an underrun, counted across answers and in the middle of one
(a stream that never ends, the benchmark's echo of every microphone chunk), and only if
every chunk in that time came at least a step before the device needed it (its *slack*,
from the play clock the release started: the lower depth would have had no gap either).
Otherwise the count starts again at the same depth. Stepping back after every answer that
happened to be clean, as this did until 2026-12-07, made a link that is late now and then
pay a gap in every other answer: the depth went up after the gap and down after the next
answer, whose luck the one after did not share. The drain below takes the queue down to
the lower depth.

Standing queue: after an underrun the late chunks come in a burst on top of the deeper
cushion, and with arrivals at real time from then on the queue would stand that much above
the depth for the rest of the answer, latency added to every sample. :meth:`JitterBuffer.push`
drains such a standing excess back to the depth within about a second, by taking samples
out of the incoming chunk (after resampling, before it is queued: the device callback stays
a plain copy, and nothing it may be reading is touched):

* Standing, not ahead: at every push the buffer notes the queue's level just before it
  (the lowest it got since the previous push), less the most the resampler ever held back
  beyond what it holds now (soxr's output comes in blocks: at 24 -> 48 kHz the queue
  wobbles by 20 ms while the :attr:`~JitterBuffer.backlog_ms` stays level; so the queue's
  trough, not its average, comes down to the depth). The standing excess is the lowest of
  those over the last ``_STEADY_WINDOW_S`` (250 ms), minus the depth. It is drained only
  while the arrivals in that window were steady: no two pushes further apart than
  ``_STEADY_MAX_GAP_S`` (150 ms), and the audio pushed within ``_STEADY_RATE`` (0.8 to 1.2
  times) of the time passed. The real service sends answers in bursts ahead of real time
  (500 ms at three times real time, or a 2 s answer in 0.5 s): such a queue is ahead, it
  plays down by itself, and it is left alone. A drain starts when the excess is
  ``drain_tolerance_ms`` (10 ms, one default underrun step, so a lowered depth is drained
  too) or more, and goes on while a millisecond of it is left; what it took out lowers the
  noted levels with it, so it stops at the depth. It never takes out more than the queue
  holds above the depth (the current level is one of those noted), and never while the
  queue re-buffers after an underrun. Only what the buffer's own adaptation left behind is
  drained: after an underrun in this speech, or once its depth was lowered. A queue that
  stands from an answer's start is how the answer came (a large first chunk, the speaker
  starting): its own cushion, left alone (the latency the person hears is the first
  sample's, which draining later cannot change). A flush, a rate change and the end of
  speech forget it all.
* Quiet first: samples go only where the incoming chunk is quiet, in runs of at least
  ``_MIN_QUIET_RUN_S`` (5 ms) whose every sample is under ``_QUIET_PEAK`` (180, about
  -45 dBFS): at most half of each run goes, from its middle, joined by a ``_XFADE_S``
  (2.5 ms) raised-cosine crossfade of quiet samples. Pauses between words get shorter; a
  loud sample is never changed or dropped.
* Loud fallback: when no usable quiet run came for ``_LOUD_WAIT_S`` (300 ms, longer than a
  syllable), continuous loud audio is cut instead, at most once every ``_CUT_EVERY_S``
  (50 ms) and by ``_CUT_LAG_S`` (3 to 12 ms) at a time, so a 60-100 ms excess still goes
  within about half a second of the drain's start: the chunk's first 2.5 ms are
  crossfaded with the 2.5 ms at the lag where the waveform best matches itself (about a
  whole number of pitch periods, as in SOLA time compression and WebRTC NetEq's
  "accelerate"), so a tone or a vowel loses whole periods and shows no jump. The cut stays
  within the chunk: one shorter than the smallest cut plus the crossfade is never cut, and
  a 10 ms chunk allows 7.5 ms at most.

:attr:`JitterBuffer.drained_ms` and :attr:`JitterBuffer.drain_cuts` count what it did
(``bench/jitter_drain.py`` measures it). The levels are the loop's view of the queue, which
lags the device by the reports of the played blocks (10 to 30 ms); the start depth is
counted the same way.

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
import itertools
import logging
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from sammy_desktop.audio.resampling import StreamResampler
from sammy_desktop.scheduling import Cancellable, LoopScheduler, Scheduler
from sammy_desktop.wire_audio import OUTPUT_RATE, SAMPLE_WIDTH

__all__ = ["DEFAULT_MAX_DEPTH_MS", "RESAMPLER_HOLD_MS", "JitterBuffer"]

_log = logging.getLogger(__name__)

DEFAULT_MAX_DEPTH_MS: Final = 120
"""The deepest the buffer grows unless told otherwise (or its start depth, when more)."""
RESAMPLER_HOLD_MS: Final = 20
"""The most the resampler to the device's rate holds back: soxr's 24 -> 48 kHz stream gives
its output 940 samples (19.6 ms) at a time."""

_NO_SLACK_SEEN: Final = float("inf")
"""The least slack of the chunks while none has come with the queue playing."""

# The standing-queue drain (see the module docstring).
_STEADY_WINDOW_S: Final = 0.25
"""How long the queue must have stood above the depth, arrivals steady, before it drains."""
_STEADY_MAX_GAP_S: Final = 0.15
"""Pushes further apart than this are not steady arrivals (a burst after a pause)."""
_STEADY_RATE: Final = (0.8, 1.2)
"""Steady arrivals: audio pushed in the window over the time passed, lowest and highest."""
_QUIET_PEAK: Final = 180
"""A sample below this (about -45 dBFS) is quiet: a pause, not speech."""
_MIN_QUIET_RUN_S: Final = 0.005
"""The shortest run of quiet samples the drain shortens."""
_XFADE_S: Final = 0.0025
"""The raised-cosine crossfade over every join the drain makes."""
_LOUD_WAIT_S: Final = 0.3
"""No usable quiet run for this long while draining: cut loud audio instead."""
_CUT_EVERY_S: Final = 0.05
"""The least time between two cuts of loud audio."""
_CUT_LAG_S: Final = (0.003, 0.012)
"""How much one cut of loud audio takes out: the shortest and longest lag searched."""
_MIN_CUT_S: Final = 0.001
"""Less excess than this left: the drain is done."""
_MATCH_SLACK: Final = 0.02
"""A cut takes the longest lag whose waveform match is this close to the best one."""


class _Arrival:
    """One push as the drain remembers it."""

    __slots__ = ("at", "level_key", "samples")

    def __init__(self, at: float, level_key: int, samples: int) -> None:
        self.at = at
        # The queue's level just before the push plus what the drain had taken out by
        # then: minus what it has taken out by now, it is the level as if those later
        # removals had been there already.
        self.level_key = level_key
        self.samples = samples


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
        drain_cuts: cuts of loud audio the standing-queue drain made (its fallback).
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
        if drain_tolerance_ms is not None and drain_tolerance_ms < 0:
            raise ValueError(f"drain_tolerance_ms must not be negative (got {drain_tolerance_ms})")
        if lower_after_ms is not None and lower_after_ms <= 0:
            raise ValueError(f"lower_after_ms must be positive (got {lower_after_ms})")
        if max_threshold_ms is None:
            max_threshold_ms = max(DEFAULT_MAX_DEPTH_MS, start_threshold_ms)
        if max_threshold_ms < start_threshold_ms:
            raise ValueError(
                f"max_threshold_ms ({max_threshold_ms}) must not be below "
                f"start_threshold_ms ({start_threshold_ms})"
            )
        self._on_started = on_started
        self._on_drained = on_drained
        self._scheduler: Scheduler = scheduler if scheduler is not None else LoopScheduler()
        self._min_threshold_s = start_threshold_ms / 1000
        self._threshold_s = self._min_threshold_s
        self._step_s = underrun_step_ms / 1000
        self._max_threshold_s = max_threshold_ms / 1000
        self._grace_s = drain_grace_ms / 1000
        self._tolerance_s = None if drain_tolerance_ms is None else drain_tolerance_ms / 1000
        self._lower_after_s = None if lower_after_ms is None else lower_after_ms / 1000
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
        self._steady_since = 0.0  # since when no underrun (nor lowering) in this speech
        # Whether the depth may come down (see _lower_if_trusted), loop only.
        self._clean_s = 0.0  # speech heard before this stretch since the last gap or step
        self._least_slack_s = _NO_SLACK_SEEN  # the least slack a chunk came with since then
        self._dry_at = 0.0  # when the queue last ran dry
        self._released_at = 0.0  # when the queue was last let go...
        self._due_samples = 0  # ...and the speech queued since, due at the device's rate
        # The standing-queue drain's state (loop only).
        self._arrivals: collections.deque[_Arrival] = collections.deque()
        self._draining = False
        self._drain_allowed = False  # a gap or a lowered depth in this speech (see push)
        self._removed_samples = 0  # by the drain, in this speech (the arrivals' offset)
        self._last_quiet_at = 0.0
        self._last_cut_at = 0.0
        self._drained_s = 0.0
        self.underruns = 0
        self.drain_cuts = 0
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
        return self._threshold_s * 1000

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

    def buffered_after_ms(self, incoming_ms: float) -> float:
        """The least :attr:`buffered_ms` will be once ``incoming_ms`` more has been pushed.

        What the backlog will be, less the most the resampler holds back
        (:data:`RESAMPLER_HOLD_MS`): known before the push, which takes a while.
        """
        held_ms = RESAMPLER_HOLD_MS if self._rate != OUTPUT_RATE else 0.0
        return self.backlog_ms + incoming_ms - held_ms

    @property
    def drained_ms(self) -> float:
        """Speech the standing-queue drain took out so far (quiet runs and cuts), in ms."""
        return self._drained_s * 1000

    @property
    def draining(self) -> bool:
        """Whether a standing excess is being drained (from the last :meth:`push`)."""
        return self._draining

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
            self._steady_since = now
            self._last_quiet_at = now
            # What stands from an answer's start is how it came (its first chunk, the
            # speaker starting): its own cushion, left alone until a gap or a lowered depth.
            self._drain_allowed = False
        held = self._held_samples()
        if self._released:
            # How early this chunk came for the device, on the play clock of the release:
            # after what was queued since, and what the resampler still holds of the
            # chunks before (up to 20 ms, not queued yet but due first).
            due_at = self._released_at + (self._due_samples + held) / self._rate
            self._least_slack_s = min(self._least_slack_s, due_at - now)
            if self._lower_if_trusted(self._clean_until(now), now):
                self._drain_allowed = True  # the drain takes the queue down to the new depth
        wire = np.frombuffer(pcm, dtype=np.int16)
        samples = self._resampler.process(wire)
        self._resampled_in += len(wire)
        self._resampled_out += len(samples)
        self._most_held = max(self._most_held, self._held_samples())
        if self._tolerance_s is not None:
            # The lowest the queue gets while the resampler holds the most it does.
            level = self._queued_bytes // SAMPLE_WIDTH + held - self._most_held
            samples = self._drain_standing(samples, now, level)
        self._enqueue(samples.tobytes())
        if not self._released:
            if not self.paced and self._queued_bytes >= self._threshold_bytes():
                self._release()
            elif self._start_handle is None:
                self._start_handle = self._scheduler.call_later(self._threshold_s, self._release)

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
            self._clean_s = self._clean_until(self._scheduler.time())
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
        self._drain_allowed = True  # the late chunks will stand on top of the new depth
        self._count_again_from(self._scheduler.time())
        self._draining = False
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
        return round(self._threshold_s * self._rate) * SAMPLE_WIDTH

    # -- the standing-queue drain (on the loop) ---------------------------------------

    def _held_samples(self) -> int:
        """What the resampler holds back (device samples): its output comes in blocks."""
        if self._rate == OUTPUT_RATE:
            return 0
        return self._resampled_in * self._rate // OUTPUT_RATE - self._resampled_out

    def _count_resampler_from_scratch(self) -> None:
        # (The most it held is the resampler's own: kept until the rate changes.)
        self._resampled_in = 0
        self._resampled_out = 0

    def _drain_standing(self, samples: np.ndarray, now: float, level: int) -> np.ndarray:
        """Note this push; take a standing excess out of its ``samples`` (module docstring).

        ``level`` is the queue before the push, in samples, less what the resampler may
        still hold back beyond what it holds now.
        """
        assert self._tolerance_s is not None
        rate = self._rate
        arrivals = self._arrivals
        arrivals.append(_Arrival(now, level + self._removed_samples, len(samples)))
        window_start = now - _STEADY_WINDOW_S
        # Keep one push at or before the window's start: the window's anchor.
        while len(arrivals) > 2 and arrivals[1].at <= window_start:
            arrivals.popleft()
        quiet_runs = _quiet_runs(samples, round(_MIN_QUIET_RUN_S * rate))
        if quiet_runs:
            self._last_quiet_at = now
        excess = self._standing_excess(window_start)
        min_cut = max(1, round(_MIN_CUT_S * rate))
        if excess is None or not self._released or not self._drain_allowed:
            self._draining = False
        elif not self._draining:
            self._draining = excess >= round(self._tolerance_s * rate)
            if self._draining:
                _log.debug("draining a standing queue of %.0f ms", excess / rate * 1000)
        elif excess < min_cut:
            self._draining = False
        if not self._draining or excess is None:
            return samples
        kept, removed = _drop_quiet(samples, quiet_runs, excess, round(_XFADE_S * rate), min_cut)
        if (
            not removed
            and now - self._last_quiet_at >= _LOUD_WAIT_S
            and now - self._last_cut_at >= _CUT_EVERY_S
        ):
            lags = (round(_CUT_LAG_S[0] * rate), round(_CUT_LAG_S[1] * rate))
            kept, removed = _cut_loud(samples, excess, lags, round(_XFADE_S * rate), min_cut)
            if removed:
                self._last_cut_at = now
                self.drain_cuts += 1
        self._removed_samples += removed
        self._drained_s += removed / rate
        return kept

    def _standing_excess(self, window_start: float) -> int | None:
        """The queue's low-water mark over the window above the depth, in samples.

        ``None`` when the arrivals were not steady over the whole window: too few of them
        yet, a pause between two, or audio coming faster or slower than it plays.
        """
        arrivals = self._arrivals
        if len(arrivals) < 2 or arrivals[0].at > window_start:
            return None
        anchor = arrivals[0]
        span = arrivals[-1].at - anchor.at
        if span <= 0:
            return None
        pushed = 0
        lowest: int | None = None
        previous = anchor.at
        for arrival in itertools.islice(arrivals, 1, None):
            if arrival.at - previous > _STEADY_MAX_GAP_S:
                return None
            previous = arrival.at
            pushed += arrival.samples
            if lowest is None or arrival.level_key < lowest:
                lowest = arrival.level_key
        ratio = pushed / self._rate / span
        if lowest is None or not _STEADY_RATE[0] <= ratio <= _STEADY_RATE[1]:
            return None
        depth = round(self._threshold_s * self._rate)
        return max(0, lowest - self._removed_samples - depth)

    def _forget_drain(self) -> None:
        self._arrivals.clear()
        self._draining = False
        self._drain_allowed = False
        self._removed_samples = 0

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

    def _clean_until(self, moment: float) -> float:
        """Speech heard without a gap since the last gap or step, up to ``moment``."""
        return self._clean_s + max(0.0, moment - self._steady_since)

    def _lower_if_trusted(self, clean_s: float, now: float) -> bool:
        """After ``lower_after_ms`` of speech without a gap, step the depth down if it may.

        It may when every chunk in that time came at least a step before the device needed
        it (its slack, measured in :meth:`push`): the lower depth would have played them
        all without a gap too. A connection whose chunks come late by more than the step
        now and then keeps the depth that covers them, instead of losing it after every
        clean answer and paying a gap in the next. Either way the count starts again.

        Returns:
            Whether the depth was lowered.
        """
        if self._lower_after_s is None or clean_s < self._lower_after_s:
            return False
        lowered = self._threshold_s > self._min_threshold_s and self._least_slack_s >= self._step_s
        if lowered:
            self._threshold_s = max(self._min_threshold_s, self._threshold_s - self._step_s)
            _log.debug("jitter buffer depth lowered to %.0f ms", self._threshold_s * 1000)
        self._count_again_from(now)
        return lowered

    def _count_again_from(self, now: float) -> None:
        """The count towards a step down starts again at ``now`` (a gap, or a step taken)."""
        self._steady_since = now
        self._clean_s = 0.0
        self._least_slack_s = _NO_SLACK_SEEN

    def _reset_queue(self) -> None:
        self._forget_drain()
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
        self._clean_s = self._clean_until(self._dry_at)
        self._lower_if_trusted(self._clean_s, self._scheduler.time())
        self._released = False
        self._turn_ended = False
        self._playing = False
        self._sounding = False
        self._resampler.reset()
        self._count_resampler_from_scratch()
        self._forget_drain()
        self._on_drained(False)


def _quiet_runs(samples: np.ndarray, min_run: int) -> list[tuple[int, int]]:
    """The runs (start, end) of at least ``min_run`` samples all under :data:`_QUIET_PEAK`."""
    if len(samples) < min_run:
        return []
    quiet = np.abs(samples.astype(np.int32)) < _QUIET_PEAK
    edges = np.flatnonzero(np.diff(np.concatenate(([0], quiet.view(np.int8), [0]))))
    return [
        (int(start), int(end))
        for start, end in zip(edges[0::2], edges[1::2], strict=True)
        if end - start >= min_run
    ]


def _crossfade(out_of: np.ndarray, into: np.ndarray) -> np.ndarray:
    """``out_of`` fading out while ``into`` fades in (raised cosine), as int16."""
    length = len(out_of)
    fade_in = 0.5 - 0.5 * np.cos(np.pi * (np.arange(length) + 0.5) / length)
    mixed = out_of * (1.0 - fade_in) + into * fade_in
    return np.clip(np.round(mixed), -32768, 32767).astype(np.int16)


def _drop_quiet(
    samples: np.ndarray, runs: list[tuple[int, int]], budget: int, xfade: int, min_cut: int
) -> tuple[np.ndarray, int]:
    """Take up to ``budget`` samples out of the middle of the quiet ``runs``, half of each at most.

    Returns:
        The samples kept (crossfaded over each join, quiet samples only), and how many went.
    """
    pieces: list[np.ndarray] = []
    position = 0
    removed = 0
    for start, end in runs:
        length = end - start
        cut = min(budget - removed, length // 2, length - xfade)
        if cut < min_cut:
            continue
        at = start + (length - cut - xfade) // 2
        pieces.append(samples[position:at])
        pieces.append(_crossfade(samples[at : at + xfade], samples[at + cut : at + cut + xfade]))
        position = at + cut + xfade
        removed += cut
        if budget - removed < min_cut:
            break
    if not removed:
        return samples, 0
    pieces.append(samples[position:])
    return np.concatenate(pieces), removed


def _cut_loud(
    samples: np.ndarray, budget: int, lags: tuple[int, int], xfade: int, min_cut: int
) -> tuple[np.ndarray, int]:
    """Take one stretch out of the start of ``samples`` where the waveform repeats best.

    The first ``xfade`` samples are crossfaded with the ``xfade`` samples at the lag, between
    ``lags`` (no more than ``budget`` and what the chunk holds), whose shape matches them
    best (normalised correlation; the longest lag within :data:`_MATCH_SLACK` of the best).

    Returns:
        The samples kept, and how many went (0: the chunk is too short to cut).
    """
    longest = min(lags[1], budget, len(samples) - xfade)
    shortest = max(min_cut, min(lags[0], longest))
    if longest < shortest or xfade <= 0:
        return samples, 0
    signal = samples[: longest + xfade].astype(np.float64)
    head = signal[:xfade]
    candidates = np.lib.stride_tricks.sliding_window_view(signal[shortest:], xfade)
    norms = np.sqrt(np.einsum("ij,ij->i", candidates, candidates) * float(head @ head))
    match = (candidates @ head) / np.maximum(norms, 1e-9)
    lag = shortest + int(np.flatnonzero(match >= match.max() - _MATCH_SLACK)[-1])
    joined = _crossfade(head, signal[lag : lag + xfade])
    return np.concatenate((joined, samples[lag + xfade :])), lag
