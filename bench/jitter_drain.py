"""How fast the jitter buffer drains a standing queue after one late chunk (issue 23).

    .venv/bin/python bench/jitter_drain.py

No sound device and no real time: a real :class:`~sammy_desktop.audio.jitter.JitterBuffer`
with the app's depths, driven by a hand-moved clock. A 20 s answer comes paced at real time
(20 ms chunks, each up to 4 ms late on the network) to a 48 kHz speaker that takes 5 ms
blocks; at 1 s the sender stalls for 60 ms and the chunks it held come at once. The
underrun deepens the buffer and the burst stands on top of it: without the drain it would
stay for the rest of the answer. Two signals: speech-like audio (syllables of a voice-like
tone between pauses, drained in the pauses) and a continuous tone (no pause: drained by
crossfaded cuts).

Reported, per signal (``speech_...``, ``tone_...``):

* ``excess_ms``: how far the queue stood above the depth at its lowest over the 250 ms
  after the burst (what the drain found). Measured on the buffer's backlog (its queue and
  what the resampler holds back) less the most the resampler held: soxr's 24 -> 48 kHz
  output comes in 940-sample blocks, so the queue alone wobbles by 20 ms while that stays
  level, and its trough is what must not go below the depth;
* ``recovery_ms``: from the burst until that is back within the tolerance (10 ms) of the
  depth, at least once every 250 ms from then on for 5 s (target: 1000 ms or less);
* ``drained_ms``: the audio the drain took out over the whole answer (after the burst, and
  one step more when the depth lowers after 8 s without an underrun); ``cuts``: how many
  cuts of loud audio it made (none for speech with pauses);
* ``underruns``: the gaps the buffer counted (the stall's one);
* ``max_jump`` and ``max_jump_ratio``: the largest sample-to-sample step of what the
  speaker got, and that over the same answer played without the drain (1.0: no click);
* ``excess_without_drain_ms``: the standing excess at the end of the answer with the drain
  off (the latency the drain saves on every later sample).

:func:`measure` returns them (for ``bench/run.py``); run alone, it prints them as JSON and
exits with 1 when a recovery misses its target.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sammy_desktop.audio.jitter import JitterBuffer  # noqa: E402
from sammy_desktop.wire_audio import OUTPUT_RATE, SAMPLE_WIDTH  # noqa: E402
from tests.helpers.clock import ManualScheduler  # noqa: E402

DEVICE_RATE = 48_000
BLOCK_S = 0.005
CHUNK_S = 0.02
ANSWER_S = 20.0
GAP_AT_S = 1.0
GAP_S = 0.06
NETWORK_JITTER_S = 0.004
WINDOW_S = 0.25
"""Back within the tolerance at least once in every this long counts as back."""
HORIZON_S = 5.0
"""How long after the burst the recovery is watched (the depth lowers after 8 s)."""
TOLERANCE_MS = 10.0
"""The buffer's default drain tolerance: within this of the depth, the queue is back."""
RECOVERY_TARGET_MS = 1000.0


def speech_like(seconds: float, rng: np.random.Generator) -> np.ndarray:
    """Syllables (a harmonic voice-like tone, 60-250 ms) between 30-150 ms pauses of room noise."""
    total = round(seconds * OUTPUT_RATE)
    parts: list[np.ndarray] = []
    length = 0
    while length < total:
        syllable = round(rng.uniform(0.06, 0.25) * OUTPUT_RATE)
        t = np.arange(syllable) / OUTPUT_RATE
        f0 = rng.uniform(90, 240)
        voice = np.zeros(syllable)
        for k in range(1, 7):
            voice += np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 2 * np.pi)) / k
        envelope = np.sqrt(np.sin(np.pi * np.arange(syllable) / syllable))
        pause = round(rng.uniform(0.03, 0.15) * OUTPUT_RATE)
        parts += [voice * envelope * rng.uniform(3000, 9000), rng.normal(0, 15, pause)]
        length += syllable + pause
    samples: np.ndarray = np.clip(np.concatenate(parts)[:total], -32768, 32767)
    return samples.astype(np.int16)


def tone(seconds: float) -> np.ndarray:
    t = np.arange(round(seconds * OUTPUT_RATE)) / OUTPUT_RATE
    samples: np.ndarray = np.sin(2 * np.pi * 440 * t) * 10000
    return samples.astype(np.int16)


def arrivals(signal: np.ndarray, rng: np.random.Generator) -> list[tuple[float, np.ndarray]]:
    """Real-time chunks with network jitter; those due in the gap come at its end at once."""
    size = round(CHUNK_S * OUTPUT_RATE)
    out: list[tuple[float, np.ndarray]] = []
    for index, start in enumerate(range(0, len(signal), size)):
        due = index * CHUNK_S
        at = due + rng.uniform(0, NETWORK_JITTER_S)
        if GAP_AT_S <= due < GAP_AT_S + GAP_S:
            at = GAP_AT_S + GAP_S
        out.append((at, signal[start : start + size]))
    return out


@dataclass
class Run:
    """One answer played through a buffer: the queue before each push, and the output."""

    buffer: JitterBuffer
    # At each push: when, the buffer's backlog (queue and resampler), its queue, its depth.
    levels: list[tuple[float, float, float, float]] = field(default_factory=list)
    output: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int16))

    @property
    def most_held_ms(self) -> float:
        """The most the resampler held back: the latency it adds, which no drain can take."""
        return max(backlog - queued for _, backlog, queued, _ in self.levels)

    def excess(self, start: float, end: float) -> list[tuple[float, float]]:
        """The backlog over the depth and the resampler's hold, at the pushes in (start, end]."""
        held = self.most_held_ms
        return [
            (at, backlog - depth - held)
            for at, backlog, _, depth in self.levels
            if start < at <= end
        ]


def play(signal: np.ndarray, *, drain: bool, seed: int) -> Run:
    clock = ManualScheduler()
    buffer = JitterBuffer(
        on_started=lambda: None,
        on_drained=lambda _interrupted: None,
        drain_tolerance_ms=round(TOLERANCE_MS) if drain else None,
        scheduler=clock,
    )  # the app's depths: 10 ms to start, 10 ms steps, 120 ms at most
    buffer.set_rate(DEVICE_RATE)
    pending = arrivals(signal, np.random.default_rng(seed))
    run = Run(buffer)
    needed = round(DEVICE_RATE * BLOCK_S) * SAMPLE_WIDTH
    out = bytearray()
    index = 0
    ended = False
    for tick in range(round((ANSWER_S + 0.5) / BLOCK_S)):
        now = tick * BLOCK_S
        while index < len(pending) and pending[index][0] <= now:
            run.levels.append((now, buffer.backlog_ms, buffer.buffered_ms, buffer.depth_ms))
            buffer.push(pending[index][1].tobytes())
            index += 1
        if index == len(pending) and not ended:
            buffer.end_of_turn()
            ended = True
        block = bytearray(needed)
        generation = buffer.generation
        written = buffer.fill(block, needed, generation)
        out += block[:written]
        buffer.played(generation, written, clock.time())
        clock.advance(BLOCK_S)
    run.output = np.frombuffer(bytes(out), dtype=np.int16)
    return run


def recovered_at(run: Run, start: float, end: float) -> float:
    """The first push after ``start`` from which on the queue comes within the tolerance of
    the depth at least once every :data:`WINDOW_S` until ``end`` (``end``: never)."""
    within = [at for at, excess in run.excess(start, end) if excess <= TOLERANCE_MS]
    recovered = end
    for at in reversed(within):
        if recovered - at > WINDOW_S:
            break
        recovered = at
    return recovered


def largest_jump(samples: np.ndarray) -> float:
    return float(np.abs(np.diff(samples.astype(np.int32))).max())


def measure_signal(signal: np.ndarray, seed: int = 1) -> dict[str, float]:
    drained = play(signal, drain=True, seed=seed)
    baseline = play(signal, drain=False, seed=seed)
    burst = GAP_AT_S + GAP_S
    answer_end = ANSWER_S - CHUNK_S
    horizon = burst + HORIZON_S
    standing = min(excess for _, excess in drained.excess(burst, burst + 0.25))
    stays = min(excess for _, excess in baseline.excess(answer_end - WINDOW_S, answer_end))
    return {
        "excess_ms": standing,
        "recovery_ms": (recovered_at(drained, burst, horizon) - burst) * 1000,
        "drained_ms": drained.buffer.drained_ms,
        "cuts": float(drained.buffer.drain_cuts),
        "underruns": float(drained.buffer.underruns),
        "max_jump": largest_jump(drained.output),
        "max_jump_ratio": largest_jump(drained.output) / largest_jump(baseline.output),
        "excess_without_drain_ms": stays,
    }


def measure() -> dict[str, float]:
    """Both signals' numbers, ``speech_...`` and ``tone_...`` (see the module docstring)."""
    results: dict[str, float] = {}
    rng = np.random.default_rng(7)
    for name, signal in (("speech", speech_like(ANSWER_S, rng)), ("tone", tone(ANSWER_S))):
        for key, value in measure_signal(signal).items():
            results[f"{name}_{key}"] = round(value, 3)
    results["recovery_target_ms"] = RECOVERY_TARGET_MS
    return results


def main() -> int:
    results = measure()
    print(json.dumps(results, indent=2))
    recovered = all(
        results[f"{name}_recovery_ms"] <= RECOVERY_TARGET_MS for name in ("speech", "tone")
    )
    return 0 if recovered else 1


if __name__ == "__main__":
    sys.exit(main())
