"""Strict profiles, tools: declarations, behaviour per family, input while a call is pending."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import errors, live, types

from sammy_desktop.sim import (
    NOT_SUPPORTED_REASON,
    CallTools,
    FunctionCallSpec,
    LiveSimulator,
    OnText,
    OnToolResponse,
    OutputTranscription,
    Received,
    Scenario,
    Turn,
    TurnComplete,
)
from sammy_desktop.sim.pcm import tone_pcm
from tests.sim.live_client import MODELS, full_config, receive_messages, receive_turn, strict

STRICT = list(MODELS)
CITY: dict[str, Any] = {"city": "Paris"}
LOUD = tone_pcm(300, 0.1, sample_rate=16000, amplitude=0.5)


def _config(*declarations: types.FunctionDeclaration) -> types.LiveConnectConfig:
    return full_config(tools=[types.Tool(function_declarations=list(declarations))])


def _weather(
    *, json_schema: bool, behavior: types.Behavior | None = None
) -> types.FunctionDeclaration:
    if json_schema:
        return types.FunctionDeclaration(
            name="get_weather",
            behavior=behavior,
            parameters_json_schema={
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        )
    return types.FunctionDeclaration(
        name="get_weather",
        behavior=behavior,
        parameters=types.Schema(
            type=types.Type.OBJECT,
            properties={"city": types.Schema(type=types.Type.STRING)},
            required=["city"],
        ),
    )


def _calls_then_answers() -> Scenario:
    return Scenario(
        turns=[
            Turn(OnText(), [CallTools(calls=(FunctionCallSpec(name="get_weather", args=CITY),))]),
            Turn(OnToolResponse(), [OutputTranscription(text="sunny"), TurnComplete()]),
        ]
    )


async def _tool_call(session: live.AsyncSession) -> types.FunctionCall:
    await session.send_client_content(
        turns=types.Content(role="user", parts=[types.Part(text="weather?")]), turn_complete=True
    )
    while True:
        (message,) = await receive_messages(session, 1)
        if message.tool_call and message.tool_call.function_calls:
            (call,) = message.tool_call.function_calls
            return call


# ---------------------------------------------------------------- T1


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("gemini-2.5-flash-native-audio", {}),  # T1: args={}
        ("gemini-3.1-flash-live", CITY),
        ("gemini-3.8-live", CITY),
    ],
)
async def test_parameters_json_schema_per_family(profile: str, expected: dict[str, Any]) -> None:
    async with (
        LiveSimulator(_calls_then_answers(), profile=profile) as sim,
        strict(sim, profile, _config(_weather(json_schema=True))) as session,
    ):
        call = await _tool_call(session)
    assert call.args == expected


@pytest.mark.parametrize("profile", STRICT)
async def test_parameters_schema_is_honoured_everywhere(profile: str) -> None:
    async with (
        LiveSimulator(_calls_then_answers(), profile=profile) as sim,
        strict(sim, profile, _config(_weather(json_schema=False))) as session,
    ):
        call = await _tool_call(session)
        assert call.id  # T3: "a Gemini API tool call must carry an id"
        await session.send_tool_response(
            function_responses=[
                types.FunctionResponse(id=call.id, name=call.name, response={"result": "ok"})
            ]
        )
        follow_up = await receive_turn(session)
    assert call.args == CITY
    assert any(m.server_content and m.server_content.output_transcription for m in follow_up)


# ---------------------------------------------------------------- T4, T7


async def test_gemini_3_1_closes_on_microphone_audio_while_a_call_is_pending() -> None:
    # T7: "rejects all sendRealtimeInput calls ... responds with error 1008".
    async with (
        LiveSimulator(_calls_then_answers(), profile="gemini-3.1-flash-live") as sim,
        strict(
            sim,
            "gemini-3.1-flash-live",
            _config(_weather(json_schema=False, behavior=types.Behavior.NON_BLOCKING)),
        ) as session,
    ):
        await _tool_call(session)
        # 3.1 is synchronous only: NON_BLOCKING is accepted and ignored (T4).
        await session.send_realtime_input(
            audio=types.Blob(data=bytes(3200), mime_type="audio/pcm;rate=16000")
        )
        with pytest.raises(errors.APIError) as raised:
            await receive_messages(session, 10)  # the resumption update, then the close
    assert (raised.value.code, raised.value.details) == (1008, NOT_SUPPORTED_REASON)
    assert sim.sessions[0].pending_behaviors == {"fc-1": "BLOCKING"}


async def test_gemini_2_5_takes_microphone_audio_while_a_call_is_pending() -> None:
    profile = "gemini-2.5-flash-native-audio"
    async with (
        LiveSimulator(_calls_then_answers(), profile=profile) as sim,
        strict(sim, profile, _config(_weather(json_schema=False))) as session,
    ):
        call = await _tool_call(session)
        await session.send_realtime_input(
            audio=types.Blob(data=LOUD, mime_type="audio/pcm;rate=16000")
        )
        await session.send_tool_response(
            function_responses=[
                types.FunctionResponse(id=call.id, name=call.name, response={"output": "ok"})
            ]
        )
        follow_up = await receive_turn(session)
    assert sim.recorder.count(Received.REFUSED) == 0
    assert any(m.server_content and m.server_content.output_transcription for m in follow_up)


async def test_gemini_3_8_calls_are_non_blocking_by_default_and_blocking_ones_are_cancelled() -> (
    None
):
    # T4: NON_BLOCKING is 3.8's default; T7: new input cancels a BLOCKING call.
    scenario = Scenario(
        turns=[
            Turn(
                OnText(),
                [
                    CallTools(
                        calls=(
                            FunctionCallSpec(name="get_weather", args=CITY),
                            FunctionCallSpec(name="get_time"),
                        )
                    )
                ],
            )
        ]
    )
    declarations = _config(
        _weather(json_schema=False),
        types.FunctionDeclaration(name="get_time", behavior=types.Behavior.BLOCKING),
    )
    async with (
        LiveSimulator(scenario, profile="gemini-3.8-live") as sim,
        strict(sim, "gemini-3.8-live", declarations) as session,
    ):
        await _tool_call_message(session)
        assert sim.sessions[0].pending_behaviors == {"fc-1": "NON_BLOCKING", "fc-2": "BLOCKING"}
        await session.send_realtime_input(
            audio=types.Blob(data=LOUD, mime_type="audio/pcm;rate=16000")
        )
        cancellation = await _next_with(session, "tool_call_cancellation")
    assert cancellation.tool_call_cancellation is not None
    assert cancellation.tool_call_cancellation.ids == ["fc-2"]
    assert sim.sessions[0].pending_calls == {"fc-1": "get_weather"}


async def _tool_call_message(session: live.AsyncSession) -> types.LiveServerMessage:
    await session.send_client_content(
        turns=types.Content(role="user", parts=[types.Part(text="go")]), turn_complete=True
    )
    return await _next_with(session, "tool_call")


async def _next_with(session: live.AsyncSession, field: str) -> types.LiveServerMessage:
    while True:
        (message,) = await receive_messages(session, 1)
        if getattr(message, field) is not None:
            return message


async def test_resumption_is_not_offered_while_a_call_is_pending() -> None:
    # R9: "resumable=false ... Example of such case could be model executing function calls".
    profile = "gemini-2.5-flash-native-audio"
    async with (
        LiveSimulator(_calls_then_answers(), profile=profile) as sim,
        strict(sim, profile, _config(_weather(json_schema=False))) as session,
    ):
        call = (await _tool_call_message(session)).tool_call
        update = await _next_with(session, "session_resumption_update")
        assert call is not None
        (function_call,) = call.function_calls or []
        await session.send_tool_response(
            function_responses=[
                types.FunctionResponse(
                    id=function_call.id, name=function_call.name, response={"output": 1}
                )
            ]
        )
        await receive_turn(session)
        after = await _next_with(session, "session_resumption_update")
    assert update.session_resumption_update == types.LiveServerSessionResumptionUpdate(
        resumable=False
    )
    assert after.session_resumption_update is not None
    assert after.session_resumption_update.resumable is True
    assert after.session_resumption_update.new_handle


def _one_call(name: str) -> Scenario:
    return Scenario(
        turns=[
            Turn(OnText(), [CallTools(calls=(FunctionCallSpec(name=name),))]),
            Turn(OnToolResponse(), [OutputTranscription(text="done"), TurnComplete()]),
        ]
    )


async def test_a_silent_response_to_a_non_blocking_call_triggers_nothing() -> None:
    # T4: SILENT "Only add the result to the conversation context, do not ... trigger".
    profile = "gemini-2.5-flash-native-audio"
    declaration = types.FunctionDeclaration(name="log", behavior=types.Behavior.NON_BLOCKING)
    async with (
        LiveSimulator(_one_call("log"), profile=profile) as sim,
        strict(sim, profile, _config(declaration)) as session,
    ):
        call = (await _tool_call_message(session)).tool_call
        assert call is not None
        (function_call,) = call.function_calls or []
        await session.send_tool_response(
            function_responses=[
                types.FunctionResponse(
                    id=function_call.id,
                    name="log",
                    response={"output": "noted"},
                    scheduling=types.FunctionResponseScheduling.SILENT,
                )
            ]
        )
        (ignored,) = await sim.recorder.wait_for(Received.IGNORED)
    assert ignored.data["what"] == "tool_response"
    assert sim.sessions[0].position == 1  # the answering turn never fired
    assert sim.sessions[0].pending_calls == {}


@pytest.mark.parametrize(
    ("behavior", "still_pending"),
    [(types.Behavior.NON_BLOCKING, True), (types.Behavior.BLOCKING, False)],
)
async def test_will_continue_only_keeps_non_blocking_calls_open(
    behavior: types.Behavior, still_pending: bool
) -> None:
    # T4: will_continue "Is only applicable to NON_BLOCKING function calls".
    profile = "gemini-2.5-flash-native-audio"
    declaration = types.FunctionDeclaration(name="watch", behavior=behavior)
    async with (
        LiveSimulator(_one_call("watch"), profile=profile) as sim,
        strict(sim, profile, _config(declaration)) as session,
    ):
        call = (await _tool_call_message(session)).tool_call
        assert call is not None
        (function_call,) = call.function_calls or []
        await session.send_tool_response(
            function_responses=[
                types.FunctionResponse(
                    id=function_call.id,
                    name="watch",
                    response={"output": "1 of 3"},
                    will_continue=True,
                )
            ]
        )
        await sim.recorder.wait_for(Received.TOOL_RESPONSE)
        assert (sim.sessions[0].pending_calls != {}) is still_pending
        assert sim.sessions[0].position == (1 if still_pending else 2)
