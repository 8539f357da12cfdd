"""The pure parts: pre-roll ring, level meter, resampler (no audio server needed)."""

from __future__ import annotations

import numpy as np
import pytest

from sammy_desktop.audio.levels import SILENCE_DBFS, ChangedLevels, LevelMeter, rms_dbfs
from sammy_desktop.audio.preroll import PreRollBuffer
from sammy_desktop.audio.resampling import StreamResampler
from tests.audio.signals import best_lag, tone


def test_pre_roll_keeps_the_newest_bytes_across_wrap_around() -> None:
    ring = PreRollBuffer(10)
    assert ring.snapshot() == b""
    ring.write(b"abcd")
    assert ring.snapshot() == b"abcd"
    ring.write(b"efghij")
    assert ring.snapshot() == b"abcdefghij"
    ring.write(b"klm")
    ring.write(b"n")
    assert ring.snapshot() == b"efghijklmn"
    ring.write(b"0123456789ABCD")
    assert ring.snapshot() == b"456789ABCD"
    assert len(ring) == 10
    ring.clear()
    assert ring.snapshot() == b""


def test_pre_roll_hands_out_its_newest_bytes_without_copying_all() -> None:
    ring = PreRollBuffer(10)
    assert ring.newest(4) == b""
    ring.write(b"abcdef")
    assert ring.newest(4) == b"cdef"
    assert ring.newest(20) == b"abcdef"  # no more than is kept
    ring.write(b"ghijkl")  # wraps: keeps cdefghijkl
    assert ring.newest(6) == b"ghijkl"
    assert ring.newest(10) == ring.snapshot() == b"cdefghijkl"
    assert ring.newest(3) == b"kl"  # whole samples only
    ring.write(b"0123456789AB")
    assert ring.newest(4) == b"89AB"


def test_pre_roll_rounds_to_whole_samples_and_refuses_negative() -> None:
    assert PreRollBuffer(9).capacity == 8
    empty = PreRollBuffer(0)
    empty.write(b"abc")
    assert empty.snapshot() == b""
    with pytest.raises(ValueError, match="must not be negative"):
        PreRollBuffer(-2)


def test_levels_in_dbfs() -> None:
    full_scale_sine = tone(1000.0, 0.1, rate=16000, amplitude=1.0)
    assert rms_dbfs(full_scale_sine) == pytest.approx(-3.01, abs=0.05)
    assert rms_dbfs(np.zeros(160, np.int16)) == SILENCE_DBFS
    assert rms_dbfs(np.zeros(0, np.int16)) == SILENCE_DBFS


def test_level_meter_reports_thirty_times_per_second_of_audio() -> None:
    readings: list[float] = []
    meter = LevelMeter(16000, readings.append)
    block = tone(400.0, 0.01, rate=16000, amplitude=0.1)  # whole cycles
    for _ in range(300):  # three seconds in 10 ms blocks
        meter.feed(block)
    assert len(readings) == 90
    assert all(r == pytest.approx(-23.0, abs=0.1) for r in readings)
    meter.feed_silence(16000)
    assert readings[-1] == SILENCE_DBFS


def test_stream_resampler_keeps_the_signal_across_chunks() -> None:
    source = tone(440.0, 1.0, rate=48000)
    resampler = StreamResampler(48000, 16000)
    pieces = [resampler.process(source[i : i + 480]) for i in range(0, len(source), 480)]
    pieces.append(resampler.drain())
    out = np.concatenate(pieces)
    assert abs(len(out) - 16000) <= 2
    expected = tone(440.0, 1.0, rate=16000)
    _, correlation = best_lag(out, expected[:8000])
    assert correlation > 0.99
    same = StreamResampler(16000, 16000)
    assert same.is_identity
    assert same.process(expected) is expected
    assert same.drain().size == 0
    with pytest.raises(ValueError, match="must be positive"):
        StreamResampler(0, 16000)


def test_changed_levels_drop_steady_readings_after_the_meters_settle() -> None:
    passed: list[float] = []
    levels = ChangedLevels(passed.append, min_change_db=1.0, settle_readings=3)
    for _ in range(10):
        levels(SILENCE_DBFS)
    # The first reading, then three unchanged ones for the meters to ease down, then none.
    assert passed == [SILENCE_DBFS] * 4
    levels(-20.0)
    levels(-20.4)  # less than 1 dB: not a change, but still settling
    assert passed[-2:] == [-20.0, -20.4]
    for _ in range(10):
        levels(-20.2)
    assert len(passed) == 4 + 2 + 2  # settled after three unchanged readings
    levels.reset()
    levels(-20.2)
    assert len(passed) == 9


def test_rms_of_a_block_and_of_a_multichannel_block() -> None:
    block = tone(1000.0, 0.01, rate=16_000)
    assert rms_dbfs(block) == pytest.approx(rms_dbfs(np.stack([block, block], axis=1)))
    assert rms_dbfs(np.zeros(0, np.int16)) == SILENCE_DBFS
