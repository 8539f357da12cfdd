"""S6: video frames as the strict profiles take them: recorded with their JPEG header's size.

The JPEG header parser reads real encoder output (two files Qt wrote once,
``tests/data/make_screen_jpegs.py``) and hand-built headers; the simulator gets frames from
the real google-genai client.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from google.genai import errors, types

from sammy_desktop.sim import PROFILES, LiveSimulator, Received, Scenario
from sammy_desktop.sim.jpeg import jpeg_size
from sammy_desktop.sim.profiles import video_frame_tokens
from sammy_desktop.sim.recorder import Recorder
from tests.sim.live_client import full_config, receive_turn, strict

DATA = Path(__file__).resolve().parents[1] / "data"
SCREEN = (DATA / "screen_1024x640.jpg").read_bytes()
PROGRESSIVE = (DATA / "screen_300x200_progressive.jpg").read_bytes()
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)
FAMILY = "gemini-3.8-live"


def _segment(marker: int, body: bytes) -> bytes:
    return bytes((0xFF, marker)) + struct.pack(">H", len(body) + 2) + body


def _sof(marker: int, width: int, height: int) -> bytes:
    return _segment(marker, bytes((8,)) + struct.pack(">HH", height, width) + b"\x01\x01\x11\x00")


# ---------------------------------------------------------------- the JPEG header


def test_real_jpegs_give_their_size_and_kind() -> None:
    baseline = jpeg_size(SCREEN)
    progressive = jpeg_size(PROGRESSIVE)
    assert baseline is not None and progressive is not None
    assert (baseline.width, baseline.height, baseline.marker, baseline.progressive) == (
        1024,
        640,
        0xC0,
        False,
    )
    assert (progressive.width, progressive.height, progressive.progressive) == (300, 200, True)


def test_a_hand_built_header_is_read_past_tables_fill_bytes_and_restarts() -> None:
    header = (
        b"\xff\xd8"
        + _segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
        + _segment(0xDB, bytes(65))  # quantisation table
        + _segment(0xC4, bytes(20))  # Huffman table: in the SOF range, not a frame
        + b"\xff\xff"  # fill bytes before a marker
        + b"\xff\xd0"  # a restart marker: no length
        + _sof(0xC1, 1536, 960)  # extended sequential
    )
    size = jpeg_size(header)
    assert size is not None
    assert (size.width, size.height, size.marker) == (1536, 960, 0xC1)
    progressive = jpeg_size(b"\xff\xd8" + _sof(0xC2, 8, 4))
    assert progressive is not None and progressive.progressive


@pytest.mark.parametrize(
    "data",
    [
        b"",
        PNG,
        b"GIF89a" + bytes(20),
        SCREEN[:20],  # cut before the frame header
        b"\xff\xd8" + _segment(0xDA, bytes(10)),  # image data before any frame header
        b"\xff\xd8" + _sof(0xC0, 0, 0),  # a frame of nothing
        b"\xff\xd8\x00\x00",  # no marker where one must be
    ],
)
def test_what_is_not_a_jpeg_with_a_size_gives_none(data: bytes) -> None:
    assert jpeg_size(data) is None


# ---------------------------------------------------------------- the recorder


def test_the_frame_rate_over_a_window() -> None:
    now = [0.0]
    recorder = Recorder(clock=lambda: now[0])
    for second in (0.0, 1.0, 2.0, 3.0, 3.5, 4.0):
        now[0] = second
        recorder.record(Received.VIDEO, connection_id=1, data={"byte_count": 10})
    recorder.record(Received.AUDIO, connection_id=1, audio=b"\x00\x00")
    assert recorder.video_rate() == pytest.approx(5 / 4.0)
    assert recorder.video_rate(2.5) == pytest.approx(3 / 2.0)  # 2.0, 3.0, 3.5, 4.0 in (1.5, 4]
    assert recorder.video_rate(1.0, end=2.0) == 0.0  # one frame in (1, 2]
    assert recorder.video_rate(2.0, end=2.0) == pytest.approx(1.0)
    assert len(recorder.video_frames(connection_id=1)) == 6
    assert recorder.video_frames(connection_id=2) == []


# ---------------------------------------------------------------- through the real client


async def test_frames_are_recorded_with_the_size_their_header_gives() -> None:
    config = full_config(media_resolution=types.MediaResolution.MEDIA_RESOLUTION_LOW)
    async with (
        LiveSimulator(Scenario(), profile=FAMILY) as sim,
        strict(sim, FAMILY, config) as session,
    ):
        for picture in (SCREEN, PROGRESSIVE, PNG):
            await session.send_realtime_input(
                video=types.Blob(data=picture, mime_type="image/jpeg")
            )
        await sim.recorder.wait_for(Received.VIDEO, count=3)
        [ignored] = await sim.recorder.wait_for(Received.IGNORED)
        [setup] = sim.recorder.events(Received.SETUP)
        [state] = sim.sessions  # what the model saw
    frames = [
        (f.data["byte_count"], f.data["jpeg"], f.data["width"], f.data["height"])
        for f in sim.recorder.video_frames()
    ]
    assert frames == [
        (len(SCREEN), True, 1024, 640),
        (len(PROGRESSIVE), True, 300, 200),
        (len(PNG), False, 0, 0),
    ]
    assert ignored.data == {"what": "video", "why": "the frame is not a JPEG picture"}
    assert setup.data["generationConfig"]["mediaResolution"] == "MEDIA_RESOLUTION_LOW"
    assert (state.video_frames, state.video_size) == (2, (300, 200))


async def test_a_profile_may_refuse_a_frame_that_is_not_a_jpeg() -> None:
    profile = PROFILES[FAMILY].with_changes(non_jpeg_video="refused")
    async with (
        LiveSimulator(Scenario(), profile=profile) as sim,
        strict(sim, FAMILY) as session,
    ):
        await session.send_realtime_input(video=types.Blob(data=PNG, mime_type="image/jpeg"))
        with pytest.raises(errors.APIError) as raised:
            await receive_turn(session)
        [refused] = await sim.recorder.wait_for(Received.REFUSED)
    assert raised.value.code == 1007
    assert refused.data["code"] == 1007


def test_frame_tokens_by_media_resolution() -> None:
    assert video_frame_tokens("MEDIA_RESOLUTION_LOW") == 66
    assert video_frame_tokens("MEDIA_RESOLUTION_MEDIUM") == 258
    assert video_frame_tokens("MEDIA_RESOLUTION_HIGH") == 258
    assert video_frame_tokens(None) == video_frame_tokens("MEDIA_RESOLUTION_UNSPECIFIED") == 258
