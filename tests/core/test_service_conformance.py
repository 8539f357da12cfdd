"""The app against the strict service profiles: what the real service does, the app survives.

Each test names the entry of docs/live-service.md whose evidence it follows. The simulator
imitates that evidence (sammy_desktop/sim/profiles.py); these tests prove the app, not the
simulator.
"""

from __future__ import annotations

import asyncio

import pytest

from sammy_desktop.config import Settings
from sammy_desktop.config.settings import DEFAULT_MODEL
from sammy_desktop.core.endpoint import (
    API_VERSION_ENV,
    DEFAULT_API_VERSION,
    live_url,
    make_client_factory,
    resolve_api_version,
)
from sammy_desktop.core.events import (
    AgentState,
    AnswerInterrupted,
    ConnectionLost,
    ErrorKind,
    ErrorRaised,
    Reconnected,
    Reconnecting,
    Speaker,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.core.history import read_history
from sammy_desktop.core.setup import build_live_config
from sammy_desktop.sim import (
    QUOTA_REASON,
    CallTools,
    Close,
    FunctionCallSpec,
    InputTranscription,
    OnActivityEnd,
    OnText,
    OnToolResponse,
    RawMessage,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from tests.core.conftest import API_KEY, Harness, HarnessFactory
from tests.helpers.audio import speech

NATIVE_AUDIO_25 = "gemini-2.5-flash-native-audio-preview-12-2025"
FLASH_31 = "gemini-3.1-flash-live-preview"

ANSWER = Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="Yes."), TurnComplete()])


# ---------------------------------------------------------------- C1: v1beta


def test_every_client_connects_on_v1beta_unless_told_otherwise() -> None:
    client = make_client_factory(lambda: API_KEY, base_url="https://gateway.example")()
    assert live_url(client) == (
        "wss://gateway.example/ws/google.ai.generativelanguage.v1beta."
        "GenerativeService.BidiGenerateContent"
    )
    assert resolve_api_version(Settings(), {}) == DEFAULT_API_VERSION == "v1beta"
    assert resolve_api_version(Settings(api_version="v1alpha"), {}) == "v1alpha"
    assert resolve_api_version(Settings(), {API_VERSION_ENV: "v2"}) == "v2"


async def test_the_connection_path_names_v1beta(core_harness: HarnessFactory) -> None:
    async with core_harness(Scenario(turns=[ANSWER])) as h:
        await h.ready()
        [connect] = h.sim.recorder.events(Received.CONNECT)
        assert "google.ai.generativelanguage.v1beta.GenerativeService" in connect.data["path"]


async def test_a_version_the_service_does_not_serve_is_one_clear_error_not_six_retries(
    core_harness: HarnessFactory,
) -> None:
    """What a person with a key saw before (issue 16): ten attempts, blamed on the network."""
    async with core_harness(Scenario(turns=[ANSWER]), api_version="v1") as h:
        await h.core.start()
        error = await h.events.wait_for(ErrorRaised)
        assert error.kind is ErrorKind.MODEL
        assert DEFAULT_MODEL in error.message
        assert "internet" not in (error.message + error.what_to_do).lower()
        assert "Settings > Voice & language" in error.what_to_do
        assert h.sim.connection_count == 1
        assert h.events.of(Reconnecting) == []
        assert h.core.state is AgentState.ERROR


# ---------------------------------------------------------------- C5: close codes


async def test_a_bad_key_is_refused_with_1007_and_stops_at_once(
    core_harness: HarnessFactory,
) -> None:
    async with core_harness(Scenario(turns=[ANSWER]), api_key="not-the-key") as h:
        await h.core.start()
        error = await h.events.wait_for(ErrorRaised)
        assert error.kind is ErrorKind.AUTH
        assert "API key" in error.message
        assert h.sim.connection_count == 1


async def test_a_used_up_quota_is_said_as_such_and_not_retried(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(turns=[Turn(OnActivityEnd(), [Close(code=1011, reason=QUOTA_REASON)])])
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        error = await h.events.wait_for(ErrorRaised)
        assert error.kind is ErrorKind.QUOTA
        assert "quota" in error.message.lower()
        assert "billing" in error.what_to_do
        assert h.sim.connection_count == 1


async def test_a_refusal_after_setup_gets_one_quiet_resume_then_it_is_an_error(
    core_harness: HarnessFactory, caplog: pytest.LogCaptureFixture
) -> None:
    refused = Close(code=1007, reason="Request contains an invalid argument.")
    scenario = Scenario(
        turns=[
            Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="One."), TurnComplete()]),
            Turn(OnActivityEnd(), [refused]),
            Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="Two."), TurnComplete()]),
            Turn(OnActivityEnd(), [refused]),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        await h.say(speech(0.2))
        # Quiet: resumed at once, no "connection lost", no error, and the question answered.
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.resumed
        assert h.events.of(ConnectionLost) == []
        await h.events.wait_for(
            TranscriptUpdated, lambda e: e.final and e.text == "Two.", within_s=10
        )
        assert h.events.of(ErrorRaised) == []
        # The same again on the resumed connection, at once: now it is an error.
        await h.say(speech(0.2))
        error = await h.events.wait_for(ErrorRaised)
        assert error.kind is ErrorKind.CONFIGURATION
        # What happened for the person; the service's reason for whoever reads the log.
        assert error.message == "The service closed the conversation."
        assert "Request contains an invalid argument." in caplog.text


# ---------------------------------------------------------------- R1: barge-in order


def _barge_in_scenario(*tail: object) -> Scenario:
    return Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="tell me a long story"),
                    Tone(duration_s=4.0, transcript="Once upon a time there was a", realtime=True),
                    TurnComplete(),
                ],
            ),
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="stop, what time is it"),
                    Tone(duration_s=0.1, transcript="Noon."),
                    TurnComplete(),
                ],
            ),
        ]
    )


async def _sent_turn_complete_after_interrupted(h: Harness) -> None:
    """Wait until the simulator has sent the cut answer's turnComplete (R1)."""

    def sent() -> bool:
        frames = [e.data["serverContent"] for e in h.sim.recorder.sent("serverContent")]
        cut = next((i for i, f in enumerate(frames) if f.get("interrupted")), None)
        return cut is not None and any(f.get("turnComplete") for f in frames[cut:])

    async with asyncio.timeout(5):
        while not sent():  # noqa: ASYNC110 - the simulator's sent frames have no event
            await asyncio.sleep(0.01)


async def test_pressing_talk_over_an_answer_keeps_the_new_turn_whole(
    core_harness: HarnessFactory,
) -> None:
    """interrupted, then the cut answer's turnComplete: it must not close the new turn."""
    async with core_harness(_barge_in_scenario(), profile="service") as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_state(AgentState.ASSISTANT_SPEAKING)
        assert h.core.begin_talk()
        await h.sim.recorder.wait_for(Received.ACTIVITY_START, count=2)
        # The service's interrupted, then (R1) the cut answer's turnComplete, arrive while
        # the person still talks: the new turn stays open.
        await h.events.wait_for(AnswerInterrupted)
        await _sent_turn_complete_after_interrupted(h)
        assert h.events.of(TurnStats) == []
        h.core.send_audio(speech(0.3))
        assert h.core.state is AgentState.USER_SPEAKING
        h.core.end_talk()
        second = await h.events.wait_for(TurnStats)
        assert second.turn_id == 2
        assert second.first_audio_ms is not None and second.first_audio_ms > 0
        finals = [(e.speaker, e.text) for e in h.events.of(TranscriptUpdated) if e.final]
        assert (Speaker.USER, "stop, what time is it") in finals
        assert (Speaker.ASSISTANT, "Noon.") in finals
        cut = [e for e in h.events.of(TranscriptUpdated) if e.final and e.interrupted]
        assert [e.turn_id for e in cut] == [1]
        await h.history.flush()
        assert h.history.path is not None
        users = [r for r in read_history(h.history.path) if r["type"] == "user"]
        assert [r["text"] for r in users] == ["tell me a long story", "stop, what time is it"]


async def test_turn_complete_before_interrupted_is_handled_too(
    core_harness: HarnessFactory,
) -> None:
    """The other order (R1): generation done, turnComplete, then interrupted at the press."""
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [Tone(duration_s=0.2, transcript="Hello there."), TurnComplete()],
            ),
            Turn(
                OnActivityEnd(),
                [Tone(duration_s=0.1, transcript="Sure."), TurnComplete()],
            ),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        assert h.core.begin_talk()
        await h.sim.inject(RawMessage(message={"serverContent": {"interrupted": True}}))
        h.core.send_audio(speech(0.2))
        h.core.end_talk()
        second = await h.events.wait_for(TurnStats, count=2)
        assert second.turn_id == 2
        finals = [e.text for e in h.events.of(TranscriptUpdated) if e.final]
        assert finals[-1] == "Sure."


# ---------------------------------------------------------------- R2: late transcription


async def test_the_persons_line_keeps_what_the_service_transcribes_after_the_answer_began(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="what is the weather "),
                    InputTranscription(text="in Lisbon tomorrow"),
                    Tone(duration_s=0.2, transcript="Sunny."),
                    TurnComplete(),
                ],
            )
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.3))
        await h.events.wait_for(TurnStats)
        # The profile held the last piece back until after the first answer audio.
        sent = h.sim.recorder.sent("serverContent")
        kinds = [next(iter(e.data["serverContent"])) for e in sent]
        assert kinds.index("modelTurn") < len(kinds) - 1 - kinds[::-1].index("inputTranscription")
        [line] = [
            e.text for e in h.events.of(TranscriptUpdated) if e.final and e.speaker is Speaker.USER
        ]
        assert line == "what is the weather in Lisbon tomorrow"
        await h.history.flush()
        assert h.history.path is not None
        [user] = [r for r in read_history(h.history.path) if r["type"] == "user"]
        assert user["text"] == "what is the weather in Lisbon tomorrow"


# ---------------------------------------------------------------- T1, T7: tools per family


@pytest.mark.parametrize("model", [NATIVE_AUDIO_25, FLASH_31, DEFAULT_MODEL])
async def test_a_required_argument_reaches_the_tool_on_every_family(
    core_harness: HarnessFactory, model: str
) -> None:
    """2.5 ignores parameters_json_schema and calls with args={} (T1): declared as Schema."""
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [CallTools(calls=(FunctionCallSpec(name="get_time", args={"zone": "CET"}),))],
            ),
            Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="Noon."), TurnComplete()]),
        ]
    )
    async with core_harness(scenario, settings=Settings(model=model)) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        [event] = h.sim.recorder.events(Received.TOOL_RESPONSE)
        [response] = event.data["function_responses"]
        assert "12:00 CET" in str(response["response"])


async def test_on_3_1_the_microphone_waits_while_a_call_is_unanswered(
    core_harness: HarnessFactory,
) -> None:
    """3.1 closes with 1008 on realtime input during a pending call (T7): the app holds it."""
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [CallTools(calls=(FunctionCallSpec(name="slow_lookup", args={"topic": "x"}),))],
            ),
            Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="Found."), TurnComplete()]),
            ANSWER,
        ]
    )
    async with core_harness(scenario, settings=Settings(model=FLASH_31)) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.gate.all_started.wait()
        await h.say(speech(0.2))  # the person talks while the tool runs
        h.gate.release.set()
        await h.events.wait_for(TurnStats, count=2, within_s=10)
        assert h.events.of(ConnectionLost) == []
        kinds = [
            e.kind
            for e in h.sim.recorder.events()
            if e.kind in (Received.TOOL_RESPONSE, Received.ACTIVITY_START)
        ]
        assert kinds == [Received.ACTIVITY_START, Received.TOOL_RESPONSE, Received.ACTIVITY_START]


# ---------------------------------------------------------------- M4: language


def test_native_audio_models_get_the_language_in_the_instruction() -> None:
    config = build_live_config(
        Settings(model=NATIVE_AUDIO_25, language="pt-PT", system_prompt="Be brief."),
        [],
        talk_mode=Settings().talk_mode,
        resume_handle=None,
    )
    assert config.system_instruction is not None
    assert isinstance(config.system_instruction, object)
    parts = getattr(config.system_instruction, "parts", None) or []
    text = parts[0].text or ""
    assert text.startswith("Be brief.")
    assert "pt-PT" in text


# ---------------------------------------------------------------- every family, end to end


@pytest.mark.parametrize("model", [DEFAULT_MODEL, NATIVE_AUDIO_25, FLASH_31])
async def test_a_whole_conversation_works_on_every_family(
    core_harness: HarnessFactory, model: str
) -> None:
    """Spoken turn, typed turn, a tool with a required argument, a goAway: on each profile."""
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="hello"),
                    Tone(duration_s=0.2, transcript="Hi there."),
                    TurnComplete(),
                ],
            ),
            Turn(
                OnText(contains="look up"),
                [CallTools(calls=(FunctionCallSpec(name="slow_lookup", args={"topic": "owls"}),))],
            ),
            Turn(OnToolResponse(), [Tone(duration_s=0.1, transcript="Owls hoot."), TurnComplete()]),
            ANSWER,
        ]
    )
    async with core_harness(scenario, settings=Settings(model=model)) as h:
        h.gate.release.set()
        await h.ready()
        await h.say(speech(0.3))
        first = await h.events.wait_for(TurnStats)
        assert first.total_tokens > 0  # usage rides in the turnComplete frame (R4)
        h.core.send_text("please look up owls")
        await h.events.wait_for(TurnStats, count=2)
        [response] = h.sim.recorder.events(Received.TOOL_RESPONSE)[0].data["function_responses"]
        assert "all about owls" in str(response["response"])
        await h.sim.send_go_away(time_left_s=30)
        reconnected = await h.events.wait_for(Reconnected)
        assert reconnected.resumed and reconnected.planned
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats, count=3)
        assert h.events.of(ErrorRaised) == []
        assert h.events.of(ConnectionLost) == []
        [setup, *_] = h.sim.recorder.events(Received.SETUP)
        assert setup.data["model"].endswith(model)
