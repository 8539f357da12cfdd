"""AudioCapture against the real PortAudio and the private PulseAudio's virtual microphone."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import numpy as np
import pytest

from sammy_desktop.audio import AudioCapture, AudioLevel
from sammy_desktop.eventbus import EventBus
from sammy_desktop.wire_audio import INPUT_RATE
from tests.audio.conftest import BlockCollector
from tests.audio.signals import best_lag, windowed_correlations
from tests.audio.virtual_devices import play_into_mic
from tests.helpers.events import EventLog

BLOCK_SAMPLES = INPUT_RATE // 100


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
@pytest.mark.parametrize("device_rate", [None, 48000], ids=["native-16k", "resampled-48k"])
async def test_speech_into_the_virtual_mic_arrives_at_16k_without_gaps(
    bus: EventBus, short_speech_16k: np.ndarray, device_rate: int | None
) -> None:
    collector = BlockCollector()
    capture = AudioCapture(bus, samplerate=device_rate)
    capture.set_consumer(collector)
    await capture.start()
    try:
        await collector.wait_for_blocks(5)
        first = len(collector.blocks)
        await play_into_mic(short_speech_16k, INPUT_RATE)
        # The speech has been played; wait for it and half a second more to come through.
        tail_blocks = (len(short_speech_16k) + INPUT_RATE // 2) // BLOCK_SAMPLES
        await collector.wait_for_blocks(first + tail_blocks)
    finally:
        await capture.stop()

    assert capture.device_samplerate == (device_rate or INPUT_RATE)
    assert {len(b) for b in collector.blocks} == {BLOCK_SAMPLES * 2}
    recording = collector.samples(first)
    lag, correlation = best_lag(recording, short_speech_16k)
    assert correlation > 0.9, (
        f"the capture does not match the speech (r={correlation:.3f}, lag {lag}, "
        f"overflows {capture.overflows}, "
        f"windows {np.round(windowed_correlations(recording, short_speech_16k, lag, 1600), 2)})"
    )
    # Every loud 100 ms window still matches at the one global lag: a block lost or
    # repeated anywhere would shift all windows after it and drop their correlation far
    # below 0.5. (One fricative window reads about 0.8: the server's resamplers roll off
    # its top octave.)
    windows = windowed_correlations(recording, short_speech_16k, lag, INPUT_RATE // 10)
    assert len(windows) > 10
    assert min(windows) > 0.7, f"a window does not line up: {np.round(windows, 2)}"
    assert float(np.median(windows)) > 0.97
    assert capture.overflows == 0


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_pre_roll_holds_the_audio_from_before_begin_talk(
    bus: EventBus, short_speech_16k: np.ndarray
) -> None:
    collector = BlockCollector()
    capture = AudioCapture(bus, pre_roll_ms=300)
    capture.set_consumer(collector)
    await capture.start()
    try:
        await collector.wait_for_blocks(5)
        await play_into_mic(short_speech_16k[:INPUT_RATE], INPUT_RATE)
        await collector.wait_for_blocks(len(collector.blocks) + 5)
        pre_roll = capture.begin_talk()
        delivered = b"".join(collector.blocks)
    finally:
        await capture.stop()

    assert len(pre_roll) == INPUT_RATE * 300 // 1000 * 2
    # Exactly the last 300 ms handed out before begin_talk, and it holds the speech.
    assert pre_roll == delivered[-len(pre_roll) :]
    _, correlation = best_lag(short_speech_16k[:INPUT_RATE], np.frombuffer(pre_roll, np.int16))
    assert correlation > 0.8


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_the_half_duplex_gate_delivers_silence_and_meters_it(
    bus: EventBus, events: EventLog, short_speech_16k: np.ndarray
) -> None:
    collector = BlockCollector()
    capture = AudioCapture(bus)
    capture.set_consumer(collector)
    await capture.start()
    try:
        await collector.wait_for_blocks(5)
        capture.gate(True)
        gated_from = len(collector.blocks)
        await play_into_mic(short_speech_16k[: INPUT_RATE // 2], INPUT_RATE)
        await collector.wait_for_blocks(len(collector.blocks) + 10)
        gated_until = len(collector.blocks)
        capture.gate(False)
        await play_into_mic(short_speech_16k[: INPUT_RATE // 2], INPUT_RATE)
        await collector.wait_for_blocks(len(collector.blocks) + 10)
    finally:
        await capture.stop()

    assert not np.any(collector.samples(gated_from)[: (gated_until - gated_from) * BLOCK_SAMPLES])
    assert np.max(np.abs(collector.samples(gated_until))) > 1000
    levels = [e.dbfs for e in events.of(AudioLevel) if e.direction == "input"]
    # One reading per 1/30 s of audio, counted in samples.
    assert abs(len(levels) - collector.sample_count * 30 // INPUT_RATE) <= 1
    assert min(levels) == -100.0
    assert max(levels) > -30.0


def test_block_size_outside_10_to_20_ms_is_refused(bus: EventBus) -> None:
    with pytest.raises(ValueError, match="block_ms must be between 10 and 20"):
        AudioCapture(bus, block_ms=5)
    with pytest.raises(ValueError, match="pre_roll_ms must not be negative"):
        AudioCapture(bus, pre_roll_ms=-1)


async def level_readings_until(events: EventLog, condition: Callable[[], bool]) -> None:
    """Wait until ``condition()`` holds, checking after each input level reading.

    Readings keep coming while the capture is live (30 a second) and the first standby
    heartbeat always reports one, so they are the clock to check a capture's state by.
    """
    while not condition():
        await events.wait_for(AudioLevel, count=len(events.of(AudioLevel)) + 1)


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
@pytest.mark.parametrize("device_rate", [None, 48000], ids=["native-16k", "resampled-48k"])
async def test_standby_keeps_the_pre_roll_and_joins_it_to_the_live_blocks(
    bus: EventBus, events: EventLog, short_speech_16k: np.ndarray, device_rate: int | None
) -> None:
    collector = BlockCollector()
    capture = AudioCapture(bus, samplerate=device_rate, pre_roll_ms=300, standby_when_idle=True)
    capture.set_consumer(collector)
    await capture.start()
    try:
        await level_readings_until(events, lambda: capture.is_standby)
        idle_blocks = len(collector.blocks)
        speaking = asyncio.create_task(play_into_mic(short_speech_16k, INPUT_RATE))
        # The standby heartbeat still meters the microphone: wait for 400 ms of speech.
        await level_readings_until(
            events,
            lambda: sum(e.dbfs > -40 for e in events.of(AudioLevel) if e.direction == "input") >= 4,
        )
        delivered_in_standby = len(collector.blocks) - idle_blocks
        pre_roll = capture.begin_talk()
        assert not capture.is_standby
        await speaking
        await collector.wait_for_blocks(idle_blocks + 50)
        capture.end_talk()
        await level_readings_until(events, lambda: capture.is_standby)
    finally:
        await capture.stop()

    assert delivered_in_standby == 0
    assert INPUT_RATE * 280 // 1000 * 2 <= len(pre_roll) <= INPUT_RATE * 300 // 1000 * 2
    # The pre-roll and the first live blocks are one stretch of the speech: no gap and
    # no repeat where they join (every loud 100 ms window lines up at one lag).
    joined = np.frombuffer(pre_roll + b"".join(collector.blocks[idle_blocks:]), np.int16)
    segment = joined[: INPUT_RATE * 8 // 10]
    lag, correlation = best_lag(short_speech_16k, segment)
    assert correlation > 0.9, f"r={correlation:.3f} at lag {lag}"
    windows = windowed_correlations(short_speech_16k, segment, lag, INPUT_RATE // 10)
    assert len(windows) >= 6
    assert min(windows) > 0.7, f"a window does not line up: {np.round(windows, 2)}"
    assert capture.overflows == 0


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_without_standby_every_block_is_delivered_and_metered(bus: EventBus) -> None:
    collector = BlockCollector()
    capture = AudioCapture(bus)
    capture.set_consumer(collector)
    await capture.start()
    try:
        await collector.wait_for_blocks(30)
        assert not capture.is_standby
    finally:
        await capture.stop()


class HandoffCollector(BlockCollector):
    """Also notes which hand-off each block came in (the capture's hand-off count)."""

    def __init__(self, capture: AudioCapture) -> None:
        super().__init__()
        self.capture = capture
        self.handoffs: list[int] = []
        self.holding: list[bool] = []

    def __call__(self, block: bytes) -> None:
        self.handoffs.append(self.capture.handoff.count)
        self.holding.append(self.capture.is_holding_quiet)
        super().__call__(block)

    def loud(self, index: int) -> bool:
        samples = np.frombuffer(self.blocks[index], np.int16).astype(np.float64)
        return float(np.sqrt(np.mean(samples**2))) > 300  # about -40 dBFS


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
@pytest.mark.parametrize("device_rate", [None, 48000], ids=["native-16k", "resampled-48k"])
async def test_a_quiet_hands_free_mic_reaches_the_loop_four_blocks_at_a_time_and_speech_at_once(
    bus: EventBus, short_speech_16k: np.ndarray, device_rate: int | None
) -> None:
    capture = AudioCapture(bus, samplerate=device_rate)
    collector = HandoffCollector(capture)
    capture.set_consumer(collector)
    capture.keep_live(True)
    capture.hold_quiet(300)
    await capture.start()
    try:
        await collector.wait_for_blocks(60)  # 300 ms of quiet, then held four at a time
        assert capture.is_holding_quiet
        quiet_from = len(collector.blocks)
        await collector.wait_for_blocks(quiet_from + 40)
        quiet_handoffs = collector.handoffs[-1] - collector.handoffs[quiet_from]
        first = len(collector.blocks)
        await play_into_mic(short_speech_16k, INPUT_RATE)
        await collector.wait_for_blocks(first + len(short_speech_16k) // BLOCK_SAMPLES + 60)
    finally:
        await capture.stop()

    assert quiet_handoffs <= 40 / 4 + 1, f"{quiet_handoffs} hand-offs for 40 quiet blocks"
    onset = next(i for i in range(first, len(collector.blocks)) if collector.loud(i))
    # The first loud block was handed over with what was held before it, never after:
    # the block after it came in a hand-off of its own.
    assert collector.handoffs[onset + 1] > collector.handoffs[onset]
    assert not collector.holding[onset]
    # Speech and the hangover after it: one device block per hand-off (at 48 kHz the
    # resampler's output comes in uneven pieces, so count over the whole stretch).
    last_loud = max(i for i in range(first, len(collector.blocks)) if collector.loud(i))
    end = min(last_loud + 20, len(collector.blocks) - 1)
    handoffs = collector.handoffs[end] - collector.handoffs[onset]
    assert handoffs >= (end - onset) - 3, f"{handoffs} hand-offs for {end - onset} blocks"
    assert not any(collector.holding[onset:end])
    # Nothing lost or repeated: the speech came through whole, as in the test above.
    recording = collector.samples(first)
    lag, correlation = best_lag(recording, short_speech_16k)
    assert correlation > 0.9, f"r={correlation:.3f} at lag {lag}"
    windows = windowed_correlations(recording, short_speech_16k, lag, INPUT_RATE // 10)
    assert min(windows) > 0.7, f"a window does not line up: {np.round(windows, 2)}"
    assert capture.overflows == 0


def test_quiet_holding_is_off_unless_asked_and_in_push_to_talk(bus: EventBus) -> None:
    capture = AudioCapture(bus)
    assert not capture.is_holding_quiet
    capture.keep_live(True)
    capture.hold_quiet(300)
    capture.keep_live(False)  # push-to-talk: every block is handed over alone
    assert not capture.is_holding_quiet
