"""The JSON scenario format: every trigger and action, clear errors, and a full run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.genai import types

from sammy_desktop.sim import (
    AnswerIntents,
    CallTools,
    CancelToolCalls,
    Close,
    Delay,
    EchoAudio,
    FunctionCallSpec,
    GenerationComplete,
    GoAway,
    InputTranscription,
    Intent,
    Interrupted,
    LiveSimulator,
    ModelText,
    OnActivityEnd,
    OnAny,
    OnAudioStreamEnd,
    OnSpeechEnd,
    OnText,
    OnTimer,
    OnToolResponse,
    OutputTranscription,
    RawMessage,
    ResumptionUpdate,
    Scenario,
    ScenarioError,
    Stall,
    Tone,
    TurnComplete,
    Usage,
    VadSettings,
    WavAudio,
)
from sammy_desktop.sim.scenario import ACTION_TYPES, TRIGGER_TYPES
from tests.sim.live_client import connect, receive_messages, receive_turn

EVERYTHING = {
    "name": "everything",
    "repeat": True,
    "vad": {"threshold_rms": 800, "silence_ms": 300},
    "auto_resumption_updates": False,
    "cancel_tool_calls_on_interrupt": True,
    "turns": [
        {
            "on": {
                "type": "any",
                "of": [
                    {"type": "activity_end"},
                    {"type": "audio_stream_end"},
                    {"type": "speech_end"},
                    {"type": "text", "contains": "time", "pattern": "^what"},
                    {"type": "tool_response", "name": "get_time", "wait_for_all": False},
                    {"type": "timer", "after_s": 2.5},
                ],
            },
            "actions": [
                {
                    "type": "input_transcription",
                    "text": "what time",
                    "pieces": 2,
                    "finished": False,
                },
                {"type": "output_transcription", "text": "it is", "pieces": 3},
                {"type": "model_text", "text": "thinking"},
                {
                    "type": "tone",
                    "frequency_hz": 300,
                    "duration_s": 0.2,
                    "amplitude": 0.2,
                    "transcript": "hi",
                    "chunk_ms": 50,
                    "realtime": True,
                },
                {"type": "wav", "path": "answer.wav"},
                {"type": "echo", "trim": False},
                {
                    "type": "call_tools",
                    "calls": [{"name": "get_time"}, {"name": "x", "args": {"a": 1}, "id": "c-2"}],
                },
                {"type": "cancel_tool_calls", "ids": ["c-2"]},
                {"type": "cancel_tool_calls"},
                {"type": "generation_complete"},
                {"type": "turn_complete", "reason": "NEED_MORE_INPUT", "waiting_for_input": True},
                {"type": "interrupted"},
                {"type": "resumption_update", "resumable": False},
                {"type": "go_away", "time_left_s": 10},
                {"type": "usage", "prompt_tokens": 1, "response_tokens": 2, "total_tokens": 4},
                {"type": "delay", "seconds": 0.1},
                {"type": "stall"},
                {"type": "close", "code": None, "reason": ""},
                {"type": "close", "code": 1011, "reason": "bye"},
                {"type": "raw", "message": {"goAway": {"timeLeft": "1s"}}},
                {
                    "type": "intents",
                    "intents": [
                        {
                            "name": "timer",
                            "patterns": ["\\btimer\\b"],
                            "example": "set a timer for two minutes",
                            "call": "setTimer",
                            "args": {"duration": "{said.duration}"},
                            "slots": {"duration": "duration"},
                            "required": ["duration"],
                            "say": ["Your timer for {value.duration} is running."],
                            "say_failed": ["Sorry, that timer didn't start."],
                            "say_missing": "How long?",
                            "say_unavailable": "Timers are off.",
                        }
                    ],
                    "otherwise": "Try {examples}.",
                    "without_tools": "No tools.",
                    "call_named_tools": False,
                    "chime_hz": 0,
                },
            ],
        }
    ],
}


def test_every_trigger_and_action_type_loads(tmp_path: Path) -> None:
    (tmp_path / "answer.wav").write_bytes(b"")
    scenario = Scenario.from_json(json.dumps(EVERYTHING), base_dir=tmp_path)
    assert scenario.name == "everything"
    assert scenario.repeat is True
    assert scenario.auto_resumption_updates is False
    assert scenario.cancel_tool_calls_on_interrupt is True
    assert scenario.vad == VadSettings(threshold_rms=800, silence_ms=300)
    (turn,) = scenario.turns
    assert turn.trigger == OnAny(
        (
            OnActivityEnd(),
            OnAudioStreamEnd(),
            OnSpeechEnd(),
            OnText(contains="time", pattern="^what"),
            OnToolResponse(name="get_time", wait_for_all=False),
            OnTimer(after_s=2.5),
        )
    )
    assert list(turn.actions) == [
        InputTranscription(text="what time", pieces=2, finished=False),
        OutputTranscription(text="it is", pieces=3),
        ModelText(text="thinking"),
        Tone(
            frequency_hz=300,
            duration_s=0.2,
            amplitude=0.2,
            transcript="hi",
            chunk_ms=50,
            realtime=True,
        ),
        WavAudio(path=str(tmp_path / "answer.wav")),
        EchoAudio(trim=False),
        CallTools(
            calls=[
                FunctionCallSpec(name="get_time"),
                FunctionCallSpec(name="x", args={"a": 1}, id="c-2"),
            ]
        ),
        CancelToolCalls(ids=["c-2"]),
        CancelToolCalls(),
        GenerationComplete(),
        TurnComplete(reason="NEED_MORE_INPUT", waiting_for_input=True),
        Interrupted(),
        ResumptionUpdate(resumable=False),
        GoAway(time_left_s=10),
        Usage(prompt_tokens=1, response_tokens=2, total_tokens=4),
        Delay(seconds=0.1),
        Stall(),
        Close(code=None, reason=""),
        Close(code=1011, reason="bye"),
        RawMessage(message={"goAway": {"timeLeft": "1s"}}),
        AnswerIntents(
            intents=(
                Intent(
                    name="timer",
                    patterns=(r"\btimer\b",),
                    example="set a timer for two minutes",
                    call="setTimer",
                    args={"duration": "{said.duration}"},
                    slots={"duration": "duration"},
                    required=("duration",),
                    say=("Your timer for {value.duration} is running.",),
                    say_failed=("Sorry, that timer didn't start.",),
                    say_missing="How long?",
                    say_unavailable="Timers are off.",
                ),
            ),
            otherwise="Try {examples}.",
            without_tools="No tools.",
            call_named_tools=False,
            chime_hz=0,
        ),
    ]
    # The example covers every documented type.
    used_actions = {action["type"] for action in EVERYTHING["turns"][0]["actions"]}  # type: ignore[index]
    used_triggers = {t["type"] for t in EVERYTHING["turns"][0]["on"]["of"]}  # type: ignore[index]
    assert used_actions == set(ACTION_TYPES)
    assert used_triggers == set(TRIGGER_TYPES)


def test_load_reads_a_file_and_resolves_wav_paths_next_to_it(tmp_path: Path) -> None:
    (tmp_path / "hi.wav").write_bytes(b"")
    path = tmp_path / "greeting.json"
    path.write_text(
        json.dumps(
            {"turns": [{"on": {"type": "timer"}, "actions": [{"type": "wav", "path": "hi.wav"}]}]}
        ),
        encoding="utf-8",
    )
    scenario = Scenario.load(path)
    assert scenario.name == "greeting"
    assert scenario.turns[0].actions == (WavAudio(path=str(tmp_path / "hi.wav")),)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("{", "not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"turns": {}}', "'turns' must be a list"),
        ('{"turns": [], "loop": true}', "unknown scenario keys ['loop']"),
        ('{"turns": [{"actions": []}]}', "turns[0] must be an object with 'on'"),
        ('{"turns": [{"on": {"type": "shout"}}]}', "turns[0].on: unknown type 'shout'"),
        ('{"turns": [{"on": {"kind": "text"}}]}', "turns[0].on must be an object with a 'type'"),
        ('{"turns": [{"on": {"type": "any", "of": []}}]}', "non-empty 'of'"),
        (
            '{"turns": [{"on": {"type": "text"}, "actions": [{"type": "tone", "pitch": 3}]}]}',
            "turns[0].actions[0] (tone): unknown field(s) ['pitch']",
        ),
        (
            '{"turns": [{"on": {"type": "text"}, '
            '"actions": [{"type": "tone", "duration_s": "long"}]}]}',
            "turns[0].actions[0] (tone): duration_s",
        ),
        (
            '{"turns": [{"on": {"type": "text"}, "actions": [{"type": "delay"}]}]}',
            "turns[0].actions[0] (delay): seconds",
        ),
        (
            '{"turns": [{"on": {"type": "text"}, "actions": [{"type": "any"}]}]}',
            "'any' is a trigger, not an action",
        ),
        ('{"turns": [], "repeat": "yes"}', "repeat must be true or false"),
        (
            '{"turns": [{"on": {"type": "text"}, "actions": [{"type": "intents", '
            '"intents": [{"name": "x", "patterns": ["a"], "sayy": ["b"]}]}]}]}',
            "turns[0].actions[0] (intents): intents.0.sayy: Unexpected keyword argument",
        ),
        (
            '{"turns": [{"on": {"type": "text"}, "actions": [{"type": "intents", '
            '"intents": [{"name": "x", "patterns": ["("]}]}]}]}',
            "intent 'x': bad pattern '('",
        ),
        (
            '{"turns": [{"on": {"type": "text"}, "actions": [{"type": "intents", '
            '"intents": [{"name": "x", "patterns": ["a"], "slots": {"d": "date"}}]}]}]}',
            "intent 'x': unknown slot reader(s) ['date']",
        ),
    ],
)
def test_invalid_scenarios_say_where_and_why(document: str, message: str) -> None:
    with pytest.raises(ScenarioError) as raised:
        Scenario.from_json(document)
    assert message in str(raised.value)


def test_a_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read scenario"):
        Scenario.load(tmp_path / "missing.json")


def test_a_missing_wav_file_is_reported_at_load_time(tmp_path: Path) -> None:
    document = (
        '{"turns": [{"on": {"type": "text"}, "actions": [{"type": "wav", "path": "x.wav"}]}]}'
    )
    with pytest.raises(ScenarioError, match=r"turns\[0\]\.actions\[0\] \(wav\): no such file"):
        Scenario.from_json(document, base_dir=tmp_path)


async def test_a_json_scenario_drives_the_real_sdk() -> None:
    document = {
        "turns": [
            {
                "on": {"type": "text", "contains": "time"},
                "actions": [{"type": "call_tools", "calls": [{"name": "get_time"}]}],
            },
            {
                "on": {"type": "tool_response"},
                "actions": [
                    {"type": "tone", "duration_s": 0.1, "transcript": "It is noon."},
                    {"type": "turn_complete"},
                ],
            },
        ]
    }
    scenario = Scenario.from_json(json.dumps(document))
    async with LiveSimulator(scenario) as sim, connect(sim) as session:
        await session.send_realtime_input(text="what time is it?")
        (call,) = await receive_messages(session, 1)
        assert call.tool_call is not None
        assert call.tool_call.function_calls is not None
        (function_call,) = call.tool_call.function_calls
        await session.send_tool_response(
            function_responses=types.FunctionResponse(
                id=function_call.id, name=function_call.name, response={"output": "12:00"}
            )
        )
        messages = await receive_turn(session)
    texts = [
        m.server_content.output_transcription.text
        for m in messages
        if m.server_content and m.server_content.output_transcription
    ]
    assert "".join(t or "" for t in texts) == "It is noon."
