"""The playback jitter buffer's adaptive depth, against the real PortAudio.

It starts small (every millisecond buffered at the start stays buffered for the whole of a
continuous stream), grows after an underrun, and shrinks again after enough speech without
one (the rules in detail, on a hand-moved clock: test_jitter.py).
"""

from __future__ import annotations

import asyncio

import pytest

from sammy_desktop.audio import (
    AudioLevel,
    AudioPlayback,
    PlaybackDrained,
    PlaybackStarted,
)
from sammy_desktop.eventbus import EventBus
from sammy_desktop.wire_audio import OUTPUT_RATE
from tests.audio.signals import tone
from tests.helpers.events import EventLog


async def queue_ran_dry(bus: EventBus, playback: AudioPlayback) -> None:
    """Wait (bounded) until the device has taken everything queued.

    Checked at every output level report: those come from the played blocks' bookkeeping.
    """
    reported = asyncio.Event()
    subscription = bus.subscribe(AudioLevel, lambda _event: reported.set())

    async def dry() -> None:
        while playback.buffered_ms > 0:
            reported.clear()
            await reported.wait()

    try:
        await asyncio.wait_for(dry(), timeout=5)
    finally:
        subscription.cancel()


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_an_underrun_deepens_the_buffer_and_speech_heard_without_one_lowers_it(
    bus: EventBus, events: EventLog
) -> None:
    # A grace period far beyond the test: a dry queue is an underrun, never the end.
    playback = AudioPlayback(
        bus,
        start_threshold_ms=20,
        underrun_step_ms=20,
        max_threshold_ms=40,
        drain_grace_ms=60_000,
        lower_after_ms=250,
    )
    chunk = tone(660.0, 0.03, rate=OUTPUT_RATE).tobytes()
    answer = tone(440.0, 0.3, rate=OUTPUT_RATE).tobytes()
    await playback.start()
    try:
        assert playback.depth_ms == pytest.approx(20)
        playback.play(chunk)
        await events.wait_for(PlaybackStarted)
        await queue_ran_dry(bus, playback)
        playback.play(chunk)  # late: a gap in the middle of speech
        assert playback.underruns == 1
        assert playback.depth_ms == pytest.approx(40)
        await queue_ran_dry(bus, playback)
        playback.play(chunk)  # another: the depth stays at its ceiling
        assert playback.underruns == 2
        assert playback.depth_ms == pytest.approx(40)
        playback.end_of_turn()
        await events.wait_for(PlaybackDrained, within_s=10)
        # Only the last chunk played since the last gap: no shrinking yet.
        assert playback.depth_ms == pytest.approx(40)

        playback.play(answer)  # 300 ms without a gap
        playback.end_of_turn()
        await events.wait_for(PlaybackDrained, count=2, within_s=10)
    finally:
        await playback.stop()
    assert playback.underruns == 2
    assert playback.depth_ms == pytest.approx(20)


def test_a_ceiling_below_the_start_depth_is_refused() -> None:
    with pytest.raises(ValueError, match="max_threshold_ms"):
        AudioPlayback(EventBus(), start_threshold_ms=60, max_threshold_ms=40)
