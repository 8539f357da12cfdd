"""The speaker's other device-free parts: effects mixer, played reports, standby.

Each is driven as the device callback and the loop drive it, without PortAudio and without
real time. Against the real device: test_effects.py and test_playback_standby.py.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest

from sammy_desktop.audio.effects import EffectsMixer
from sammy_desktop.audio.played import PlayedReports
from sammy_desktop.audio.standby import FirstFill, SpeakerStandby
from sammy_desktop.wire_audio import OUTPUT_RATE

BLOCK = OUTPUT_RATE * 5 // 1000  # samples in a 5 ms callback
TIME_INFO = SimpleNamespace(outputBufferDacTime=10.018, currentTime=10.0)


def block_of(value: int) -> bytearray:
    return bytearray(np.full(BLOCK, value, dtype=np.int16).tobytes())


# -- effects ---------------------------------------------------------------------------


def test_effects_add_on_top_of_the_block_and_clip_instead_of_wrapping() -> None:
    mixer = EffectsMixer()
    assert mixer.add(np.full(BLOCK * 2, 20000, dtype=np.int16))
    assert mixer.buffered_ms == pytest.approx(10)
    out = block_of(20000)
    assert mixer.mix_into(out, len(out))
    assert set(np.frombuffer(out, np.int16)) == {32767}  # 40000 clipped, not -25536
    quiet = block_of(-100)
    assert mixer.mix_into(quiet, len(quiet))
    assert set(np.frombuffer(quiet, np.int16)) == {19900}
    assert mixer.is_idle
    untouched = block_of(7)
    assert not mixer.mix_into(untouched, len(untouched))
    assert untouched == block_of(7)


def test_effects_play_in_order_across_blocks() -> None:
    mixer = EffectsMixer()
    mixer.add(np.full(BLOCK // 2, 100, dtype=np.int16))
    mixer.add(np.full(BLOCK, 200, dtype=np.int16))
    out = block_of(0)
    mixer.mix_into(out, len(out))
    samples = np.frombuffer(out, np.int16)
    assert list(samples[: BLOCK // 2]) == [100] * (BLOCK // 2)
    assert list(samples[BLOCK // 2 :]) == [200] * (BLOCK // 2)
    assert mixer.buffered_ms == pytest.approx(2.5)


def test_too_many_effects_waiting_are_refused() -> None:
    mixer = EffectsMixer(max_effects_ms=100)
    assert mixer.add(np.zeros(OUTPUT_RATE * 60 // 1000, dtype=np.int16))
    assert not mixer.add(np.zeros(OUTPUT_RATE * 60 // 1000, dtype=np.int16))
    assert mixer.buffered_ms == pytest.approx(60)


def test_dropping_effects_forgets_the_one_half_played() -> None:
    mixer = EffectsMixer()
    mixer.add(np.full(BLOCK * 4, 500, dtype=np.int16))
    out = block_of(0)
    mixer.mix_into(out, len(out))
    mixer.drop()
    assert mixer.is_idle
    after = block_of(0)
    assert not mixer.mix_into(after, len(after))
    assert not any(after)


def test_effects_follow_the_device_rate() -> None:
    mixer = EffectsMixer()
    mixer.add(np.full(BLOCK, 500, dtype=np.int16))
    mixer.set_rate(48_000)  # a new device: what waited at the old rate is gone
    assert mixer.is_idle
    assert mixer.add(np.full(OUTPUT_RATE // 10, 500, dtype=np.int16))
    # One whole sound, resampled in one go with its filter's tail.
    assert mixer.buffered_ms == pytest.approx(100, abs=1)


# -- played reports --------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_blocks_go_to_the_loop_in_batches_of_ten_ms_and_changes_at_once() -> None:
    clock = Clock()
    reports = PlayedReports(5, clock=clock)
    silence = block_of(0)
    speech = block_of(300)

    def add(out: bytearray, written: int, flush_generation: int = 0) -> bool:
        return reports.add(
            1, out, written, BLOCK, flush_generation, effect=False, time_info=TIME_INFO
        )

    # A new stream's first three batches each wake the loop: it runs (the stall watchdog,
    # a switch or a recovery announced).
    for _ in range(3):
        assert not add(silence, 0)  # half a batch
        assert add(silence, 0)
    assert len(list(reports.take())) == 3
    assert not add(silence, 0)  # then steady: half a batch
    assert not add(silence, 0)  # a batch, queued
    assert not add(silence, 0)
    assert not add(silence, 0)  # two batches
    assert not add(silence, 0)
    assert add(silence, 0)  # the third: nobody pumps, so the loop is woken
    assert add(speech, len(speech))  # sound starts: at once, and the silence before apart
    batches = list(reports.take())
    assert [(r.written, r.frames, r.played is None) for r in batches] == [
        *[(0, BLOCK * 2, True)] * 3,
        (len(speech), BLOCK, False),
    ]
    assert batches[0].dac_delay == pytest.approx(0.018)
    assert batches[0].stamp == 50.0
    assert list(reports.take()) == []
    # A flush is a change too, even with speech on both sides of it.
    assert add(speech, len(speech), flush_generation=1)
    assert [r.flush_generation for r in reports.take()] == [1]
    assert reports.loop_wakeups == 6


def test_a_live_microphone_takes_the_reports_and_saves_the_wake_ups() -> None:
    clock = Clock()
    reports = PlayedReports(5, clock=clock)
    speech = block_of(300)
    reports.pumped(clock.now)
    woken = 0
    for index in range(10):
        clock.now += 0.005
        woken += reports.add(1, speech, len(speech), BLOCK, 0, effect=False, time_info=TIME_INFO)
        if index % 2:
            reports.pumped(clock.now)  # the capture's block, every 10 ms
    assert woken == 3  # a new stream's first three reports; the rest rode along
    assert len(list(reports.take())) == 5  # the first block alone (a change), then pairs
    # Nobody pumped for longer than two and a half capture blocks: the loop is woken again,
    # once three batches wait.
    clock.now += 0.03
    woken_after = [
        reports.add(1, speech, len(speech), BLOCK, 0, effect=False, time_info=TIME_INFO)
        for _ in range(6)
    ]
    # (The last block above began a batch: the third ends with the fifth block here.)
    assert woken_after == [False] * 4 + [True, False]


def test_a_stopped_stream_reports_its_last_half_batch_at_once() -> None:
    clock = Clock()
    reports = PlayedReports(5, clock=clock)
    speech = block_of(300)
    reports.stream_stopped()  # nothing batched: nothing to report
    assert list(reports.take()) == []
    reports.add(1, speech, len(speech), BLOCK, 0, effect=False, time_info=TIME_INFO)
    for _ in range(2):  # silence from now: its first block at once (a change), then half a batch
        reports.add(1, block_of(0), 0, BLOCK, 0, effect=False, time_info=TIME_INFO)
    assert [r.written for r in reports.take()] == [len(speech), 0]
    clock.now = 51.0
    reports.stream_stopped()
    (last,) = reports.take()
    assert (last.generation, last.written, last.frames, last.played) == (1, 0, BLOCK, None)
    assert last.stamp == 51.0
    assert last.dac_delay == 0.0  # no callback's timing to read: not known
    # The next stream's first block starts a batch of its own.
    reports.add(1, speech, len(speech), BLOCK, 0, effect=False, time_info=TIME_INFO)
    assert [r.frames for r in reports.take()] == [BLOCK]


def test_an_effect_makes_a_silent_batch_audible() -> None:
    reports = PlayedReports(10, clock=Clock())
    mixed = block_of(42)
    reports.add(1, mixed, 0, BLOCK, 0, effect=True, time_info=TIME_INFO)
    (report,) = reports.take()
    assert report.played == bytes(mixed)
    assert report.written == 0


# -- standby ---------------------------------------------------------------------------


def test_the_speaker_may_rest_only_after_the_idle_time() -> None:
    standby = SpeakerStandby(50, block_ms=5)
    standby.busy(10.0)
    assert not standby.may_rest_at(10.049)
    assert standby.may_rest_at(10.05)
    standby.busy(11.0)  # expecting speech until then
    assert not standby.may_rest_at(10.5)
    assert not SpeakerStandby(None, block_ms=5).may_rest_at(1e9)
    with pytest.raises(ValueError, match="must not be negative"):
        SpeakerStandby(-1, block_ms=5)


def test_a_woken_stream_plays_a_device_buffer_of_silence_first() -> None:
    standby = SpeakerStandby(50, block_ms=5)
    assert not standby.priming()
    standby.waking(0.018)  # 18 ms of device buffer: four 5 ms blocks
    assert [standby.priming() for _ in range(5)] == [True] * 4 + [False]
    standby.waking(0.0)  # at least one block, whatever the latency read
    assert [standby.priming() for _ in range(2)] == [True, False]


def test_the_first_fill_is_done_once_the_device_has_taken_that_many_frames() -> None:
    fill = FirstFill()
    assert fill.wait(0), "nothing armed: nothing to wait for"
    fill.arm(408)  # 17 ms of device buffer at 24 kHz: four 5 ms blocks
    for _ in range(3):
        fill.played(BLOCK)
    assert not fill.wait(0), "three blocks are not the device buffer"
    fill.arm(408)
    for _ in range(4):
        fill.played(BLOCK)
    assert fill.wait(0)


def test_waiting_for_the_first_fill_wakes_when_the_device_thread_plays() -> None:
    fill = FirstFill()
    fill.arm(2 * BLOCK)
    armed = threading.Event()

    def device() -> None:
        armed.wait(5)
        fill.played(BLOCK)
        fill.played(BLOCK)

    thread = threading.Thread(target=device)
    thread.start()
    armed.set()
    try:
        assert fill.wait(30), "woken by the second block, long before the timeout"
    finally:
        thread.join(5)


def test_a_first_fill_that_never_comes_stops_counting_after_the_wait() -> None:
    fill = FirstFill()
    fill.arm(BLOCK)
    assert not fill.wait(0.001), "no callback came (the start failed, or it is slow)"
    # Disarmed by the wait: a late block counts for nothing, the next wait does not wait.
    fill.played(BLOCK)
    assert fill.wait(0)
    fill.arm(0)  # at least one frame is waited for, whatever the latency read
    assert not fill.wait(0)
    fill.played(1)
    fill.arm(1)
    fill.played(1)
    assert fill.wait(0)


def test_the_echo_reference_runs_on_in_silence_while_the_speaker_rests() -> None:
    standby = SpeakerStandby(50, block_ms=5)
    rate = 48_000
    assert standby.silent_reference_frames(1.0, rate, resting=False) == 0
    assert standby.silent_reference_frames(1.01, rate, resting=True) == 480
    assert standby.silent_reference_frames(1.02, rate, resting=True) == 480
    # A long gap (the microphone rested too): only the last 100 ms, then on from there.
    assert standby.silent_reference_frames(5.0, rate, resting=True) == rate // 10
    assert standby.silent_reference_frames(5.11, rate, resting=True) == 480


def test_the_rest_s_silence_for_the_reference_counts_from_the_stop() -> None:
    standby = SpeakerStandby(50, block_ms=5)
    rate = 48_000
    assert standby.silent_reference_frames(1.0, rate, resting=False) == 0  # the last pump
    # The stream stopped 30 ms later; its callbacks fed the reference until then.
    standby.stream_stopped(1.03)
    assert standby.silent_reference_frames(1.04, rate, resting=True) == 480
