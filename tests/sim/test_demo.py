"""The offline demo on the strict default profile, with the app's own tool declarations.

Typed text goes as client_content turns and speech as push-to-talk audio, as the app sends
them; every call is checked against the declarations of the setup and against the real
tool's input model, and every sentence for what it must not contain (JSON, function names).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from google.genai import live, types

from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.config.settings import DEFAULT_MODEL
from sammy_desktop.eventbus import EventBus
from sammy_desktop.sim import AnswerIntents, LiveSimulator, Scenario, demo_scenario
from sammy_desktop.sim.demo import DEMO_INTENTS, demo_answers
from sammy_desktop.sim.pcm import tone_pcm
from sammy_desktop.tools import ToolManager, ToolServices
from sammy_desktop.tools.desktop import TimerService, desktop_tools
from tests.helpers.clock import ManualScheduler
from tests.sim.demo_calls import assert_calls_match_declarations
from tests.sim.live_client import full_config, receive_messages, receive_turn, strict

FAMILY = "gemini-3.8-live"  # the app's default model's family
CAMEL_CASE = re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b")


@pytest.fixture
async def app_tools(tmp_path: Path) -> AsyncIterator[ToolManager]:
    """The app's tool manager: the desktop pack and the built-ins, as the app registers them."""
    bus = EventBus()
    paths = AppPaths.profile(tmp_path / "profile")
    settings = Settings()
    timers = TimerService(bus, None, scheduler=ManualScheduler())
    manager = ToolManager(
        bus,
        ToolServices(paths=paths, settings=lambda: settings, transcript=lambda: ()),
        tools=desktop_tools(timers=timers, clipboard=None),
        load_entry_points=False,
    )
    yield manager
    await manager.aclose()
    timers.shutdown()


def _config(
    tools: list[types.Tool] | None, *, push_to_talk: bool = True
) -> types.LiveConnectConfig:
    detection = types.AutomaticActivityDetection(disabled=push_to_talk)
    return full_config(
        tools=tools or [],
        session_resumption=None,
        realtime_input_config=types.RealtimeInputConfig(automatic_activity_detection=detection),
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


async def _type(session: live.AsyncSession, text: str) -> None:
    await session.send_client_content(
        turns=types.Content(role="user", parts=[types.Part(text=text)]), turn_complete=True
    )


async def _next_call(session: live.AsyncSession) -> types.FunctionCall:
    while True:
        (message,) = await receive_messages(session, 1)
        if message.tool_call and message.tool_call.function_calls:
            (call,) = message.tool_call.function_calls
            return call


async def _answer(session: live.AsyncSession, call: types.FunctionCall, response: Any) -> str:
    await session.send_tool_response(
        function_responses=types.FunctionResponse(id=call.id, name=call.name, response=response)
    )
    return _transcripts(await receive_turn(session), "output_transcription")


def _ok(value: Mapping[str, Any]) -> dict[str, Any]:
    """An answer in the app's shape (ToolResult.to_model_payload)."""
    return {"output": {"ok": True, "value": dict(value)}}


def _says_nothing_for_developers(sentence: str) -> None:
    assert sentence
    assert "{" not in sentence and "}" not in sentence, sentence  # no JSON
    assert not CAMEL_CASE.search(sentence), sentence  # no function names
    assert "_" not in sentence, sentence  # no field names


# ------------------------------------------------------------ typed requests -> calls

PHRASINGS = [
    ("what time is it", "getDateTime", {}),
    ("What's the time?", "getDateTime", {}),
    ("what day is it today", "getDateTime", {}),
    ("What time is it in Tokyo?", "getDateTime", {"timezone": "Tokyo"}),
    ("Set a timer for two minutes", "setTimer", {"duration": "2m"}),
    ("set a timer for 5 min", "setTimer", {"duration": "5m"}),
    ("5 min timer please", "setTimer", {"duration": "5m"}),
    ("start a timer for 90 seconds", "setTimer", {"duration": "90s"}),
    ("set a timer for an hour and a half", "setTimer", {"duration": "1.5h"}),
    ("set a timer for twenty-five minutes", "setTimer", {"duration": "25m"}),
    ("remind me in ten minutes", "setTimer", {"duration": "10m"}),
    (
        "Remind me in ten minutes to check the oven",
        "setTimer",
        {"duration": "10m", "label": "check the oven"},
    ),
    (
        "note that the wifi password is on the router",
        "addNote",
        {"text": "The wifi password is on the router."},
    ),
    ("remember to buy milk", "addNote", {"text": "Remember to buy milk."}),
    ("Remember that my locker is 42", "addNote", {"text": "My locker is 42."}),
    (
        "what do you know about my computer?",
        "getCurrentContext",
        {"reason": "you asked what I know about this computer"},
    ),
    ("goodbye", "endSession", {"reason": "you said \u201cgoodbye\u201d", "confirmed": True}),
    ("OK, bye!", "endSession", {"reason": "you said \u201cOK, bye\u201d", "confirmed": True}),
    (
        "please end the conversation",
        "endSession",
        {"reason": "you said \u201cplease end the conversation\u201d", "confirmed": True},
    ),
]


@pytest.mark.parametrize(("typed", "name", "args"), PHRASINGS)
async def test_a_plain_request_calls_its_tool_with_valid_arguments(
    app_tools: ToolManager, typed: str, name: str, args: dict[str, Any]
) -> None:
    config = _config(app_tools.declarations(DEFAULT_MODEL))
    async with LiveSimulator(demo_scenario()) as sim, strict(sim, FAMILY, config) as session:
        await _type(session, typed)
        call = await _next_call(session)
    assert (call.name, call.args) == (name, args)
    assert_calls_match_declarations(sim)  # the required arguments, and only declared ones
    app_tools.get(name).input_model.model_validate(call.args)  # what the tool will accept


# ------------------------------------------------------------ answers -> sentences

ANSWERS = [
    (
        "what time is it",
        _ok({"time": "14:05", "weekday": "Tuesday", "timezone": "local", "iso": "..."}),
        "It's 14:05 on Tuesday.",
    ),
    (
        "what time is it in Tokyo",
        _ok({"time": "22:05", "weekday": "Tuesday", "timezone": "Asia/Tokyo"}),
        "In Tokyo it's 22:05 on Tuesday.",
    ),
    (
        "set a timer for two minutes",
        _ok({"id": "1", "label": "", "duration": "2 minutes", "ends_at": "14:07"}),
        "Your timer for 2 minutes is running; it ends at 14:07.",
    ),
    (
        "remind me in 10 minutes to check the oven",
        _ok({"id": "2", "label": "check the oven", "duration": "10 minutes", "ends_at": "14:15"}),
        "I'll remind you to check the oven in 10 minutes, at 14:15.",
    ),
    (
        "note that the wifi password is on the router",
        _ok({"id": 1, "text": "The wifi password is on the router.", "tags": []}),
        "I've noted it: \u201cThe wifi password is on the router.\u201d",
    ),
    (
        "what do you know about my computer",
        _ok({"weekday": "Tuesday", "time_zone": "CET (UTC+01:00)", "platform": "Linux"}),
        "It's Tuesday here, your time zone is CET (UTC+01:00), and this computer runs Linux.",
    ),
    (
        "what do you know about my computer",
        _ok({"withheld": ["share_time", "share_timezone", "share_platform"]}),
        "You share nothing about this computer with me (Settings, Privacy).",
    ),
    (
        "goodbye",
        _ok({"ending": True, "reason": "you said \u201cgoodbye\u201d"}),
        "Goodbye! Thanks for trying Sammy's offline demo.",
    ),
]


@pytest.mark.parametrize(("typed", "response", "sentence"), ANSWERS)
async def test_the_answer_is_said_in_a_sentence_from_its_value(
    app_tools: ToolManager, typed: str, response: dict[str, Any], sentence: str
) -> None:
    config = _config(app_tools.declarations(DEFAULT_MODEL))
    async with LiveSimulator(demo_scenario()) as sim, strict(sim, FAMILY, config) as session:
        await _type(session, typed)
        said = await _answer(session, await _next_call(session), response)
    assert said == sentence
    _says_nothing_for_developers(said)


FAILURES = [
    (
        "what time is it in Atlantis",
        {"error": {"ok": False, "problems": ["'Atlantis' is not a time zone I know."]}},
        "Sorry, I don't know a time zone called Atlantis.",
    ),
    (
        "what time is it",
        {"error": {"ok": False, "problems": ["The person does not share the date and time."]}},
        "Sorry, I can't tell the time: the date and time are not shared (Settings, Privacy).",
    ),
    (
        "set a timer for 30 hours",
        {"error": {"ok": False, "validation": {"duration": {"valid": False}}}},
        "Sorry, that timer didn't start. A timer runs from one second to 24 hours, "
        "and at most 20 run at once.",
    ),
    (
        "note that the cat is fed",
        {"error": {"ok": False, "problems": ["The notes could not be read or saved."]}},
        "Sorry, I couldn't save that note.",
    ),
]


@pytest.mark.parametrize(("typed", "response", "sentence"), FAILURES)
async def test_a_failure_is_said_kindly_without_the_models_words(
    app_tools: ToolManager, typed: str, response: dict[str, Any], sentence: str
) -> None:
    config = _config(app_tools.declarations(DEFAULT_MODEL))
    async with LiveSimulator(demo_scenario()) as sim, strict(sim, FAMILY, config) as session:
        await _type(session, typed)
        said = await _answer(session, await _next_call(session), response)
    assert said == sentence
    _says_nothing_for_developers(said)


# ------------------------------------------------------------ what is said without a call

SPOKEN_ONLY = [
    ("set a timer", "How long should the timer run?"),
    ("take a note", "What should I note?"),
    ("hello", "Hi! This is Sammy's offline demo: a simulator on this computer answers, not"),
    ("tell me a joke", "This is Sammy's offline demo: a simulator on this computer answers"),
    ("setTimer", "To use set timer, say it in words, such as \u201cset a timer for two"),
]


@pytest.mark.parametrize(("typed", "start"), SPOKEN_ONLY)
async def test_what_cannot_be_called_is_answered_in_words(
    app_tools: ToolManager, typed: str, start: str
) -> None:
    config = _config(app_tools.declarations(DEFAULT_MODEL))
    async with LiveSimulator(demo_scenario()) as sim, strict(sim, FAMILY, config) as session:
        await _type(session, typed)
        messages = await receive_turn(session)
    said = _transcripts(messages, "output_transcription")
    assert said.startswith(start)
    assert not any(m.tool_call for m in messages)
    assert sim.recorder.sent("toolCall") == []
    assert _audio(messages)  # a short chime carries the sentence
    _says_nothing_for_developers(said)


async def test_the_introduction_suggests_only_the_tools_that_are_on(
    app_tools: ToolManager,
) -> None:
    app_tools.set_enabled("setTimer", False)
    app_tools.set_enabled("addNote", False)
    config = _config(app_tools.declarations(DEFAULT_MODEL))
    async with LiveSimulator(demo_scenario()) as sim, strict(sim, FAMILY, config) as session:
        await _type(session, "help")
        help_text = _transcripts(await receive_turn(session), "output_transcription")
        await _type(session, "set a timer for two minutes")
        switched_off = _transcripts(await receive_turn(session), "output_transcription")
    assert "\u201cwhat time is it\u201d" in help_text
    assert "timer" not in help_text and "note" not in help_text
    assert switched_off == "Timers are switched off in Settings, so I can't set one."
    assert sim.recorder.sent("toolCall") == []


async def test_without_tools_the_demo_says_it_can_only_play_the_voice_back() -> None:
    async with (
        LiveSimulator(demo_scenario(chime_hz=0)) as sim,
        strict(sim, FAMILY, _config(None)) as session,
    ):
        await _type(session, "tell me a joke")
        messages = await receive_turn(session)
    said = _transcripts(messages, "output_transcription")
    assert said.startswith("This is Sammy's offline demo")
    assert said.endswith("No tools are switched on, so it can only play your voice back.")
    assert _audio(messages) == b""


# ------------------------------------------------------------ other declared tools


async def test_a_declared_tool_named_as_is_is_called_when_it_needs_no_argument() -> None:
    tools = [
        types.Tool(
            function_declarations=[
                types.FunctionDeclaration(name="sayHello", description="Greets"),
                types.FunctionDeclaration(
                    name="openUrl",
                    parameters=types.Schema(
                        type=types.Type.OBJECT,
                        properties={"url": types.Schema(type=types.Type.STRING)},
                        required=["url"],
                    ),
                ),
            ]
        )
    ]
    async with (
        LiveSimulator(demo_scenario()) as sim,
        strict(sim, FAMILY, _config(tools)) as session,
    ):
        await _type(session, "please run say hello")
        call = await _next_call(session)
        said = await _answer(session, call, _ok({"text": "hello from the tool"}))
        await _type(session, "openUrl")
        refused = _transcripts(await receive_turn(session), "output_transcription")
    assert (call.name, call.args) == ("sayHello", {})
    assert said == "Say hello answered: hello from the tool."
    assert refused == "To use open url, the offline demo cannot fill in what it needs."
    assert len(sim.recorder.sent("toolCall")) == 1


# ------------------------------------------------------------ speech


async def test_speech_is_played_back_and_the_demo_says_it_cannot_understand_it(
    app_tools: ToolManager,
) -> None:
    speech = bytes(3200) + tone_pcm(250, 2.3, sample_rate=16000, amplitude=0.4) + bytes(3200)
    config = _config(app_tools.declarations(DEFAULT_MODEL))
    async with (
        LiveSimulator(demo_scenario(echo_delay_s=0)) as sim,
        strict(sim, FAMILY, config) as session,
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
    said = _transcripts(messages, "output_transcription")
    assert said == (
        "That was your voice, played back: the offline demo cannot understand speech. "
        "Type a request, such as \u201cwhat time is it\u201d."
    )
    _says_nothing_for_developers(said)


async def test_an_empty_push_to_talk_turn_is_answered_without_echo() -> None:
    async with LiveSimulator(demo_scenario()) as sim, strict(sim, FAMILY, _config(None)) as session:
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        messages = await receive_turn(session)
    assert _transcripts(messages, "input_transcription") == "[you spoke for 0.0 s]"
    assert _audio(messages) == b""


async def test_hands_free_speech_is_played_back_after_the_pause() -> None:
    speech = tone_pcm(250, 0.5, sample_rate=16000, amplitude=0.4) + bytes(32000)
    async with (
        LiveSimulator(demo_scenario(echo_delay_s=0)) as sim,
        strict(sim, FAMILY, _config(None, push_to_talk=False)) as session,
    ):
        for start in range(0, len(speech), 3200):
            await session.send_realtime_input(
                audio=types.Blob(
                    data=speech[start : start + 3200], mime_type="audio/pcm;rate=16000"
                )
            )
        messages = await receive_turn(session)
    assert _transcripts(messages, "input_transcription") == "[you spoke for 0.6 s]"
    assert _audio(messages)


# ------------------------------------------------------------ declarative


def test_the_demo_table_is_a_json_scenario_too() -> None:
    """The demo's intents are data: the JSON scenario format reads them back the same."""
    action = {"type": "intents", **asdict(demo_answers())}
    document = {
        "repeat": True,
        "turns": [{"on": {"type": "any", "of": [{"type": "text"}]}, "actions": [action]}],
    }
    scenario = Scenario.from_json(json.dumps(document))
    (turn,) = scenario.turns
    (loaded,) = turn.actions
    assert isinstance(loaded, AnswerIntents)
    assert loaded == demo_answers()
    assert loaded.intents == DEMO_INTENTS
