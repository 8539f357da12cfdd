"""A jitter buffer driven by hand: the speaker's callback and its owner, played by the test.

No PortAudio and no real time: :class:`Device` does what the speaker's callback and the
loop's bookkeeping do with the buffer (fill a block, report it played), and the clock (a
:class:`~tests.helpers.clock.ManualScheduler`) moves only when the test says. Used by the
jitter buffer's own tests and by the bench's tests of the voice rounds.
"""

from __future__ import annotations

import numpy as np

from sammy_desktop.audio.jitter import JitterBuffer
from sammy_desktop.wire_audio import OUTPUT_RATE, SAMPLE_WIDTH
from tests.helpers.clock import ManualScheduler

__all__ = ["BLOCK_MS", "Device", "Listener", "make", "numbered_speech"]

BLOCK_MS = 5
"""The test device's callback period."""


def numbered_speech(ms: int, start: int = 1) -> bytes:
    """``ms`` of PCM16 at the wire rate whose samples count up from ``start`` (never 0)."""
    count = OUTPUT_RATE * ms // 1000
    return (np.arange(count, dtype=np.int64) % 30000 + start).astype(np.int16).tobytes()


class Device:
    """The speaker as the jitter buffer sees it: a callback every block, reported on the loop."""

    def __init__(self, buffer: JitterBuffer, scheduler: ManualScheduler) -> None:
        self.buffer = buffer
        self.scheduler = scheduler
        self.played = bytearray()  # what was handed to the device, silence included
        self.speech = bytearray()  # only the speech the buffer gave

    def block(self) -> int:
        """One callback and its report; the clock moves one period. Returns the speech bytes."""
        needed = self.buffer.rate * BLOCK_MS // 1000 * SAMPLE_WIDTH
        out = bytearray(needed)
        generation = self.buffer.generation
        written = self.buffer.fill(out, needed, generation)
        self.played += out
        self.speech += out[:written]
        self.buffer.played(generation, written, self.scheduler.time())
        self.scheduler.advance(BLOCK_MS / 1000)
        return written

    def run(self, ms: int) -> int:
        """``ms`` of callbacks; the speech bytes they took."""
        return sum(self.block() for _ in range(ms // BLOCK_MS))


class Listener:
    """What the buffer tells its owner."""

    def __init__(self) -> None:
        self.started = 0
        self.drained: list[bool] = []

    def on_started(self) -> None:
        self.started += 1

    def on_drained(self, interrupted: bool) -> None:
        self.drained.append(interrupted)


def make(scheduler: ManualScheduler, listener: Listener, **depths: int) -> JitterBuffer:
    """A buffer that reports to ``listener``, on ``scheduler``'s clock, with ``depths``."""
    return JitterBuffer(
        on_started=listener.on_started,
        on_drained=listener.on_drained,
        scheduler=scheduler,
        **depths,
    )
