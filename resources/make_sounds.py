"""Remake the earcons and the test tone in ``resources/sounds/`` (stdlib only).

Run ``python resources/make_sounds.py`` after changing a sound below. Every file is 16-bit
mono PCM at 24 kHz, the rate the app plays the assistant's voice at, so no resampling is
needed. The earcons are soft (peak about -18 dBFS), short (under 150 ms) and shaped with a
raised-cosine envelope so they start and stop without a click.
"""

from __future__ import annotations

import math
import struct
import wave
from dataclasses import dataclass
from pathlib import Path

SAMPLE_RATE = 24_000
OUT_DIR = Path(__file__).resolve().parent / "sounds"


@dataclass(frozen=True)
class Sound:
    """One sound: a pitch glide with a soft overtone.

    Attributes:
        name: the file name without ``.wav``.
        duration_s: length in seconds.
        start_hz: pitch at the start.
        end_hz: pitch at the end (a glide up says "start", down says "stop").
        peak_dbfs: loudest sample level.
        fade_s: length of the fade in and fade out.
    """

    name: str
    duration_s: float
    start_hz: float
    end_hz: float
    peak_dbfs: float = -18.0
    fade_s: float = 0.03


SOUNDS = (
    Sound("listen_start", 0.11, 587.33, 783.99),
    Sound("listen_stop", 0.11, 783.99, 523.25),
    Sound("test_tone", 1.0, 440.0, 440.0, peak_dbfs=-16.0, fade_s=0.05),
    # Not a listening earcon: a timer ending may be heard from across the room.
    Sound("timer_done", 0.4, 659.25, 987.77, peak_dbfs=-14.0, fade_s=0.08),
)


def render(sound: Sound) -> bytes:
    """The sound as little-endian 16-bit PCM."""
    count = round(sound.duration_s * SAMPLE_RATE)
    peak = 32767 * 10 ** (sound.peak_dbfs / 20)
    fade = max(1, round(sound.fade_s * SAMPLE_RATE))
    phase = 0.0
    frames = bytearray()
    for i in range(count):
        progress = i / max(1, count - 1)
        freq = sound.start_hz + (sound.end_hz - sound.start_hz) * progress
        phase += 2 * math.pi * freq / SAMPLE_RATE
        # A quiet octave partial makes it rounder than a bare sine.
        value = 0.85 * math.sin(phase) + 0.15 * math.sin(2 * phase)
        edge = min(i, count - 1 - i)
        envelope = 0.5 - 0.5 * math.cos(math.pi * edge / fade) if edge < fade else 1.0
        frames += struct.pack("<h", round(peak * value * envelope))
    return bytes(frames)


def main() -> None:
    """Write every sound to :data:`OUT_DIR`."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for sound in SOUNDS:
        path = OUT_DIR / f"{sound.name}.wav"
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(SAMPLE_RATE)
            out.writeframes(render(sound))
        print(f"wrote {path} ({sound.duration_s * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
