"""The jitter buffer drains a standing queue back to its depth, without a glitch (issue 23).

A paced stream (the model's audio at exactly real time) keeps whatever is queued when it
plays: after one late chunk the depth is raised, the late chunks come in a burst, and the
queue stood that much deeper for the rest of the answer. These tests drive a real
:class:`JitterBuffer` with the hand-moved clock and the test device of
tests/helpers/jitter_device.py: every 5 ms, the chunks due are pushed, then one block is
filled and reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from sammy_desktop.audio.jitter import JitterBuffer
from sammy_desktop.wire_audio import OUTPUT_RATE
from tests.helpers.clock import ManualScheduler
from tests.helpers.jitter_device import BLOCK_MS, Device, Listener, make

QUIET = 180
"""The drain's quiet level (about -45 dBFS): it may take out only samples below it."""
TOLERANCE_MS = 10
"""The default drain tolerance: within this of the depth, the queue is back."""
Arrival = tuple[float, np.ndarray]


@dataclass(frozen=True)
class Level:
    """The queue just before a push: the lowest it got since the one before."""

    at: float  # seconds since the stream started
    buffered_ms: float
    depth_ms: float
    backlog_ms: float  # the queue and what the resampler holds back

    @property
    def excess_ms(self) -> float:
        return self.buffered_ms - self.depth_ms


def speech_like(seconds: float, seed: int = 7) -> np.ndarray:
    """Syllables (a voice-like harmonic tone, 60-200 ms) between 30-150 ms quiet pauses."""
    rng = np.random.default_rng(seed)
    total = round(seconds * OUTPUT_RATE)
    parts: list[np.ndarray] = []
    length = 0
    while length < total:
        syllable = round(rng.uniform(0.06, 0.2) * OUTPUT_RATE)
        t = np.arange(syllable) / OUTPUT_RATE
        f0 = rng.uniform(100, 220)
        voice = sum(
            np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 2 * np.pi)) / k for k in range(1, 6)
        )
        envelope = np.sqrt(np.sin(np.pi * np.arange(syllable) / syllable))
        pause = round(rng.uniform(0.03, 0.15) * OUTPUT_RATE)
        parts += [voice * envelope * 6000, rng.normal(0, 15, pause)]  # room noise in pauses
        length += syllable + pause
    samples: np.ndarray = np.clip(np.concatenate(parts)[:total], -32768, 32767)
    return samples.astype(np.int16)


def tone(seconds: float, hz: float = 440.0, amplitude: float = 10000) -> np.ndarray:
    """Continuous loud audio: no quiet run anywhere."""
    t = np.arange(round(seconds * OUTPUT_RATE)) / OUTPUT_RATE
    return (np.sin(2 * np.pi * hz * t) * amplitude).astype(np.int16)


def paced(
    signal: np.ndarray, *, chunk_ms: int = 20, gap_at: float = 0.0, gap_ms: int = 0
) -> list[Arrival]:
    """``signal`` in chunks at real time; those due during the gap come at its end at once."""
    size = OUTPUT_RATE * chunk_ms // 1000
    arrivals: list[Arrival] = []
    for index, start in enumerate(range(0, len(signal), size)):
        due = index * chunk_ms / 1000
        if gap_ms and gap_at <= due < gap_at + gap_ms / 1000:
            due = gap_at + gap_ms / 1000
        arrivals.append((due, signal[start : start + size]))
    return arrivals


def head_start(signal: np.ndarray, lead_ms: int) -> list[Arrival]:
    """``lead_ms`` + 20 ms at once, then 20 ms chunks at real time: it dips to ``lead_ms``."""
    head = OUTPUT_RATE * (lead_ms + 20) // 1000
    return [(0.0, signal[:head]), *((at + 0.02, c) for at, c in paced(signal[head:]))]


def delivered(signal: np.ndarray, *, within_s: float, chunk_ms: int = 40) -> list[Arrival]:
    """``signal`` in chunks spread evenly over ``within_s`` (ahead of real time when short)."""
    size = OUTPUT_RATE * chunk_ms // 1000
    starts = range(0, len(signal), size)
    every = within_s / len(starts)
    return [(index * every, signal[start : start + size]) for index, start in enumerate(starts)]


class Stream:
    """Plays arrivals into a buffer against the test's device, noting the queue at each push."""

    def __init__(self, buffer: JitterBuffer, scheduler: ManualScheduler) -> None:
        self.buffer = buffer
        self.device = Device(buffer, scheduler)
        self.levels: list[Level] = []
        self._ticks = 0
        self._pending: list[Arrival] = []

    @property
    def elapsed(self) -> float:
        """Seconds since the stream started."""
        return self._ticks * BLOCK_MS / 1000

    def add(self, arrivals: list[Arrival]) -> None:
        """Push these chunks when due (seconds from now)."""
        begin = self.elapsed
        self._pending += [(begin + at, chunk) for at, chunk in arrivals]
        self._pending.sort(key=lambda arrival: arrival[0])

    def barge_in(self) -> None:
        """Flush the buffer; the chunks still to come of this answer never come."""
        self._pending.clear()
        self.buffer.flush()

    def run(self, seconds: float) -> None:
        """``seconds`` of blocks: at each, the chunks due are pushed, then the block is played."""
        for _ in range(round(seconds * 1000 / BLOCK_MS)):
            now = self.elapsed
            while self._pending and self._pending[0][0] <= now + 1e-9:
                buffer = self.buffer
                self.levels.append(
                    Level(now, buffer.buffered_ms, buffer.depth_ms, buffer.backlog_ms)
                )
                self.buffer.push(self._pending.pop(0)[1].tobytes())
            self.device.block()
            self._ticks += 1

    @property
    def output(self) -> np.ndarray:
        """The speech the device got from the buffer (the silence it padded with left out)."""
        return np.frombuffer(bytes(self.device.speech), dtype=np.int16)

    def levels_between(self, start: float, end: float) -> list[Level]:
        return [level for level in self.levels if start < level.at <= end]


def loud(samples: np.ndarray) -> np.ndarray:
    return samples[np.abs(samples.astype(np.int32)) >= QUIET]


def largest_jump(samples: np.ndarray) -> int:
    return int(np.abs(np.diff(samples.astype(np.int32))).max())


def test_a_standing_queue_after_a_gap_drains_to_the_depth_within_a_second_in_the_pauses(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    # Released at the second 20 ms chunk: the queue dips to 20 ms before each push.
    buffer = make(scheduler, listener, start_threshold_ms=30, underrun_step_ms=10)
    stream = Stream(buffer, scheduler)
    speech = speech_like(4.0)
    # A 100 ms gap at 1 s: five chunks come at once at its end.
    stream.add(paced(speech, gap_at=1.0, gap_ms=100))
    stream.run(4.5)
    gap_end = 1.1
    assert buffer.underruns == 1
    assert buffer.depth_ms == pytest.approx(40)
    assert all(level.excess_ms <= 0 for level in stream.levels_between(0.1, 1.0))

    # The burst stood on top of the deeper cushion: 100 ms low-water, 60 over the depth...
    standing = stream.levels_between(gap_end, gap_end + 0.2)
    assert min(level.excess_ms for level in standing) == pytest.approx(60)
    # ...and within a second of steady arrivals it is back at the depth, and stays there.
    later = stream.levels_between(gap_end + 1.0, 4.0)
    assert later
    assert all(level.excess_ms <= TOLERANCE_MS for level in later)
    # ...never below it: the cushion the underrun asked for is kept.
    assert min(level.excess_ms for level in stream.levels_between(gap_end, 4.0)) == 0
    assert buffer.drained_ms == pytest.approx(60, abs=1)

    # Only quiet samples went: every loud one came out, unchanged and in order.
    out = stream.output
    assert len(speech) - len(out) == round(buffer.drained_ms * OUTPUT_RATE / 1000)
    assert np.array_equal(loud(out), loud(speech))
    assert buffer.drain_cuts == 0


def test_continuous_loud_audio_is_drained_by_crossfaded_cuts_without_a_jump(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=30, underrun_step_ms=10)
    stream = Stream(buffer, scheduler)
    signal = tone(4.0)
    stream.add(paced(signal, gap_at=1.0, gap_ms=100))
    stream.run(4.5)
    gap_end = 1.1
    assert buffer.underruns == 1
    assert min(level.excess_ms for level in stream.levels_between(gap_end, gap_end + 0.2)) > 50
    later = stream.levels_between(gap_end + 1.0, 4.0)
    assert later
    assert all(level.excess_ms <= TOLERANCE_MS for level in later)
    assert min(level.excess_ms for level in stream.levels_between(gap_end, 4.0)) >= 0
    assert buffer.drain_cuts >= 3
    assert buffer.drained_ms == pytest.approx(60, abs=TOLERANCE_MS)
    out = stream.output
    assert len(signal) - len(out) == round(buffer.drained_ms * OUTPUT_RATE / 1000)
    # Whole periods went, crossfaded: no click bigger than the tone's own steepest step.
    assert largest_jump(out) <= 1.1 * largest_jump(signal)


def test_a_device_at_another_rate_is_drained_too(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=30, underrun_step_ms=10)
    assert buffer.set_rate(48_000)
    stream = Stream(buffer, scheduler)
    stream.add(paced(speech_like(4.0), gap_at=1.0, gap_ms=100))
    stream.run(4.5)
    assert buffer.underruns == 1
    assert min(level.excess_ms for level in stream.levels_between(1.1, 1.3)) > 50
    # soxr gives 24 -> 48 kHz in blocks of 940 samples, 20 short of a chunk's 960, and an
    # extra block every 47 chunks: the queue wobbles by 20 ms a second while the backlog
    # (queue and resampler) stays level. The drain counts with the most the resampler
    # held back, so at each trough the queue comes down to the depth, never below it.
    held = max(level.backlog_ms - level.buffered_ms for level in stream.levels)
    assert 15 < held < 25
    later = stream.levels_between(2.1, 4.0)
    assert all(-0.5 < level.backlog_ms - level.depth_ms - held < 1 for level in later)
    assert min(level.excess_ms for level in later) == pytest.approx(0, abs=1)
    assert 30 < buffer.drained_ms < 70


def test_an_answer_delivered_ahead_of_real_time_plays_untouched(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, drain_grace_ms=60_000)
    stream = Stream(buffer, scheduler)
    speech = speech_like(2.0)
    stream.add(delivered(speech, within_s=0.5))  # 2 s of speech in 0.5 s
    stream.run(0.6)
    assert buffer.buffered_ms > 1000  # far above the depth: ahead, not standing
    buffer.end_of_turn()
    stream.run(2.0)
    assert listener.drained == [False]
    assert buffer.drained_ms == 0
    assert np.array_equal(stream.output, speech)


def test_bursts_ahead_of_real_time_between_pauses_are_not_drained(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    # As the service sends a long answer: half a second at three times real time, then
    # nothing until it is nearly played, on average a little ahead of real time.
    buffer = make(scheduler, listener, drain_grace_ms=60_000)
    stream = Stream(buffer, scheduler)
    speech = speech_like(4.0)
    half = OUTPUT_RATE // 2
    arrivals = [
        (burst * 0.45 + at, chunk)
        for burst in range(8)
        for at, chunk in delivered(speech[burst * half : (burst + 1) * half], within_s=0.17)
    ]
    stream.add(arrivals)
    stream.run(4.2)
    assert buffer.underruns == 0
    assert max(level.buffered_ms for level in stream.levels) > 300
    assert buffer.drained_ms == 0
    buffer.end_of_turn()
    stream.run(1.0)
    assert np.array_equal(stream.output, speech)


def test_nothing_is_dropped_at_or_below_the_depth(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=30)
    stream = Stream(buffer, scheduler)
    speech = speech_like(3.0)
    # A head start of 5 ms over the depth: within the tolerance, so it stays.
    stream.add(head_start(speech, 35))
    stream.run(3.2)
    assert buffer.underruns == 0
    assert stream.levels[-1].excess_ms == pytest.approx(5, abs=1)
    assert buffer.drained_ms == 0
    assert np.array_equal(stream.output, speech)


def test_a_flush_forgets_the_drain(scheduler: ManualScheduler, listener: Listener) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=30, underrun_step_ms=10)
    stream = Stream(buffer, scheduler)
    speech = speech_like(3.0)
    # A 100 ms gap at 0.5 s: the burst behind it stands 60 ms over the deeper cushion.
    stream.add(paced(speech, gap_at=0.5, gap_ms=100))
    stream.run(0.9)
    was_draining = buffer.draining
    stream.barge_in()
    assert was_draining
    assert listener.drained == [True]
    assert not buffer.draining
    drained = buffer.drained_ms
    assert drained < 60  # not done yet

    # The next answer has its gap too: drained only once it has stood for a steady
    # window of this answer's pushes, not at once on the old ones.
    stream.add(paced(speech, gap_at=0.5, gap_ms=100))
    stream.run(0.5 + 0.1 + 0.2)
    assert buffer.drained_ms == drained
    assert not buffer.draining
    stream.run(1.5)
    assert buffer.drained_ms > drained


def test_a_queue_standing_from_the_answers_start_is_its_own_cushion(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    # No gap: the answer came with a head start (its first chunk, the speaker starting):
    # nothing the buffer's own adaptation left behind, so nothing is taken out of it.
    buffer = make(scheduler, listener, start_threshold_ms=30)
    stream = Stream(buffer, scheduler)
    speech = speech_like(3.0)
    stream.add(head_start(speech, 110))  # 80 ms over the depth, standing
    stream.run(3.5)
    assert buffer.underruns == 0
    assert buffer.drained_ms == 0
    assert np.array_equal(stream.output, speech)


def test_the_depth_lowers_a_step_after_steady_arrivals_and_the_queue_follows(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    # A stream that never ends: the end of an answer never comes to lower the depth.
    buffer = make(scheduler, listener, start_threshold_ms=30, lower_after_ms=2000)
    stream = Stream(buffer, scheduler)
    speech = speech_like(6.0)
    stream.add(paced(speech, gap_at=0.5, gap_ms=40))
    stream.run(1.5)
    assert buffer.underruns == 1
    assert buffer.depth_ms == pytest.approx(40)
    stream.run(0.9)
    assert buffer.depth_ms == pytest.approx(40)  # 1.9 s since the gap
    stream.run(1.2)
    assert buffer.depth_ms == pytest.approx(30)  # 2 s since it: one step down
    # ...and the drain takes the queue down with it.
    assert all(level.excess_ms <= TOLERANCE_MS for level in stream.levels_between(3.4, 3.6))
    assert stream.levels[-1].buffered_ms == pytest.approx(30)
    stream.run(2.4)
    assert buffer.depth_ms == pytest.approx(30)  # never below the start depth
    assert buffer.underruns == 1
    out = loud(stream.output)
    assert np.array_equal(out, loud(speech)[: len(out)])  # (the last 30 ms are still queued)


def test_drain_limits_are_checked(scheduler: ManualScheduler, listener: Listener) -> None:
    with pytest.raises(ValueError, match="drain_tolerance_ms"):
        make(scheduler, listener, drain_tolerance_ms=-1)
    with pytest.raises(ValueError, match="lower_after_ms"):
        make(scheduler, listener, lower_after_ms=0)


def test_without_a_tolerance_the_standing_queue_stays(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = JitterBuffer(
        on_started=listener.on_started,
        on_drained=listener.on_drained,
        start_threshold_ms=30,
        drain_tolerance_ms=None,
        scheduler=scheduler,
    )
    stream = Stream(buffer, scheduler)
    speech = speech_like(3.0)
    stream.add(paced(speech, gap_at=1.0, gap_ms=100))
    stream.run(3.2)
    assert stream.levels[-1].excess_ms == pytest.approx(60)  # as before the drain
    assert buffer.drained_ms == 0
    assert np.array_equal(stream.output, speech)
