"""RMS level metering in dBFS, throttled to about 30 readings a second for the meters.

:class:`ChangedLevels` drops readings that would not move a meter, for readings taken while
nobody listens to the level closely (the microphone in standby).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

import numpy as np

__all__ = ["SILENCE_DBFS", "ChangedLevels", "LevelMeter", "rms_dbfs"]

SILENCE_DBFS: Final = -100.0
"""The reading for digital silence (and empty input): the lowest level ever reported.

A measurement floor, not a display one: a meter chooses its own range (the window's shows
nothing below -60 dBFS) and reads this as empty like any other level below its floor.
"""
_FULL_SCALE_SQUARED: Final = 32768.0 * 32768.0


def rms_dbfs(samples: np.ndarray) -> float:
    """The RMS level of PCM16 ``samples`` in dB relative to full scale.

    Args:
        samples: int16 samples (any shape).

    Returns:
        The level, at least :data:`SILENCE_DBFS` (digital silence and empty input).
    """
    if samples.size == 0:
        return SILENCE_DBFS
    return _to_dbfs(_sum_of_squares(samples) / samples.size)


def _sum_of_squares(samples: np.ndarray) -> float:
    # A float64 dot product: exact for PCM16 blocks, and about three times quicker than
    # np.sum(np.square(...)), which matters at 100 blocks a second per stream.
    flat = samples.reshape(-1).astype(np.float64)
    return float(np.dot(flat, flat))


def _to_dbfs(mean_square: float) -> float:
    if mean_square <= 0.0:
        return SILENCE_DBFS
    return max(SILENCE_DBFS, 10.0 * math.log10(mean_square / _FULL_SCALE_SQUARED))


class LevelMeter:
    """Accumulates PCM16 and reports its RMS level once per period of audio.

    The period is counted in samples, not wall time, so readings follow the audio itself
    and a burst of blocks delivered late still gives one reading per period of sound.

    Args:
        sample_rate: the rate of the samples fed to :meth:`feed`.
        report: called with the level in dBFS once per period.
        rate_hz: readings per second of audio.
    """

    def __init__(
        self, sample_rate: int, report: Callable[[float], None], *, rate_hz: float = 30.0
    ) -> None:
        self._period = max(1, round(sample_rate / rate_hz))
        self._report = report
        self._sum_squares = 0.0
        self._summed = 0  # samples in _sum_squares
        self._count = 0  # samples towards the next reading, with the carried overshoot

    def feed(self, samples: np.ndarray) -> None:
        """Add ``samples`` (int16); reports when a period is complete."""
        self._sum_squares += _sum_of_squares(samples)
        self._add(samples.size)

    def feed_silence(self, count: int) -> None:
        """Add ``count`` samples of digital silence without building an array."""
        self._add(count)

    def _add(self, count: int) -> None:
        self._count += count
        self._summed += count
        if self._count < self._period:
            return
        mean_square = self._sum_squares / self._summed
        self._sum_squares = 0.0
        self._summed = 0
        # Carry the overshoot into the next period, so blocks that do not divide the
        # period still give exactly rate_hz readings per second of audio.
        self._count = min(self._count - self._period, self._period - 1)
        self._report(_to_dbfs(mean_square))


class ChangedLevels:
    """Passes a level on only when it changed meaningfully, then a few more to let meters settle.

    A steady level (a silent microphone, an idle room) then costs no events and no repaints.
    The UI's meters ease their fall over successive readings, so after a change the next
    ``settle_readings`` readings go through even when unchanged; only after that are
    repeats dropped.

    Args:
        report: called with the readings that pass.
        min_change_db: the smallest difference from the last passed reading that counts.
        settle_readings: unchanged readings still passed after each change.
    """

    def __init__(
        self,
        report: Callable[[float], None],
        *,
        min_change_db: float = 1.0,
        settle_readings: int = 20,
    ) -> None:
        self._report = report
        self._min_change_db = min_change_db
        self._settle_readings = settle_readings
        self._last: float | None = None
        self._unchanged = 0

    def __call__(self, dbfs: float) -> None:
        """Offer a reading; it is reported when it changed or meters are still settling."""
        if self._last is None or abs(dbfs - self._last) >= self._min_change_db:
            self._last = dbfs
            self._unchanged = 0
        elif self._unchanged < self._settle_readings:
            self._unchanged += 1
        else:
            return
        self._report(dbfs)

    def reset(self) -> None:
        """Pass the next reading whatever it is (after readings went elsewhere)."""
        self._last = None
