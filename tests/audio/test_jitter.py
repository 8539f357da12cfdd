"""The jitter buffer's rules, with a hand-moved clock and a callback played by the test.

No PortAudio and no real time: the test's :class:`~tests.helpers.jitter_device.Device`
plays the speaker's callback and the loop's bookkeeping, and the clock moves only when the
test says. The same rules against the real device are in test_playback.py and
test_playback_depth.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from sammy_desktop.audio.jitter import DEFAULT_MAX_DEPTH_MS, JitterBuffer
from sammy_desktop.wire_audio import OUTPUT_RATE, SAMPLE_WIDTH
from tests.helpers.clock import ManualScheduler
from tests.helpers.jitter_device import BLOCK_MS, Device, Listener, make, numbered_speech


def test_speech_waits_until_the_start_depth_is_queued(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=20)
    device = Device(buffer, scheduler)
    buffer.push(numbered_speech(10))
    assert buffer.is_playing
    assert buffer.buffered_ms == pytest.approx(10)
    assert device.block() == 0  # 10 ms queued, 20 wanted: silence meanwhile
    assert listener.started == 0
    scheduler.advance(0.002)
    buffer.push(numbered_speech(10))  # the depth is there: released at once
    assert device.block() > 0
    assert listener.started == 1
    # From the first chunk to the report of the block that started it.
    assert buffer.last_start_latency_s == pytest.approx(0.005 + 0.002)


def test_a_short_answer_plays_once_the_start_depth_has_passed(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=50)
    device = Device(buffer, scheduler)
    buffer.push(numbered_speech(10))
    assert scheduler.pending == [pytest.approx(0.05)]
    assert device.run(45) == 0
    assert listener.started == 0
    assert device.run(10) > 0  # released 50 ms after the chunk came
    assert listener.started == 1


def test_the_device_gets_the_speech_in_order_across_chunks_padded_with_silence(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=0)
    device = Device(buffer, scheduler)
    pieces = [
        numbered_speech(7, start=1),
        numbered_speech(3, start=5000),
        numbered_speech(13, start=9000),
    ]
    for piece in pieces:
        buffer.push(piece)
    device.run(40)
    assert bytes(device.speech) == b"".join(pieces)
    assert buffer.buffered_ms == 0
    assert not any(device.played[len(device.speech) :])  # then silence


def test_speech_ends_after_the_grace_period_without_end_of_turn(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, drain_grace_ms=150)
    buffer.output_latency_s = 0.02
    device = Device(buffer, scheduler)
    buffer.push(numbered_speech(20))
    device.run(20)  # the report of the fourth block found the queue empty, 5 ms ago
    assert buffer.buffered_ms == 0
    # The device's latency (the last block must be heard) plus the grace for late chunks.
    assert scheduler.pending == [pytest.approx(0.02 + 0.15 - 0.005)]
    scheduler.advance(0.164)
    assert listener.drained == []
    assert buffer.is_playing
    scheduler.advance(0.001)
    assert listener.drained == [False]
    assert not buffer.is_playing


def test_end_of_turn_drains_after_the_device_latency_alone(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, drain_grace_ms=60_000)
    buffer.output_latency_s = 0.02
    device = Device(buffer, scheduler)
    buffer.push(numbered_speech(20))
    device.run(20)
    assert scheduler.pending == [pytest.approx(60.02 - 0.005)]  # waiting out the grace
    buffer.end_of_turn()  # ...until the turn is known to be over
    assert scheduler.pending == [pytest.approx(0.02)]
    scheduler.advance(0.02)
    assert listener.drained == [False]


def test_end_of_turn_releases_a_short_answer_at_once(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=200)
    device = Device(buffer, scheduler)
    buffer.push(numbered_speech(10))
    buffer.end_of_turn()
    assert device.block() > 0
    assert scheduler.pending == []  # the start timer is gone with the release


def test_an_underrun_deepens_the_buffer_and_speech_heard_without_one_lowers_it(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(
        scheduler,
        listener,
        start_threshold_ms=20,
        underrun_step_ms=20,
        max_threshold_ms=40,
        drain_grace_ms=60_000,
        lower_after_ms=50,
    )
    device = Device(buffer, scheduler)
    assert buffer.depth_ms == pytest.approx(20)
    buffer.push(numbered_speech(30))
    device.run(35)  # played, and ran dry
    buffer.push(numbered_speech(30))  # late: a gap in the middle of speech
    assert buffer.underruns == 1
    assert buffer.depth_ms == pytest.approx(40)
    # Re-buffered to the new depth before playing on: 30 ms is not enough.
    assert device.block() == 0
    buffer.push(numbered_speech(10))
    assert device.block() > 0
    device.run(45)
    buffer.push(numbered_speech(30))  # another: the depth stays at its ceiling
    assert buffer.underruns == 2
    assert buffer.depth_ms == pytest.approx(40)
    buffer.end_of_turn()
    device.run(80)
    assert listener.drained == [False]
    assert buffer.depth_ms == pytest.approx(40)  # the 30 ms after the gap: not yet

    buffer.push(numbered_speech(40))
    buffer.end_of_turn()
    device.run(50)
    assert listener.drained == [False, False]
    assert buffer.underruns == 2
    assert buffer.depth_ms == pytest.approx(20)  # 50 ms and more without a gap: a step back


def paced_answer(buffer: JitterBuffer, device: Device, *, late_ms: int, chunks: int = 3) -> int:
    """A paced answer with its second chunk ``late_ms`` late; the gaps it had.

    ``chunks`` of 100 ms, each when the one before has played (and that one late).
    """
    before = buffer.underruns
    for index in range(chunks):
        buffer.push(numbered_speech(100))
        if index < chunks - 1:
            device.run(100 + (late_ms if index == 0 else 0))
    buffer.end_of_turn()
    device.run(400)
    return buffer.underruns - before


def paced_buffer(
    scheduler: ManualScheduler, listener: Listener, rate: int
) -> tuple[JitterBuffer, Device]:
    buffer = make(scheduler, listener, start_threshold_ms=10, lower_after_ms=1000)
    buffer.set_rate(rate)
    buffer.paced = True
    return buffer, Device(buffer, scheduler)


# The device's rate: the wire's, or 48 kHz, where the resampler holds back up to 20 ms of
# each chunk (which is due before the next chunk, though not yet queued).
RATES = pytest.mark.parametrize("rate", [OUTPUT_RATE, 48_000], ids=["native", "resampled"])


@RATES
@pytest.mark.parametrize(
    ("late_ms", "depth_after"),
    [(15, 20), (8, 10)],
    ids=["late-beyond-the-step-keeps-the-depth", "late-within-the-step-comes-down"],
)
def test_after_a_gap_the_depth_comes_down_only_with_a_step_to_spare(
    scheduler: ManualScheduler, listener: Listener, rate: int, late_ms: int, depth_after: int
) -> None:
    # One chunk 15 ms late: a gap, and the depth goes to 20. Then a chunk ``late_ms`` late
    # in every answer. Stepping back after each answer without a gap, as the buffer did,
    # a link 15 ms late paid a gap in every other answer (the depth back at 10 each time);
    # now it keeps the depth that covers it, and one within the step is trusted again,
    # after lower_after_ms (1 s) of speech across answers, not after the first clean one.
    buffer, device = paced_buffer(scheduler, listener, rate)
    assert paced_answer(buffer, device, late_ms=15) == 1
    assert buffer.depth_ms == pytest.approx(20)
    assert paced_answer(buffer, device, late_ms=late_ms, chunks=6) == 0
    assert buffer.depth_ms == pytest.approx(20)  # under a second heard since the gap
    gaps = [paced_answer(buffer, device, late_ms=late_ms, chunks=6) for _ in range(5)]
    assert gaps == [0] * 5
    assert buffer.depth_ms == pytest.approx(depth_after)


def test_speech_after_end_of_turn_is_the_next_turn_not_an_underrun(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, drain_grace_ms=150)
    buffer.output_latency_s = 0.05
    device = Device(buffer, scheduler)
    buffer.push(numbered_speech(20))
    buffer.end_of_turn()
    device.run(30)  # played; the drain waits for the device latency
    buffer.push(numbered_speech(20))  # the next turn's first chunk before the drain came
    assert buffer.underruns == 0
    assert buffer.is_playing
    device.run(30)
    scheduler.advance(0.2)
    assert listener.drained == [False]
    assert listener.started == 1  # one answer as far as the owner can tell


def test_the_depth_never_shrinks_below_the_start_depth(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=10)
    device = Device(buffer, scheduler)
    for _ in range(3):
        buffer.push(numbered_speech(20))
        buffer.end_of_turn()
        device.run(30)
    assert listener.drained == [False, False, False]
    assert buffer.depth_ms == pytest.approx(10)


def test_flush_drops_the_queue_and_the_block_in_progress(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=0)
    device = Device(buffer, scheduler)
    buffer.push(numbered_speech(100))
    # A callback that read the generation before the flush is reported after it.
    needed = OUTPUT_RATE * BLOCK_MS // 1000 * SAMPLE_WIDTH
    stale_generation = buffer.generation
    written = buffer.fill(bytearray(needed), needed, stale_generation)
    buffer.flush()
    assert listener.drained == [True]
    assert not buffer.is_playing
    assert buffer.buffered_ms == 0
    buffer.played(stale_generation, written, scheduler.time())  # ignored: flushed speech
    assert listener.started == 0
    assert device.run(20) == 0  # nothing of the old speech comes out after the flush
    buffer.flush()  # nothing playing: no second event
    assert listener.drained == [True]


def test_speech_after_a_flush_plays_without_the_old_chunk(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=0)
    device = Device(buffer, scheduler)
    old = numbered_speech(20, start=1)
    buffer.push(old)
    device.block()  # in the middle of the old chunk
    buffer.flush()
    new = numbered_speech(10, start=20000)
    buffer.push(new)
    device.run(20)
    assert bytes(device.speech) == old[: len(device.speech) - len(new)] + new
    assert listener.started == 2


def test_a_device_at_another_rate_gets_all_of_the_speech_resampled(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=0)
    assert buffer.set_rate(48_000)
    assert not buffer.set_rate(48_000)
    device = Device(buffer, scheduler)
    tone = (np.sin(np.arange(OUTPUT_RATE // 10) * 2 * np.pi * 440 / OUTPUT_RATE) * 8000).astype(
        np.int16
    )
    for start in range(0, len(tone), 240):
        buffer.push(tone[start : start + 240].tobytes())
    buffer.end_of_turn()
    device.run(150)
    assert listener.drained == [False]
    # The resampler's last milliseconds were played too, not left in its filter.
    assert abs(len(device.speech) // SAMPLE_WIDTH - 4800) <= 4


def test_a_rate_change_drops_the_speech_queued_at_the_old_rate(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    buffer = make(scheduler, listener, start_threshold_ms=50)
    buffer.push(numbered_speech(20))
    assert buffer.set_rate(48_000)
    assert buffer.buffered_ms == 0
    assert scheduler.pending == []


def test_depth_limits_are_checked(scheduler: ManualScheduler, listener: Listener) -> None:
    with pytest.raises(ValueError, match="max_threshold_ms"):
        make(scheduler, listener, start_threshold_ms=60, max_threshold_ms=40)
    with pytest.raises(ValueError, match="must not be negative"):
        make(scheduler, listener, drain_grace_ms=-1)
    # No ceiling given: 120 ms, or the start depth when that is deeper.
    assert DEFAULT_MAX_DEPTH_MS == 120
    deep = make(scheduler, listener, start_threshold_ms=200, drain_grace_ms=60_000)
    device = Device(deep, scheduler)
    deep.push(numbered_speech(10))
    deep.end_of_turn()  # released at once, then it runs dry
    device.run(20)
    deep.push(numbered_speech(10))  # the turn is over: the next one, no underrun
    device.run(250)
    deep.push(numbered_speech(10))  # this one is late within the grace: an underrun
    assert deep.underruns == 1
    assert deep.depth_ms == 200


def test_paced_speech_waits_its_depth_in_time_however_large_the_first_chunk(
    scheduler: ManualScheduler, listener: Listener
) -> None:
    # Paced speech: each 100 ms chunk comes when the one before it has played. Let go at
    # once, the queue is empty just before every next chunk: one a little late is a gap,
    # and the deeper depth an underrun brings changes nothing. Held for the depth instead,
    # that much stays queued between chunks.
    at_once = make(scheduler, listener, start_threshold_ms=10)
    device = Device(at_once, scheduler)
    assert paced_answer(at_once, device, late_ms=5) >= 1
    assert at_once.depth_ms > 10
    assert paced_answer(at_once, device, late_ms=5) >= 1  # deeper, and gaps all the same

    held = make(scheduler, listener, start_threshold_ms=10)
    held.paced = True
    device = Device(held, scheduler)
    held.push(numbered_speech(100))
    assert device.block() == 0  # not yet: 10 ms of waiting is the cushion
    assert device.run(5) == 0
    assert device.block() > 0
    device.run(400)
    assert paced_answer(held, device, late_ms=5) == 0
    assert held.underruns == 0
