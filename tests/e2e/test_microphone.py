"""The microphone end to end (issue 17): real PortAudio, the real core and SDK, the simulator.

The audio engine, :class:`~sammy_desktop.voice_controls.VoiceControls` and the
:class:`~sammy_desktop.core.agent.AgentCore` are wired as the app wires them; the private
PulseAudio is asked how many recording streams this process has. A tone started exactly at
the press must reach the simulator whole: the turn starts at the microphone's first block,
and everything from then on goes after activityStart. With the connection resting, the
same press reconnects while the microphone records, and the audio captured before
setupComplete follows it.
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from sammy_desktop.audio import AudioEngine
from sammy_desktop.audio.events import MicrophoneListening
from sammy_desktop.config import AppPaths, MicBetweenTurns, Settings, TalkMode
from sammy_desktop.core.agent import AgentCore
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.endpoint import make_client_factory
from sammy_desktop.core.events import AgentState, TurnStats
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.eventbus import EventBus
from sammy_desktop.sim import LiveSimulator, OnActivityEnd, Received, Scenario, Turn, TurnComplete
from sammy_desktop.tools import ToolManager, ToolServices
from sammy_desktop.voice_controls import VoiceControls
from sammy_desktop.wire_audio import INPUT_RATE
from tests.audio.conftest import until
from tests.audio.signals import best_lag, speak, tone
from tests.audio.virtual_devices import (
    MIC_FEED,
    SinkKeepAlive,
    capture_streams_of,
    play_into_mic,
    wait_capture_streams,
)
from tests.helpers.clock import ManualScheduler
from tests.helpers.events import EventLog

pytestmark = pytest.mark.audio

API_KEY = "mic-test-key"
TONE_S = 0.6
LOUD = 2000
SPEECH_AFTER_PRESS_S = 0.1


@dataclass
class Rig:
    sim: LiveSimulator
    core: AgentCore
    engine: AudioEngine
    controls: VoiceControls
    events: EventLog
    clock: ManualScheduler


@pytest.fixture
def sinks_awake() -> Iterator[None]:
    # The virtual microphone then delivers its first block as a sound card's would (see
    # docs/benchmarks.md: an idle null sink starts in 2 s blocks).
    with SinkKeepAlive(MIC_FEED):
        yield


@contextlib.asynccontextmanager
async def rig(tmp_path: Path, settings: Settings) -> AsyncIterator[Rig]:
    bus = EventBus()
    events = EventLog(bus)
    paths = AppPaths.profile(tmp_path / "profile")
    history = ConversationHistory(paths.history_dir)
    tools = ToolManager(
        bus,
        ToolServices(paths=paths, settings=lambda: settings, transcript=history.transcript),
        tools=(),
        load_entry_points=False,
    )
    answer = Turn(OnActivityEnd(), [TurnComplete()])
    clock = ManualScheduler()
    engine = AudioEngine(bus, settings)
    async with LiveSimulator(Scenario(turns=[answer, answer, answer]), api_keys=(API_KEY,)) as sim:
        core = AgentCore(
            bus=bus,
            settings=settings,
            tools=tools,
            sink=engine.playback,
            client_factory=make_client_factory(
                lambda: API_KEY, base_url=sim.base_url, ssl_context=sim.ssl_context
            ),
            history=history,
            reconnect=ReconnectPolicy(initial_s=0.01, maximum_s=0.05, max_attempts=3),
            rng=random.Random(3),
            scheduler=clock,
        )
        engine.set_consumer(core.send_audio)
        controls = VoiceControls(core, engine)
        await engine.start()
        try:
            await core.start()
            await events.wait_state(AgentState.READY)
            yield Rig(sim, core, engine, controls, events, clock)
        finally:
            await core.stop()
            await engine.stop()
            await tools.aclose()


async def _turn_with_tone_at_the_press(r: Rig, samples: np.ndarray, turns: int) -> None:
    """Press, start playing at once, let go once it has played; wait for the answer.

    The sound reaches the microphone ``SPEECH_AFTER_PRESS_S`` after ``pacat`` starts: a
    person's first word, not the key's own click. Started with no lead, it raced the
    microphone's opening (about 0.2 s of ``pacat``'s start-up against 20 ms of opening on a
    quiet machine); under a full run's load a press that also reconnected lost 14 ms of it.
    """
    assert r.controls.begin_talk()
    lead = np.zeros(round(SPEECH_AFTER_PRESS_S * INPUT_RATE), np.int16)
    tail = np.zeros(INPUT_RATE // 5, np.int16)
    await play_into_mic(np.concatenate([lead, samples, tail]), INPUT_RATE)
    assert r.events.of(MicrophoneListening), "the microphone heard the press"
    assert await capture_streams_of(os.getpid()) == 1, "open while talking"
    r.controls.end_talk()
    await r.events.wait_for(TurnStats, count=turns, within_s=10)


def _envelope_correlation(a: np.ndarray, b: np.ndarray, window: int = 320) -> float:
    """Correlation of two signals' RMS per 20 ms: the same words at the same loudness."""
    n = min(len(a), len(b)) // window * window

    def envelope(x: np.ndarray) -> np.ndarray:
        frames = x[:n].astype(np.float64).reshape(-1, window)
        return np.asarray(np.sqrt(np.mean(frames * frames, axis=1)))

    return float(np.corrcoef(envelope(a), envelope(b))[0, 1])


def _loud_span_s(pcm: bytes) -> float:
    samples = np.frombuffer(pcm, np.int16)
    loud = np.flatnonzero(np.abs(samples) > LOUD)
    return float(loud[-1] - loud[0]) / INPUT_RATE if len(loud) else 0.0


@pytest.mark.usefixtures("sinks_awake")
async def test_close_at_once_sends_all_of_a_turn_spoken_right_at_the_press(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path, Settings()) as r:
        assert await capture_streams_of(os.getpid()) == 0, "no microphone while idle"
        await _turn_with_tone_at_the_press(r, tone(1000.0, TONE_S, rate=INPUT_RATE), 1)
        await wait_capture_streams(0)
        received = r.sim.recorder.audio_bytes()
        # All of the tone: the wait for the microphone comes before its first sample.
        assert _loud_span_s(received) >= TONE_S - 0.011
        kinds = [
            e.kind
            for e in r.sim.recorder.events()
            if e.kind in (Received.ACTIVITY_START, Received.AUDIO, Received.ACTIVITY_END)
        ]
        assert kinds[0] == Received.ACTIVITY_START and kinds[-1] == Received.ACTIVITY_END

        # Speech, too, reaches the simulator in full.
        speech = speak(
            "The quick brown fox jumps over the lazy dog.", tmp_path / "s.wav", rate=INPUT_RATE
        )
        r.sim.recorder.clear()
        await _turn_with_tone_at_the_press(r, speech, 2)
        heard = np.frombuffer(r.sim.recorder.audio_bytes(), np.int16)
        # The engine's clean-up (WebRTC's noise suppressor) reshapes the waveform, not the
        # speech: its loudness over time matches, and none of it is missing.
        lag, _correlation = best_lag(heard, speech)
        assert _envelope_correlation(heard[lag : lag + len(speech)], speech) > 0.9
        assert _loud_span_s(heard.tobytes()) >= _loud_span_s(speech.tobytes()) - 0.02
        await wait_capture_streams(0)


@pytest.mark.usefixtures("sinks_awake")
async def test_always_ready_keeps_one_stream_and_sends_the_pre_roll(tmp_path: Path) -> None:
    settings = Settings(mic_between_turns=MicBetweenTurns.ALWAYS_READY)
    async with rig(tmp_path, settings) as r:
        await wait_capture_streams(1)
        # Open since the start, and resting between turns with its pre-roll.
        await until(lambda: r.engine.capture.is_standby)
        await play_into_mic(np.zeros(INPUT_RATE // 2, np.int16), INPUT_RATE)  # before the press
        await _turn_with_tone_at_the_press(r, tone(1000.0, TONE_S, rate=INPUT_RATE), 1)
        assert await capture_streams_of(os.getpid()) == 1
        # The pre-roll (300 ms from before the press) went first: more than the tone.
        audio = r.sim.recorder.audio_bytes()
        assert len(audio) // 2 >= (TONE_S + 0.3) * INPUT_RATE


@pytest.mark.usefixtures("sinks_awake")
async def test_resting_a_press_reconnects_while_the_microphone_records(tmp_path: Path) -> None:
    async with rig(tmp_path, Settings()) as r:
        await _turn_with_tone_at_the_press(r, tone(700.0, 0.3, rate=INPUT_RATE), 1)
        await r.events.wait_state(AgentState.READY, count=2)
        r.clock.advance(15 * 60)
        await r.events.wait_state(AgentState.RESTING)
        await r.sim.recorder.wait_for(Received.DISCONNECT)
        await wait_capture_streams(0)
        assert r.sim.open_connection_count == 0

        await _turn_with_tone_at_the_press(r, tone(1000.0, TONE_S, rate=INPUT_RATE), 2)
        setups = r.sim.recorder.events(Received.SETUP)
        assert len(setups) == 2 and setups[1].session_id == setups[0].session_id
        woken = r.sim.recorder.audio_bytes(connection_id=setups[1].connection_id)
        assert _loud_span_s(woken) >= TONE_S - 0.011, "the words said while it reconnected"
        await wait_capture_streams(0)


async def test_hands_free_keeps_the_microphone_open(tmp_path: Path) -> None:
    with SinkKeepAlive(MIC_FEED):
        bus = EventBus()
        engine = AudioEngine(bus, Settings(talk_mode=TalkMode.HANDS_FREE))
        await engine.start()
        try:
            await wait_capture_streams(1)
            assert engine.microphone.kept_open
        finally:
            await engine.stop()
        await wait_capture_streams(0)
