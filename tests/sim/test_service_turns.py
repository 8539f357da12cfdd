"""Strict profiles, turns: barge-in order, transcriptions, usage, pacing, input rules.

Timing is checked on a :class:`VirtualClock` (time passes only when the simulator sleeps),
and "nothing happened" is checked against a later input that does fire, never by waiting.
"""

from __future__ import annotations

import itertools

import pytest
from google.genai import errors, live, types

from sammy_desktop.sim import (
    INVALID_ARGUMENT_REASON,
    InputTranscription,
    LiveSimulator,
    OnActivityEnd,
    OnText,
    OutputTranscription,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
    Usage,
    VirtualClock,
)
from sammy_desktop.sim.pcm import tone_pcm
from tests.sim.live_client import MODELS, full_config, receive_messages, receive_turn, strict

STRICT = list(MODELS)
PUSH_TO_TALK = full_config(
    session_resumption=None,
    realtime_input_config=types.RealtimeInputConfig(
        automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
    ),
)
HANDS_FREE = full_config(session_resumption=None)


def _audio_frames(messages: list[types.LiveServerMessage]) -> list[int]:
    """Indexes of the messages that carry answer audio."""
    return [
        index
        for index, m in enumerate(messages)
        if m.server_content
        and m.server_content.model_turn
        and any(p.inline_data for p in m.server_content.model_turn.parts or [])
    ]


async def _say(session: live.AsyncSession, text: str) -> None:
    """A typed turn the way the SDK's real-backend tests send it (S1)."""
    await session.send_client_content(
        turns=types.Content(role="user", parts=[types.Part(text=text)]), turn_complete=True
    )


# ---------------------------------------------------------------- R1 barge-in


@pytest.mark.parametrize("profile", STRICT)
async def test_barge_in_sends_interrupted_then_turn_complete(profile: str) -> None:
    scenario = Scenario(
        turns=[
            Turn(OnActivityEnd(), [Tone(duration_s=5.0, realtime=True), TurnComplete()]),
            Turn(OnActivityEnd(), [OutputTranscription(text="after"), TurnComplete()]),
        ]
    )
    async with (
        LiveSimulator(scenario, profile=profile) as sim,
        strict(sim, profile, PUSH_TO_TALK) as session,
    ):
        await session.send_realtime_input(activity_start=types.ActivityStart())
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        await sim.recorder.wait_for("sent.serverContent")
        await session.send_realtime_input(activity_start=types.ActivityStart())
        interrupted_turn = await receive_turn(session)
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        next_turn = await receive_turn(session)
    contents = [m.server_content for m in interrupted_turn if m.server_content]
    flags = [(c.interrupted, c.turn_complete, c.generation_complete) for c in contents]
    # R1: interrupted, then turnComplete for the interrupted turn, no generationComplete.
    assert flags[-2:] == [(True, None, None), (None, True, None)]
    assert not any(generation for _, _, generation in flags)
    assert interrupted_turn[-1].usage_metadata is not None
    texts = [
        c.output_transcription.text
        for m in next_turn
        if (c := m.server_content) and c.output_transcription
    ]
    assert texts == ["after"]


# ---------------------------------------------------------------- R2 input transcription


@pytest.mark.parametrize("profile", STRICT)
async def test_input_transcription_is_never_finished_and_runs_into_the_answer(
    profile: str,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnText(),
                [
                    InputTranscription(text="what time is it now", pieces=4),
                    Tone(duration_s=0.5),
                    TurnComplete(),
                ],
            )
        ]
    )
    clock = VirtualClock()
    async with (
        LiveSimulator(scenario, profile=profile, clock=clock) as sim,
        strict(sim, profile, HANDS_FREE) as session,
    ):
        await _say(session, "go")
        messages = await receive_turn(session)
    inputs = [
        (index, c.input_transcription)
        for index, m in enumerate(messages)
        if (c := m.server_content) and c.input_transcription
    ]
    assert "".join(t.text or "" for _, t in inputs) == "what time is it now"
    assert all(t.finished is None for _, t in inputs)
    first_audio = _audio_frames(messages)[0]
    assert inputs[0][0] < first_audio  # some before the answer's audio...
    assert inputs[-1][0] > first_audio  # ...and some after it began


async def test_the_lenient_profile_keeps_the_scenarios_finished_flag() -> None:
    scenario = Scenario(turns=[Turn(OnText(), [InputTranscription(text="hi"), TurnComplete()])])
    async with (
        LiveSimulator(scenario, lenient=True) as sim,
        strict(sim, "gemini-3.8-live", HANDS_FREE) as session,
    ):
        await session.send_realtime_input(text="x")
        messages = await receive_turn(session)
    content = messages[0].server_content
    assert content is not None
    assert content.input_transcription == types.Transcription(text="hi", finished=True)


# ---------------------------------------------------------------- R4 usage


@pytest.mark.parametrize("profile", STRICT)
async def test_usage_rides_in_the_turn_complete_frame(profile: str) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnText(),
                [Tone(duration_s=0.2), Usage(prompt_tokens=12, response_tokens=7), TurnComplete()],
            ),
            Turn(OnText(), [Tone(duration_s=1.0), TurnComplete()]),
        ]
    )
    async with (
        LiveSimulator(scenario, profile=profile, clock=VirtualClock()) as sim,
        strict(sim, profile, HANDS_FREE) as session,
    ):
        await _say(session, "one")
        first = await receive_turn(session)
        await _say(session, "two")
        second = await receive_turn(session)
    assert [m for m in first if m.usage_metadata] == [first[-1]]
    last = first[-1]
    assert last.server_content is not None
    assert last.server_content.turn_complete
    assert last.usage_metadata is not None
    assert (last.usage_metadata.prompt_token_count, last.usage_metadata.total_token_count) == (
        12,
        19,
    )
    # A turn whose scenario gives no usage still gets counts, never zero: 1 s of audio.
    usage = second[-1].usage_metadata
    assert usage is not None
    assert usage.response_token_count == 32


# ---------------------------------------------------------------- R5, R6 pacing


@pytest.mark.parametrize("profile", STRICT)
async def test_answer_audio_comes_in_bursts_faster_than_real_time(profile: str) -> None:
    scenario = Scenario(turns=[Turn(OnText(), [Tone(duration_s=2.0), TurnComplete()])])
    clock = VirtualClock()
    async with (
        LiveSimulator(scenario, profile=profile, clock=clock) as sim,
        strict(sim, profile, HANDS_FREE) as session,
    ):
        await _say(session, "go")
        await receive_turn(session)
    frames = [
        event.monotonic_time
        for event in sim.recorder.sent("serverContent")
        if "modelTurn" in event.data["serverContent"]
    ]
    assert len(frames) == 20  # 100 ms frames
    start = frames[0]
    # R6: the first 500 ms go at once, then bursts at 3x real time: 2 s arrive in 0.5 s.
    assert frames[:5] == [start] * 5
    assert frames[-1] - start == pytest.approx(1.5 / 3)
    assert max(b - a for a, b in itertools.pairwise(frames)) == pytest.approx(0.5 / 3)


async def test_real_time_pacing_is_a_switch() -> None:
    scenario = Scenario(turns=[Turn(OnText(), [Tone(duration_s=1.0), TurnComplete()])])
    clock = VirtualClock()
    async with (
        LiveSimulator(scenario, profile="service", clock=clock, pacing="realtime") as sim,
        strict(sim, "gemini-3.8-live", HANDS_FREE) as session,
    ):
        await _say(session, "go")
        await receive_turn(session)
    frames = [
        event.monotonic_time
        for event in sim.recorder.sent("serverContent")
        if "modelTurn" in event.data["serverContent"]
    ]
    steps = [round(b - a, 6) for a, b in itertools.pairwise(frames)]
    assert steps == [0.1] * 9


@pytest.mark.parametrize("profile", STRICT)
async def test_turn_complete_waits_until_the_answer_has_played(profile: str) -> None:
    # R5: generationComplete at the end of generation, turnComplete after playback.
    scenario = Scenario(turns=[Turn(OnText(), [Tone(duration_s=2.0), TurnComplete()])])
    clock = VirtualClock()
    async with (
        LiveSimulator(scenario, profile=profile, clock=clock) as sim,
        strict(sim, profile, HANDS_FREE) as session,
    ):
        await _say(session, "go")
        messages = await receive_turn(session)
    sent = sim.recorder.sent("serverContent")
    first_audio = next(e for e in sent if "modelTurn" in e.data["serverContent"])
    generation = next(e for e in sent if e.data["serverContent"].get("generationComplete"))
    complete = next(e for e in sent if e.data["serverContent"].get("turnComplete"))
    # 2 s of audio generated at 3x real time: generation ends after 2/3 s.
    assert generation.monotonic_time - first_audio.monotonic_time == pytest.approx(2.0 / 3)
    assert complete.monotonic_time - first_audio.monotonic_time == pytest.approx(2.0)
    flags = [m.server_content.generation_complete for m in messages if m.server_content]
    assert flags.count(True) == 1


# ---------------------------------------------------------------- S1-S4 input rules


@pytest.mark.parametrize("profile", STRICT)
async def test_bare_realtime_text_is_ignored_while_activity_detection_is_off(
    profile: str,
) -> None:
    # S2: with detection off "the client must send activity signals"; client_content works.
    scenario = Scenario(
        turns=[Turn(OnText(), [OutputTranscription(text="answer"), TurnComplete()])]
    )
    async with (
        LiveSimulator(scenario, profile=profile) as sim,
        strict(sim, profile, PUSH_TO_TALK) as session,
    ):
        await session.send_realtime_input(text="ignored")
        await _say(session, "typed turn")
        await receive_turn(session)
        (ignored,) = sim.recorder.events(Received.IGNORED)
    assert ignored.data == {"what": "text", "why": "automatic activity detection is off"}
    assert [(e.role, e.text) for e in sim.sessions[0].transcript] == [
        ("user", "typed turn"),
        ("model", "answer"),
    ]


@pytest.mark.parametrize("profile", STRICT)
async def test_bare_realtime_text_is_answered_with_activity_detection_on(profile: str) -> None:
    scenario = Scenario(
        turns=[Turn(OnText(), [OutputTranscription(text="answer"), TurnComplete()])]
    )
    async with (
        LiveSimulator(scenario, profile=profile) as sim,
        strict(sim, profile, HANDS_FREE) as session,
    ):
        await session.send_realtime_input(text="hello")
        messages = await receive_turn(session)
    assert messages[0].server_content is not None
    assert messages[0].server_content.output_transcription is not None


async def test_activity_signals_need_detection_off_and_stream_end_needs_it_on() -> None:
    # S3: activityStart/End are for push-to-talk, audioStreamEnd for hands-free.
    scenario = Scenario(
        turns=[Turn(OnActivityEnd(), [OutputTranscription(text="heard"), TurnComplete()])]
    )
    async with LiveSimulator(scenario, profile="service") as sim:
        async with strict(sim, "gemini-3.8-live", HANDS_FREE) as session:
            await session.send_realtime_input(activity_start=types.ActivityStart())
            await session.send_realtime_input(activity_end=types.ActivityEnd())
            await sim.recorder.wait_for(Received.IGNORED, count=2)
            assert sim.sessions[0].position == 0
        async with strict(sim, "gemini-3.8-live", PUSH_TO_TALK) as session:
            await session.send_realtime_input(audio_stream_end=True)
            await session.send_realtime_input(activity_start=types.ActivityStart())
            await session.send_realtime_input(activity_end=types.ActivityEnd())
            messages = await receive_turn(session)
    whats = [event.data["what"] for event in sim.recorder.events(Received.IGNORED)]
    assert whats == ["activity_start", "activity_end", "audio_stream_end"]
    assert messages[0].server_content is not None
    assert messages[0].server_content.output_transcription is not None


@pytest.mark.parametrize("profile", STRICT)
async def test_context_update_is_refused_with_1007(profile: str) -> None:
    # S4: unproven on every model; the strict profiles close on it.
    async with LiveSimulator(profile=profile) as sim, strict(sim, profile) as session:
        await session.send_context_update(
            tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name="x")])]
        )
        with pytest.raises(errors.APIError) as raised:
            await receive_messages(session, 1)
    assert (raised.value.code, raised.value.details) == (1007, INVALID_ARGUMENT_REASON)
    assert sim.recorder.count(Received.CONTEXT_UPDATE) == 1


async def test_the_real_backend_tests_pass_against_every_profile() -> None:
    # The flow of google/genai/tests/live_api/test_live_session.py (test_multi_turn).
    scenario = Scenario(
        turns=[
            Turn(
                OnText(contains="42"), [Tone(duration_s=0.3, transcript="Noted."), TurnComplete()]
            ),
            Turn(
                OnText(contains="number"),
                [Tone(duration_s=0.3, transcript="It was 42."), TurnComplete()],
            ),
        ],
        repeat=True,
    )
    config = types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        output_audio_transcription=types.AudioTranscriptionConfig(),
    )
    async with LiveSimulator(scenario, profile="service", clock=VirtualClock()) as sim:
        for profile in STRICT:
            async with strict(sim, profile, config) as session:
                await _say(session, "Remember the number 42. Just acknowledge it.")
                await receive_turn(session)
                await _say(session, "What number did I ask you to remember?")
                second = await receive_turn(session)
            transcript = "".join(
                c.output_transcription.text or ""
                for m in second
                if (c := m.server_content) and c.output_transcription
            )
            assert "42" in transcript
            assert _audio_frames(second)


async def test_speech_while_the_answer_still_plays_interrupts_it() -> None:
    # R1 + R5: generation is over, but the service waits for playback; speech then
    # interrupts, and the turnComplete follows the interruption.
    scenario = Scenario(turns=[Turn(OnText(), [Tone(duration_s=30.0), TurnComplete()])])
    loud = tone_pcm(300, 0.1, sample_rate=16000, amplitude=0.5)
    async with (
        LiveSimulator(scenario, profile="service", pacing="fast") as sim,
        strict(sim, "gemini-3.8-live", HANDS_FREE) as session,
    ):
        await _say(session, "a long story please")
        await sim.recorder.wait_for(
            "sent.serverContent",
            predicate=lambda e: bool(e.data["serverContent"].get("generationComplete")),
        )
        await session.send_realtime_input(
            audio=types.Blob(data=loud, mime_type="audio/pcm;rate=16000")
        )
        messages = await receive_turn(session)
    flags = [
        (c.generation_complete, c.interrupted, c.turn_complete)
        for m in messages
        if (c := m.server_content) and not c.model_turn
    ]
    assert flags == [(True, None, None), (None, True, None), (None, None, True)]
