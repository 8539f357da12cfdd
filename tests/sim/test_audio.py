"""Model audio: tones, WAV files, echo (16 -> 24 kHz), pacing, and frames under 1 MiB."""

from __future__ import annotations

import time
import wave
from pathlib import Path

import numpy as np
import pytest
from google.genai import errors, live, types

from sammy_desktop.sim import (
    MAX_FRAME_BYTES,
    EchoAudio,
    LiveSimulator,
    OnActivityEnd,
    OnSpeechEnd,
    OnText,
    PcmAudio,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
    WavAudio,
)
from sammy_desktop.sim.pcm import tone_pcm
from tests.sim.live_client import connect, full_config, receive_turn

PUSH_TO_TALK = full_config(
    session_resumption=None,
    realtime_input_config=types.RealtimeInputConfig(
        automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
    ),
)


def _audio(messages: list[types.LiveServerMessage]) -> bytes:
    return b"".join(
        part.inline_data.data or b""
        for m in messages
        if m.server_content and m.server_content.model_turn
        for part in m.server_content.model_turn.parts or []
        if part.inline_data
    )


def _dominant_hz(pcm: bytes, rate: int) -> float:
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    spectrum = np.abs(np.fft.rfft(samples))
    return float(np.fft.rfftfreq(samples.size, 1 / rate)[int(np.argmax(spectrum))])


async def _one_turn(
    scenario: Scenario, config: types.LiveConnectConfig | None = None
) -> list[types.LiveServerMessage]:
    async with LiveSimulator(scenario) as sim, connect(sim, config or PUSH_TO_TALK) as session:
        await session.send_realtime_input(text="go")
        return await receive_turn(session)


async def test_a_tone_is_24khz_pcm_at_its_pitch() -> None:
    messages = await _one_turn(
        Scenario(turns=[Turn(OnText(), [Tone(frequency_hz=500, duration_s=0.5), TurnComplete()])])
    )
    pcm = _audio(messages)
    assert len(pcm) == 24000  # 0.5 s * 24000 Hz * 2 bytes
    assert _dominant_hz(pcm, 24000) == pytest.approx(500, abs=3)
    # 100 ms chunks by default: five audio frames.
    assert sum(1 for m in messages if m.server_content and m.server_content.model_turn) == 5


async def test_long_audio_is_split_into_frames_under_one_mebibyte() -> None:
    pcm = tone_pcm(220, 30.0)  # 1.44 MB of PCM, ~1.9 MB as base64
    scenario = Scenario(
        turns=[Turn(OnText(), [PcmAudio(pcm=pcm, chunk_ms=60_000), TurnComplete()])]
    )
    async with LiveSimulator(scenario) as sim, connect(sim, PUSH_TO_TALK) as session:
        await session.send_realtime_input(text="go")
        messages = await receive_turn(session)
        sent = sim.recorder.sent("serverContent")
    assert _audio(messages) == pcm
    audio_frames = [event for event in sent if "modelTurn" in event.data["serverContent"]]
    assert len(audio_frames) >= 3
    for event in audio_frames:
        (part,) = event.data["serverContent"]["modelTurn"]["parts"]
        assert part["inlineData"]["base64_chars"] < MAX_FRAME_BYTES - 1024


async def test_echo_plays_back_what_the_person_said_resampled_to_24khz() -> None:
    spoken = tone_pcm(300, 1.0, sample_rate=16000, amplitude=0.4)
    scenario = Scenario(turns=[Turn(OnActivityEnd(), [EchoAudio(trim=False), TurnComplete()])])
    async with LiveSimulator(scenario) as sim, connect(sim, PUSH_TO_TALK) as session:
        await session.send_realtime_input(activity_start=types.ActivityStart())
        for start in range(0, len(spoken), 3200):
            await session.send_realtime_input(
                audio=types.Blob(
                    data=spoken[start : start + 3200], mime_type="audio/pcm;rate=16000"
                )
            )
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        messages = await receive_turn(session)
    echoed = _audio(messages)
    assert len(echoed) == pytest.approx(48000, abs=64)  # 1 s at 24 kHz
    assert _dominant_hz(echoed, 24000) == pytest.approx(300, abs=3)


async def test_echo_trims_silence_around_speech() -> None:
    spoken = bytes(16000) + tone_pcm(300, 0.5, sample_rate=16000, amplitude=0.4) + bytes(16000)
    scenario = Scenario(turns=[Turn(OnActivityEnd(), [EchoAudio(), TurnComplete()])])
    async with LiveSimulator(scenario) as sim, connect(sim, PUSH_TO_TALK) as session:
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(
            audio=types.Blob(data=spoken, mime_type="audio/pcm;rate=16000")
        )
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        messages = await receive_turn(session)
    seconds = len(_audio(messages)) / 48000
    assert seconds == pytest.approx(0.7, abs=0.03)  # 0.5 s of speech + 0.1 s padding each side


async def test_echo_without_padding_starts_with_the_speech() -> None:
    spoken = bytes(16000) + tone_pcm(300, 0.5, sample_rate=16000, amplitude=0.4) + bytes(16000)
    scenario = Scenario(turns=[Turn(OnActivityEnd(), [EchoAudio(padding_ms=0), TurnComplete()])])
    async with LiveSimulator(scenario) as sim, connect(sim, PUSH_TO_TALK) as session:
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(
            audio=types.Blob(data=spoken, mime_type="audio/pcm;rate=16000")
        )
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        messages = await receive_turn(session)
    echoed = np.frombuffer(_audio(messages), dtype="<i2")
    assert len(echoed) / 24000 == pytest.approx(0.5, abs=0.03)
    # The first 20 ms frame is already loud: no quiet lead-in before the answer.
    assert np.abs(echoed[:480]).max() > 0.3 * 32767


def test_a_negative_echo_padding_is_refused() -> None:
    with pytest.raises(ValueError, match="padding_ms"):
        EchoAudio(padding_ms=-1)


def _write_wav(path: Path, pcm: bytes, *, rate: int, channels: int, width: int = 2) -> None:
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(width)
        writer.setframerate(rate)
        writer.writeframes(pcm)


async def test_a_stereo_48khz_wav_is_played_as_24khz_mono(tmp_path: Path) -> None:
    mono = np.frombuffer(tone_pcm(400, 0.5, sample_rate=48000), dtype="<i2")
    stereo = np.column_stack([mono, mono]).astype("<i2").tobytes()
    path = tmp_path / "answer.wav"
    _write_wav(path, stereo, rate=48000, channels=2)
    messages = await _one_turn(
        Scenario(turns=[Turn(OnText(), [WavAudio(path=str(path)), TurnComplete()])])
    )
    pcm = _audio(messages)
    assert len(pcm) == pytest.approx(24000, abs=16)
    assert _dominant_hz(pcm, 24000) == pytest.approx(400, abs=3)


@pytest.mark.logs_errors("scenario '.*' failed")
async def test_an_unplayable_wav_closes_with_1011(tmp_path: Path) -> None:
    path = tmp_path / "eight-bit.wav"
    _write_wav(path, bytes(800), rate=8000, channels=1, width=1)
    scenario = Scenario(turns=[Turn(OnText(), [WavAudio(path=str(path)), TurnComplete()])])
    with pytest.raises(errors.APIError) as raised:
        await _one_turn(scenario)
    assert raised.value.code == 1011


async def test_realtime_pacing_spreads_frames_over_the_audio_duration() -> None:
    scenario = Scenario(
        turns=[Turn(OnText(), [Tone(duration_s=0.5, realtime=True), TurnComplete()])]
    )
    async with LiveSimulator(scenario) as sim, connect(sim, PUSH_TO_TALK) as session:
        await session.send_realtime_input(text="go")
        started = time.monotonic()
        await receive_turn(session)
        elapsed = time.monotonic() - started
    # Paced frames cannot all arrive before the last one is due (0.4 s after the first).
    assert elapsed >= 0.4


async def test_the_simulator_realtime_setting_is_the_default_pacing() -> None:
    scenario = Scenario(turns=[Turn(OnText(), [Tone(duration_s=0.3), TurnComplete()])])
    async with LiveSimulator(scenario, realtime=True) as sim, connect(sim, PUSH_TO_TALK) as session:
        await session.send_realtime_input(text="go")
        started = time.monotonic()
        await receive_turn(session)
        elapsed = time.monotonic() - started
    assert elapsed >= 0.2


async def test_end_of_speech_is_detected_in_hands_free_mode() -> None:
    scenario = Scenario(turns=[Turn(OnSpeechEnd(), [EchoAudio(), TurnComplete()])])
    speech = tone_pcm(300, 0.4, sample_rate=16000, amplitude=0.4)
    async with (
        LiveSimulator(scenario) as sim,
        connect(sim, full_config(session_resumption=None)) as session,
    ):
        await _send_chunks(session, bytes(8000) + speech)
        assert sim.sessions[0].position == 0  # still speaking: no silence yet
        await _send_chunks(session, bytes(32000))  # 1 s of silence
        messages = await receive_turn(session)
    assert len(_audio(messages)) / 48000 == pytest.approx(0.6, abs=0.03)


async def test_audio_stream_end_during_speech_ends_the_utterance() -> None:
    scenario = Scenario(turns=[Turn(OnSpeechEnd(), [Tone(duration_s=0.1), TurnComplete()])])
    async with (
        LiveSimulator(scenario) as sim,
        connect(sim, full_config(session_resumption=None)) as session,
    ):
        await _send_chunks(session, tone_pcm(300, 0.3, sample_rate=16000, amplitude=0.4))
        await session.send_realtime_input(audio_stream_end=True)
        messages = await receive_turn(session)
    assert len(_audio(messages)) == 4800


async def _send_chunks(session: live.AsyncSession, pcm: bytes) -> None:
    for start in range(0, len(pcm), 3200):
        await session.send_realtime_input(
            audio=types.Blob(data=pcm[start : start + 3200], mime_type="audio/pcm;rate=16000")
        )
