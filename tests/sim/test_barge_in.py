"""Barge-in: client speech while model audio streams stops it and sends ``interrupted``."""

from __future__ import annotations

import asyncio

from google.genai import live, types

from sammy_desktop.sim import (
    CallTools,
    FunctionCallSpec,
    LiveSimulator,
    OnActivityEnd,
    OnSpeechEnd,
    OutputTranscription,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from sammy_desktop.sim.pcm import tone_pcm
from tests.sim.live_client import connect, full_config

PUSH_TO_TALK = full_config(
    session_resumption=None,
    realtime_input_config=types.RealtimeInputConfig(
        automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
    ),
)
HANDS_FREE = full_config(session_resumption=None)
LOUD = tone_pcm(300, 0.1, sample_rate=16000, amplitude=0.5)
QUIET = bytes(3200)


def _long_answer(first_trigger: OnActivityEnd | OnSpeechEnd) -> Scenario:
    return Scenario(
        turns=[
            Turn(first_trigger, [Tone(duration_s=5.0, realtime=True), TurnComplete()]),
            Turn(first_trigger, [OutputTranscription(text="after"), TurnComplete()]),
        ]
    )


async def _collect_until_text(
    session: live.AsyncSession, text: str
) -> list[types.LiveServerMessage]:
    messages: list[types.LiveServerMessage] = []

    async def collect() -> None:
        while True:
            async for message in session.receive():
                messages.append(message)
                content = message.server_content
                if (
                    content
                    and content.output_transcription
                    and content.output_transcription.text == text
                ):
                    return

    await asyncio.wait_for(collect(), 10)
    return messages


def _audio_bytes(messages: list[types.LiveServerMessage]) -> int:
    return sum(
        len(part.inline_data.data or b"")
        for m in messages
        if m.server_content and m.server_content.model_turn
        for part in m.server_content.model_turn.parts or []
        if part.inline_data
    )


async def test_activity_start_interrupts_streaming_audio() -> None:
    async with (
        LiveSimulator(_long_answer(OnActivityEnd())) as sim,
        connect(sim, PUSH_TO_TALK) as session,
    ):
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        await sim.recorder.wait_for("sent.serverContent")
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        messages = await _collect_until_text(session, "after")

    flags = [m.server_content.interrupted for m in messages if m.server_content]
    assert True in flags
    interrupted_at = flags.index(True)
    # No audio after the interruption, and far less than the 5 s answer before it.
    assert _audio_bytes(messages[interrupted_at:]) == 0
    assert 0 < _audio_bytes(messages) < 5 * 48000
    # The interrupted turn never completed (collection stops before the second one ends).
    completes = [m for m in messages if m.server_content and m.server_content.turn_complete]
    assert completes == []


async def test_loud_audio_interrupts_in_hands_free_mode() -> None:
    async with (
        LiveSimulator(_long_answer(OnSpeechEnd())) as sim,
        connect(sim, HANDS_FREE) as session,
    ):
        await _speak(session)
        await sim.recorder.wait_for("sent.serverContent")
        await session.send_realtime_input(
            audio=types.Blob(data=LOUD, mime_type="audio/pcm;rate=16000")
        )
        await sim.recorder.wait_for("sent.serverContent", predicate=_is_interrupted)
        for _ in range(8):  # 0.8 s of silence ends the barge-in utterance
            await session.send_realtime_input(
                audio=types.Blob(data=QUIET, mime_type="audio/pcm;rate=16000")
            )
        messages = await _collect_until_text(session, "after")
    assert any(m.server_content and m.server_content.interrupted for m in messages)


async def test_quiet_audio_does_not_interrupt() -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnSpeechEnd(),
                [
                    Tone(duration_s=0.4, realtime=True),
                    OutputTranscription(text="end"),
                    TurnComplete(),
                ],
            )
        ]
    )
    async with LiveSimulator(scenario) as sim, connect(sim, HANDS_FREE) as session:
        await _speak(session)
        await sim.recorder.wait_for("sent.serverContent")
        await session.send_realtime_input(
            audio=types.Blob(data=QUIET, mime_type="audio/pcm;rate=16000")
        )
        messages = await _collect_until_text(session, "end")
    assert not any(m.server_content and m.server_content.interrupted for m in messages)
    assert _audio_bytes(messages) == int(0.4 * 24000) * 2


async def test_loud_audio_does_not_interrupt_push_to_talk() -> None:
    # With automatic activity detection off only activityStart interrupts, as in the service.
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    Tone(duration_s=0.4, realtime=True),
                    OutputTranscription(text="end"),
                    TurnComplete(),
                ],
            )
        ]
    )
    async with LiveSimulator(scenario) as sim, connect(sim, PUSH_TO_TALK) as session:
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        await sim.recorder.wait_for("sent.serverContent")
        await session.send_realtime_input(
            audio=types.Blob(data=LOUD, mime_type="audio/pcm;rate=16000")
        )
        messages = await _collect_until_text(session, "end")
        assert sim.recorder.count(Received.AUDIO) == 1
    assert not any(m.server_content and m.server_content.interrupted for m in messages)


async def _speak(session: live.AsyncSession) -> None:
    """Send 0.3 s of tone then 0.8 s of silence: one hands-free utterance."""
    for _ in range(3):
        await session.send_realtime_input(
            audio=types.Blob(data=LOUD, mime_type="audio/pcm;rate=16000")
        )
    for _ in range(8):
        await session.send_realtime_input(
            audio=types.Blob(data=QUIET, mime_type="audio/pcm;rate=16000")
        )


def _is_interrupted(event: object) -> bool:
    data = getattr(event, "data", {})
    return bool(data.get("serverContent", {}).get("interrupted"))


async def test_barge_in_can_cancel_pending_tool_calls() -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    CallTools(calls=(FunctionCallSpec(name="get_time"),)),
                    Tone(duration_s=5.0, realtime=True),
                ],
            ),
        ],
        cancel_tool_calls_on_interrupt=True,
    )
    async with LiveSimulator(scenario) as sim, connect(sim, PUSH_TO_TALK) as session:
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        await sim.recorder.wait_for("sent.serverContent")
        await session.send_realtime_input(activity_start=types.ActivityStart())
        (cancellation,) = await sim.recorder.wait_for("sent.toolCallCancellation")
    assert cancellation.data == {"toolCallCancellation": {"ids": ["fc-1"]}}
    assert sim.sessions[0].pending_calls == {}
