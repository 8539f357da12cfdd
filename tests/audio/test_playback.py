"""AudioPlayback against the real PortAudio, recorded from the virtual speaker's monitor."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import sounddevice as sd

from sammy_desktop.audio import (
    AudioLevel,
    AudioPlayback,
    PlaybackDrained,
    PlaybackStarted,
    StreamError,
    StreamRecovered,
)
from sammy_desktop.eventbus import EventBus
from sammy_desktop.wire_audio import OUTPUT_RATE
from tests.audio.conftest import until
from tests.audio.signals import assert_heard_intact, tone
from tests.audio.virtual_devices import MonitorRecorder
from tests.helpers.events import EventLog

_log = logging.getLogger(__name__)

CHUNK = OUTPUT_RATE * 40 // 1000  # the Live API sends speech in chunks of tens of ms


def still_playing(playback: AudioPlayback) -> bool:
    # A call, so mypy does not carry a narrowed property value across awaits.
    return playback.is_playing


def play_in_chunks(playback: AudioPlayback, samples: np.ndarray) -> None:
    for start in range(0, len(samples), CHUNK):
        playback.play(samples[start : start + CHUNK].tobytes())


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
@pytest.mark.parametrize("device_rate", [None, 48000], ids=["native-24k", "resampled-48k"])
async def test_speech_played_is_what_the_speaker_gets(
    bus: EventBus, events: EventLog, short_speech_24k: np.ndarray, device_rate: int | None
) -> None:
    recorder = MonitorRecorder(OUTPUT_RATE)
    playback = AudioPlayback(bus, samplerate=device_rate)
    await playback.start()
    await recorder.start()
    try:
        play_in_chunks(playback, short_speech_24k)
        assert still_playing(playback)
        await events.wait_for(PlaybackStarted)
        drained = await events.wait_for(PlaybackDrained, within_s=15)
        assert not drained.interrupted
        assert not still_playing(playback)
        await recorder.wait_for_samples(recorder.samples_so_far + OUTPUT_RATE // 5, within=5)
    finally:
        recording = await recorder.stop()
        await playback.stop()

    # A busy machine's device underflows put silence in; the audio itself must be whole.
    windows = assert_heard_intact(
        recording, short_speech_24k, rate=OUTPUT_RATE, device_underflows=playback.device_underflows
    )
    assert len(windows) > 10
    assert playback.underruns == 0
    _log.info("device underflows while playing: %d", playback.device_underflows)
    assert len(events.of(PlaybackStarted)) == 1
    assert len(events.of(PlaybackDrained)) == 1
    levels = [e.dbfs for e in events.of(AudioLevel) if e.direction == "output"]
    assert max(levels) > -30.0


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_flush_silences_the_speaker_at_once_and_it_plays_the_next_answer(
    bus: EventBus, events: EventLog, short_speech_24k: np.ndarray
) -> None:
    recorder = MonitorRecorder(OUTPUT_RATE)
    playback = AudioPlayback(bus)
    signal = tone(440.0, 5.0, rate=OUTPUT_RATE)
    await playback.start()
    await recorder.start()
    try:
        play_in_chunks(playback, signal)
        await events.wait_for(PlaybackStarted)
        # Let the tone reach the monitor, then barge in.
        before = recorder.samples_so_far
        await recorder.wait_for_samples(before + OUTPUT_RATE // 2, within=5)
        flushed_at = recorder.samples_so_far
        playback.flush()
        drained = await events.wait_for(PlaybackDrained)
        assert drained.interrupted
        assert not playback.is_playing
        await recorder.wait_for_samples(flushed_at + OUTPUT_RATE, within=5)
        silence_ends = recorder.samples_so_far
        drops = playback.buffer_drops
        to_silence, to_dac_silence = (
            playback.last_flush_to_silence_s,
            playback.last_flush_to_dac_silence_s,
        )
        # The stream was stopped and started to drop what the device held: it plays on.
        play_in_chunks(playback, short_speech_24k)
        playback.end_of_turn()
        await events.wait_for(PlaybackStarted, count=2)
        await events.wait_for(PlaybackDrained, within_s=15, count=2)
        await recorder.wait_for_samples(recorder.samples_so_far + OUTPUT_RATE // 5, within=5)
    finally:
        recording = await recorder.stop()
        await playback.stop()

    after_flush = recording[:silence_ends]
    loud = np.flatnonzero(np.abs(after_flush.astype(np.int32)) > 300)
    assert len(loud) and loud[0] < flushed_at, "the tone never reached the speaker"
    onset = int(loud[-1]) + 1
    onset_ms = (onset - flushed_at) / OUTPUT_RATE * 1000
    _log.info(
        "flush -> silence in the recording: %.1f ms after the flush (dropped: %.1f ms)",
        onset_ms,
        to_silence * 1000,
    )
    # The tone (5 s of it queued) stopped soon after flush() and the speaker stayed silent
    # for the rest of that second. How soon is a benchmark (bench/audio/).
    assert onset < flushed_at + OUTPUT_RATE // 2, f"still sounding {onset_ms:.0f} ms after flush"
    assert len(after_flush) - onset > OUTPUT_RATE // 2
    # Speech was playing and no effect: the device buffer was dropped, not played out, and
    # its moment is the measure of the silence.
    assert drops == 1
    assert 0 < to_dac_silence == to_silence
    assert_heard_intact(
        recording[silence_ends:],
        short_speech_24k,
        rate=OUTPUT_RATE,
        device_underflows=playback.device_underflows,
    )
    assert playback.underruns == 0


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_a_drop_that_fails_is_a_reopened_stream_and_its_silence_still_measured(
    bus: EventBus, events: EventLog
) -> None:
    playback = AudioPlayback(bus)
    await playback.start()
    try:
        play_in_chunks(playback, tone(440.0, 3.0, rate=OUTPUT_RATE))
        await events.wait_for(PlaybackStarted)
        stream = playback._stream.supervisor.stream
        assert stream is not None

        def refuse() -> None:
            raise sd.PortAudioError("Unanticipated host error")

        stream.abort = refuse  # type: ignore[method-assign]
        playback.flush()
        error = await events.wait_for(StreamError, within_s=3)
        assert "would not start again" in error.reason
        await events.wait_for(StreamRecovered, within_s=10)
        # Nothing was dropped; the reopened stream's first silent callback is the measure.
        await until(lambda: playback.measured_flush == playback.flushes)
        assert playback.buffer_drops == 0
        assert playback.last_flush_to_dac_silence_s >= playback.last_flush_to_silence_s > 0
    finally:
        await playback.stop()


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_a_short_answer_starts_below_the_threshold_and_drains_at_end_of_turn(
    bus: EventBus, events: EventLog
) -> None:
    # A grace period far beyond the wait below: only end_of_turn() can drain in time.
    playback = AudioPlayback(bus, start_threshold_ms=200, drain_grace_ms=60_000)
    await playback.start()
    try:
        playback.play(tone(880.0, 0.05, rate=OUTPUT_RATE).tobytes())
        await events.wait_for(PlaybackStarted)
        playback.end_of_turn()
        drained = await events.wait_for(PlaybackDrained, within_s=10)
    finally:
        await playback.stop()
    assert not drained.interrupted


async def test_play_refuses_what_is_not_pcm16(bus: EventBus) -> None:
    playback = AudioPlayback(bus)
    with pytest.raises(ValueError, match="odd count"):
        playback.play(b"\x00\x01\x02")
    with pytest.raises(TypeError, match="PCM16 bytes, not str"):
        playback.play("hello")  # type: ignore[arg-type]
    playback.play(b"")
    assert not playback.is_playing
