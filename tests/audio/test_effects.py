"""Effects (earcons) on the main playback: heard, mixed with speech, known to the canceller."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import numpy as np
import pytest

from sammy_desktop.audio import (
    AudioCapture,
    AudioEngine,
    AudioLevel,
    AudioPlayback,
    PlaybackDrained,
    PlaybackStarted,
    rms_dbfs,
)
from sammy_desktop.eventbus import EventBus
from sammy_desktop.wire_audio import OUTPUT_RATE
from tests.audio.signals import assert_heard_intact, tone
from tests.audio.test_echo import StampedBlocks, erle_by_window
from tests.audio.virtual_devices import MonitorRecorder
from tests.helpers.events import EventLog

pytestmark = [pytest.mark.audio, pytest.mark.usefixtures("running_sinks")]

_log = logging.getLogger(__name__)


async def output_until(bus: EventBus, condition: Callable[[], bool], *, within: float = 10) -> None:
    """Wait until ``condition`` holds, checked at every output level event (~30 Hz)."""
    reached = asyncio.Event()

    def check(_event: AudioLevel) -> None:
        if condition():
            reached.set()

    subscription = bus.subscribe(AudioLevel, check)
    try:
        if not condition():
            await asyncio.wait_for(reached.wait(), within)
    finally:
        subscription.cancel()


async def effects_played(bus: EventBus, playback: AudioPlayback, *, within: float = 10) -> None:
    """Wait until every queued effect has been handed to the device."""
    await output_until(bus, lambda: playback.effects_buffered_ms == 0, within=within)


async def test_an_effect_is_heard_without_counting_as_speech(
    bus: EventBus, events: EventLog
) -> None:
    chirp = tone(880, 0.3, rate=OUTPUT_RATE)
    recorder = MonitorRecorder(OUTPUT_RATE)
    playback = AudioPlayback(bus)
    await playback.start()
    await recorder.start()
    try:
        playback.play_effect(chirp.tobytes())
        assert not playback.is_playing
        await effects_played(bus, playback)
        await recorder.wait_for_samples(recorder.samples_so_far + OUTPUT_RATE // 5, within=5)
        assert not playback.is_playing
    finally:
        recording = await recorder.stop()
        await playback.stop()

    assert_heard_intact(
        recording,
        chirp,
        rate=OUTPUT_RATE,
        device_underflows=playback.device_underflows,
        ordered=False,
    )
    assert not events.of(PlaybackStarted)
    assert not events.of(PlaybackDrained)


async def test_speech_and_an_effect_mix_and_clip_instead_of_wrapping(
    bus: EventBus, events: EventLog
) -> None:
    # Two loud positive plateaus: their sum (40000) overflows 16 bits. Clipped it reads
    # full scale; wrapped around it would read about -25500.
    speech = np.full(OUTPUT_RATE, 20000, dtype=np.int16)
    effect = np.full(OUTPUT_RATE * 3 // 10, 20000, dtype=np.int16)
    recorder = MonitorRecorder(OUTPUT_RATE)
    playback = AudioPlayback(bus)
    await playback.start()
    await recorder.start()
    try:
        playback.play(speech.tobytes())
        playback.end_of_turn()
        await events.wait_for(PlaybackStarted)
        playback.play_effect(effect.tobytes())
        await events.wait_for(PlaybackDrained, within_s=10)
        await recorder.wait_for_samples(recorder.samples_so_far + OUTPUT_RATE // 5, within=5)
    finally:
        recording = await recorder.stop()
        await playback.stop()

    summed = recording > 30000
    assert summed.sum() > OUTPUT_RATE * 2 // 10, "the effect was not added on top of the speech"
    single = (recording > 18000) & (recording < 22000)
    assert single.sum() > OUTPUT_RATE * 5 // 10, "the speech alone is missing"
    assert recording.min() > -5000, "the sum wrapped around instead of clipping"
    assert len(events.of(PlaybackDrained)) == 1


async def test_flush_silences_speech_but_lets_the_effect_finish(
    bus: EventBus, events: EventLog
) -> None:
    speech = tone(300, 2.0, rate=OUTPUT_RATE)
    effect = tone(1500, 0.5, rate=OUTPUT_RATE)
    recorder = MonitorRecorder(OUTPUT_RATE)
    playback = AudioPlayback(bus)
    await playback.start()
    await recorder.start()
    try:
        playback.play(speech.tobytes())
        await events.wait_for(PlaybackStarted)
        playback.play_effect(effect.tobytes())
        playback.flush()
        assert events.of(PlaybackDrained)[-1].interrupted
        await effects_played(bus, playback)
        await recorder.wait_for_samples(recorder.samples_so_far + OUTPUT_RATE // 5, within=5)
    finally:
        recording = await recorder.stop()
        await playback.stop()

    # The flush must not cut the effect: every window of it reaches the speaker.
    assert_heard_intact(
        recording,
        effect,
        rate=OUTPUT_RATE,
        device_underflows=playback.device_underflows,
        ordered=False,
    )
    assert len(events.of(PlaybackDrained)) == 1
    # The effect was being mixed in: the device buffer was played out, not dropped.
    assert playback.buffer_drops == 0


@pytest.mark.usefixtures("speaker_looped_into_mic")
async def test_an_effect_looped_into_the_mic_is_cancelled(
    bus: EventBus, far_speech_24k: np.ndarray
) -> None:
    engine = AudioEngine(bus, echo_cancellation=True, hands_free=True)
    raw_capture = AudioCapture(EventBus())
    processed, raw = StampedBlocks(), StampedBlocks()
    engine.capture.set_consumer(processed)
    raw_capture.set_consumer(raw)
    await engine.start()
    await raw_capture.start()
    piece = OUTPUT_RATE // 2
    try:
        # A long "effect" (speech, so the canceller has something rich to learn), fed in
        # pieces because the effect queue holds only a few seconds.
        sound = far_speech_24k[: OUTPUT_RATE * 5]
        started = time.monotonic()
        for start in range(0, len(sound), piece):
            await output_until(bus, lambda: engine.playback.effects_buffered_ms <= 1000)
            engine.play_effect(sound[start : start + piece].tobytes())
        await effects_played(bus, engine.playback, within=20)
        ended = time.monotonic()
        assert not engine.is_playing
        await asyncio.wait_for(processed.wait_past(ended + 0.2), 5)
    finally:
        await raw_capture.stop()
        await engine.stop()

    echo = raw.between(started + 1.0, ended)
    # By window, as the speech's echo test does: the whole stretch read 21 dB once on the
    # CI, ruled by the window after a device underrun.
    erle = erle_by_window(raw, processed, started + 1.0, ended)
    _log.info("effect ERLE by window %s dB", " ".join(f"{w:.0f}" for w in erle))
    assert rms_dbfs(echo) > -35.0, "too little of the effect reached the mic"
    assert len(erle) >= 6, "the effect is 5 s long"
    assert float(np.median(erle)) >= 30.0
