"""Test signals for the audio tests: espeak-ng speech, tones, and how to compare recordings."""

from __future__ import annotations

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
    starts = range(0, len(reference) - window + 1, window)
    rms = [
        float(np.sqrt(np.mean(reference[i : i + window].astype(np.float64) ** 2))) for i in starts
    ]
    threshold = loudness * max(rms)
    result = []
    for start, level in zip(starts, rms, strict=True):
        ref = reference[start : start + window]
        if level < threshold:
            continue
        rec = recording[lag + start : lag + start + window]
        result.append(normalised_correlation(rec, ref))
    return result


def energy(samples: np.ndarray) -> float:
    """Sum of squares as float."""
    return float(np.sum(samples.astype(np.float64) ** 2))
