"""The echo canceller's own delay: a tone burst through :class:`EchoCanceller`, in process.

    .venv/bin/python bench/apm_delay.py

WebRTC's audio processing module hands each 10 ms frame back at once, but the sound in it is
older: AEC3 and the noise suppressor each hold some back (see sammy_desktop/audio/echo.py).
This is the floor echo cancellation adds to the click-in -> echo-out path whatever the app
does around it, shown as its own rows in ``make bench``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sammy_desktop.audio.echo import EchoCanceller  # noqa: E402
from sammy_desktop.wire_audio import INPUT_RATE, OUTPUT_RATE  # noqa: E402

FRAME = INPUT_RATE // 100
FRAME_24K = OUTPUT_RATE // 100
LOUD = 2000


def delay_ms(*, noise_suppression: bool, playing: bool = True, offset: int = 37) -> float:
    """Milliseconds from a burst's first sample into the canceller to its first one out.

    Args:
        noise_suppression: with the noise suppressor (hands-free) or without (push-to-talk).
        playing: the speaker plays (the echo canceller runs) or nothing has for a while
            (only the light module runs).
        offset: where in its 10 ms frame the burst starts, in samples.
    """
    canceller = EchoCanceller(noise_suppression=noise_suppression)
    total = INPUT_RATE * 2
    mic = np.random.default_rng(5).normal(0, 20, total)
    onset = INPUT_RATE + offset
    mic[onset : onset + FRAME] += 8000 * np.sin(2 * np.pi * 1000 * np.arange(FRAME) / INPUT_RATE)
    played = np.zeros(FRAME_24K, dtype=np.int16).tobytes()
    out = bytearray()
    for frame in range(total // FRAME):
        canceller.process_render(played if playing else None, OUTPUT_RATE, FRAME_24K)
        chunk = np.round(mic[frame * FRAME : (frame + 1) * FRAME]).astype(np.int16)
        out += canceller.process_capture(chunk.tobytes())
    processed = np.frombuffer(bytes(out), dtype=np.int16).astype(np.int32)
    loud = np.flatnonzero(np.abs(processed) > LOUD)
    return float((loud[0] - onset) * 1000 / INPUT_RATE)


def measure() -> dict[str, float]:
    """The delay of each configuration the app runs, in milliseconds."""
    return {
        "push_to_talk": delay_ms(noise_suppression=False),
        "hands_free": delay_ms(noise_suppression=True),
        "push_to_talk_idle": delay_ms(noise_suppression=False, playing=False),
        "hands_free_idle": delay_ms(noise_suppression=True, playing=False),
    }


def main() -> int:
    print(json.dumps(measure()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
