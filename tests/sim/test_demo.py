"""The offline demo: echo with a duration transcript, typed answers, tool calls read back."""

from __future__ import annotations

from google.genai import live, types

from sammy_desktop.sim import LiveSimulator, Received, demo_scenario
from sammy_desktop.sim.pcm import tone_pcm
from tests.sim.live_client import connect, full_config, receive_messages, receive_turn

PUSH_TO_TALK = full_config(
    session_resumption=None,
    realtime_input_config=types.RealtimeInputConfig(
        automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
    ),
)


def _transcripts(messages: list[types.LiveServerMessage], which: str) -> str:
    texts = []
    for message in messages:
        content = message.server_content
        transcription = getattr(content, which, None) if content else None
        if transcription is not None:
            texts.append(transcription.text or "")
    return "".join(texts)


def _audio(messages: list[types.LiveServerMessage]) -> bytes:
    return b"".join(
        part.inline_data.data or b""
        for m in messages
        if m.server_content and m.server_content.model_turn
        for part in m.server_content.model_turn.parts or []
        if part.inline_data
    )


async def _answer_tool_call(session: live.AsyncSession, output: str) -> str:
    (message,) = await receive_messages(session, 1)
    assert message.tool_call is not None
    assert message.tool_call.function_calls is not None
    (call,) = message.tool_call.function_calls
    await session.send_tool_response(
        function_responses=types.FunctionResponse(
            id=call.id, name=call.name, response={"output": output}
        )
    )
    return str(call.name)


async def test_speech_is_echoed_with_its_duration_as_transcript() -> None:
    speech = bytes(3200) + tone_pcm(250, 2.3, sample_rate=16000, amplitude=0.4) + bytes(3200)
    async with (
        LiveSimulator(demo_scenario(echo_delay_s=0)) as sim,
        connect(sim, PUSH_TO_TALK) as session,
    ):
        await session.send_realtime_input(activity_start=types.ActivityStart())
        for start in range(0, len(speech), 3200):
            await session.send_realtime_input(
                audio=types.Blob(
                    data=speech[start : start + 3200], mime_type="audio/pcm;rate=16000"
                )
            )
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        messages = await receive_turn(session)
    # 2.3 s of speech plus 0.1 s of kept padding on each side.
    assert _transcripts(messages, "input_transcription") == "[you spoke for 2.5 s]"
    assert len(_audio(messages)) == len(speech) * 3 // 2  # the whole utterance, at 24 kHz
    assert _transcripts(messages, "output_transcription") == "[your voice, played back]"


async def test_an_empty_push_to_talk_turn_is_answered_without_echo() -> None:
    async with LiveSimulator(demo_scenario()) as sim, connect(sim, PUSH_TO_TALK) as session:
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        messages = await receive_turn(session)
    assert _transcripts(messages, "input_transcription") == "[you spoke for 0.0 s]"
    assert _audio(messages) == b""


async def test_typed_text_gets_an_honest_answer_naming_the_tools() -> None:
    async with LiveSimulator(demo_scenario()) as sim, connect(sim) as session:
        await session.send_realtime_input(text="tell me a joke")
        messages = await receive_turn(session)
    answer = _transcripts(messages, "output_transcription")
    assert answer.startswith("Offline demo: you typed \u201ctell me a joke\u201d.")
    assert "get_time, end_conversation" in answer
    assert _audio(messages)  # a short chime carries the answer


async def test_what_time_is_it_calls_the_time_tool_and_reads_the_result_back() -> None:
    async with LiveSimulator(demo_scenario()) as sim, connect(sim) as session:
        await session.send_realtime_input(text="What time is it?")
        name = await _answer_tool_call(session, "It is 14:05.")
        messages = await receive_turn(session)
    assert name == "get_time"
    assert _transcripts(messages, "output_transcription") == "get_time: It is 14:05."


async def test_goodbye_calls_the_end_tool() -> None:
    async with LiveSimulator(demo_scenario()) as sim, connect(sim) as session:
        await session.send_client_content(
            turns=types.Content(role="user", parts=[types.Part(text="OK, goodbye!")])
        )
        name = await _answer_tool_call(session, "ending")
        await receive_turn(session)
    assert name == "end_conversation"


async def test_a_tool_named_in_text_is_called_and_errors_are_read_back() -> None:
    async with LiveSimulator(demo_scenario()) as sim, connect(sim) as session:
        await session.send_realtime_input(text="please run get time")
        (message,) = await receive_messages(session, 1)
        assert message.tool_call is not None
        assert message.tool_call.function_calls is not None
        (call,) = message.tool_call.function_calls
        await session.send_tool_response(
            function_responses=types.FunctionResponse(
                id=call.id, name=call.name, response={"error": {"message": "clock broken"}}
            )
        )
        messages = await receive_turn(session)
    assert call.name == "get_time"
    assert (
        _transcripts(messages, "output_transcription")
        == 'get_time: error: {"message": "clock broken"}'
    )


async def test_the_demo_follows_tools_changed_by_a_context_update() -> None:
    async with LiveSimulator(demo_scenario()) as sim, connect(sim) as session:
        await session.send_context_update(
            tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name="open_notes")])]
        )
        await sim.recorder.wait_for(Received.CONTEXT_UPDATE)
        await session.send_realtime_input(text="open notes please")
        name = await _answer_tool_call(session, "opened")
        await receive_turn(session)
        await session.send_realtime_input(text="what time is it")
        messages = await receive_turn(session)
    assert name == "open_notes"
    # get_time is gone, so the time question gets the plain answer.
    assert "open_notes" in _transcripts(messages, "output_transcription")


async def test_without_tools_the_demo_says_it_can_only_echo() -> None:
    config = types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        output_audio_transcription=types.AudioTranscriptionConfig(),
    )
    async with LiveSimulator(demo_scenario(chime_hz=0)) as sim, connect(sim, config) as session:
        await session.send_realtime_input(text="what time is it")
        messages = await receive_turn(session)
    assert "No tools are enabled" in _transcripts(messages, "output_transcription")
    assert _audio(messages) == b""


async def test_hands_free_speech_is_echoed_after_the_pause() -> None:
    speech = tone_pcm(250, 0.5, sample_rate=16000, amplitude=0.4) + bytes(32000)
    async with (
        LiveSimulator(demo_scenario(echo_delay_s=0)) as sim,
        connect(sim, full_config(session_resumption=None)) as session,
    ):
        for start in range(0, len(speech), 3200):
            await session.send_realtime_input(
                audio=types.Blob(
                    data=speech[start : start + 3200], mime_type="audio/pcm;rate=16000"
                )
            )
        messages = await receive_turn(session)
    assert _transcripts(messages, "input_transcription") == "[you spoke for 0.6 s]"
