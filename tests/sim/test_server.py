"""The server's own guards: frame size before and after the setup, a host others can reach."""

from __future__ import annotations

import json
import logging

import pytest
import websockets
from google.genai import types
from websockets.asyncio.client import connect as ws_connect

from sammy_desktop.sim import LiveSimulator, Received
from sammy_desktop.sim.server import (
    MAX_CLIENT_FRAME_BYTES,
    MAX_SETUP_FRAME_BYTES,
    is_loopback_host,
)
from tests.sim.live_client import connect

_PATH = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"


def _setup_frame(size: int) -> str:
    """A well-formed setup frame of about ``size`` bytes (a long system instruction)."""
    padding = "x" * size
    return json.dumps(
        {
            "setup": {
                "model": "models/gemini-3.8-live",
                "systemInstruction": {"parts": [{"text": padding}]},
            }
        }
    )


async def test_a_first_frame_over_the_setup_limit_is_closed_unread() -> None:
    async with LiveSimulator(api_keys=("test-key",)) as sim:
        uri = f"wss://127.0.0.1:{sim.port}{_PATH}"
        async with ws_connect(
            uri, ssl=sim.ssl_context, additional_headers={"x-goog-api-key": "test-key"}
        ) as websocket:
            await websocket.send(_setup_frame(MAX_SETUP_FRAME_BYTES + 1))
            with pytest.raises(websockets.ConnectionClosedError) as closed:
                await websocket.recv()
        [refused] = await sim.recorder.wait_for(Received.REFUSED)
        assert sim.recorder.events(Received.SETUP) == []
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1009
    assert refused.data["code"] == 1009


async def test_a_setup_under_the_limit_is_let_in() -> None:
    async with LiveSimulator(api_keys=("test-key",)) as sim:
        uri = f"wss://127.0.0.1:{sim.port}{_PATH}"
        async with ws_connect(
            uri, ssl=sim.ssl_context, additional_headers={"x-goog-api-key": "test-key"}
        ) as websocket:
            # The app's largest setup: a 20,000-character prompt the SDK escapes to 240 KB.
            await websocket.send(_setup_frame(240_000))
            answer = json.loads(await websocket.recv())
    assert "setupComplete" in answer


async def test_after_the_setup_frames_may_be_bigger_than_the_setup_limit() -> None:
    pcm = bytes(MAX_SETUP_FRAME_BYTES * 2)  # base64 makes it bigger still
    assert len(pcm) * 4 // 3 < MAX_CLIENT_FRAME_BYTES
    async with LiveSimulator() as sim, connect(sim) as session:
        await session.send_realtime_input(
            audio=types.Blob(data=pcm, mime_type="audio/pcm;rate=16000")
        )
        [audio] = await sim.recorder.wait_for(Received.AUDIO)
    assert audio.byte_count == len(pcm)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.20", False),
        ("", False),
        ("sammy.example", False),
    ],
)
def test_which_hosts_keep_the_simulator_on_this_machine(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


async def test_a_host_other_machines_can_reach_is_warned_about(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="sammy_desktop.sim.server")
    async with LiveSimulator(host="0.0.0.0"):
        pass
    [warning] = [r for r in caplog.records if "NOT LOOPBACK" in r.getMessage()]
    assert warning.levelno == logging.WARNING
    assert "'0.0.0.0'" in warning.getMessage()
    assert "accepts any non-empty API key" in warning.getMessage()


async def test_loopback_is_not_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="sammy_desktop.sim.server")
    async with LiveSimulator():
        pass
    assert not [r for r in caplog.records if "NOT LOOPBACK" in r.getMessage()]
