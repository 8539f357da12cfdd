"""AudioEngine: the echo-cancellation / half-duplex policy, with the real devices."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from sammy_desktop.audio import (
    AudioEngine,
    AudioLevel,
    PlaybackDrained,
    PlaybackStarted,
)
from sammy_desktop.audio.echo import PUSH_TO_TALK_TAIL_MS
from sammy_desktop.config.settings import MicBetweenTurns, Settings, TalkMode
from sammy_desktop.eventbus import EventBus
from sammy_desktop.wire_audio import INPUT_RATE, OUTPUT_RATE, SPEECH_HANGOVER_MARGIN_MS
from tests.audio.conftest import BlockCollector
from tests.audio.signals import tone
from tests.audio.virtual_devices import play_into_mic
from tests.helpers.events import EventLog


def muted(engine: AudioEngine) -> bool:
    # A call, so mypy does not carry a narrowed property value across statements.
    return engine.capture.is_muted


def suppressing(engine: AudioEngine) -> bool:
    return engine.echo_canceller.noise_suppression


def hangover(engine: AudioEngine) -> int | None:
    return engine.capture.quiet_hangover_ms


@pytest.mark.parametrize(
    ("talk_mode", "echo_cancellation", "half_duplex"),
    [
        (TalkMode.HANDS_FREE, False, True),
        (TalkMode.HANDS_FREE, True, False),
        (TalkMode.PUSH_TO_TALK, False, False),
        (TalkMode.PUSH_TO_TALK, True, False),
    ],
)
def test_half_duplex_only_when_hands_free_without_echo_cancellation(
    bus: EventBus, talk_mode: TalkMode, echo_cancellation: bool, half_duplex: bool
) -> None:
    settings = Settings(talk_mode=talk_mode, echo_cancellation=echo_cancellation)
    engine = AudioEngine(bus, settings)
    assert engine.half_duplex is half_duplex
    assert engine.echo_canceller.enabled is echo_cancellation
    engine.set_half_duplex(True)
    assert engine.half_duplex
    engine.set_half_duplex(None)
    assert engine.half_duplex is half_duplex


def test_noise_suppression_and_quiet_holding_run_in_hands_free_only_and_follow_the_mode(
    bus: EventBus,
) -> None:
    # Push-to-talk: the person says when the microphone counts, and the suppressor's 6 ms
    # would be latency for nothing; hands-free: a fan must not sound like speech.
    engine = AudioEngine(bus, Settings(talk_mode=TalkMode.PUSH_TO_TALK))
    assert engine.echo_canceller.enabled
    assert not suppressing(engine)
    assert hangover(engine) is None
    engine.set_hands_free(True)
    assert suppressing(engine)
    # Hands-free holds quiet blocks back until the service's silence duration and a margin
    # have passed since speech.
    assert hangover(engine) == 700 + SPEECH_HANGOVER_MARGIN_MS
    engine.apply_settings(Settings(talk_mode=TalkMode.HANDS_FREE, silence_duration_ms=1200))
    assert hangover(engine) == 1200 + SPEECH_HANGOVER_MARGIN_MS
    engine.apply_settings(Settings(talk_mode=TalkMode.PUSH_TO_TALK))
    assert not suppressing(engine)
    assert hangover(engine) is None
    assert suppressing(AudioEngine(bus, Settings(talk_mode=TalkMode.HANDS_FREE)))


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_without_echo_cancellation_hands_free_gates_the_mic_while_speaking(
    bus: EventBus, events: EventLog, short_speech_16k: np.ndarray
) -> None:
    engine = AudioEngine(bus, echo_cancellation=False, hands_free=True)
    collector = BlockCollector()
    engine.set_consumer(collector)
    await engine.start()
    try:
        await collector.wait_for_blocks(3)
        engine.play(tone(440.0, 1.0, rate=OUTPUT_RATE).tobytes())
        await events.wait_for(PlaybackStarted)
        assert muted(engine)
        gated_from = len(collector.blocks)
        # The person speaks while the assistant does: with no echo canceller, not heard.
        await play_into_mic(short_speech_16k[: INPUT_RATE // 2], INPUT_RATE)
        gated_until = len(collector.blocks)
        assert engine.is_playing
        await events.wait_for(PlaybackDrained)
        await play_into_mic(short_speech_16k, INPUT_RATE)
        await collector.wait_for_blocks(len(collector.blocks) + 10)
        assert not muted(engine)
    finally:
        await engine.stop()
    assert gated_until - gated_from > 20
    assert not np.any(collector.samples(gated_from)[: (gated_until - gated_from) * 160])
    assert np.max(np.abs(collector.samples(gated_until))) > 1000


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_switching_settings_while_speaking_applies_the_gate_at_once(
    bus: EventBus, events: EventLog
) -> None:
    engine = AudioEngine(bus, echo_cancellation=True, hands_free=True)
    await engine.start()
    try:
        engine.play(tone(440.0, 3.0, rate=OUTPUT_RATE).tobytes())
        await events.wait_for(PlaybackStarted)
        assert not muted(engine)
        engine.set_echo_cancellation(False)
        assert muted(engine)
        engine.apply_settings(Settings(talk_mode=TalkMode.PUSH_TO_TALK, echo_cancellation=False))
        assert not muted(engine)
        engine.set_hands_free(True)
        assert muted(engine)
        # Barge-in: the flush opens the gate at once, no hangover.
        engine.flush()
        drained = await events.wait_for(PlaybackDrained)
        assert drained.interrupted
        assert not muted(engine)
    finally:
        await engine.stop()


async def input_readings_until(events: EventLog, condition: Callable[[], bool]) -> None:
    """Wait until ``condition()`` holds, checking after each level reading (the clock)."""
    while not condition():
        await events.wait_for(AudioLevel, count=len(events.of(AudioLevel)) + 1)


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_push_to_talk_rests_the_mic_until_talk_or_sound_needs_it(
    bus: EventBus, events: EventLog
) -> None:
    # Always ready: the stream stays open between turns, resting in standby.
    engine = AudioEngine(
        bus,
        echo_cancellation=True,
        hands_free=False,
        mic_between_turns=MicBetweenTurns.ALWAYS_READY,
    )
    collector = BlockCollector()
    engine.set_consumer(collector)
    await engine.start()
    try:
        await input_readings_until(events, lambda: engine.capture.is_standby)
        # Audible playback wakes it: the echo canceller needs every microphone frame.
        engine.play(tone(440.0, 0.5, rate=OUTPUT_RATE).tobytes())
        await events.wait_for(PlaybackStarted)
        assert not engine.capture.is_standby
        await events.wait_for(PlaybackDrained)
        woken_blocks = len(collector.blocks)
        # Once the echo and its tail have come (the stream delay and 150 ms: push-to-talk,
        # far sooner than hands-free's second) the canceller idles, and so does the mic.
        await input_readings_until(events, lambda: engine.capture.is_standby)
        tail_blocks = (engine.echo_canceller.stream_delay_ms + PUSH_TO_TALK_TAIL_MS) // 10
        assert 0 < len(collector.blocks) - woken_blocks <= tail_blocks + 5
        resting_blocks = len(collector.blocks)
        pre_rolls: list[bytes] = []

        def start_turn(pre_roll: bytes) -> bool:
            pre_rolls.append(pre_roll)
            return True

        assert engine.begin_talk(start_turn)
        (pre_roll,) = pre_rolls
        assert not engine.capture.is_standby
        await collector.wait_for_blocks(resting_blocks + 10)
        engine.end_talk()
        await input_readings_until(events, lambda: engine.capture.is_standby)
        # Hands-free keeps it live.
        engine.set_hands_free(True)
        assert not engine.capture.is_standby
    finally:
        await engine.stop()
    assert len(pre_roll) == INPUT_RATE * 300 // 1000 * 2
