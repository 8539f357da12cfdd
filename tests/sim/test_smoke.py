"""The minimal path: TLS, setupComplete, a scripted turn, the recorder."""

from __future__ import annotations

from google.genai import types

from sammy_desktop.sim import (
    InputTranscription,
    LiveSimulator,
    OnText,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from tests.sim.live_client import connect, receive_turn


async def test_a_scripted_turn_reaches_the_real_sdk() -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnText(),
                [
                    InputTranscription(text="hello"),
                    Tone(duration_s=0.2, transcript="Hi there"),
                    TurnComplete(),
                ],
            )
        ]
    )
    async with LiveSimulator(scenario, api_keys=("test-key",)) as sim, connect(sim) as session:
        assert session.session_id == "sim-session-1"
        await session.send_realtime_input(text="hello")
        messages = await receive_turn(session)
        received = await sim.recorder.wait_for(Received.TEXT)

    assert received[0].data == {"text": "hello"}
    contents = [m.server_content for m in messages if m.server_content]
    assert contents[0].input_transcription == types.Transcription(text="hello", finished=True)
    audio = b"".join(
        part.inline_data.data or b""
        for content in contents
        if content.model_turn and content.model_turn.parts
        for part in content.model_turn.parts
        if part.inline_data
    )
    assert len(audio) == 24000 * 2 // 5  # 0.2 s of 24 kHz PCM16
    assert contents[-1].turn_complete is True
