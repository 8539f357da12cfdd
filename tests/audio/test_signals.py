"""The recording comparisons the audio tests rest on: they must tell a gap from a defect."""

from __future__ import annotations

import numpy as np
import pytest

from sammy_desktop.wire_audio import OUTPUT_RATE
from tests.audio.signals import (
    GAP_PER_UNDERFLOW_S,
    LOSS_PER_UNDERFLOW_S,
    assert_heard_intact,
    tone,
)

RATE = OUTPUT_RATE
LEAD = np.zeros(RATE // 4, np.int16)  # the recorder starts before the speaker plays


def recorded(*parts: np.ndarray) -> np.ndarray:
    return np.concatenate([LEAD, *parts, LEAD])


def silence(seconds: float) -> np.ndarray:
    return np.zeros(round(seconds * RATE), np.int16)


def test_a_faithful_recording_passes(short_speech_24k: np.ndarray) -> None:
    windows = assert_heard_intact(
        recorded(short_speech_24k), short_speech_24k, rate=RATE, device_underflows=0
    )
    assert {lag for lag, _r in windows} == {len(LEAD)}


def test_silence_underflows_put_in_is_forgiven(short_speech_24k: np.ndarray) -> None:
    third = len(short_speech_24k) // 3
    speech = short_speech_24k
    recording = recorded(
        speech[:third], silence(0.08), speech[third : 2 * third], silence(2.0), speech[2 * third :]
    )
    windows = assert_heard_intact(recording, speech, rate=RATE, device_underflows=2)
    lags = [lag for lag, r in windows if r > 0.9]
    assert lags[-1] - lags[0] == round(2.08 * RATE)


def test_a_gap_without_an_underflow_fails(short_speech_24k: np.ndarray) -> None:
    half = len(short_speech_24k) // 2
    recording = recorded(short_speech_24k[:half], silence(0.1), short_speech_24k[half:])
    with pytest.raises(AssertionError):
        assert_heard_intact(recording, short_speech_24k, rate=RATE, device_underflows=0)


def test_a_gap_longer_than_its_underflows_explain_fails(short_speech_24k: np.ndarray) -> None:
    half = len(short_speech_24k) // 2
    gap = silence(GAP_PER_UNDERFLOW_S + 0.2)
    recording = recorded(short_speech_24k[:half], gap, short_speech_24k[half:])
    with pytest.raises(AssertionError):
        assert_heard_intact(recording, short_speech_24k, rate=RATE, device_underflows=1)


def test_lost_audio_fails_even_with_underflows_to_blame(short_speech_24k: np.ndarray) -> None:
    half = len(short_speech_24k) // 2
    chunk = RATE * 40 // 1000
    recording = recorded(short_speech_24k[:half], short_speech_24k[half + 3 * chunk :])
    with pytest.raises(AssertionError, match=r"missing|do not match"):
        assert_heard_intact(recording, short_speech_24k, rate=RATE, device_underflows=3)


def test_a_device_buffer_lost_at_an_underflow_is_forgiven_not_without_one(
    short_speech_24k: np.ndarray,
) -> None:
    # ALSA's recovery of an underrun reconnects PulseAudio's stream, dropping what it held:
    # as in CI, 24 ms of silence where 29 ms of speech were, the rest 5 ms early.
    half = len(short_speech_24k) // 2
    lost = RATE * 29 // 1000
    speech = short_speech_24k
    recording = recorded(speech[:half], silence(0.024), speech[half + lost :])
    assert_heard_intact(recording, speech, rate=RATE, device_underflows=1)
    with pytest.raises(AssertionError, match=r"missing|do not match"):
        assert_heard_intact(recording, speech, rate=RATE, device_underflows=0)
    more = round(LOSS_PER_UNDERFLOW_S * RATE) + RATE * 10 // 1000
    too_much = recorded(speech[:half], speech[half + more :])
    with pytest.raises(AssertionError, match="missing"):
        assert_heard_intact(too_much, speech, rate=RATE, device_underflows=1)


def test_repeated_audio_fails(short_speech_24k: np.ndarray) -> None:
    half = len(short_speech_24k) // 2
    chunk = RATE * 40 // 1000
    speech = short_speech_24k
    recording = recorded(speech[:half], speech[half - 3 * chunk : half], speech[half:])
    with pytest.raises(AssertionError):
        assert_heard_intact(recording, speech, rate=RATE, device_underflows=0)


def test_other_audio_fails(short_speech_24k: np.ndarray) -> None:
    other = tone(440.0, len(short_speech_24k) / RATE, rate=RATE)
    with pytest.raises(AssertionError, match="something else"):
        assert_heard_intact(recorded(other), short_speech_24k, rate=RATE, device_underflows=2)


def test_a_tone_cut_short_fails_and_a_gapped_one_passes() -> None:
    beep = tone(660.0, 0.4, rate=RATE)
    with pytest.raises(AssertionError):
        assert_heard_intact(
            recorded(beep[: len(beep) // 2]), beep, rate=RATE, device_underflows=0, ordered=False
        )
    half = len(beep) // 2
    assert_heard_intact(
        recorded(beep[:half], silence(0.05), beep[half:]),
        beep,
        rate=RATE,
        device_underflows=1,
        ordered=False,
    )
