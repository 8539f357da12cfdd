"""Turn-taking against the simulator: push-to-talk, hands-free, barge-in, typed text."""

from __future__ import annotations

import time

from sammy_desktop.config import TalkMode
from sammy_desktop.core.events import (
    AgentState,
    SessionStarted,
    Speaker,
    TranscriptUpdated,
    TurnStats,
    UsageUpdated,
)
from sammy_desktop.sim import (
    InputTranscription,
    OnActivityEnd,
    OnAudioStreamEnd,
    OnSpeechEnd,
    OnText,
    Received,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
    Usage,
)
from tests.core.conftest import HarnessFactory, wire_field
from tests.helpers.audio import speech

ANSWER_S = 0.3
ANSWER_BYTES = int(24000 * ANSWER_S) * 2


def _final(events: list[TranscriptUpdated], speaker: Speaker) -> list[str]:
    return [e.text for e in events if e.final and e.speaker is speaker]


async def test_push_to_talk_turn_with_audio_both_ways(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    InputTranscription(text="what is the weather", pieces=2),
                    Tone(duration_s=ANSWER_S, transcript="It is sunny today."),
                    Usage(prompt_tokens=12, response_tokens=30),
                    TurnComplete(),
                ],
            )
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        setup = (await h.sim.recorder.wait_for(Received.SETUP))[0].data
        # Push-to-talk turns the service's VAD off; the setup asks for what the app needs.
        detection = wire_field(setup, "realtime_input_config", "automatic_activity_detection")
        assert detection["disabled"] is True
        assert wire_field(setup, "input_audio_transcription") == {}
        assert wire_field(setup, "output_audio_transcription") == {}
        compression = wire_field(setup, "context_window_compression")
        assert wire_field(compression, "sliding_window", "target_tokens") > 0
        assert wire_field(setup, "session_resumption") == {}
        assert wire_field(setup, "generation_config", "response_modalities") == ["AUDIO"]
        speech_config = wire_field(setup, "generation_config", "speech_config")
        voice = wire_field(speech_config, "voice_config", "prebuilt_voice_config", "voice_name")
        assert voice == h.settings.voice
        assert wire_field(speech_config, "language_code") == h.settings.language
        assert {"get_time", "slow_lookup"} <= set(h.sim.sessions[0].function_names)

        pre_roll = speech(0.1, level=1000)
        said = speech(0.5)
        assert h.core.begin_talk(pre_roll)
        await h.events.wait_state(AgentState.USER_SPEAKING)
        for start in range(0, len(said), 3200):
            h.core.send_audio(said[start : start + 3200])
        released_at = time.monotonic()
        h.core.end_talk()

        stats = await h.events.wait_for(TurnStats)
        await h.events.wait_state(AgentState.READY, count=2)

        recorder = h.sim.recorder
        kinds = [
            e.kind
            for e in recorder.events()
            if e.kind in (Received.ACTIVITY_START, Received.AUDIO, Received.ACTIVITY_END)
        ]
        assert kinds[0] == Received.ACTIVITY_START
        assert kinds[-1] == Received.ACTIVITY_END
        assert recorder.audio_bytes() == pre_roll + said
        assert h.sink.played_bytes == ANSWER_BYTES
        # The speaker is told the answer is complete, so it can report "drained" at once.
        assert h.sink.turn_ends == 1

        transcripts = h.events.of(TranscriptUpdated)
        assert _final(transcripts, Speaker.USER) == ["what is the weather"]
        assert _final(transcripts, Speaker.ASSISTANT) == ["It is sunny today."]
        assert any(e.partial for e in transcripts)
        assert {e.turn_id for e in transcripts} == {1}

        assert h.events.states() == [
            AgentState.CONNECTING,
            AgentState.READY,
            AgentState.USER_SPEAKING,
            AgentState.THINKING,
            AgentState.ASSISTANT_SPEAKING,
            AgentState.READY,
        ]
        assert stats.turn_id == 1
        # From the release to the first answer audio: after the release, before the sink
        # had it (the core stamps the audio just before handing it over).
        assert stats.first_audio_ms is not None
        assert h.sink.first_played_at is not None
        assert 0 < stats.first_audio_ms <= (h.sink.first_played_at - released_at) * 1000
        assert stats.total_tokens == 42
        assert stats.tool_calls == 0
        assert h.events.of(UsageUpdated)[-1].session_total == 42
        assert h.events.of(SessionStarted)


async def test_assistant_speaking_waits_for_playback_to_drain(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="Hi."), TurnComplete()])]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        h.sink.hold_playing = True
        await h.say(speech(0.2))
        await h.events.wait_for(TurnStats)
        assert h.core.state is AgentState.ASSISTANT_SPEAKING
        h.sink.hold_playing = False
        h.core.on_playback_drained()
        assert h.events.states()[-1] is AgentState.READY


async def test_hands_free_turn(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnSpeechEnd(),
                [
                    InputTranscription(text="turn on the lights"),
                    Tone(duration_s=0.2, transcript="Done."),
                    TurnComplete(),
                ],
            ),
            Turn(OnAudioStreamEnd(), [Tone(duration_s=0.1, transcript="Bye."), TurnComplete()]),
        ]
    )
    async with core_harness(scenario, talk_mode=TalkMode.HANDS_FREE) as h:
        await h.ready()
        setup = (await h.sim.recorder.wait_for(Received.SETUP))[0].data
        detection = wire_field(setup, "realtime_input_config", "automatic_activity_detection")
        assert detection.get("disabled") in (False, None)
        assert wire_field(detection, "silence_duration_ms") == h.settings.silence_duration_ms
        assert wire_field(detection, "start_of_speech_sensitivity") == "START_SENSITIVITY_HIGH"

        # Hands-free: the mic streams all the time; the service's VAD finds the turn.
        silence = bytes(3200)
        for chunk in [silence] * 2 + [speech(0.1)] * 5 + [silence] * 12:
            h.core.send_audio(chunk)
        await h.events.wait_for(TurnStats)
        await h.events.wait_state(AgentState.READY, count=2)
        transcripts = h.events.of(TranscriptUpdated)
        assert _final(transcripts, Speaker.USER) == ["turn on the lights"]
        assert _final(transcripts, Speaker.ASSISTANT) == ["Done."]
        assert AgentState.ASSISTANT_SPEAKING in h.events.states()
        assert h.sim.recorder.count(Received.ACTIVITY_START) == 0

        # The mic pauses: the service is told the stream ended.
        h.core.end_talk()
        await h.sim.recorder.wait_for(Received.AUDIO_STREAM_END)
        await h.events.wait_for(TurnStats, count=2)
        assert _final(h.events.of(TranscriptUpdated), Speaker.ASSISTANT) == ["Done.", "Bye."]


async def test_barge_in_flushes_the_sink(core_harness: HarnessFactory) -> None:
    # A long answer: the person presses talk in the middle of it.
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [
                    Tone(duration_s=5.0, transcript="A very long story", realtime=True),
                    TurnComplete(),
                ],
            ),
            Turn(OnActivityEnd(), [Tone(duration_s=0.1, transcript="Sure."), TurnComplete()]),
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        await h.events.wait_state(AgentState.ASSISTANT_SPEAKING)
        flushes_before = h.sink.flushes
        await h.say(speech(0.2))
        # The sink is silenced at once, and again when the service's "interrupted" arrives.
        assert h.sink.flushes > flushes_before
        await h.sim.recorder.wait_for("sent.serverContent", predicate=_is_interrupted)
        await h.events.wait_for(TurnStats)
        transcripts = h.events.of(TranscriptUpdated)
        assert _final(transcripts, Speaker.ASSISTANT)[-1] == "Sure."
        assert h.sink.played_bytes == int(24000 * 0.1) * 2


def _is_interrupted(event: object) -> bool:
    data = getattr(event, "data", {})
    # The recorder keeps the body, possibly under its top-level key.
    body = data.get("serverContent", data)
    return bool(body.get("interrupted"))


async def test_typed_text_is_a_turn(core_harness: HarnessFactory) -> None:
    scenario = Scenario(
        turns=[
            Turn(OnText(contains="joke"), [Tone(duration_s=0.1, transcript="Ha."), TurnComplete()])
        ]
    )
    async with core_harness(scenario) as h:
        await h.ready()
        assert not h.core.send_text("   ")
        assert h.core.send_text("tell me a joke")
        await h.events.wait_for(TurnStats)
        transcripts = h.events.of(TranscriptUpdated)
        assert _final(transcripts, Speaker.USER) == ["tell me a joke"]
        assert _final(transcripts, Speaker.ASSISTANT) == ["Ha."]
        # Push-to-talk (activity detection off): a client_content turn, as the SDK's own
        # real-backend tests send it (docs/live-service.md S1), not bare realtime text.
        [turn] = h.sim.recorder.events(Received.CLIENT_CONTENT)
        assert turn.data["text"] == "tell me a joke"
        assert turn.data["turn_complete"] is True
        assert h.sim.recorder.events(Received.TEXT) == []


async def test_talking_while_connecting_is_kept_and_sent_once_connected(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(
        turns=[
            Turn(
                OnActivityEnd(),
                [Tone(duration_s=ANSWER_S, transcript="Heard you."), TurnComplete()],
            )
        ]
    )
    async with core_harness(scenario) as h:
        await h.core.start()
        # The supervisor has not run yet: the connection is still being made.
        assert h.core.state is AgentState.CONNECTING
        pre_roll = speech(0.1, level=1000)
        said = speech(0.4)
        assert h.core.begin_talk(pre_roll)
        h.core.send_audio(said)
        h.core.end_talk()
        assert h.core.state is AgentState.CONNECTING  # shown as it is, not as Listening

        await h.events.wait_for(TurnStats)
        assert h.sim.recorder.audio_bytes() == pre_roll + said
        assert h.sink.played_bytes == ANSWER_BYTES
        assert AgentState.USER_SPEAKING not in h.events.states()


async def test_key_up_sends_activity_end_before_the_state_change_and_a_quick_press_wins(
    core_harness: HarnessFactory,
) -> None:
    # Thinking comes just after activityEnd is handed to the sender (the window's reaction
    # to the state change must not delay it); talk pressed again at once is not overridden.
    scenario = Scenario(turns=[Turn(OnActivityEnd(), [TurnComplete()])], repeat=True)
    async with core_harness(scenario) as h:
        await h.ready()
        assert h.core.begin_talk()
        await h.events.wait_state(AgentState.USER_SPEAKING)
        h.core.end_talk()
        assert h.core.state is AgentState.USER_SPEAKING  # not yet: activityEnd goes first
        await h.events.wait_state(AgentState.THINKING)
        await h.sim.recorder.wait_for(Received.ACTIVITY_END)
        await h.events.wait_state(AgentState.READY, count=2)

        assert h.core.begin_talk()
        await h.events.wait_state(AgentState.USER_SPEAKING, count=2)
        h.core.end_talk()
        assert h.core.begin_talk()  # pressed again before the loop's next turn
        ends = await h.sim.recorder.wait_for(Received.ACTIVITY_END, count=2)
        assert len(ends) == 2
        assert h.core.state is AgentState.USER_SPEAKING
        assert h.events.states().count(AgentState.THINKING) == 1
