"""The rig's stereo recording dated on ``time.monotonic()``, the clock of every other stamp.

The rig's ``parec`` recording (bench/pulse_rig.py) needs no clock: a latency is the distance
between two onsets in it. The voice rows need more. The talk key must go up a fixed time
after the speech has *reached the microphone*, and the feeder cannot say when that is: its
``pacat`` stream's latency into the virtual microphone's null sink is set anew for each
feeder and was measured 20-41 ms apart from one run to the next (2026-12-06, two runs of
the four voice runs each: the speech's end on the left -> activityEnd, 12 rounds' medians
of 30.0, 32.2, 40.7, 29.9 ms in one and 40.5, 30.4, 39.3, 36.1 in the other), while each
run's own rounds stayed within a millisecond or two. A release timed from the feeder's last
write therefore came 10 ms earlier or later after the speech in one client's run than in
the other's, and the voice-to-voice medians, counted from the speech's end, carried that
difference as if it were the client's. And to say *where* a client's time goes, an onset
must be set beside the simulator's stamps, which are on ``time.monotonic()``.

So this records the stereo sink's monitor through a PortAudio callback stream and dates
each block by PortAudio's own ADC time for it: the callback's ``time.monotonic()`` less
``currentTime - inputBufferAdcTime`` (PortAudio's ALSA clock is not the monotonic one, so
only the difference is used). A sample's date is its index over the rate plus the median
offset of the blocks around it (:data:`WINDOW`), which takes the blocks' own jitter out (a
median of 0.4-2 ms here) and follows a lost block within half a second. While it runs,
:meth:`DatedRecorder.wait_onset` and :meth:`DatedRecorder.wait_last_loud` find the
speech's onset and end as they arrive, dated, so the bench can release the key a fixed
time after the speech's end.

What the dates include: the loopback from each monitor into the stereo sink and the
recording's own latency, the same for every run in one rig. So compare the dates of two
clients, or of two stages of one client, not a date with the moment a sound was made.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sounddevice as sd

from bench.pulse_rig import RIG_RATE, write_wav
from sammy_desktop.audio.sound_server import routed

BLOCK = RIG_RATE // 100
"""10 ms blocks."""
SETTLE_S = 1.0
"""Entering the recorder waits this long: PulseAudio delivers a new record stream's first
blocks late and in bursts, and their dates are off by as much."""


WINDOW = 50
"""Blocks (half a second) whose dates set the date of a sample among them: the median of
their offsets from the sample count, so one late block moves nothing and a lost one (an
overflow) moves the dates after it, as it must, within half a second."""


def _local_offsets(offsets: np.ndarray, dates: np.ndarray) -> np.ndarray:
    """Per block, the median of ``date - offset / RIG_RATE`` over the blocks on both sides.

    For a finished recording; while recording, :meth:`DatedRecorder._shift` dates the newest
    blocks by those before them alone.
    """
    residual = dates - offsets / RIG_RATE
    out = np.empty_like(residual)
    for index in range(len(residual)):
        low = max(0, index - WINDOW // 2)
        high = min(len(residual), index + WINDOW // 2 + 1)
        out[index] = np.median(residual[low:high])
    return out


def _loud_dates(
    offset: int, block: np.ndarray, channel: int, level: float, shift: float
) -> np.ndarray:
    """The dates of ``block``'s samples on ``channel`` louder than ``level`` (int16 scale)."""
    loud = np.flatnonzero(np.abs(block[:, channel].astype(np.int32)) > level)
    return np.asarray((offset + loud) / RIG_RATE + shift)


@dataclass(frozen=True)
class DatedAudio:
    """A stereo recording and the dates of its samples on ``time.monotonic()``."""

    left: np.ndarray
    right: np.ndarray
    rate: int
    block_offsets: np.ndarray
    """The index of each block's first sample."""
    block_dates: np.ndarray
    """Each block's local date offset (:func:`_local_offsets`): a sample's date is its
    index / rate plus its block's."""
    residual_ms: float
    """The median distance of the blocks' own dates from their local offsets."""
    jumps: int
    """Blocks whose local offset moved by more than 2 ms from the block before (samples
    lost or the sound server's clock stepping): 0 in a clean recording."""

    def time_of(self, index: int) -> float:
        """The monotonic time of sample ``index``."""
        block = max(0, int(np.searchsorted(self.block_offsets, index, side="right")) - 1)
        return index / self.rate + float(self.block_dates[block])


class DatedRecorder:
    """Records ``source`` (the rig's :attr:`~bench.pulse_rig.StereoRig.monitor`) while entered.

    :meth:`result` dates the recording.
    """

    def __init__(self, source: str) -> None:
        # (the index of the block's first sample, its ADC date, its samples), in order.
        self._blocks: list[tuple[int, float, np.ndarray]] = []
        self._frames = 0
        self._arrived = threading.Condition()
        with routed("input", source):
            self._stream = sd.InputStream(
                samplerate=RIG_RATE,
                channels=2,
                dtype="int16",
                blocksize=BLOCK,
                latency="low",
                callback=self._callback,
            )

    def _callback(self, indata: Any, frames: int, time_info: Any, status: Any) -> None:
        now = time.monotonic()
        adc = now - (time_info.currentTime - time_info.inputBufferAdcTime)
        block = indata.copy()
        with self._arrived:
            self._blocks.append((self._frames, adc, block))
            self._frames += frames
            self._arrived.notify_all()

    def __enter__(self) -> DatedRecorder:
        self._stream.start()
        # Nothing is measured before it has settled (see SETTLE_S).
        settled = round(SETTLE_S * RIG_RATE / BLOCK)
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self._blocks) >= settled, timeout=15):
                self._stream.close()
                raise RuntimeError("the dated recording did not settle within 15 s")
        return self

    def __exit__(self, *exc: object) -> None:
        self._stream.stop()
        self._stream.close()

    # The waits below hold the lock only to take the newest blocks, never to look at the
    # whole recording: the callback takes the same lock, and a callback kept waiting loses
    # samples (which shifts every date after them).

    def wait_onset(self, after: float, channel: int, threshold: float, timeout: float) -> float:
        """The monotonic time of the first sample louder than ``threshold`` dated after ``after``.

        Waits for it to be recorded (at most ``timeout`` seconds).

        Args:
            after: a monotonic time; earlier samples are not looked at.
            channel: 0 (left, the microphone) or 1 (right, the speaker).
            threshold: in full scale (0-1).

        Raises:
            TimeoutError: nothing that loud was recorded in time.
        """
        deadline = time.monotonic() + timeout
        level = threshold * 32768
        looked: int | None = None  # how many blocks have been looked at
        while True:
            with self._arrived:
                shift = self._shift()
                if looked is None:  # start at the first block that ends after ``after``
                    looked = len(self._blocks)
                    while (
                        looked > 0
                        and (self._blocks[looked - 1][0] + BLOCK) / RIG_RATE + shift > after
                    ):
                        looked -= 1
                fresh = self._blocks[looked:]
            for offset, _adc, block in fresh:
                dates = _loud_dates(offset, block, channel, level, shift)
                later = dates[dates > after]
                if len(later):
                    return float(later[0])
            looked += len(fresh)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no onset on channel {channel} within {timeout} s")
            with self._arrived:
                if len(self._blocks) == looked:
                    self._arrived.wait(left)

    def wait_last_loud(
        self, after: float, until: float, channel: int, threshold: float, timeout: float
    ) -> float | None:
        """The date of the last sample louder than ``threshold`` between ``after`` and ``until``.

        Waits until the recording reaches ``until`` (at most ``timeout`` seconds); ``None``
        when nothing in between was that loud.

        Raises:
            TimeoutError: the recording did not reach ``until`` in time.
        """
        deadline = time.monotonic() + timeout
        level = threshold * 32768
        with self._arrived:
            while self._frames / RIG_RATE + self._shift() <= until:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"the recording did not reach {until:.3f} in {timeout} s")
                self._arrived.wait(left)
            shift = self._shift()
            first = len(self._blocks)
            while first > 0 and self._blocks[first - 1][0] / RIG_RATE + shift > after:
                first -= 1
            span = self._blocks[max(0, first - 1) :]
        for offset, _adc, block in reversed(span):
            dates = _loud_dates(offset, block, channel, level, shift)
            inside = dates[(dates > after) & (dates <= until)]
            if len(inside):
                return float(inside[-1])
        return None

    def _shift(self) -> float:
        """The newest blocks' median offset: a sample's date is index / rate plus this.

        The lock is held. Recent samples matter here (a speech's onset and end as they
        come), so they are dated by the newest blocks alone.
        """
        recent = self._blocks[-WINDOW:]
        return float(np.median([adc - offset / RIG_RATE for offset, adc, _block in recent]))

    def result(self) -> DatedAudio:
        """The recording, each block dated by the median offset of the blocks around it."""
        with self._arrived:
            blocks = list(self._blocks)
        offsets = np.array([offset for offset, _adc, _block in blocks], dtype=np.float64)
        dates = np.array([adc for _offset, adc, _block in blocks])
        data = np.concatenate([block for _offset, _adc, block in blocks])
        local = _local_offsets(offsets, dates)
        residual = float(np.median(np.abs(dates - offsets / RIG_RATE - local)))
        jumps = int(np.sum(np.abs(np.diff(local)) > 0.002))
        samples = data.astype(np.float32) / 32768.0
        return DatedAudio(
            samples[:, 0],
            samples[:, 1],
            RIG_RATE,
            offsets.astype(np.int64),
            local,
            residual * 1000,
            jumps,
        )


def save_wav(audio: DatedAudio, path: Path) -> None:
    """Save a dated recording as a stereo WAV (to listen to; the dates are not kept)."""
    frames = np.stack([audio.left, audio.right], axis=1)
    write_wav(path, (np.clip(frames, -1, 1 - 1 / 32768) * 32768).astype(np.int16), audio.rate)
