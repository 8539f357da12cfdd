"""Unit tests for the pure parts: wire parsing, PCM helpers, text splitting, the recorder."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from google.genai import errors

from sammy_desktop.sim import (
    MAX_FRAME_BYTES,
    LiveSimulator,
    OnText,
    OutputTranscription,
    RawMessage,
    Received,
    Respond,
    Scenario,
    Turn,
    TurnComplete,
    TurnContext,
)
from sammy_desktop.sim.pcm import (
    EnergyVad,
    VadSettings,
    chunk_pcm,
    pcm_rms,
    resample_pcm16,
    tone_pcm,
    trim_silence,
)
from sammy_desktop.sim.recorder import Recorder, RecordLimit
from sammy_desktop.sim.session import split_text
from sammy_desktop.sim.wire import (
    ActivityEnd,
    AudioStreamEnd,
    ClientContent,
    ContextUpdate,
    ProtocolError,
    RealtimeAudio,
    RealtimeVideo,
    decode_base64,
    format_duration,
    parse_client_frame,
    parse_setup_frame,
)
from tests.sim.live_client import connect, receive_turn

# ---------------------------------------------------------------- wire


def test_setup_parsing_reads_both_spellings() -> None:
    setup = parse_setup_frame(
        json.dumps(
            {
                "setup": {
                    "model": "models/m",
                    "tools": [
                        {"function_declarations": [{"name": "a"}]},
                        {"googleSearch": {}},
                        {"functionDeclarations": [{"name": "b"}]},
                    ],
                    "sessionResumption": {"handle": "h1"},
                    "realtimeInputConfig": {"automatic_activity_detection": {"disabled": True}},
                    "output_audio_transcription": {},
                }
            }
        )
    )
    assert setup.model == "models/m"
    assert setup.function_names == ("a", "b")
    assert setup.resumption_requested
    assert setup.resumption_handle == "h1"
    assert not setup.automatic_activity_detection
    assert not setup.input_transcription
    assert setup.output_transcription


def test_setup_parsing_reads_the_history_declaration_in_both_spellings() -> None:
    def parse(history: object) -> bool:
        frame = json.dumps({"setup": {"model": "m", "historyConfig": history}})
        return parse_setup_frame(frame).initial_history_in_client_content

    # The SDK copies history_config unconverted: its inner key stays snake_case (S7).
    assert parse({"initial_history_in_client_content": True})
    assert parse({"initialHistoryInClientContent": True})
    assert not parse({"initial_history_in_client_content": False})
    assert not parse_setup_frame('{"setup": {"model": "m"}}').initial_history_in_client_content


def test_client_content_keeps_each_turns_role_and_text() -> None:
    frame = json.dumps(
        {
            "client_content": {
                "turns": [
                    {"role": "user", "parts": [{"text": "hi"}]},
                    {"role": "model", "parts": [{"text": "Hel"}, {"text": "lo."}]},
                    {"parts": [{"text": "no role"}]},
                ],
                "turnComplete": False,
            }
        }
    )
    [content] = parse_client_frame(frame)
    assert isinstance(content, ClientContent)
    assert content.entries == (("user", "hi"), ("model", "Hello."), ("user", "no role"))
    assert content.has_model_turn
    assert not content.turn_complete


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        ('{"setup": {}}', "setup.model is required"),
        ('{"setup": {"model": "m"}, "x": 1}', "first message must be a setup"),
        ("[1]", "must be a JSON object"),
    ],
)
def test_bad_setup_frames_are_protocol_errors(frame: str, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        parse_setup_frame(frame)


def test_client_frames_parse_into_messages() -> None:
    data = base64.b64encode(b"\x01\x00\x02\x00").decode()
    assert parse_client_frame(
        json.dumps({"realtimeInput": {"audio": {"data": data, "mimeType": "audio/pcm;rate=24000"}}})
    ) == [
        RealtimeAudio(pcm=b"\x01\x00\x02\x00", mime_type="audio/pcm;rate=24000", sample_rate=24000)
    ]
    assert parse_client_frame('{"realtime_input": {"activity_end": {}}}') == [ActivityEnd()]
    assert parse_client_frame('{"realtime_input": {"audio_stream_end": true}}') == [
        AudioStreamEnd()
    ]
    chunks = parse_client_frame(
        json.dumps(
            {
                "realtime_input": {
                    "media_chunks": [
                        {"data": data, "mime_type": "audio/pcm"},
                        {"data": data, "mime_type": "image/png"},
                    ]
                }
            }
        )
    )
    assert chunks == [
        RealtimeAudio(pcm=b"\x01\x00\x02\x00", mime_type="audio/pcm", sample_rate=16000),
        RealtimeVideo(data=b"\x01\x00\x02\x00", mime_type="image/png"),
    ]
    assert parse_client_frame(
        '{"contextUpdate": {"tools": [{"functionDeclarations": [{"name": "z"}]}]}}'
    ) == [
        ContextUpdate(
            raw={"tools": [{"functionDeclarations": [{"name": "z"}]}]}, function_names=("z",)
        )
    ]


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        ('{"a": 1, "b": 2}', "exactly one field"),
        ('{"setup": {"model": "m"}}', "only be sent once"),
        ('{"realtime_input": {"mystery": 1}}', "Unknown realtimeInput fields"),
        ('{"realtime_input": {"text": 5}}', "text must be a string"),
        ('{"realtime_input": {"audio": {"data": "!!!"}}}', "not valid base64"),
        ('{"client_content": {"turns": 3}}', "turns must be a list"),
        ('{"tool_response": {"functionResponses": []}}', "must not be empty"),
        ('{"realtime_input": 3}', "must be a JSON object"),
    ],
)
def test_bad_client_frames_are_protocol_errors(frame: str, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        parse_client_frame(frame)


def test_base64_accepts_both_alphabets_without_padding() -> None:
    data = bytes(range(250, 256)) + b"\xfb\xff"
    assert decode_base64(base64.b64encode(data).decode(), "x") == data
    assert decode_base64(base64.urlsafe_b64encode(data).decode().rstrip("="), "x") == data


def test_durations_are_formatted_like_protobuf_json() -> None:
    assert format_duration(50) == "50s"
    assert format_duration(0.5) == "0.5s"
    assert format_duration(1.25) == "1.25s"


# ---------------------------------------------------------------- text and PCM


@pytest.mark.parametrize(
    ("text", "pieces", "expected"),
    [
        ("one two three four", 2, ["one two ", "three four"]),
        ("one two", 5, ["one ", "two"]),
        ("single", 3, ["single"]),
        ("", 2, []),
        ("  padded  words ", 2, ["  padded  ", "words "]),
    ],
)
def test_split_text_keeps_every_character(text: str, pieces: int, expected: list[str]) -> None:
    assert split_text(text, pieces) == expected


def test_resampling_16_to_24_khz_keeps_duration_and_pitch() -> None:
    pcm = tone_pcm(440, 1.0, sample_rate=16000)
    resampled = resample_pcm16(pcm, 16000, 24000)
    assert len(resampled) == 48000
    assert pcm_rms(resampled) == pytest.approx(pcm_rms(pcm), rel=0.02)


def test_chunking_rounds_to_whole_samples() -> None:
    assert [len(c) for c in chunk_pcm(bytes(10), 3)] == [2, 2, 2, 2, 2]
    assert chunk_pcm(b"", 4) == []


def test_the_vad_ends_an_utterance_after_the_silence_time() -> None:
    vad = EnergyVad(VadSettings(threshold_rms=500, silence_ms=100))
    loud = tone_pcm(300, 0.2, sample_rate=16000, amplitude=0.3)
    assert vad.feed(bytes(3200)) is False  # silence alone is not an utterance
    assert vad.feed(loud) is False
    assert _speaking(vad)
    assert vad.feed(bytes(1600)) is False  # 50 ms: not yet
    assert vad.feed(bytes(1600)) is True  # 100 ms: the utterance ended
    assert not _speaking(vad)
    assert vad.feed(bytes(16000)) is False


def _speaking(vad: EnergyVad) -> bool:
    # A function call, so mypy does not narrow the property between asserts.
    return vad.in_speech


def test_end_of_stream_ends_speech_only_when_speaking() -> None:
    vad = EnergyVad(VadSettings())
    assert vad.end_of_stream() is False
    vad.feed(tone_pcm(300, 0.1, sample_rate=16000, amplitude=0.3))
    assert vad.end_of_stream() is True


def test_trim_silence_returns_quiet_audio_unchanged() -> None:
    quiet = bytes(3200)
    assert trim_silence(quiet, sample_rate=16000, threshold_rms=500) == quiet


# ---------------------------------------------------------------- recorder


async def test_wait_for_resolves_on_the_nth_event_and_times_out_clearly() -> None:
    recorder = Recorder()
    waiting = asyncio.create_task(recorder.wait_for(Received.TEXT, count=2, timeout=5))
    recorder.record(Received.TEXT, connection_id=1, data={"text": "a"})
    await asyncio.sleep(0)
    assert not waiting.done()
    recorder.record(Received.AUDIO, connection_id=1, audio=b"\0\0")
    recorder.record(Received.TEXT, connection_id=1, data={"text": "b"})
    events = await waiting
    assert [e.data["text"] for e in events] == ["a", "b"]
    with pytest.raises(TimeoutError, match="saw 0; last events"):
        await recorder.wait_for(Received.TOOL_RESPONSE, timeout=0.01)
    assert recorder.audio_bytes() == b"\0\0"
    recorder.clear()
    assert recorder.events() == []


def test_a_recorder_without_a_limit_keeps_everything() -> None:
    recorder = Recorder()
    for _ in range(3000):
        recorder.record(Received.AUDIO, connection_id=1, audio=bytes(3200))
    assert recorder.count(Received.AUDIO) == 3000
    assert recorder.limit is None
    assert recorder.dropped == 0


def test_a_limited_recorder_drops_the_oldest_audio_first() -> None:
    recorder = Recorder(limit=RecordLimit(max_events=100, max_audio_bytes=10))
    for number in range(8):
        recorder.record(Received.AUDIO, connection_id=1, data={"n": number}, audio=b"ab")
    assert len(recorder.audio_bytes()) == 10
    assert [e.data["n"] for e in recorder.events(Received.AUDIO)] == [3, 4, 5, 6, 7]
    assert recorder.dropped == 3


def test_a_limited_recorder_keeps_the_newest_events() -> None:
    recorder = Recorder(limit=RecordLimit(max_events=3, max_audio_bytes=1000))
    for number in range(5):
        recorder.record(Received.TEXT, connection_id=1, data={"text": str(number)})
    assert [e.data["text"] for e in recorder.events()] == ["2", "3", "4"]
    assert recorder.dropped == 2


def test_a_record_limit_keeps_at_least_one_event() -> None:
    with pytest.raises(ValueError, match="at least one event"):
        RecordLimit(max_events=0, max_audio_bytes=10)


# ---------------------------------------------------------------- scenario failures


@pytest.mark.logs_errors("scenario '.*' failed")
async def test_a_failing_respond_handler_closes_with_1011() -> None:
    def broken(context: TurnContext) -> list[Respond]:
        raise RuntimeError("scenario bug")

    scenario = Scenario(turns=[Turn(OnText(), [Respond(broken)])])
    async with LiveSimulator(scenario) as sim, connect(sim) as session:
        await session.send_realtime_input(text="x")
        with pytest.raises(errors.APIError) as raised:
            await receive_turn(session)
    assert raised.value.code == 1011


async def test_an_async_respond_handler_is_awaited() -> None:
    async def answer(context: TurnContext) -> list[OutputTranscription | TurnComplete]:
        await asyncio.sleep(0)
        return [OutputTranscription(text=f"you said {context.text}"), TurnComplete()]

    scenario = Scenario(turns=[Turn(OnText(), [Respond(answer)])])
    async with LiveSimulator(scenario) as sim, connect(sim) as session:
        await session.send_realtime_input(text="hi")
        messages = await receive_turn(session)
    content = messages[0].server_content
    assert content is not None
    assert content.output_transcription is not None
    assert content.output_transcription.text == "you said hi"


@pytest.mark.logs_errors("scenario '.*' failed")
async def test_a_frame_over_one_mebibyte_is_never_sent() -> None:
    huge = RawMessage(
        message={"serverContent": {"outputTranscription": {"text": "x" * MAX_FRAME_BYTES}}}
    )
    scenario = Scenario(turns=[Turn(OnText(), [huge])])
    async with LiveSimulator(scenario) as sim, connect(sim) as session:
        await session.send_realtime_input(text="x")
        with pytest.raises(errors.APIError) as raised:
            await receive_turn(session)
    # The client would have failed with 1009 (message too big); the simulator says why instead.
    assert raised.value.code == 1011
    assert sim.recorder.sent("serverContent") == []
