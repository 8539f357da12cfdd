"""The jitter buffer's standing-queue drain: a queue left standing above the depth goes back down.

After an underrun the late chunks come in a burst on top of the deeper cushion, and with
arrivals at real time from then on the queue would stand that much above the depth for the
rest of the answer, latency added to every sample. :meth:`StandingDrain.take` (called by
:meth:`~sammy_desktop.audio.jitter.JitterBuffer.push`) drains such a standing excess back to
the depth within about a second, by taking samples out of the incoming chunk (after
resampling, before it is queued: the device callback stays a plain copy, and nothing it may
be reading is touched):

* Standing, not ahead: at every push the buffer notes the queue's level just before it
  (the lowest it got since the previous push), less the most the resampler ever held back
  beyond what it holds now (soxr's output comes in blocks: at 24 -> 48 kHz the queue
  wobbles by 20 ms while the jitter buffer's backlog stays level; so the queue's trough,
  not its average, comes down to the depth). The standing excess is the lowest of those
  over the last ``_STEADY_WINDOW_S`` (250 ms), minus the depth. It is drained only while
  the arrivals in that window were steady: no two pushes further apart than
  ``_STEADY_MAX_GAP_S`` (150 ms), and the audio pushed within ``_STEADY_RATE`` (0.8 to 1.2
  times) of the time passed. The real service sends answers in bursts ahead of real time
  (500 ms at three times real time, or a 2 s answer in 0.5 s): such a queue is ahead, it
  plays down by itself, and it is left alone. A drain starts when the excess is the
  tolerance (``drain_tolerance_ms``, 10 ms, one default underrun step, so a lowered depth
  is drained too) or more, and goes on while a millisecond of it is left; what it took out
  lowers the noted levels with it, so it stops at the depth. It never takes out more than
  the queue holds above the depth (the current level is one of those noted), and never
  while the queue re-buffers after an underrun. Only what the buffer's own adaptation left
  behind is drained: after an underrun in this speech, or once its depth was lowered
  (:meth:`StandingDrain.allow`). A queue that stands from an answer's start is how the
  answer came (a large first chunk, the speaker starting): its own cushion, left alone
  (the latency the person hears is the first sample's, which draining later cannot
  change). A flush, a rate change and the end of speech forget it all
  (:meth:`StandingDrain.forget`).
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

:attr:`StandingDrain.drained_s` and :attr:`StandingDrain.cuts` count what it did
(``bench/jitter_drain.py`` measures it, through the jitter buffer). The levels are the
loop's view of the queue, which lags the device by the reports of the played blocks (10 to
30 ms); the depth is counted the same way. Loop only, like the jitter buffer's bookkeeping.
"""

from __future__ import annotations

import collections
import itertools
import logging
from typing import Final

import numpy as np

__all__ = ["StandingDrain"]

_log = logging.getLogger(__name__)

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


class StandingDrain:
    """What the drain noted of the recent pushes, and whether it is draining (module docstring).

    Args:
        tolerance_ms: how far above the depth a standing queue may stand before it is
            drained; ``None``: never (:meth:`take` gives every chunk back whole).
    """

    def __init__(self, tolerance_ms: int | None) -> None:
        if tolerance_ms is not None and tolerance_ms < 0:
            raise ValueError(f"drain_tolerance_ms must not be negative (got {tolerance_ms})")
        self._tolerance_s = None if tolerance_ms is None else tolerance_ms / 1000
        self._arrivals: collections.deque[_Arrival] = collections.deque()
        self._draining = False
        self._allowed = False  # a gap or a lowered depth in this speech (see allow)
        self._removed_samples = 0  # in this speech (the arrivals' offset)
        self._last_quiet_at = 0.0
        self._last_cut_at = 0.0
        self._drained_s = 0.0
        self._cuts = 0

    @property
    def draining(self) -> bool:
        """Whether a standing excess is being drained (from the last :meth:`take`)."""
        return self._draining

    @property
    def drained_s(self) -> float:
        """Speech taken out so far (quiet runs and cuts)."""
        return self._drained_s

    @property
    def cuts(self) -> int:
        """Cuts of loud audio made so far (the fallback)."""
        return self._cuts

    def answer_starts(self, now: float) -> None:
        """Speech starts after a silence: what stands from here on is its own cushion."""
        self._last_quiet_at = now
        self._allowed = False

    def allow(self) -> None:
        """The buffer's own adaptation (a deeper or a lowered depth) may leave a queue standing."""
        self._allowed = True

    def gap(self) -> None:
        """A gap in mid-speech: nothing is taken out while the queue re-buffers.

        The late chunks may then stand on top of the new depth, so a drain is allowed.
        """
        self._draining = False
        self._allowed = True

    def forget(self) -> None:
        """The speech was flushed, ended or is now at another rate: start from nothing."""
        self._arrivals.clear()
        self._draining = False
        self._allowed = False
        self._removed_samples = 0

    def take(
        self,
        samples: np.ndarray,
        *,
        now: float,
        level: int,
        rate: int,
        depth: int,
        released: bool,
    ) -> np.ndarray:
        """Note this push; take a standing excess out of its ``samples``.

        Args:
            samples: the chunk, resampled to the device's rate.
            now: the time of the push.
            level: the queue before the push, in samples, less what the resampler may still
                hold back beyond what it holds now.
            rate: the device's rate.
            depth: the buffer's depth, in samples.
            released: whether the queue is playing (not waiting for its depth).

        Returns:
            The samples to queue.
        """
        if self._tolerance_s is None:
            return samples
        arrivals = self._arrivals
        arrivals.append(_Arrival(now, level + self._removed_samples, len(samples)))
        window_start = now - _STEADY_WINDOW_S
        # Keep one push at or before the window's start: the window's anchor.
        while len(arrivals) > 2 and arrivals[1].at <= window_start:
            arrivals.popleft()
        quiet_runs = _quiet_runs(samples, round(_MIN_QUIET_RUN_S * rate))
        if quiet_runs:
            self._last_quiet_at = now
        excess = self._standing_excess(window_start, rate, depth)
        min_cut = max(1, round(_MIN_CUT_S * rate))
        if excess is None or not released or not self._allowed:
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
                self._cuts += 1
        self._removed_samples += removed
        self._drained_s += removed / rate
        return kept

    def _standing_excess(self, window_start: float, rate: int, depth: int) -> int | None:
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
        ratio = pushed / rate / span
        if lowest is None or not _STEADY_RATE[0] <= ratio <= _STEADY_RATE[1]:
            return None
        return max(0, lowest - self._removed_samples - depth)


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
