"""Hands-free: the quiet microphone goes to the service in 100 ms chunks, speech in 10 ms ones.

Hands-free streams the open microphone all the time, and each message costs the same
whatever it carries: a pydantic model, base64, JSON, a websocket frame and a TLS record,
then a wake-up of the sender. At one message per 10 ms block that was the biggest part of
the idle hands-free app's CPU (issue 23). While nobody speaks nothing waits on those blocks,
so :class:`QuietAudioJoiner` joins them into chunks of up to :data:`QUIET_CHUNK_MS`, inside
the 50-100 ms Google's ADK guide calls balanced (docs/live-service.md S9).

Speech is never held back:

* the first loud block (RMS at or above :data:`LOUD_DBFS`) sends whatever quiet audio is
  waiting at once, then itself: the start of speech reaches the service on time;
* after a loud block, every block goes alone for the service's silence duration plus
  :data:`HANGOVER_MARGIN_MS`, so the silence that ends the turn (the service's voice
  detection waits ``silence_duration_ms`` for it) arrives block by block, as before;
* anything else queued (audioStreamEnd, text, activity markers) goes after what is waiting
  (:meth:`QuietAudioJoiner.flush`), in order.

Time is counted in audio (bytes), never a clock: a block delivered late does not change
which chunk it goes in, and nothing here needs a timer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from sammy_desktop.audio.levels import rms_dbfs
from sammy_desktop.core.live import RealtimeInput, RealtimeKind
from sammy_desktop.wire_audio import (
    INPUT_RATE,
    SAMPLE_WIDTH,
    SPEECH_DBFS,
    SPEECH_HANGOVER_MARGIN_MS,
)

__all__ = ["HANGOVER_MARGIN_MS", "LOUD_DBFS", "QUIET_CHUNK_MS", "QuietAudioJoiner"]

QUIET_CHUNK_MS: Final = 100
"""The longest chunk of quiet audio (the largest of the ADK guide's balanced sizes)."""

LOUD_DBFS: Final = SPEECH_DBFS
"""A block at or above this RMS level may be speech, and goes at once (see SPEECH_DBFS)."""

HANGOVER_MARGIN_MS: Final = SPEECH_HANGOVER_MARGIN_MS
"""Added to the silence duration (see SPEECH_HANGOVER_MARGIN_MS)."""

_BYTES_PER_MS: Final = INPUT_RATE * SAMPLE_WIDTH // 1000


class QuietAudioJoiner:
    """Joins quiet microphone blocks into larger realtime audio messages (module docstring).

    Args:
        put: where the messages go (the outbox's ``put``).
        silence_ms: the service's silence duration now (``silence_duration_ms``).
        chunk_ms: the longest chunk of quiet audio.
        loud_dbfs: the level from which a block goes at once.
    """

    def __init__(
        self,
        put: Callable[[RealtimeInput], object],
        silence_ms: Callable[[], int],
        *,
        chunk_ms: int = QUIET_CHUNK_MS,
        loud_dbfs: float = LOUD_DBFS,
    ) -> None:
        if chunk_ms <= 0:
            raise ValueError("chunk_ms must be positive")
        self._put = put
        self._silence_ms = silence_ms
        self._chunk_bytes = chunk_ms * _BYTES_PER_MS
        self._loud_dbfs = loud_dbfs
        self._waiting: list[bytes] = []
        self._waiting_bytes = 0
        self._hangover_bytes = 0  # audio still sent block by block after the last loud one

    @property
    def waiting_bytes(self) -> int:
        """Bytes of quiet audio held for the next chunk."""
        return self._waiting_bytes

    def audio(self, pcm16k: bytes) -> None:
        """One microphone block (PCM16 LE mono 16 kHz)."""
        if self._is_loud(pcm16k):
            self._hangover_bytes = (self._silence_ms() + HANGOVER_MARGIN_MS) * _BYTES_PER_MS
        elif self._hangover_bytes > 0:
            self._hangover_bytes -= len(pcm16k)
        else:
            self._waiting.append(pcm16k)
            self._waiting_bytes += len(pcm16k)
            if self._waiting_bytes >= self._chunk_bytes:
                self.flush()
            return
        self.flush()
        self._put(RealtimeInput(RealtimeKind.AUDIO, audio=pcm16k))

    def flush(self) -> None:
        """Queue the quiet audio held so far as one message (before anything queued next)."""
        if not self._waiting:
            return
        joined = self._waiting[0] if len(self._waiting) == 1 else b"".join(self._waiting)
        self._waiting.clear()
        self._waiting_bytes = 0
        self._put(RealtimeInput(RealtimeKind.AUDIO, audio=joined))

    def reset(self) -> None:
        """A new session: forget what is held, and the hangover."""
        self._waiting.clear()
        self._waiting_bytes = 0
        self._hangover_bytes = 0

    def _is_loud(self, pcm16k: bytes) -> bool:
        samples = np.frombuffer(pcm16k, dtype="<i2", count=len(pcm16k) // SAMPLE_WIDTH)
        return rms_dbfs(samples) >= self._loud_dbfs
