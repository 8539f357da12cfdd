"""Test signals for the audio tests: espeak-ng speech, tones, and how to compare recordings."""

from __future__ import annotations

import itertools
import subprocess
import wave
from pathlib import Path

import numpy as np
import soxr


def speak(text: str, path: Path, *, rate: int, voice: str = "en-us") -> np.ndarray:
    """Synthesize ``text`` with espeak-ng (offline) and return it as int16 at ``rate``."""
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True)
    with wave.open(str(path)) as wav:
        native = wav.getframerate()
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    out = soxr.resample(samples.astype(np.float32) / 32768.0, native, rate, quality="HQ")
    # Normalise to -6 dBFS peak so every test works at a known, clip-free level.
    peak = float(np.max(np.abs(out))) or 1.0
    return np.asarray(np.round(out / peak * 0.5 * 32767.0), dtype=np.int16)


def tone(freq: float, seconds: float, *, rate: int, amplitude: float = 0.5) -> np.ndarray:
    """A sine tone as int16."""
    t = np.arange(round(seconds * rate)) / rate
    return np.asarray(np.round(amplitude * 32767 * np.sin(2 * np.pi * freq * t)), np.int16)


def warble(seconds: float, *, rate: int, variant: int = 0) -> np.ndarray:
    """A loud tone (-6 dBFS, PCM16) that changes pitch every 25 ms: speech-like enough for
    the noise suppressor, which fades a steady tone out within a few hundred milliseconds,
    and a sudden onset. The tests here and the bench's microphone rows speak it.

    Each ``variant`` has its own pitches (the order turned, all 7 % higher per variant). An
    answer that echoes a turn holds that turn's warble, and the echo canceller's delay
    estimator would find a next turn's identical warble in the answer it played a moment
    before and suppress it as echo (the speech lost, always ready: 184 ms median with one
    warble, 21 with three; docs/benchmarks.md). A person does not repeat the assistant
    sample for sample.
    """
    pitches = np.roll([600.0, 950.0, 1300.0, 800.0, 1150.0], variant) * 1.07**variant
    segment = np.arange(int(seconds * rate)) // int(0.025 * rate)
    phase = 2 * np.pi * np.cumsum(pitches[segment % len(pitches)]) / rate
    return np.asarray(0.5 * 32767 * np.sin(phase), np.int16)


def best_lag(recording: np.ndarray, reference: np.ndarray) -> tuple[int, float]:
    """Where ``reference`` sits in ``recording``, and the normalised correlation there.

    Returns:
        (lag in samples, Pearson-like correlation in [-1, 1] of the overlapping part).
    """
    rec = recording.astype(np.float64)
    ref = reference.astype(np.float64)
    size = 1 << int(np.ceil(np.log2(len(rec) + len(ref))))
    corr = np.fft.irfft(np.fft.rfft(rec, size) * np.conj(np.fft.rfft(ref, size)), size)
    corr = corr[: len(rec)]
    lag = int(np.argmax(corr))
    return lag, normalised_correlation(rec[lag : lag + len(ref)], ref[: len(rec) - lag])


def normalised_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two equally long signals (0 when either is silent)."""
    n = min(len(a), len(b))
    a = a[:n].astype(np.float64)
    b = b[:n].astype(np.float64)
    denom = float(np.sqrt(np.sum(a * a) * np.sum(b * b)))
    return float(np.sum(a * b) / denom) if denom else 0.0


def windowed_correlations(
    recording: np.ndarray, reference: np.ndarray, lag: int, window: int, *, loudness: float = 0.2
) -> list[float]:
    """Correlation per window at one fixed lag, for the loud windows of the reference.

    ``loudness`` is the share of the loudest window's RMS a window needs to count.

    A block lost or duplicated anywhere shifts everything after it, so the windows after
    the gap no longer line up and their correlation collapses.
    """
    result = []
    for start in _loud_windows(reference, window, loudness):
        ref = reference[start : start + window]
        rec = recording[lag + start : lag + start + window]
        result.append(normalised_correlation(rec, ref))
    return result


def _loud_windows(reference: np.ndarray, window: int, loudness: float) -> list[int]:
    """Where the windows of ``reference`` start whose RMS is ``loudness`` of the loudest's."""
    starts = range(0, len(reference) - window + 1, window)
    rms = [
        float(np.sqrt(np.mean(reference[i : i + window].astype(np.float64) ** 2))) for i in starts
    ]
    threshold = loudness * max(rms)
    return [start for start, level in zip(starts, rms, strict=True) if level >= threshold]


def energy(samples: np.ndarray) -> float:
    """Sum of squares as float."""
    return float(np.sum(samples.astype(np.float64) ** 2))


GAP_PER_UNDERFLOW_S = 2.5
"""The most silence one device underflow is allowed to have put into a recording.

On an idle PulseAudio null sink PortAudio's callbacks can stop for ~2 s after an underflow
(bench/stall_probe.py); with no underflow, no gap at all is allowed.
"""

LOSS_PER_UNDERFLOW_S = 0.02
"""The most audio one device underflow is allowed to have lost: a device buffer (15 ms).

ALSA recovers an underrun with ``snd_pcm_prepare``, and the PulseAudio plugin's prepare
disconnects its stream and connects a new one (alsa-plugins ``pulse/pcm_pulse.c``,
``pulse_prepare``): what was written after the underrun and before the recovery, at most
the device buffer, is dropped with the old stream. Seen once in CI: 5 ms lost at an
underflow of ``tests/audio/test_playback.py``'s flush test (2026-12-07).
"""

LAG_TOLERANCE = 2
"""Samples a window's lag may sit before the previous window's (resampling's fraction)."""


def _local_lag(recording: np.ndarray, window: np.ndarray, lo: int, hi: int) -> int:
    """The lag in ``[lo, hi]`` where ``window`` matches ``recording`` best.

    Best by normalised correlation, not the raw product: voiced speech repeats every pitch
    period, and a raw peak a period away on louder audio would beat the true lag.
    """
    segment = recording[lo : hi + len(window)]
    count = len(segment) - len(window) + 1
    if count <= 0:
        return lo
    size = 1 << int(np.ceil(np.log2(len(segment) + len(window))))
    corr = np.fft.irfft(np.fft.rfft(segment, size) * np.conj(np.fft.rfft(window, size)), size)
    squares = np.concatenate(([0.0], np.cumsum(segment * segment)))
    energies = squares[len(window) :] - squares[:count]
    wanted = float(np.sum(window * window))
    # Near-silence cannot hold the window; leaving it out also keeps the division sane.
    audible = energies > wanted * 1e-3
    score = np.where(audible, corr[:count] / np.sqrt(np.maximum(energies, 1e-12) * wanted), -2.0)
    return lo + int(np.argmax(score))


def aligned_windows(
    recording: np.ndarray,
    reference: np.ndarray,
    window: int,
    *,
    max_shift: int,
    loudness: float = 0.2,
) -> list[tuple[int, float]]:
    """Each loud window of ``reference`` found on its own in ``recording``: (lag, correlation).

    Unlike windowed_correlations, every window looks for its own lag, within ``max_shift``
    samples (and a window more on the early side) of the previous window's: a device underflow puts
    silence into the recording and moves everything after it later, without the audio the
    app handed over being wrong. A lag that moves earlier means audio was lost; one that
    moves later with no underflow to explain it means audio was repeated or delayed.
    """
    rec = recording.astype(np.float64)
    ref = reference.astype(np.float64)
    first_lag, _ = best_lag(recording, reference)
    found: list[tuple[int, float]] = []
    previous: int | None = None
    for start in _loud_windows(reference, window, loudness):
        part = ref[start : start + window]
        if previous is None:
            # The whole-signal lag is one stretch's; the first stretch sits at or before it.
            lo, hi = 0, first_lag
        else:
            lo, hi = max(0, previous - max_shift - window), previous + max_shift
        hi = max(lo, min(hi, len(rec) - start - window))
        lag = _local_lag(rec[start:], part, lo, hi)
        found.append((lag, normalised_correlation(rec[start + lag : start + lag + window], part)))
        previous = lag
    return found


def assert_heard_intact(
    recording: np.ndarray,
    reference: np.ndarray,
    *,
    rate: int,
    device_underflows: int,
    ordered: bool = True,
) -> list[tuple[int, float]]:
    """Assert that the recording holds all of ``reference``, in order, gaps only for underflows.

    Every 100 ms window of the reference must be in the recording. With no device underflow
    the stretch is one piece (every window at the same lag, each correlating above 0.7, the
    median above 0.97). Each underflow may have put up to GAP_PER_UNDERFLOW_S of silence in,
    and lost up to LOSS_PER_UNDERFLOW_S of audio, which can spoil the two windows either
    side of it; the rest must still match.

    ``ordered``: check the lags too (speech). A pure tone looks the same a period later, so
    for tones only the windows' correlations count.

    Returns:
        The (lag, correlation) of each window, for a test's log or further checks.
    """
    window = rate // 10
    gap = int(GAP_PER_UNDERFLOW_S * rate)
    loss = int(LOSS_PER_UNDERFLOW_S * rate)
    windows = aligned_windows(
        recording, reference, window, max_shift=gap * device_underflows + LAG_TOLERANCE
    )
    correlations = [r for _lag, r in windows]
    said = (
        f"device underflows {device_underflows}, lags {[lag for lag, _ in windows]}, "
        f"correlations {np.round(correlations, 2)}"
    )
    assert windows, "the reference has no loud window"
    assert float(np.median(correlations)) > 0.97, f"the speaker got something else ({said})"
    spoiled = [r for r in correlations if r <= 0.7]
    assert len(spoiled) <= 2 * device_underflows, f"{len(spoiled)} windows do not match ({said})"
    if ordered:
        lags = [lag for lag, r in windows if r >= 0.9]
        for before, after in itertools.pairwise(lags):
            assert after >= before - loss * device_underflows - LAG_TOLERANCE, (
                f"audio went missing ({said})"
            )
        assert lags[-1] - lags[0] <= gap * device_underflows + LAG_TOLERANCE, (
            f"more audio than the underflows explain ({said})"
        )
    return windows
