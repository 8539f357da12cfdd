"""What the speaker's callback played, batched and queued for the loop's bookkeeping.

Every block handed to the device (silence too) goes back to the loop, where it feeds the echo
canceller as the far-end reference and the output level meter, and where the jitter buffer
learns what the device has taken. Waking the loop costs (with qasync, a queued Qt signal and
a zero timer per wake-up), so the callback queues its blocks in batches of about 10 ms and
wakes the loop for every third batch, or at once when something changes (sound starts or
stops, a flush) and for a new stream's first batches, so the loop's bookkeeping stays exact
and its timing within 30 ms.

While the microphone is live it hands a block to the loop every 10 ms anyway, and the
capture then takes the speaker's reports first (:meth:`PlayedReports.pumped`, see
:meth:`~sammy_desktop.audio.playback.AudioPlayback.pump`); the callback then stops waking
the loop for steady-state batches: one wake-up per 10 ms for both directions instead of two.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable, Iterator
from typing import Any, Final, NamedTuple

__all__ = ["PlayedReport", "PlayedReports"]

# How recently the capture must have pumped the reports for the callback to rely on it.
# Two and a half capture blocks: a late hand-off or two do not make the callback post.
_PUMP_FRESH_S: Final = 0.025
_REPORT_MS: Final = 10
# Steady batches nobody pumps wake the loop every third: 33 wake-ups a second while an answer
# plays with the microphone closed, instead of 100. Changes still wake it at once.
_REPORTS_PER_WAKEUP: Final = 3


class PlayedReport(NamedTuple):
    """A batch of blocks the device callback played."""

    generation: int
    """The stream generation of the callback (reports of a replaced stream are stale)."""
    flush_generation: int
    """The jitter buffer's flush generation the callback copied speech of."""
    written: int
    """Bytes of speech in the batch (the rest is silence, and maybe effects)."""
    played: bytes | None
    """What was played, or ``None`` when the batch was all silence."""
    frames: int
    """Samples in the batch."""
    dac_delay: float
    """Seconds from the callback until its block reaches the speaker (PortAudio's clock);
    0 when not known (a batch queued after the stream stopped)."""
    stamp: float
    """When the batch was queued, on the reports' clock."""


class _PlayedBatch:
    """Blocks played by the callback and not yet reported to the loop (callback thread)."""

    __slots__ = (
        "audible",
        "blocks",
        "data",
        "flush_generation",
        "frames",
        "last_written",
        "written",
    )

    def __init__(self) -> None:
        self.data = bytearray()
        self.blocks = 0
        self.written = 0
        self.frames = 0
        self.flush_generation = 0
        self.last_written = 0
        self.audible = False  # speech or an effect in the batch (else all silence)

    def add(
        self, outdata: Any, written: int, frames: int, flush_generation: int, *, effect: bool
    ) -> None:
        self.data += outdata
        self.blocks += 1
        self.written += written
        self.frames += frames
        self.flush_generation = flush_generation
        self.last_written = written
        self.audible = self.audible or written > 0 or effect

    def clear(self) -> None:
        self.data.clear()
        self.blocks = 0
        self.written = 0
        self.frames = 0
        self.audible = False


class PlayedReports:
    """The callback's played blocks on their way to the loop.

    Threading: :meth:`add` runs on the device callback's thread; :meth:`take` and
    :meth:`pumped` on the loop. The queue between them is a deque (atomic append and
    popleft); the batch belongs to the callback, the pump time to the loop.

    Args:
        block_ms: the device callback period (blocks of it make one report of ~10 ms).
        clock: stamps the reports; the loop's bookkeeping compares these stamps with its own.

    Attributes:
        loop_wakeups: times :meth:`add` asked for the loop to be woken (written by the
            callback thread only).
    """

    def __init__(self, block_ms: int, *, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._batch = _PlayedBatch()
        self._blocks_per_report = max(1, _REPORT_MS // block_ms)
        self._reports: collections.deque[PlayedReport] = collections.deque()
        self._pumped_at = 0.0  # when the capture last took the reports (written by the loop)
        # The stream generation of the latest block, and how many reports of a new stream
        # still wake the loop each (callback thread).
        self._generation = -1
        self._new_stream_reports = 0
        self.loop_wakeups = 0

    def add(
        self,
        generation: int,
        outdata: Any,
        written: int,
        frames: int,
        flush_generation: int,
        *,
        effect: bool,
        time_info: Any,
    ) -> bool:
        """Note one block the callback has just filled (device thread).

        Args:
            generation: the stream generation of the callback.
            outdata: the block as handed to the device.
            written: bytes of speech in it.
            frames: samples in it.
            flush_generation: the flush generation the speech was copied from.
            effect: whether an effect was mixed into it.
            time_info: PortAudio's timing of this callback.

        Returns:
            Whether the loop must be woken to take the reports (nobody pumps them soon).
        """
        batch = self._batch
        if generation != self._generation:
            self._generation = generation
            self._new_stream_reports = _REPORTS_PER_WAKEUP
        changed = flush_generation != batch.flush_generation or (written > 0) != (
            batch.last_written > 0
        )
        if changed and batch.blocks:
            self._queue(generation, time_info)
        batch.add(outdata, written, frames, flush_generation, effect=effect)
        if not changed and batch.blocks < self._blocks_per_report:
            return False
        self._queue(generation, time_info)
        starting = self._new_stream_reports > 0
        if starting:
            # A new stream's first reports each wake the loop: they tell it the stream runs
            # (the stall watchdog; a switch or a recovery announced once the open is done).
            self._new_stream_reports -= 1
        if (
            changed
            or starting
            or (
                self._clock() - self._pumped_at > _PUMP_FRESH_S
                and len(self._reports) >= _REPORTS_PER_WAKEUP
            )
        ):
            self.loop_wakeups += 1
            return True
        return False

    def stream_stopped(self) -> None:
        """The stream has stopped: queue the blocks still batched as their own report (loop).

        Called only while no callback runs (a paused stream), so the batch is the loop's
        for that moment. Without it the last blocks played before a rest would reach the
        loop with the first report after it, stamped as new.
        """
        if self._batch.blocks:
            self._queue(self._generation, None)

    def pumped(self, now: float) -> None:
        """The capture is taking the reports now, and will again with its next block (loop)."""
        self._pumped_at = now

    def take(self) -> Iterator[PlayedReport]:
        """The queued reports, oldest first, each removed as it is handed out (loop)."""
        reports = self._reports
        while reports:
            yield reports.popleft()

    def _queue(self, generation: int, time_info: Any | None) -> None:
        batch = self._batch
        self._reports.append(
            PlayedReport(
                generation,
                batch.flush_generation,
                batch.written,
                bytes(batch.data) if batch.audible else None,
                batch.frames,
                0.0
                if time_info is None
                else float(time_info.outputBufferDacTime - time_info.currentTime),
                self._clock(),
            )
        )
        batch.clear()
