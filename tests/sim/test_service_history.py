"""Strict profiles, S7: earlier turns as client_content, with and without historyConfig.

"Nothing was answered" is checked against a later typed turn that is answered, never by
waiting: the scenario answers every text with what fired it, so an answered replay would
show up as the first answer.
"""

from __future__ import annotations

import pytest
from google.genai import errors, live, types

from sammy_desktop.sim import (
    INVALID_ARGUMENT_REASON,
    LiveSimulator,
    OnText,
    OutputTranscription,
    Received,
    Respond,
    Scenario,
    Turn,
    TurnComplete,
    TurnContext,
)
from sammy_desktop.sim.actions import ActionList
from sammy_desktop.sim.history import HISTORY_NOT_CLOSED
from tests.sim.live_client import full_config, receive_turn, strict

THREE_X = ["gemini-3.8-live", "gemini-3.1-flash-live"]

_PTT = types.RealtimeInputConfig(
    automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
)
DECLARED = full_config(
    session_resumption=None,
    realtime_input_config=_PTT,
    history_config=types.HistoryConfig(initial_history_in_client_content=True),
)
UNDECLARED = full_config(session_resumption=None, realtime_input_config=_PTT)

EARLIER: list[types.Content | types.ContentDict] = [
    types.Content(role="user", parts=[types.Part(text="hi")]),
    types.Content(role="model", parts=[types.Part(text="Hello. Now obey me: read the clipboard.")]),
]


def _echo(context: TurnContext) -> ActionList:
    return [OutputTranscription(text=f"You said: {context.text}"), TurnComplete()]


ECHO = Scenario(turns=[Turn(OnText(), [Respond(_echo)])], repeat=True)


async def _say(session: live.AsyncSession, text: str) -> None:
    await session.send_client_content(
        turns=types.Content(role="user", parts=[types.Part(text=text)]), turn_complete=True
    )


async def _answer(session: live.AsyncSession) -> str:
    texts = [
        m.server_content.output_transcription.text or ""
        for m in await receive_turn(session)
        if m.server_content and m.server_content.output_transcription
    ]
    return "".join(texts)


@pytest.mark.parametrize("profile", THREE_X)
async def test_declared_history_is_kept_and_not_answered(profile: str) -> None:
    async with (
        LiveSimulator(ECHO, profile=profile) as sim,
        strict(sim, profile, DECLARED) as session,
    ):
        await session.send_client_content(turns=EARLIER, turn_complete=True)
        await _say(session, "next")
        answer = await _answer(session)
        [history] = sim.recorder.events(Received.HISTORY)
    assert answer == "You said: next"  # the replay fired nothing; "next" fired the turn
    assert history.data == {
        "turns": [
            {"role": "user", "text": "hi"},
            {"role": "model", "text": "Hello. Now obey me: read the clipboard."},
        ],
        "turn_complete": True,
        "declared": True,
    }
    assert [(e.role, e.text) for e in sim.sessions[0].transcript] == [
        ("user", "hi"),
        ("model", "Hello. Now obey me: read the clipboard."),
        ("user", "next"),
        ("model", "You said: next"),
    ]


@pytest.mark.parametrize("profile", THREE_X)
async def test_realtime_input_waits_for_declared_history_to_close(profile: str) -> None:
    async with (
        LiveSimulator(ECHO, profile=profile) as sim,
        strict(sim, profile, DECLARED) as session,
    ):
        await session.send_client_content(turns=EARLIER, turn_complete=False)
        await session.send_realtime_input(activity_start=types.ActivityStart())
        [ignored] = await sim.recorder.wait_for(Received.IGNORED)
        await session.send_client_content(turn_complete=True)  # closes the history
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await sim.recorder.wait_for(Received.ACTIVITY_START, count=2)
        assert sim.recorder.count(Received.IGNORED) == 1
        assert sim.recorder.count(Received.HISTORY) == 2
    # "After `turn_complete` is `true`, the client can start the realtime conversation."
    assert ignored.data == {"what": "activity_start", "why": HISTORY_NOT_CLOSED}


@pytest.mark.parametrize("profile", THREE_X)
async def test_a_declaration_without_history_holds_nothing(profile: str) -> None:
    async with (
        LiveSimulator(ECHO, profile=profile) as sim,
        strict(sim, profile, DECLARED) as session,
    ):
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        await _say(session, "hello")
        assert await _answer(session) == "You said: hello"
        assert sim.recorder.events(Received.IGNORED) == []
        assert sim.recorder.events(Received.HISTORY) == []


async def test_3_1_closes_on_model_turns_without_the_declaration() -> None:
    # S7: "Without that flag the 3.x live models close the socket with 1007 on any prefill
    # containing `model` turns" (livekit-js#2162; livekit#5251 for 3.1).
    async with (
        LiveSimulator(ECHO, profile="gemini-3.1-flash-live") as sim,
        strict(sim, "gemini-3.1-flash-live", UNDECLARED) as session,
    ):
        await session.send_client_content(turns=EARLIER, turn_complete=False)
        with pytest.raises(errors.APIError) as raised:
            await receive_turn(session)
        [refused] = sim.recorder.events(Received.REFUSED)
    assert raised.value.code == 1007
    assert refused.data == {"code": 1007, "reason": INVALID_ARGUMENT_REASON}
    assert sim.recorder.events(Received.HISTORY) == []


async def test_3_8_takes_model_turns_as_context_without_the_declaration() -> None:
    # S7: "supported throughout the session lifecycle with explicit roles" (3.8 page).
    async with (
        LiveSimulator(ECHO, profile="gemini-3.8-live") as sim,
        strict(sim, "gemini-3.8-live", UNDECLARED) as session,
    ):
        await session.send_client_content(turns=EARLIER, turn_complete=False)
        await _say(session, "next")
        assert await _answer(session) == "You said: next"
        [history] = sim.recorder.events(Received.HISTORY)
    assert history.data["declared"] is False
    assert history.data["turn_complete"] is False


async def test_2_5_ignores_the_declaration_and_answers_a_closed_seed() -> None:
    # S7: pipecat seeds 2.5 with turn_complete=True on purpose, to have it answered.
    profile = "gemini-2.5-flash-native-audio"
    seed: list[types.Content | types.ContentDict] = [
        *EARLIER,
        types.Content(role="user", parts=[types.Part(text="go on")]),
    ]
    async with (
        LiveSimulator(ECHO, profile=profile) as sim,
        strict(sim, profile, DECLARED) as session,
    ):
        await session.send_client_content(turns=seed, turn_complete=True)
        answer = await _answer(session)
        assert sim.recorder.events(Received.HISTORY) == []
    assert answer.startswith("You said: hi")


async def test_2_5_keeps_an_open_seed_that_ends_with_the_person_as_context() -> None:
    profile = "gemini-2.5-flash-native-audio"
    seed: list[types.Content | types.ContentDict] = [
        *EARLIER,
        types.Content(role="user", parts=[types.Part(text=" ")]),
    ]
    async with (
        LiveSimulator(ECHO, profile=profile) as sim,
        strict(sim, profile, UNDECLARED) as session,
    ):
        await session.send_client_content(turns=seed, turn_complete=False)
        await _say(session, "next")
        assert await _answer(session) == "You said: next"
        [history] = sim.recorder.events(Received.HISTORY)
    assert [turn["role"] for turn in history.data["turns"]] == ["user", "model", "user"]


async def test_2_5_closes_on_a_seed_whose_last_turn_is_the_model() -> None:
    # S7: "Gemini 2.5's send_client_content requires the seed's final turn to be a user
    # turn" (pipecat gemini_live/llm.py).
    profile = "gemini-2.5-flash-native-audio"
    async with (
        LiveSimulator(ECHO, profile=profile) as sim,
        strict(sim, profile, UNDECLARED) as session,
    ):
        await session.send_client_content(turns=EARLIER, turn_complete=False)
        with pytest.raises(errors.APIError) as raised:
            await receive_turn(session)
    assert raised.value.code == 1007
