"""Every message type, both directions, between the real google-genai SDK and the simulator.

Client -> server is checked in the recorder; server -> client through the SDK's own parsed
``LiveServerMessage`` fields.
"""

from __future__ import annotations

import base64
import json

import pytest
from google.genai import types
from websockets.asyncio.client import connect as ws_connect

from sammy_desktop.sim import (
    CallTools,
    CancelToolCalls,
    FunctionCallSpec,
    GenerationComplete,
    GoAway,
    InputTranscription,
    Interrupted,
    LiveSimulator,
    ModelText,
    OnText,
    OnToolResponse,
    OutputTranscription,
    PcmAudio,
    Received,
    ResumptionUpdate,
    Scenario,
    Turn,
    TurnComplete,
    Usage,
)
from tests.sim.live_client import MODEL, connect, full_config, receive_messages, receive_turn

PATH = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"


def _audio_of(messages: list[types.LiveServerMessage]) -> bytes:
    return b"".join(
        part.inline_data.data or b""
        for message in messages
        if message.server_content and message.server_content.model_turn
        for part in message.server_content.model_turn.parts or []
        if part.inline_data
    )


async def test_setup_is_recorded_with_what_the_client_asked_for() -> None:
    config = full_config(
        system_instruction="Be brief.",
        realtime_input_config=types.RealtimeInputConfig(
            automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
        ),
    )
    async with LiveSimulator(api_keys=("test-key",)) as sim, connect(sim, config) as session:
        assert session.session_id == "sim-session-1"
        assert session.setup_complete is not None
        (event,) = await sim.recorder.wait_for(Received.SETUP)

    assert event.data["model"] == f"models/{MODEL}"
    assert event.data["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert sim.sessions[0].function_names == ("get_time", "end_conversation")
    connect_event = sim.recorder.events(Received.CONNECT)[0]
    assert connect_event.data["path"].endswith(".GenerativeService.BidiGenerateContent")


async def test_every_client_message_type_is_recorded() -> None:
    pcm = bytes(range(256)) * 8
    async with LiveSimulator(api_keys=("test-key",)) as sim, connect(sim) as session:
        await session.send_realtime_input(
            audio=types.Blob(data=pcm, mime_type="audio/pcm;rate=16000")
        )
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        await session.send_realtime_input(audio_stream_end=True)
        await session.send_realtime_input(text="hello")
        await session.send_realtime_input(
            video=types.Blob(data=b"\xff\xd8\xff", mime_type="image/jpeg")
        )
        await session.send_client_content(
            turns=types.Content(role="user", parts=[types.Part(text="typed turn")]),
            turn_complete=True,
        )
        await session.send_tool_response(
            function_responses=[
                types.FunctionResponse(
                    id="fc-9",
                    name="get_time",
                    response={"output": "12:00"},
                    scheduling=types.FunctionResponseScheduling.WHEN_IDLE,
                    will_continue=False,
                )
            ]
        )
        await session.send_context_update(
            tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name="new_tool")])]
        )
        await sim.recorder.wait_for(Received.CONTEXT_UPDATE)

    recorder = sim.recorder
    (audio,) = recorder.events(Received.AUDIO)
    assert audio.audio == pcm
    assert audio.byte_count == len(pcm)
    assert audio.data["mime_type"] == "audio/pcm;rate=16000"
    assert recorder.audio_bytes() == pcm
    assert recorder.count(Received.ACTIVITY_START) == 1
    assert recorder.count(Received.ACTIVITY_END) == 1
    assert recorder.count(Received.AUDIO_STREAM_END) == 1
    assert recorder.events(Received.TEXT)[0].data == {"text": "hello"}
    # A JPEG cut before its frame header: recorded as no JPEG, with no size (S6).
    assert recorder.events(Received.VIDEO)[0].data == {
        "mime_type": "image/jpeg",
        "byte_count": 3,
        "jpeg": False,
        "width": 0,
        "height": 0,
        "progressive": False,
    }
    content = recorder.events(Received.CLIENT_CONTENT)[0].data
    assert content["text"] == "typed turn"
    assert content["turn_complete"] is True
    (response,) = recorder.events(Received.TOOL_RESPONSE)[0].data["function_responses"]
    assert response == {
        "id": "fc-9",
        "name": "get_time",
        "response": {"output": "12:00"},
        "scheduling": "WHEN_IDLE",
        "will_continue": False,
    }
    assert sim.sessions[0].function_names == ("new_tool",)
    # Inbound arrival times are monotonic, for tests that check pacing.
    times = [event.monotonic_time for event in recorder.events()]
    assert times == sorted(times)


async def test_every_server_message_type_reaches_the_sdk_parsed() -> None:
    pcm = b"\x01\x02" * 1200
    scenario = Scenario(
        turns=[
            Turn(
                OnText(contains="go"),
                [
                    InputTranscription(text="one two three four", pieces=2),
                    ModelText(text="thinking"),
                    PcmAudio(pcm=pcm, transcript="Hello there"),
                    OutputTranscription(text="and more", pieces=1),
                    CallTools(
                        calls=(
                            FunctionCallSpec(name="get_time"),
                            FunctionCallSpec(
                                name="lookup", args={"query": "x", "n": 2}, id="own-id"
                            ),
                        )
                    ),
                    CancelToolCalls(ids=("own-id",)),
                    Interrupted(),
                    GoAway(time_left_s=50),
                    Usage(prompt_tokens=10, response_tokens=5),
                    ResumptionUpdate(resumable=False),
                    GenerationComplete(),
                    TurnComplete(reason="NEED_MORE_INPUT", waiting_for_input=True),
                ],
            )
        ]
    )
    async with LiveSimulator(scenario, api_keys=("test-key",)) as sim, connect(sim) as session:
        await session.send_realtime_input(text="go")
        messages = await receive_turn(session)
        (update,) = await receive_messages(session, 1)

    contents = [m.server_content for m in messages if m.server_content]
    assert contents[0].input_transcription == types.Transcription(text="one two ")
    assert contents[1].input_transcription == types.Transcription(text="three four", finished=True)
    assert contents[2].model_turn is not None
    assert contents[2].model_turn.parts == [types.Part(text="thinking")]
    audio_message = contents[3]
    assert audio_message.model_turn is not None
    assert audio_message.model_turn.parts
    inline = audio_message.model_turn.parts[0].inline_data
    assert inline is not None
    assert inline.mime_type == "audio/pcm;rate=24000"
    assert _audio_of(messages) == pcm
    outputs = [c.output_transcription.text or "" for c in contents if c.output_transcription]
    assert "".join(outputs) == "Hello thereand more"

    (tool_call,) = [m.tool_call for m in messages if m.tool_call]
    assert tool_call.function_calls == [
        types.FunctionCall(id="fc-1", name="get_time", args={}),
        types.FunctionCall(id="own-id", name="lookup", args={"query": "x", "n": 2}),
    ]
    (cancellation,) = [m.tool_call_cancellation for m in messages if m.tool_call_cancellation]
    assert cancellation.ids == ["own-id"]
    assert any(c.interrupted for c in contents)
    (go_away,) = [m.go_away for m in messages if m.go_away]
    assert go_away.time_left == "50s"
    (usage,) = [m.usage_metadata for m in messages if m.usage_metadata]
    assert (usage.prompt_token_count, usage.response_token_count, usage.total_token_count) == (
        10,
        5,
        15,
    )
    not_resumable = [m.session_resumption_update for m in messages if m.session_resumption_update]
    assert not_resumable == [types.LiveServerSessionResumptionUpdate(resumable=False)]
    assert any(c.generation_complete for c in contents)
    last = contents[-1]
    assert last.turn_complete is True
    assert last.turn_complete_reason == types.TurnCompleteReason.NEED_MORE_INPUT
    assert last.waiting_for_input is True
    # The client asked for resumption: a fresh handle follows turnComplete, as in the service.
    assert update.session_resumption_update is not None
    assert update.session_resumption_update.resumable is True
    assert update.session_resumption_update.new_handle


async def test_tool_response_fires_the_next_turn_after_all_calls_are_answered() -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnText(),
                [CallTools(calls=(FunctionCallSpec(name="a"), FunctionCallSpec(name="b")))],
            ),
            Turn(OnToolResponse(), [OutputTranscription(text="both done"), TurnComplete()]),
        ]
    )
    async with LiveSimulator(scenario) as sim, connect(sim) as session:
        await session.send_realtime_input(text="run")
        (call_message,) = await receive_messages(session, 1)
        assert call_message.tool_call is not None
        calls = call_message.tool_call.function_calls or []
        # Answered one frame at a time: the turn waits for the second.
        for call in calls:
            await session.send_tool_response(
                function_responses=types.FunctionResponse(
                    id=call.id, name=call.name, response={"output": "ok"}
                )
            )
        messages = await receive_turn(session)

    assert [
        m.server_content.output_transcription.text
        for m in messages[:1]
        if m.server_content and m.server_content.output_transcription
    ] == ["both done"]
    assert sim.sessions[0].pending_calls == {}
    assert sim.recorder.count(Received.TOOL_RESPONSE) == 2


async def test_transcriptions_are_only_sent_when_the_client_asks() -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnText(),
                [
                    InputTranscription(text="hi"),
                    OutputTranscription(text="hello"),
                    TurnComplete(),
                ],
            )
        ]
    )
    config = types.LiveConnectConfig(response_modalities=[types.Modality.AUDIO])
    async with LiveSimulator(scenario) as sim, connect(sim, config) as session:
        await session.send_realtime_input(text="x")
        messages = await receive_turn(session)
    assert len(messages) == 1
    assert messages[0].server_content is not None
    assert messages[0].server_content.turn_complete is True
    # The transcript still has both sides.
    assert [entry.text for entry in sim.sessions[0].transcript] == ["x", "hi", "hello"]


@pytest.mark.parametrize("api_version", ["v1", "v1beta", "v1alpha"])
async def test_any_api_version_is_served(api_version: str) -> None:
    async with LiveSimulator(api_keys=("test-key",)) as sim:
        async with connect(sim, api_version=api_version) as session:
            assert session.session_id
        (event,) = sim.recorder.events(Received.CONNECT)
    assert f".{api_version}.GenerativeService" in event.data["path"]


async def test_a_trailing_slash_in_base_url_still_connects() -> None:
    from google import genai

    async with LiveSimulator() as sim:
        options = sim.http_options()
        options.base_url = sim.base_url + "/"
        client = genai.Client(api_key="any", http_options=options)
        async with client.aio.live.connect(model=MODEL) as session:
            assert session.session_id
        assert sim.recorder.events(Received.CONNECT)[0].data["path"].startswith("//ws/")


async def test_camel_and_snake_keys_and_both_base64_alphabets_are_accepted() -> None:
    pcm = bytes([0xFB, 0xFF, 0xBE, 0x00]) * 4  # encodes with + and / (or - and _)
    async with (
        LiveSimulator(api_keys=("k",)) as sim,
        ws_connect(
            f"wss://127.0.0.1:{sim.port}{PATH}",
            ssl=sim.ssl_context,
            additional_headers={"x-goog-api-key": "k"},
        ) as websocket,
    ):
        await websocket.send(
            json.dumps(
                {
                    "setup": {
                        "model": "models/x",
                        "input_audio_transcription": {},
                        "realtime_input_config": {"automaticActivityDetection": {"disabled": True}},
                    }
                }
            )
        )
        assert json.loads(await websocket.recv()) == {
            "setupComplete": {"sessionId": "sim-session-1"}
        }
        standard = base64.b64encode(pcm).decode()
        urlsafe = base64.urlsafe_b64encode(pcm).decode().rstrip("=")
        assert standard != urlsafe
        await websocket.send(
            json.dumps(
                {"realtimeInput": {"audio": {"data": standard, "mimeType": "audio/pcm;rate=16000"}}}
            )
        )
        await websocket.send(
            json.dumps(
                {"realtime_input": {"audio": {"data": urlsafe, "mime_type": "audio/pcm;rate=8000"}}}
            )
        )
        await websocket.send(
            json.dumps(
                {
                    "clientContent": {
                        "turns": [{"parts": [{"text": "a"}]}],
                        "turn_complete": True,
                    }
                }
            )
        )
        await sim.recorder.wait_for(Received.CLIENT_CONTENT)
    audio = sim.recorder.events(Received.AUDIO)
    assert [event.audio for event in audio] == [pcm, pcm]
    assert audio[1].data["mime_type"] == "audio/pcm;rate=8000"
    assert sim.sessions[0].transcript[-1].text == "a"


async def test_server_frames_use_camel_case_top_level_keys_only() -> None:
    scenario = Scenario(turns=[Turn(OnText(), [PcmAudio(pcm=b"\0\0" * 10), TurnComplete()])])
    async with LiveSimulator(scenario) as sim, connect(sim) as session:
        await session.send_realtime_input(text="x")
        await receive_turn(session)
        await sim.recorder.wait_for("sent.sessionResumptionUpdate")
    keys = {next(iter(event.data)) for event in sim.recorder.sent()}
    assert keys == {"setupComplete", "serverContent", "sessionResumptionUpdate"}
