"""Echo cancellation: offline on arrays, then through the real devices with a loopback."""

from __future__ import annotations

import asyncio
import logging
import time

import numpy as np
import pytest
import soxr

from sammy_desktop.audio import (
    AudioCapture,
    AudioEngine,
    EchoCanceller,
    PlaybackDrained,
    PlaybackStarted,
    rms_dbfs,
)
from sammy_desktop.audio.echo import HELD_REFERENCE_MS
from sammy_desktop.eventbus import EventBus
from sammy_desktop.wire_audio import INPUT_RATE, OUTPUT_RATE
from tests.audio.signals import energy, warble
from tests.audio.virtual_devices import play_into_mic
from tests.helpers.events import EventLog

_log = logging.getLogger(__name__)

FRAME_16K = INPUT_RATE // 100
FRAME_24K = OUTPUT_RATE // 100
ERLE_WINDOW_S = 0.5
ECHO_FLOOR_DBFS = -60.0


def erle_db(mic: np.ndarray, processed: np.ndarray) -> float:
    return float(10 * np.log10(energy(mic) / max(energy(processed), 1.0)))


@pytest.mark.parametrize("noise_suppression", [True, False], ids=["hands-free", "push-to-talk"])
def test_echo_is_removed_and_the_near_voice_kept_offline(
    far_speech_24k: np.ndarray, near_speech_16k: np.ndarray, noise_suppression: bool
) -> None:
    # The far-end voice as the speaker plays it (24 kHz, the model's rate) and as the room
    # returns it to the microphone: 60 ms late, attenuated, with one reflection.
    far_16k = soxr.resample(far_speech_24k, OUTPUT_RATE, INPUT_RATE).astype(np.float64)
    far_end = len(far_16k)
    near_start = far_end + INPUT_RATE // 2
    total = near_start + len(near_speech_16k) + INPUT_RATE // 2
    echo = np.zeros(total)
    delay = INPUT_RATE * 60 // 1000
    echo[delay : delay + far_end] += 0.5 * far_16k
    echo[delay + 80 : delay + 80 + far_end] += 0.2 * far_16k
    near = np.zeros(total)
    near[near_start : near_start + len(near_speech_16k)] = 0.6 * near_speech_16k
    mic = np.round(echo + near).astype(np.int16)
    render = np.zeros(total * 3 // 2, dtype=np.int16)
    render[: len(far_speech_24k)] = far_speech_24k

    canceller = EchoCanceller(noise_suppression=noise_suppression)
    canceller.set_render_delay(0.04)
    canceller.set_capture_delay(0.02)
    out = bytearray()
    for frame in range(total // FRAME_16K):
        rendered = render[frame * FRAME_24K : (frame + 1) * FRAME_24K]
        canceller.process_render(rendered.tobytes(), OUTPUT_RATE, FRAME_24K)
        out += canceller.process_capture(mic[frame * FRAME_16K : (frame + 1) * FRAME_16K].tobytes())
    processed = np.frombuffer(bytes(out), dtype=np.int16)
    assert len(processed) == total // FRAME_16K * FRAME_16K

    # Echo only: from 1 s (the filter's first adaptation) to the end of the echo.
    echo_only = slice(INPUT_RATE, far_end + delay + 80)
    erle = erle_db(mic[echo_only], processed[echo_only])
    near_only = slice(near_start, near_start + len(near_speech_16k))
    kept = energy(processed[near_only]) / energy(mic[near_only])
    _log.warning(
        "offline ERLE %.1f dB, near-end energy kept %.0f %% (noise suppression %s)",
        erle,
        kept * 100,
        noise_suppression,
    )
    # Measured 53 dB with the noise suppressor, 41 dB without (push-to-talk): a regression
    # guard below each.
    assert erle >= (45.0 if noise_suppression else 35.0)
    assert kept >= 0.5


@pytest.mark.parametrize(
    ("noise_suppression", "playing", "expected_ms"),
    [(True, True, 14.0), (False, True, 8.0), (True, False, 6.0), (False, False, 0.0)],
    ids=["hands-free", "push-to-talk", "hands-free-idle", "push-to-talk-idle"],
)
def test_the_microphone_comes_out_as_late_as_delay_ms_says(
    noise_suppression: bool, playing: bool, expected_ms: float
) -> None:
    # A 10 ms burst in quiet room noise; while the speaker plays (blocks handed to the
    # device: the canceller is not idle, though they are quiet, so that it leaves the burst
    # alone) and while nothing is played.
    canceller = EchoCanceller(noise_suppression=noise_suppression)
    total = INPUT_RATE * 2
    mic = np.random.default_rng(5).normal(0, 20, total)
    onset = INPUT_RATE + 37  # not on a frame boundary
    burst = 8000 * np.sin(2 * np.pi * 1000 * np.arange(FRAME_16K) / INPUT_RATE)
    mic[onset : onset + FRAME_16K] += burst
    quiet = np.zeros(FRAME_24K, dtype=np.int16)
    out = bytearray()
    for frame in range(total // FRAME_16K):
        canceller.process_render(quiet.tobytes() if playing else None, OUTPUT_RATE, FRAME_24K)
        chunk = mic[frame * FRAME_16K : (frame + 1) * FRAME_16K]
        out += canceller.process_capture(np.round(chunk).astype(np.int16).tobytes())
    assert canceller.is_idle is not playing
    processed = np.frombuffer(bytes(out), dtype=np.int16)
    loud = np.flatnonzero(np.abs(processed.astype(np.int32)) > 2000)
    measured_ms = (loud[0] - onset) * 1000 / INPUT_RATE
    assert abs(measured_ms - expected_ms) <= 1.0, f"{measured_ms:.2f} ms"
    assert canceller.delay_ms == expected_ms


def test_switched_off_it_passes_audio_through_unchanged() -> None:
    canceller = EchoCanceller(enabled=False)
    noise = np.random.default_rng(1).integers(-3000, 3000, 1000, dtype=np.int16).tobytes()
    canceller.process_render(noise, OUTPUT_RATE, 500)
    assert canceller.process_capture(noise) == noise
    canceller.enabled = True
    # On, it works in whole 10 ms frames: 1000 samples give 960 now, the rest later.
    assert len(canceller.process_capture(noise)) == 960 * 2
    assert canceller.frames_processed == 6


def test_the_canceller_idles_when_nothing_plays_and_cancels_again_at_once(
    far_speech_24k: np.ndarray,
) -> None:
    # Far speech, then 3 s with nothing played (the canceller goes idle), then the same
    # speech again: its echo must be removed from its first frames, not after re-learning.
    far = far_speech_24k[: OUTPUT_RATE * 3]
    far_16k = soxr.resample(far, OUTPUT_RATE, INPUT_RATE).astype(np.float64)
    gap = 3 * INPUT_RATE
    second = len(far_16k) + gap
    total = second + len(far_16k) + INPUT_RATE // 2
    delay = INPUT_RATE * 60 // 1000
    echo = np.zeros(total)
    for start in (0, second):
        echo[start + delay : start + delay + len(far_16k)] += 0.5 * far_16k
    # A little room noise, so idle frames are not digital silence.
    noise = np.random.default_rng(3).normal(0, 30, total)
    mic = np.round(echo + noise).astype(np.int16)

    canceller = EchoCanceller()
    canceller.set_render_delay(0.04)
    canceller.set_capture_delay(0.02)
    assert canceller.is_idle, "nothing has been played yet"
    out = bytearray()
    idle_at: list[bool] = []
    for frame in range(total // FRAME_16K):
        at_16k = frame * FRAME_16K
        played = (at_16k < len(far_16k)) or (second <= at_16k < second + len(far_16k))
        if played:
            offset = (at_16k if at_16k < second else at_16k - second) * 3 // 2
            rendered = far[offset : offset + FRAME_24K]
            rendered = np.pad(rendered, (0, FRAME_24K - len(rendered)))
            canceller.process_render(rendered.tobytes(), OUTPUT_RATE, FRAME_24K)
        else:
            canceller.process_render(None, OUTPUT_RATE, FRAME_24K)  # the device played silence
        out += canceller.process_capture(mic[at_16k : at_16k + FRAME_16K].tobytes())
        idle_at.append(canceller.is_idle)
    processed = np.frombuffer(bytes(out), dtype=np.int16)

    gap_frames = idle_at[len(far_16k) // FRAME_16K : second // FRAME_16K]
    assert not gap_frames[0], "the echo tail right after the sound is still cancelled"
    assert sum(gap_frames) >= len(gap_frames) - 110, "idle about 1 s after the last sound"
    assert not any(idle_at[second // FRAME_16K + 1 : (second + len(far_16k)) // FRAME_16K])
    assert canceller.frames_idle > 150

    again = slice(second, second + len(far_16k) + delay)
    erle = erle_db(mic[again], processed[again])
    first_half_second = slice(second, second + INPUT_RATE // 2)
    erle_start = erle_db(mic[first_half_second], processed[first_half_second])
    _log.info("ERLE after an idle gap %.1f dB (first 0.5 s: %.1f dB)", erle, erle_start)
    assert erle >= 25.0
    assert erle_start >= 20.0


def test_the_idle_delay_cannot_be_shorter_than_an_echo_tail() -> None:
    with pytest.raises(ValueError, match="idle_after_ms must be at least 300"):
        EchoCanceller(idle_after_ms=100)
    assert not EchoCanceller(idle_after_ms=None).is_idle


def _start_lost_ms(*, push_to_talk: bool, after_ms: int) -> float:
    """Of a warble said ``after_ms`` after a loud answer (headphones: no echo), the part of
    its first 200 ms that comes out more than 12 dB down, in 2.5 ms windows, in ms."""
    answer = warble(0.6, rate=OUTPUT_RATE, variant=0)
    render = np.concatenate([np.zeros(OUTPUT_RATE, np.int16), answer])
    render = np.pad(render, (0, 2 * OUTPUT_RATE))
    said = warble(0.5, rate=INPUT_RATE, variant=1)
    onset = (OUTPUT_RATE + len(answer)) * INPUT_RATE // OUTPUT_RATE + INPUT_RATE * after_ms // 1000
    mic = np.random.default_rng(7).normal(0, 20, len(render) * INPUT_RATE // OUTPUT_RATE)
    mic[onset : onset + len(said)] += said
    mic = np.round(mic).astype(np.int16)
    canceller = EchoCanceller(push_to_talk=push_to_talk, noise_suppression=False)
    canceller.set_render_delay(0.04)
    canceller.set_capture_delay(0.02)
    sounding = (OUTPUT_RATE + len(answer)) // FRAME_24K
    out = bytearray()
    idle_at_onset = False
    for frame in range(len(mic) // FRAME_16K):
        played = render[frame * FRAME_24K : (frame + 1) * FRAME_24K]
        canceller.process_render(
            played.tobytes() if frame <= sounding else None, OUTPUT_RATE, FRAME_24K
        )
        if frame == onset // FRAME_16K:
            idle_at_onset = canceller.is_idle
        out += canceller.process_capture(mic[frame * FRAME_16K : (frame + 1) * FRAME_16K].tobytes())
    processed = np.frombuffer(bytes(out), dtype=np.int16).astype(np.int32)
    # The sound comes out as late as the modules hold it (delay_ms: 8 ms with AEC3 on).
    start = onset + (0 if idle_at_onset else INPUT_RATE * 8 // 1000)
    window = INPUT_RATE * 25 // 10_000
    peaks = [
        int(np.max(np.abs(processed[start + at : start + at + window])))
        for at in range(0, INPUT_RATE // 5, window)
    ]
    return sum(peak < 0.25 * 32767 for peak in peaks) * 2.5


def test_in_push_to_talk_what_is_said_soon_after_an_answer_keeps_its_start() -> None:
    # AEC3 keeps suppressing for a few hundred ms after the far end goes quiet, most of all
    # where it found no echo to learn (headphones): 0.3 s after the answer it took the
    # first 30-40 ms of the person's warble here. Push-to-talk goes idle once the direct
    # echo and the tail have come (60 + 150 ms): nothing is lost.
    assert _start_lost_ms(push_to_talk=False, after_ms=300) >= 20, "the premise: AEC3 takes it"
    assert _start_lost_ms(push_to_talk=True, after_ms=300) == 0


def test_in_push_to_talk_the_canceller_idles_once_the_echo_and_its_tail_have_come() -> None:
    speech = (3000 * np.sin(np.arange(FRAME_24K) / 5)).astype(np.int16).tobytes()
    quiet = np.zeros(FRAME_16K, dtype=np.int16).tobytes()
    for push_to_talk, frames_on in ((True, 21), (False, 100)):
        canceller = EchoCanceller(push_to_talk=push_to_talk)
        canceller.set_render_delay(0.04)
        canceller.set_capture_delay(0.02)  # the direct echo comes 60 ms after the sound
        canceller.process_render(speech, OUTPUT_RATE, FRAME_24K)
        idle = []
        for _ in range(120):
            canceller.process_render(None, OUTPUT_RATE, FRAME_24K)
            canceller.process_capture(quiet)
            idle.append(canceller.is_idle)
        # On for 60 + 150 ms in push-to-talk (hands-free: idle_after_ms, 1 s).
        assert idle.index(True) == frames_on - 1
        assert all(idle[frames_on - 1 :])
    assert EchoCanceller().push_to_talk is False


def test_the_quiet_kept_while_the_microphone_was_closed_counts_towards_idle() -> None:
    # The key goes down 250 ms after the answer's last sound: in push-to-talk the tail has
    # come by then (60 + 150 ms), so the canceller opens idle; in hands-free it does not.
    speech = (3000 * np.sin(np.arange(FRAME_24K) / 5)).astype(np.int16).tobytes()
    for push_to_talk in (True, False):
        canceller = EchoCanceller(push_to_talk=push_to_talk)
        canceller.set_render_delay(0.04)
        canceller.set_capture_delay(0.02)
        canceller.set_microphone_open(False)
        canceller.process_render(speech, OUTPUT_RATE, FRAME_24K)
        for _ in range(25):
            canceller.process_render(None, OUTPUT_RATE, FRAME_24K)
        canceller.set_microphone_open(True)
        assert canceller.render_frames > 0, "the answer's last sound went to the module"
        assert canceller.is_idle is push_to_talk


class StampedBlocks:
    """A capture consumer keeping each block with the loop time it arrived at."""

    def __init__(self) -> None:
        self.blocks: list[tuple[float, bytes]] = []
        self._grown = asyncio.Event()

    def __call__(self, block: bytes) -> None:
        self.blocks.append((time.monotonic(), block))
        self._grown.set()

    async def wait_past(self, moment: float) -> None:
        """Wait until a block arrives after the monotonic time ``moment``."""
        while not self.blocks or self.blocks[-1][0] < moment:
            self._grown.clear()
            await self._grown.wait()

    def between(self, start: float, end: float) -> np.ndarray:
        chosen = b"".join(b for t, b in self.blocks if start <= t <= end)
        return np.frombuffer(chosen, dtype=np.int16)


def erle_by_window(
    raw: StampedBlocks, processed: StampedBlocks, start: float, end: float
) -> list[float]:
    """The ERLE of each whole :data:`ERLE_WINDOW_S` between ``start`` and ``end``, in dB.

    A device underrun on a busy machine moves the echo against the reference, and the
    canceller takes up to a window to find it again: a whole stretch's ratio is ruled by
    that window, the windows' median by how well the echo is removed. A window with no
    echo in it (the sound's end, a pause) says nothing of the canceller and is left out.
    """
    windows = []
    for t in np.arange(start, end - ERLE_WINDOW_S, ERLE_WINDOW_S):
        echo = raw.between(t, t + ERLE_WINDOW_S)
        if rms_dbfs(echo) > ECHO_FLOOR_DBFS:
            windows.append(erle_db(echo, processed.between(t, t + ERLE_WINDOW_S)))
    return windows


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks", "speaker_looped_into_mic")
async def test_echo_is_removed_through_the_real_devices(
    bus: EventBus,
    events: EventLog,
    far_speech_24k: np.ndarray,
    near_speech_16k: np.ndarray,
) -> None:
    engine = AudioEngine(bus, echo_cancellation=True, hands_free=True)
    raw_capture = AudioCapture(EventBus())
    processed, raw = StampedBlocks(), StampedBlocks()
    engine.capture.set_consumer(processed)
    raw_capture.set_consumer(raw)
    await engine.start()
    await raw_capture.start()
    try:
        for start in range(0, len(far_speech_24k), FRAME_24K * 4):
            engine.playback.play(far_speech_24k[start : start + FRAME_24K * 4].tobytes())
        await events.wait_for(PlaybackStarted)
        started = time.monotonic()
        await events.wait_for(PlaybackDrained, within_s=20)
        drained = time.monotonic()
        assert not engine.capture.is_muted, "with echo cancellation on the mic stays open"
        near_from = time.monotonic() + 0.2
        await play_into_mic(near_speech_16k, INPUT_RATE)
        near_until = time.monotonic()
        await asyncio.wait_for(processed.wait_past(near_until + 0.2), 5)
    finally:
        await raw_capture.stop()
        await engine.stop()

    # Echo only: after the canceller's first second of adaptation, while the speech played,
    # by window (erle_by_window: the whole stretch read 19 dB once on the CI, after three
    # underruns). The median is about 50 dB here; the bound is a regression guard well
    # below it, with no canceller it is near 0.
    erle = erle_by_window(raw, processed, started + 1.0, drained)
    kept = energy(processed.between(near_from, near_until)) / energy(
        raw.between(near_from, near_until)
    )
    _log.info(
        "device ERLE by window %s dB (%d device underflows), near-end energy kept %.0f %%",
        " ".join(f"{w:.0f}" for w in erle),
        engine.playback.device_underflows,
        kept * 100,
    )
    echo_level = rms_dbfs(raw.between(started + 1.0, drained))
    assert echo_level > -35.0, f"too little echo reached the mic ({echo_level:.0f} dBFS)"
    assert len(erle) >= 10, "the far-end speech is about 8 s long"
    assert float(np.median(erle)) >= 30.0
    assert kept >= 0.5


def test_while_the_microphone_is_closed_the_reference_is_only_kept() -> None:
    canceller = EchoCanceller()
    canceller.set_microphone_open(False)
    speech = (3000 * np.sin(np.arange(FRAME_24K) / 5)).astype(np.int16).tobytes()
    for _ in range(200):  # two seconds of an answer, the microphone closed
        canceller.process_render(speech, OUTPUT_RATE, FRAME_24K)
    assert canceller.render_frames == 0, "nothing resampled or given to the module"
    canceller.set_microphone_open(True)
    # The newest 300 ms go to the module when it opens: their echo still reaches it (less
    # what the 24 -> 16 kHz resampler holds back: a frame or two).
    assert HELD_REFERENCE_MS // 10 - 3 <= canceller.render_frames <= HELD_REFERENCE_MS // 10
    assert not canceller.is_idle


def test_a_microphone_opened_after_quiet_or_a_resting_speaker_starts_idle() -> None:
    canceller = EchoCanceller()
    canceller.set_microphone_open(False)
    speech = (3000 * np.sin(np.arange(FRAME_24K) / 5)).astype(np.int16).tobytes()
    canceller.process_render(speech, OUTPUT_RATE, FRAME_24K)
    for _ in range(40):  # then 400 ms of silence: the sound is older than what is kept
        canceller.process_render(None, OUTPUT_RATE, FRAME_24K)
    canceller.set_microphone_open(True)
    assert canceller.is_idle
    assert canceller.render_frames == 0
    canceller.set_microphone_open(False)
    canceller.process_render(speech, OUTPUT_RATE, FRAME_24K)
    canceller.reference_resting()  # no clock runs now: what was kept has no age
    canceller.set_microphone_open(True)
    assert canceller.is_idle


def test_the_echo_of_what_played_before_the_microphone_opened_is_removed(
    far_speech_24k: np.ndarray,
) -> None:
    # Barge-in in push-to-talk: the answer plays with the microphone closed; the key goes
    # down in the middle of it. The room returns the speech 60 ms late.
    far_16k = soxr.resample(far_speech_24k, OUTPUT_RATE, INPUT_RATE).astype(np.float64)
    delay = INPUT_RATE * 60 // 1000
    echo = np.zeros(len(far_16k) + delay)
    echo[delay:] = 0.5 * far_16k
    mic = np.round(echo + np.random.default_rng(4).normal(0, 20, len(echo))).astype(np.int16)
    canceller = EchoCanceller()
    canceller.set_render_delay(0.04)
    canceller.set_capture_delay(0.02)
    canceller.set_microphone_open(False)
    opened_at = INPUT_RATE  # the key goes down one second in
    out = bytearray()
    for frame in range(len(far_16k) // FRAME_16K):
        at_16k = frame * FRAME_16K
        if at_16k == opened_at:
            canceller.set_microphone_open(True)
        rendered = far_speech_24k[frame * FRAME_24K : (frame + 1) * FRAME_24K]
        canceller.process_render(rendered.tobytes(), OUTPUT_RATE, FRAME_24K)
        if at_16k >= opened_at:
            out += canceller.process_capture(mic[at_16k : at_16k + FRAME_16K].tobytes())
    processed = np.frombuffer(bytes(out), dtype=np.int16)
    after = mic[opened_at : opened_at + len(processed)]
    # From the canceller's first 0.3 s of adaptation on.
    erle = erle_db(after[INPUT_RATE * 3 // 10 :], processed[INPUT_RATE * 3 // 10 :])
    _log.warning("ERLE after opening mid-answer %.1f dB", erle)
    assert erle >= 20.0
