"""Hands-free quiet audio joined into 100 ms chunks; speech and markers never held back."""

from __future__ import annotations

import numpy as np
import pytest

from sammy_desktop.config import TalkMode
from sammy_desktop.core.events import AgentState, TurnStats
from sammy_desktop.core.live import RealtimeInput, RealtimeKind
from sammy_desktop.core.quiet_audio import HANGOVER_MARGIN_MS, QUIET_CHUNK_MS, QuietAudioJoiner
from sammy_desktop.sim import (
    InputTranscription,
    OnActivityEnd,
    OnAudioStreamEnd,
    OnSpeechEnd,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from tests.core.conftest import Harness, HarnessFactory

BLOCK = 320  # 10 ms of PCM16 at 16 kHz, what the audio engine hands over
SILENCE_MS = 700


def quiet(tag: int = 0) -> bytes:
    """10 ms of room noise far under the loud level (about -70 dBFS), tagged to track it."""
    samples = np.full(BLOCK // 2, 10, np.int16)
    samples[0] = tag
    return samples.tobytes()


def loud(tag: int = 0) -> bytes:
    """10 ms at about -16 dBFS (speech)."""
    samples = (5000 * np.sin(np.arange(BLOCK // 2) / 3)).astype(np.int16)
    samples[0] = tag
    return samples.tobytes()


class Collected(list[RealtimeInput]):
    def audio_sizes(self) -> list[int]:
        return [len(item.audio) for item in self]


def joiner(silence_ms: int = SILENCE_MS) -> tuple[QuietAudioJoiner, Collected]:
    out = Collected()
    return QuietAudioJoiner(out.append, lambda: silence_ms), out


def test_quiet_blocks_go_in_chunks_of_a_hundred_ms() -> None:
    join, out = joiner()
    blocks = [quiet(n) for n in range(25)]
    for block in blocks:
        join.audio(block)
    per_chunk = QUIET_CHUNK_MS * 32 // BLOCK
    assert out.audio_sizes() == [QUIET_CHUNK_MS * 32] * 2
    assert join.waiting_bytes == 5 * BLOCK
    assert b"".join(item.audio for item in out) == b"".join(blocks[: 2 * per_chunk])


def test_the_first_loud_block_sends_what_waits_then_itself_at_once() -> None:
    join, out = joiner()
    for n in range(3):
        join.audio(quiet(n))
    assert out == []
    join.audio(loud(9))
    assert out == [
        RealtimeInput(RealtimeKind.AUDIO, audio=quiet(0) + quiet(1) + quiet(2)),
        RealtimeInput(RealtimeKind.AUDIO, audio=loud(9)),
    ]
    assert join.waiting_bytes == 0


def test_after_speech_blocks_go_one_by_one_for_the_silence_duration_and_a_margin() -> None:
    join, out = joiner(silence_ms=300)
    join.audio(loud())
    hangover_blocks = (300 + HANGOVER_MARGIN_MS) // 10
    for _ in range(hangover_blocks):
        join.audio(quiet())
    assert out.audio_sizes() == [BLOCK] * (1 + hangover_blocks)
    # Then quiet again: joined.
    for _ in range(QUIET_CHUNK_MS // 10):
        join.audio(quiet())
    assert out.audio_sizes()[-1] == QUIET_CHUNK_MS * 32
    assert len(out) == 2 + hangover_blocks


def test_each_loud_block_starts_the_hangover_again() -> None:
    join, out = joiner(silence_ms=200)
    join.audio(loud())
    for _ in range(60):  # 600 ms of quiet: inside 200 + 500
        join.audio(quiet())
    join.audio(loud())
    for _ in range(60):
        join.audio(quiet())
    assert out.audio_sizes() == [BLOCK] * 122
    assert join.waiting_bytes == 0


def test_the_hangover_follows_the_silence_duration_setting_as_it_changes() -> None:
    silence = [100]
    out = Collected()
    join = QuietAudioJoiner(out.append, lambda: silence[0])
    silence[0] = 2000
    join.audio(loud())
    for _ in range(200):  # 2 s: still inside 2000 + 500
        join.audio(quiet())
    assert out.audio_sizes() == [BLOCK] * 201


def test_flush_and_reset() -> None:
    join, out = joiner()
    join.audio(quiet(1))
    join.flush()
    join.flush()  # nothing more waits
    assert out == [RealtimeInput(RealtimeKind.AUDIO, audio=quiet(1))]
    join.audio(quiet(2))
    join.reset()
    join.flush()
    assert len(out) == 1
    with pytest.raises(ValueError, match="chunk_ms"):
        QuietAudioJoiner(out.append, lambda: 700, chunk_ms=0)


def test_an_empty_or_odd_block_is_quiet() -> None:
    join, out = joiner()
    join.audio(b"")
    join.audio(b"\x7f")
    join.flush()
    assert out == [RealtimeInput(RealtimeKind.AUDIO, audio=b"\x7f")]


# ------------------------------------------------------------------ through the core


def _audio_sizes(h: Harness, connection: int = 1) -> list[int]:
    audio = h.sim.recorder.events(Received.AUDIO)
    return [e.byte_count for e in audio if e.connection_id == connection]


async def test_hands_free_sends_quiet_in_chunks_speech_at_once_and_stream_end_last(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnSpeechEnd(),
                [InputTranscription(text="lights"), Tone(duration_s=0.1), TurnComplete()],
            ),
            Turn(OnAudioStreamEnd(), [TurnComplete()]),
        ]
    )
    async with core_harness(scenario, talk_mode=TalkMode.HANDS_FREE) as h:
        await h.ready()
        sent: list[bytes] = []

        def send(block: bytes) -> None:
            sent.append(block)
            h.core.send_audio(block)

        for n in range(15):  # 150 ms of quiet: one chunk goes, 50 ms wait
            send(quiet(n))
        await h.sim.recorder.wait_for(Received.AUDIO)
        assert _audio_sizes(h) == [QUIET_CHUNK_MS * 32]
        for n in range(30):  # speech: the waiting quiet goes first, then block by block
            send(loud(n))
        for n in range(SILENCE_MS // 10 + 20):  # the silence that ends it, block by block
            send(quiet(n))
        await h.events.wait_for(TurnStats)
        for n in range(HANGOVER_MARGIN_MS // 10 - 20):  # the rest of the hangover
            send(quiet(n))
        for n in range(3):  # nobody speaks: held...
            send(quiet(n))
        h.core.end_talk()  # ...and sent before audioStreamEnd
        await h.sim.recorder.wait_for(Received.AUDIO_STREAM_END)
        await h.events.wait_state(AgentState.READY, count=2)

        sizes = _audio_sizes(h)
        quiet_after = (SILENCE_MS + HANGOVER_MARGIN_MS) // 10
        assert sizes == [QUIET_CHUNK_MS * 32, 5 * BLOCK] + [BLOCK] * (30 + quiet_after) + [
            3 * BLOCK
        ]
        assert h.sim.recorder.audio_bytes(1) == b"".join(sent)
        last_audio = h.sim.recorder.events(Received.AUDIO)[-1]
        stream_end = h.sim.recorder.events(Received.AUDIO_STREAM_END)[0]
        assert last_audio.monotonic_time <= stream_end.monotonic_time


async def test_push_to_talk_still_sends_every_block_as_it_comes(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(turns=[Turn(OnActivityEnd(), [Tone(duration_s=0.1), TurnComplete()])])
    async with core_harness(scenario) as h:
        await h.ready()
        assert h.core.begin_talk()
        for n in range(12):
            h.core.send_audio(quiet(n))
        h.core.end_talk()
        await h.events.wait_for(TurnStats)
        assert _audio_sizes(h) == [BLOCK] * 12
        order = [
            e.kind
            for e in h.sim.recorder.events()
            if e.kind in (Received.AUDIO, Received.ACTIVITY_START, Received.ACTIVITY_END)
        ]
        assert order == [Received.ACTIVITY_START, *[Received.AUDIO] * 12, Received.ACTIVITY_END]
