"""The speaker's standby and the reports that ride along with the microphone's hand-offs.

Real PortAudio against the private PulseAudio: the stream really stops calling back while it
rests, and what is played after waking really reaches the virtual speaker.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from sammy_desktop.audio import (
    AudioEngine,
    AudioPlayback,
    PlaybackDrained,
    PlaybackStarted,
    StreamError,
)
from sammy_desktop.eventbus import EventBus
from sammy_desktop.wire_audio import OUTPUT_RATE
from tests.audio.conftest import until
from tests.audio.signals import assert_heard_intact, tone
from tests.audio.virtual_devices import MonitorRecorder
from tests.helpers.events import EventLog

pytestmark = [pytest.mark.audio, pytest.mark.usefixtures("running_sinks")]


def resting(playback: AudioPlayback) -> bool:
    # A call, so mypy does not carry a narrowed property value across awaits.
    return playback.is_standby


class RestingSpeaker:
    """A speaker with standby, recorded from the monitor; entered once it rests."""

    def __init__(self, bus: EventBus, standby_after_ms: int) -> None:
        self.playback = AudioPlayback(bus, standby_after_ms=standby_after_ms)
        self.recorder = MonitorRecorder(OUTPUT_RATE)
        self.recording = np.zeros(0, dtype=np.int16)

    async def __aenter__(self) -> RestingSpeaker:
        await self.playback.start()
        await self.recorder.start()
        await until(lambda: self.playback.is_standby)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.recording = await self.recorder.stop()
        await self.playback.stop()

    async def heard(self, seconds: float) -> None:
        """Wait until the recorder has ``seconds`` more of the speaker."""
        count = self.recorder.samples_so_far + round(OUTPUT_RATE * seconds)
        await self.recorder.wait_for_samples(count, within=5)


async def test_an_idle_speaker_rests_and_plays_at_once_when_woken(
    bus: EventBus, events: EventLog
) -> None:
    beep = tone(660.0, 0.4, rate=OUTPUT_RATE)
    async with RestingSpeaker(bus, standby_after_ms=200) as speaker:
        playback = speaker.playback
        resting_blocks = playback.blocks
        # Resting: no callbacks (the stall watchdog rests too: tests/audio/test_supervisor.py)
        # while the recorder, on its own stream, hears 300 ms of the speaker go by.
        await speaker.heard(0.3)
        assert playback.blocks == resting_blocks
        assert resting(playback)
        assert playback.is_running

        playback.play(beep.tobytes())
        playback.end_of_turn()
        await events.wait_for(PlaybackStarted)
        assert not resting(playback)
        assert not (await events.wait_for(PlaybackDrained)).interrupted
        await speaker.heard(0.2)
        # Then it rests again.
        await until(lambda: playback.is_standby)
    # The woken speaker plays the beep, all of it.
    assert_heard_intact(
        speaker.recording,
        beep,
        rate=OUTPUT_RATE,
        device_underflows=playback.device_underflows,
        ordered=False,
    )
    assert events.of(StreamError) == []


async def test_an_effect_wakes_the_resting_speaker(bus: EventBus, events: EventLog) -> None:
    chime = tone(880.0, 0.3, rate=OUTPUT_RATE)
    async with RestingSpeaker(bus, standby_after_ms=100) as speaker:
        playback = speaker.playback
        playback.play_effect(chime.tobytes())
        assert not playback.is_playing  # an effect is not the assistant speaking
        await until(lambda: playback.effects_buffered_ms == 0 and not playback.is_standby)
        await speaker.heard(0.5)
        await until(lambda: playback.is_standby)
    # The effect plays after waking, all of it.
    assert_heard_intact(
        speaker.recording,
        chime,
        rate=OUTPUT_RATE,
        device_underflows=playback.device_underflows,
        ordered=False,
    )
    assert events.of(StreamError) == []
    assert events.of(PlaybackStarted) == []


async def test_the_echo_reference_goes_on_while_the_speaker_rests(
    bus: EventBus, events: EventLog
) -> None:
    engine = AudioEngine(bus, echo_cancellation=True, hands_free=True)
    engine.set_consumer(lambda _block: None)
    await engine.start()
    try:
        engine.play(tone(440.0, 0.3, rate=OUTPUT_RATE).tobytes())
        engine.end_of_turn()
        await events.wait_for(PlaybackDrained)
        await until(lambda: engine.playback.is_standby)
        canceller = engine.echo_canceller
        render0, capture0 = canceller.render_frames, canceller.frames_processed
        await until(lambda: canceller.frames_processed >= capture0 + 40)
        render, capture = canceller.render_frames - render0, canceller.frames_processed - capture0
        assert engine.playback.is_standby
    finally:
        await engine.stop()
    # One 10 ms frame of silent reference per 10 ms of microphone, give or take a frame or
    # two of hand-off jitter: the canceller's time runs on while nothing is played.
    assert abs(render - capture) <= 3, f"{render} reference frames for {capture} mic frames"


async def test_speaker_reports_ride_along_with_a_live_microphone(
    bus: EventBus, events: EventLog, far_speech_24k: np.ndarray
) -> None:
    # Hands-free: the microphone hands a block to the loop every 10 ms, and pumps the
    # speaker's reports first; the speaker's callback then hardly wakes the loop itself.
    engine = AudioEngine(bus, echo_cancellation=True, hands_free=True)
    engine.set_consumer(lambda _block: None)
    await engine.start()
    try:
        await until(lambda: engine.capture.blocks > 20)
        speech = far_speech_24k[: OUTPUT_RATE * 2]
        engine.play(speech.tobytes())
        engine.end_of_turn()
        await events.wait_for(PlaybackStarted)
        blocks0, wakeups0 = engine.playback.blocks, engine.playback.loop_wakeups
        await events.wait_for(PlaybackDrained, within_s=10)
        reports = engine.playback.blocks - blocks0
        wakeups = engine.playback.loop_wakeups - wakeups0
    finally:
        await engine.stop()
    assert reports > 100  # two seconds of 10 ms reports
    assert wakeups < reports / 4, f"{wakeups} loop wake-ups for {reports} reports"
    # The echo canceller got the reference all along: it was not idle while speech played.
    assert engine.echo_canceller.frames_processed > 150


async def test_without_a_live_microphone_the_speaker_reports_itself(
    bus: EventBus, events: EventLog, short_speech_24k: np.ndarray
) -> None:
    playback = AudioPlayback(bus)
    await playback.start()
    try:
        playback.play(short_speech_24k.tobytes())
        playback.end_of_turn()
        await events.wait_for(PlaybackStarted)
        blocks0, wakeups0 = playback.blocks, playback.loop_wakeups
        await events.wait_for(PlaybackDrained, within_s=10)
        reports = playback.blocks - blocks0
        wakeups = playback.loop_wakeups - wakeups0
    finally:
        await playback.stop()
    assert reports > 50
    # Every third report woke the loop (nobody else pumps), and a change or two at once.
    assert reports / 3 * 0.9 <= wakeups <= reports / 3 + 5, f"{wakeups} wake-ups, {reports} reports"


async def test_answers_arriving_in_real_time_after_standby_play_without_gaps(
    bus: EventBus, events: EventLog
) -> None:
    # The simulator (and a slow connection) deliver speech no faster than it plays. A stream
    # started from standby is primed with silence, as a running stream's device buffer is;
    # taking that first burst from the queue instead would leave a gap before every second
    # chunk (one underrun per answer). The first answer counts as the service's bursts until
    # it has shown otherwise (audio/pace.py), so the answers counted are the ones after it.
    playback = AudioPlayback(bus, standby_after_ms=50)
    await playback.start()
    loop = asyncio.get_running_loop()
    chunk_ms = 100
    answers = 8
    underruns = 0
    speech = tone(330.0, 0.8, rate=OUTPUT_RATE)
    step = OUTPUT_RATE * chunk_ms // 1000
    # Device underflows in each answer's first 100 ms: where a woken stream would starve.
    at_start: list[int] = []
    try:
        for answer in range(answers + 1):
            if answer == 1:
                underruns = playback.underruns
            await until(lambda: playback.is_standby)
            began = loop.time()
            before = playback.device_underflows
            for chunk, index in enumerate(range(0, len(speech), step)):
                if chunk == 1 and answer > 0:
                    at_start.append(playback.device_underflows - before)
                playback.play(speech[index : index + step].tobytes())
                # A producer's pace, by the clock (absolute, so delays do not add up).
                next_chunk = began + (chunk + 1) * chunk_ms / 1000
                await asyncio.sleep(max(0.0, next_chunk - loop.time()))
            playback.end_of_turn()
            await events.wait_for(PlaybackDrained, count=answer + 1)
    finally:
        await playback.stop()
    # One hiccup of a busy machine is forgiven; a gap per answer is not.
    gaps = playback.underruns - underruns
    assert gaps <= 1, f"{gaps} gaps in {answers} answers"
    # A busy machine's device underflows fall anywhere (the CI's has had three in four
    # answers); a stream that starves when woken would underflow at every answer's start.
    starved = sum(1 for count in at_start if count)
    assert starved <= answers // 2, (
        f"{starved} of {answers} answers underflowed at their start "
        f"({playback.device_underflows} device underflows in all)"
    )


async def test_where_answers_come_paced_expecting_speech_wakes_the_speaker_and_holds_it(
    bus: EventBus, events: EventLog
) -> None:
    playback = AudioPlayback(bus, standby_after_ms=50)
    await playback.start()
    try:
        await _rest_after_a_paced_answer(playback, events)
        playback.expect_speech(0.6)
        assert not resting(playback)
        blocks = playback.blocks
        # 300 ms of callbacks, six times the standby delay, and still running...
        await until(lambda: playback.blocks >= blocks + 30)
        assert not resting(playback)
        # ...until the hold is over and nothing came.
        await until(lambda: playback.is_standby, within=3)
    finally:
        await playback.stop()


async def _play_at_once(playback: AudioPlayback, speech: np.ndarray, chunk_ms: int) -> None:
    step = OUTPUT_RATE * chunk_ms // 1000
    for index in range(0, len(speech), step):
        playback.play(speech[index : index + step].tobytes())
    playback.end_of_turn()


async def _play_paced(playback: AudioPlayback, speech: np.ndarray, chunk_ms: int) -> None:
    """Play ``speech`` as a connection at real time delivers it, a chunk as the last plays."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    step = OUTPUT_RATE * chunk_ms // 1000
    for index in range(0, len(speech), step):
        playback.play(speech[index : index + step].tobytes())
        await asyncio.sleep(max(0.0, began + (index // step + 1) * chunk_ms / 1000 - loop.time()))
    playback.end_of_turn()


async def _rest_after_an_answer_in_bursts(playback: AudioPlayback, events: EventLog) -> None:
    """Play an answer delivered at once (the pace learns: bursts), until the speaker rests."""
    await until(lambda: playback.is_standby)
    await _play_at_once(playback, tone(330.0, 0.6, rate=OUTPUT_RATE), chunk_ms=100)
    await events.wait_for(PlaybackDrained)
    await until(lambda: playback.is_standby)


async def _rest_after_a_paced_answer(playback: AudioPlayback, events: EventLog) -> None:
    """Play an answer at real time (the pace learns: paced), until the speaker rests."""
    await until(lambda: playback.is_standby)
    await _play_paced(playback, tone(330.0, 0.6, rate=OUTPUT_RATE), chunk_ms=100)
    await events.wait_for(PlaybackDrained)
    await until(lambda: playback.is_standby)


@pytest.mark.parametrize("bursts", [True, False], ids=["after-bursts", "paced"])
async def test_after_answers_in_bursts_a_resting_speaker_starts_with_the_answer_itself(
    bus: EventBus, events: EventLog, bursts: bool
) -> None:
    # The service sends answers ahead of real time: silence ahead of the first sample would
    # be latency for nothing. Paced answers still get the device buffer of silence first.
    playback = AudioPlayback(bus, standby_after_ms=50)
    await playback.start()
    speech = tone(330.0, 0.6, rate=OUTPUT_RATE)
    try:
        if bursts:
            await _rest_after_an_answer_in_bursts(playback, events)
        else:
            await _rest_after_a_paced_answer(playback, events)
        # The answer that taught a paced connection started as the service's bursts would
        # (it may have had a gap): only the answer after it counts here.
        underruns = playback.underruns
        # The block count as the speech starts (handled in batches: counted at the event).
        at_start: list[int] = []
        bus.subscribe(PlaybackStarted, lambda _event: at_start.append(playback.blocks))
        before = playback.blocks
        playback.play(speech.tobytes())
        await events.wait_for(PlaybackStarted, count=2)
        reports_until_speech = at_start[0] - before
        playback.end_of_turn()
        await events.wait_for(PlaybackDrained, count=2)
    finally:
        await playback.stop()
    if bursts:
        # Queued before the start, so even on a busy machine (two cores kept busy: one or
        # two callbacks of silence when the start was handed over first).
        assert reports_until_speech == 1, "the first callback after waking plays the answer"
    else:
        # A device buffer of 10-15 ms in 5 ms periods: two or three callbacks of silence.
        assert reports_until_speech >= 3
    assert playback.underruns == underruns


@pytest.mark.parametrize("bursts", [True, False], ids=["after-bursts", "paced"])
async def test_play_returns_once_a_speaker_woken_by_an_answer_in_bursts_holds_it(
    bus: EventBus, events: EventLog, bursts: bool
) -> None:
    # The loop waits (a few ms at most, the GIL released) for the woken speaker's device
    # buffer to take the answer, instead of parsing the burst's later messages meanwhile:
    # the sound server plays nothing before it has a few of the callback's blocks.
    playback = AudioPlayback(bus, standby_after_ms=50)
    await playback.start()
    speech = tone(330.0, 0.6, rate=OUTPUT_RATE)
    try:
        if bursts:
            await _rest_after_an_answer_in_bursts(playback, events)
        else:
            await _rest_after_a_paced_answer(playback, events)
        before = playback.first_fill_waits, playback.first_fill_misses
        playback.play(speech.tobytes())
        waited = playback.first_fill_waits - before[0]
        missed = playback.first_fill_misses - before[1]
        playback.end_of_turn()
        await events.wait_for(PlaybackDrained, count=2)
    finally:
        await playback.stop()
    if bursts:
        assert (waited, missed) == (1, 0), "the device took the answer before play() returned"
    else:
        assert (waited, missed) == (0, 0), "a paced answer starts behind silence: no wait"


@pytest.mark.parametrize("answered", [False, True], ids=["before-any-answer", "after-bursts"])
async def test_where_answers_come_in_bursts_the_talk_key_leaves_a_resting_speaker_resting(
    bus: EventBus, events: EventLog, answered: bool
) -> None:
    # Until an answer shows otherwise, answers count as the service sends them, in bursts:
    # the first answer of a session starts the speaker itself too, with no silence ahead.
    playback = AudioPlayback(bus, standby_after_ms=50)
    await playback.start()
    try:
        if answered:
            await _rest_after_an_answer_in_bursts(playback, events)
        else:
            await until(lambda: playback.is_standby)
        playback.expect_speech(0.6)
        # Waking is asked for at once (see the test above for paced answers).
        assert resting(playback)
    finally:
        await playback.stop()


async def test_after_answers_in_bursts_a_speaker_playing_at_the_talk_key_rests_after_it(
    bus: EventBus, events: EventLog
) -> None:
    # The talk key's earcon plays as the key goes up: where answers come in bursts, the
    # speaker is not held running for the answer (it would start behind a buffer of
    # silence), it rests after the earcon as usual.
    playback = AudioPlayback(bus, standby_after_ms=50)
    await playback.start()
    try:
        await _rest_after_an_answer_in_bursts(playback, events)
        playback.play_effect(tone(880.0, 0.1, rate=OUTPUT_RATE).tobytes())
        playback.expect_speech(3.0)
        assert not resting(playback), "the earcon plays"
        # Rests well before the three seconds an answer was expected within.
        await until(lambda: playback.is_standby, within=1.0)
    finally:
        await playback.stop()
