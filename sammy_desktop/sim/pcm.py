"""PCM16 helpers for the simulator: model voices, resampling and a simple energy VAD.

The Live service takes 16 kHz PCM16 LE mono from the client and answers with 24 kHz PCM16 LE
mono (the rates are ``sammy_desktop.wire_audio``'s; see docs/live-service.md S5). The
simulator needs to make answer audio (a tone, a WAV file, or an echo of what the person said
resampled 16 -> 24 kHz with soxr), cut it into chunks, and notice when the person stops
speaking in hands-free mode (an RMS threshold with a silence hang time).
"""

from __future__ import annotations

import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soxr

from sammy_desktop.wire_audio import INPUT_RATE, OUTPUT_RATE, SAMPLE_WIDTH

__all__ = [
    "EnergyVad",
    "VadSettings",
    "chunk_pcm",
    "pcm_rms",
    "read_wav_pcm",
    "resample_pcm16",
    "tone_pcm",
    "trim_silence",
]

_BYTES_PER_SAMPLE = SAMPLE_WIDTH


def _samples(pcm: bytes) -> np.ndarray:
    usable = len(pcm) - len(pcm) % _BYTES_PER_SAMPLE
    return np.frombuffer(pcm[:usable], dtype="<i2")


def tone_pcm(
    frequency_hz: float,
    duration_s: float,
    *,
    sample_rate: int = OUTPUT_RATE,
    amplitude: float = 0.3,
) -> bytes:
    """Return a sine tone as PCM16 LE mono.

    Args:
        frequency_hz: Pitch of the tone.
        duration_s: Length in seconds.
        sample_rate: Samples per second.
        amplitude: Peak level from 0 to 1.
    """
    count = max(0, round(duration_s * sample_rate))
    times = np.arange(count, dtype=np.float64) / sample_rate
    wave_ = amplitude * np.sin(2 * np.pi * frequency_hz * times)
    return (np.clip(wave_, -1.0, 1.0) * 32767).astype("<i2").tobytes()


def resample_pcm16(pcm: bytes, from_rate: int, to_rate: int) -> bytes:
    """Resample PCM16 LE mono with soxr (high quality)."""
    if from_rate == to_rate or not pcm:
        return pcm
    samples = _samples(pcm)
    resampled = soxr.resample(samples, from_rate, to_rate)
    return np.asarray(resampled, dtype="<i2").tobytes()


def read_wav_pcm(path: Path, *, to_rate: int = OUTPUT_RATE) -> bytes:
    """Read a 16-bit PCM WAV file as mono PCM16 LE at ``to_rate``.

    Stereo and multi-channel files are mixed down.

    Raises:
        ValueError: When the file is not 16-bit PCM WAV (the message names the file).
        OSError: When the file cannot be read.
    """
    try:
        with wave.open(str(path), "rb") as reader:
            width = reader.getsampwidth()
            channels = reader.getnchannels()
            rate = reader.getframerate()
            frames = reader.readframes(reader.getnframes())
    except wave.Error as error:
        raise ValueError(f"{path} is not a PCM WAV file: {error}") from error
    if width != _BYTES_PER_SAMPLE:
        raise ValueError(f"{path} has {width * 8}-bit samples; the simulator plays 16-bit WAV")
    samples = _samples(frames)
    if channels > 1:
        mixed = samples.reshape(-1, channels).astype(np.int32).mean(axis=1)
        samples = mixed.astype("<i2")
    return resample_pcm16(samples.tobytes(), rate, to_rate)


def pcm_rms(pcm: bytes) -> float:
    """Return the RMS level of PCM16 samples (0 for empty input)."""
    samples = _samples(pcm)
    if samples.size == 0:
        return 0.0
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))


def chunk_pcm(pcm: bytes, chunk_bytes: int) -> list[bytes]:
    """Cut PCM into chunks of at most ``chunk_bytes`` (rounded down to whole samples)."""
    size = max(_BYTES_PER_SAMPLE, chunk_bytes - chunk_bytes % _BYTES_PER_SAMPLE)
    return [pcm[start : start + size] for start in range(0, len(pcm), size)]


@dataclass(frozen=True, slots=True, kw_only=True)
class VadSettings:
    """Tuning of the simulator's energy voice activity detector.

    Attributes:
        threshold_rms: A 20 ms frame louder than this (PCM16 RMS) counts as speech; 500 is
            about -36 dBFS, well above a quiet room and below normal speech.
        silence_ms: Silence after speech that ends the utterance.
        frame_ms: Analysis frame length.
    """

    threshold_rms: float = 500.0
    silence_ms: int = 700
    frame_ms: int = 20


class EnergyVad:
    """Detects the end of an utterance in a stream of audio chunks.

    Feed chunks with :meth:`feed`; it returns True once per utterance, when ``silence_ms``
    of quiet follows speech.

    Args:
        settings: Thresholds and timings.
        sample_rate: Rate of the fed audio.
    """

    def __init__(self, settings: VadSettings, sample_rate: int = INPUT_RATE) -> None:
        self._settings = settings
        self._sample_rate = sample_rate
        self._pending = b""
        self._in_speech = False
        self._silent_ms = 0.0

    @property
    def in_speech(self) -> bool:
        """True between the first loud frame and the end of the utterance."""
        return self._in_speech

    def reset(self) -> None:
        """Forget any partial utterance."""
        self._pending = b""
        self._in_speech = False
        self._silent_ms = 0.0

    def feed(self, pcm: bytes, sample_rate: int | None = None) -> bool:
        """Analyse a chunk; return True if an utterance ended inside it."""
        if sample_rate is not None and sample_rate != self._sample_rate:
            self._sample_rate = sample_rate
            self._pending = b""
        frame_bytes = self._sample_rate * self._settings.frame_ms // 1000 * _BYTES_PER_SAMPLE
        data = self._pending + pcm
        ended = False
        offset = 0
        while offset + frame_bytes <= len(data):
            loud = pcm_rms(data[offset : offset + frame_bytes]) >= self._settings.threshold_rms
            offset += frame_bytes
            if loud:
                self._in_speech = True
                self._silent_ms = 0.0
            elif self._in_speech:
                self._silent_ms += self._settings.frame_ms
                if self._silent_ms >= self._settings.silence_ms:
                    self._in_speech = False
                    self._silent_ms = 0.0
                    ended = True
        self._pending = data[offset:]
        return ended

    def end_of_stream(self) -> bool:
        """The client paused its stream: an utterance in progress ends now."""
        was_speaking = self._in_speech
        self.reset()
        return was_speaking


def trim_silence(
    pcm: bytes, *, sample_rate: int, threshold_rms: float, padding_ms: int = 100
) -> bytes:
    """Cut leading and trailing quiet frames, keeping ``padding_ms`` around the speech.

    Returns the input unchanged when no frame is loud enough, so quiet microphones still
    get their audio echoed.
    """
    frame = sample_rate // 50 * _BYTES_PER_SAMPLE  # 20 ms
    loud = [
        index
        for index, start in enumerate(range(0, len(pcm), frame))
        if pcm_rms(pcm[start : start + frame]) >= threshold_rms
    ]
    if not loud:
        return pcm
    pad = sample_rate * padding_ms // 1000 * _BYTES_PER_SAMPLE
    start = max(0, loud[0] * frame - pad)
    end = min(len(pcm), (loud[-1] + 1) * frame + pad)
    return pcm[start:end]
