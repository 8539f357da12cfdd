"""The speaker's standby: when its stream may rest, and how it wakes without a gap.

An output stream that plays silence still costs a few percent of a core (PortAudio's thread
and the sound server's wake up every period). So once nothing has been queued or audible for
``standby_after_ms``, the owner pauses the stream (kept open, no callbacks); playing starts it
again in a few milliseconds.

Waking: a started stream's device buffer is empty, and PortAudio fills it from the callback in
one burst. The callback answers that burst with silence (:meth:`SpeakerStandby.priming`), so
the speech that follows sits behind the same device buffer of silence as on a running stream:
same latency, and the queue is taken at the rate it plays from the first callback on, as on a
running stream, when the model's audio arrives no faster than it plays (taking the burst from
the queue would run it dry that much early: a gap before the next chunk; the cushion against
a late chunk is the jitter buffer's wait, :attr:`~.jitter.JitterBuffer.paced`). Where answers come
in bursts ahead of real time (:mod:`~sammy_desktop.audio.pace`) the owner does not ask for
the priming: the answer's first frame fills the device buffer with time to spare.

A stream woken by an answer that came in bursts starts with the answer's first frames, and
the sound server plays nothing until its buffer holds a few of the callback's blocks (the
ALSA plugin's start threshold): the first sample waits for the second, third and fourth
callback as much as for the first. Each needs Python's GIL, which the loop holds while it
parses the rest of the burst, so each could wait a switch interval (5 ms). The loop waits
for them instead (:class:`FirstFill`), a few milliseconds at most, with the GIL released.

The echo reference: while the stream rests nothing reaches the echo canceller from the
callback, so :meth:`SpeakerStandby.silent_reference_frames` says how much silence to feed it
instead, keeping its view of time continuous.
"""

from __future__ import annotations

import math
import threading

__all__ = ["FirstFill", "SpeakerStandby"]


class SpeakerStandby:
    """When the speaker's stream may rest, and what a woken stream plays first.

    Threading: :meth:`priming` runs on the device callback's thread, everything else on the
    loop. The priming request is a count and a request number written by the loop; the
    callback keeps the number it has seen and what is left, so no lock is needed.

    Args:
        standby_after_ms: rest after this long with nothing played or queued; ``None``
            never rests.
        block_ms: the device callback period.
    """

    def __init__(self, standby_after_ms: int | None, *, block_ms: int) -> None:
        if standby_after_ms is not None and standby_after_ms < 0:
            raise ValueError(f"standby_after_ms must not be negative (got {standby_after_ms})")
        self._after_s = None if standby_after_ms is None else standby_after_ms / 1000
        self._block_ms = block_ms
        self._busy_at = 0.0  # the last time something was queued or audible (loop)
        self._reference_at = 0.0  # how far the echo canceller's reference reaches (loop)
        # Silence to prime a resumed stream with: requested by the loop (count, then the
        # request number), taken by the callback (the number it has seen, what is left).
        self._prime_blocks = 0
        self._prime_request = 0
        self._prime_seen = 0
        self._prime_left = 0

    def busy(self, until: float) -> None:
        """Something is queued or audible, or expected, until ``until`` (loop)."""
        self._busy_at = max(self._busy_at, until)

    def may_rest_at(self, stamp: float) -> bool:
        """Whether the stream has been idle long enough at ``stamp`` to rest (loop)."""
        return self._after_s is not None and stamp - self._busy_at >= self._after_s

    def waking(self, output_latency_s: float) -> None:
        """A resting stream is about to start: prime it with a device buffer of silence (loop).

        Args:
            output_latency_s: how much the device buffer holds, as the stream last reported.
        """
        self._prime_blocks = max(1, math.ceil(output_latency_s * 1000 / self._block_ms))
        self._prime_request += 1

    def priming(self) -> bool:
        """Whether this callback plays silence to prime a woken stream (device thread)."""
        if self._prime_request != self._prime_seen:
            self._prime_seen = self._prime_request
            self._prime_left = self._prime_blocks
        if self._prime_left > 0:
            self._prime_left -= 1
            return True
        return False

    def stream_stopped(self, now: float) -> None:
        """The stream has just stopped, its played blocks all reported up to ``now`` (loop).

        The rest's silence for the reference counts from here: counted from the last pump
        instead, the blocks played between it and the stop would reach the canceller twice.
        """
        self._reference_at = now

    def silent_reference_frames(self, now: float, rate: int, *, resting: bool) -> int:
        """How many samples of silence the echo canceller's reference needs up to ``now`` (loop).

        Called whenever the capture is about to process a microphone block. While the
        stream runs its callbacks feed the reference, so none is needed.

        Args:
            now: the time, on the clock the callbacks stamp their blocks with.
            rate: the output device's rate.
            resting: whether the stream rests now.
        """
        if not resting:
            self._reference_at = now
            return 0
        frames = round((now - self._reference_at) * rate)
        if frames > rate // 10:
            # Not pumped for a while (the microphone rested too): the canceller is idle by
            # now and only needs the reference to go on from here.
            frames, self._reference_at = rate // 10, now
        if frames > 0:
            self._reference_at += frames / rate
        return max(0, frames)


class FirstFill:
    """Lets the loop wait until a woken stream's device buffer holds the answer's first frames.

    Measured in the app (bench/live_audio.py, answers after a 300 ms think, 2026-12-06): the
    resting speaker's first callback came 1 ms after its start, and the next three 1-3 ms
    later, once the loop, parsing the burst's later messages, let go of the GIL; with the
    loop waiting here the four came within 2 ms of the start, together.

    Threading: :meth:`arm`, :meth:`wait` and :meth:`disarm` on the loop, :meth:`played` on
    the device callback's thread. The count is written by the loop before the stream starts
    and only counted down by the callback after that, so no lock is needed.
    """

    def __init__(self) -> None:
        self._left = 0
        self._done = threading.Event()
        self._done.set()

    def arm(self, frames: int) -> None:
        """The stream is about to start for an answer: wait for ``frames`` to be handed over."""
        self._done.clear()
        self._left = max(1, frames)

    def played(self, frames: int) -> None:
        """The callback handed ``frames`` to the device (device thread)."""
        if self._left > 0:
            self._left -= frames
            if self._left <= 0:
                self._done.set()

    def wait(self, timeout_s: float) -> bool:
        """Block until the frames are handed over, or ``timeout_s`` has passed (loop).

        Returns:
            Whether they were.
        """
        try:
            return self._done.wait(timeout_s)
        finally:
            self.disarm()

    def disarm(self) -> None:
        """Stop counting (what is left no longer matters)."""
        self._left = 0
        self._done.set()
