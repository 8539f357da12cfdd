"""The Live API's audio formats: what goes up from the microphone, what comes down to play.

One place for the numbers every layer needs (the audio engine resamples to and from them,
the core labels what it sends, the simulator checks and produces them, the self-test
compares against them). The service documents both formats: input is raw little-endian
16-bit PCM, mono, at 16 kHz; output is the same at 24 kHz (see docs/live-service.md).

This module sits at the bottom of the layer stack, beside the event bus, because the
layers that use it (``audio``, ``core``, ``sim``) must not import each other for it.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "INPUT_MIME",
    "INPUT_RATE",
    "OUTPUT_MIME",
    "OUTPUT_RATE",
    "SAMPLE_WIDTH",
    "SPEECH_DBFS",
    "SPEECH_HANGOVER_MARGIN_MS",
    "pcm_mime",
]

SAMPLE_WIDTH: Final = 2
"""Bytes per sample: signed 16-bit little-endian, one channel, both directions."""

INPUT_RATE: Final = 16_000
"""Samples per second of the microphone audio the service takes."""

OUTPUT_RATE: Final = 24_000
"""Samples per second of the model's voice."""

SPEECH_DBFS: Final = -50.0
"""A microphone block at or above this RMS level may be speech: it is never held back.

Speech at a microphone is -35 to -20 dBFS; a quiet room after the echo canceller's noise
suppression is below -60. A noisy room above this only loses the savings of holding quiet
audio back (the capture's hand-offs, the core's larger chunks), never speech.
"""

SPEECH_HANGOVER_MARGIN_MS: Final = 500
"""After speech, quiet audio goes on unheld for the service's silence duration plus this.

The silence that ends a hands-free turn must reach the service's voice detection block by
block, as it comes; its idea of where speech ended may lie a little after ours (a soft last
syllable under :data:`SPEECH_DBFS`).
"""


def pcm_mime(rate: int) -> str:
    """The MIME type of raw PCM16 mono audio at ``rate`` (``audio/pcm;rate=16000``)."""
    return f"audio/pcm;rate={rate}"


INPUT_MIME: Final = pcm_mime(INPUT_RATE)
"""The MIME type the app labels microphone audio with."""

OUTPUT_MIME: Final = pcm_mime(OUTPUT_RATE)
"""The MIME type the service labels the model's audio with."""
