"""``sammy-live-sim`` as a subprocess, used by a client that trusts it through SSL_CERT_FILE."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from google import genai
from google.genai import errors, types

from sammy_desktop.sim.cli import REDACTED, RedactingFilter
from tests.sim.live_client import MODEL, MODELS, receive_turn

SCRIPT = Path(sys.executable).with_name("sammy-live-sim")


@asynccontextmanager
async def _running_cli(*arguments: str) -> AsyncIterator[tuple[str, str]]:
    process = await asyncio.create_subprocess_exec(
        str(SCRIPT),
        "--port",
        "0",
        "--fast",
        *arguments,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        base_url_line = await asyncio.wait_for(process.stdout.readline(), 20)
        ca_line = await asyncio.wait_for(process.stdout.readline(), 5)
        key, _, base_url = base_url_line.decode().strip().partition("=")
        assert key == "base_url", base_url_line
        key, _, ca_file = ca_line.decode().strip().partition("=")
        assert key == "ca_file", ca_line
        yield base_url, ca_file
        process.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(process.wait(), 10) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    # The throwaway CA is removed on exit.
    assert not await asyncio.to_thread(Path(ca_file).exists)


@asynccontextmanager
async def _cli_with_stderr(*arguments: str) -> AsyncIterator[tuple[str, str, bytearray]]:
    """Run the CLI, reading its standard error all along (``--verbose`` writes a lot).

    Yields the base URL, the CA file and the standard error so far; after the block the
    simulator is stopped and the buffer holds all of it.
    """
    process = await asyncio.create_subprocess_exec(
        str(SCRIPT),
        "--port",
        "0",
        "--fast",
        *arguments,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    stderr = bytearray()

    async def drain(stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            stderr.extend(chunk)

    draining = asyncio.create_task(drain(process.stderr))
    try:
        base_url_line = await asyncio.wait_for(process.stdout.readline(), 20)
        ca_line = await asyncio.wait_for(process.stdout.readline(), 5)
        _, _, base_url = base_url_line.decode().strip().partition("=")
        _, _, ca_file = ca_line.decode().strip().partition("=")
        assert base_url, (base_url_line, bytes(stderr))
        yield base_url, ca_file, stderr
        process.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(process.wait(), 10) == 0
        await asyncio.wait_for(draining, 10)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        draining.cancel()


def _client(base_url: str, api_key: str, api_version: str | None = None) -> genai.Client:
    return genai.Client(
        api_key=api_key,
        http_options=types.HttpOptions(base_url=base_url, api_version=api_version),
    )


async def test_the_cli_is_strict_by_default_and_serves_the_demo_to_a_correct_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = MODELS["gemini-3.8-live"]
    async with _running_cli("--scenario", "demo", "--api-key", "cli-key") as (base_url, ca_file):
        assert base_url.startswith("https://127.0.0.1:")
        monkeypatch.setenv("SSL_CERT_FILE", ca_file)
        client = _client(base_url, "cli-key", "v1beta")
        config = types.LiveConnectConfig(
            response_modalities=[types.Modality.AUDIO],
            output_audio_transcription=types.AudioTranscriptionConfig(),
        )
        async with client.aio.live.connect(model=model, config=config) as session:
            await session.send_realtime_input(text="hello")
            messages = await receive_turn(session)
        texts = [
            m.server_content.output_transcription.text or ""
            for m in messages
            if m.server_content and m.server_content.output_transcription
        ]
        assert "".join(texts).startswith("Hi! This is Sammy's offline demo")

        # A bad key is 1007, as the service sends it (docs/live-service.md C5; this test
        # said 1008 before the profiles, which the evidence contradicts).
        with pytest.raises(errors.APIError) as raised:
            async with _client(base_url, "wrong", "v1beta").aio.live.connect(model=model):
                pass
        assert raised.value.code == 1007
        # The SDK's default version, v1, is refused as the service refuses it (C1).
        with pytest.raises(errors.APIError) as raised:
            async with _client(base_url, "cli-key").aio.live.connect(model=model):
                pass
        assert raised.value.code == 1008
        assert "is not found for API version v1" in str(raised.value.details)


async def test_the_cli_plays_a_json_scenario_file_to_any_client_when_lenient(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "hello.json"
    path.write_text(
        json.dumps(
            {
                "turns": [
                    {
                        "on": {"type": "text"},
                        "actions": [
                            {"type": "model_text", "text": "from a file"},
                            {"type": "turn_complete"},
                        ],
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    # --lenient keeps the old simulator: any model, the SDK's default API version.
    async with _running_cli("--scenario", str(path), "--lenient") as (base_url, ca_file):
        monkeypatch.setenv("SSL_CERT_FILE", ca_file)
        async with _client(base_url, "any-key").aio.live.connect(model=MODEL) as session:
            await session.send_realtime_input(text="hi")
            messages = await receive_turn(session)
    assert messages[0].text == "from a file"


async def test_a_bad_scenario_file_exits_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"turns": [{"on": {"type": "nope"}}]}', encoding="utf-8")
    process = await asyncio.create_subprocess_exec(
        str(SCRIPT),
        "--scenario",
        str(path),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 20)
    assert process.returncode == 2
    assert stdout == b""
    assert "unknown type 'nope'" in stderr.decode()


async def test_a_busy_port_exits_with_a_clear_message() -> None:
    server = await asyncio.start_server(lambda reader, writer: None, "127.0.0.1", 0)
    try:
        port = server.sockets[0].getsockname()[1]
        process = await asyncio.create_subprocess_exec(
            str(SCRIPT),
            "--port",
            str(port),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, stderr = await asyncio.wait_for(process.communicate(), 20)
    finally:
        server.close()
        await server.wait_closed()
    assert process.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in stderr.decode()


async def test_verbose_logs_the_request_headers_without_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "cli-secret-key-0123456789"
    model = MODELS["gemini-3.8-live"]
    async with _cli_with_stderr("--verbose", "--api-key", key) as (base_url, ca_file, stderr):
        monkeypatch.setenv("SSL_CERT_FILE", ca_file)
        async with _client(base_url, key, "v1beta").aio.live.connect(model=model):
            pass
    log = stderr.decode()
    assert "< x-goog-api-key: [redacted]" in log  # the headers are logged, the key is not
    assert key not in log


async def test_a_host_other_machines_can_reach_is_warned_about_on_stderr() -> None:
    async with _cli_with_stderr("--host", "0.0.0.0") as (base_url, _, stderr):
        assert base_url.startswith("https://0.0.0.0:")
    log = stderr.decode()
    assert "NOT LOOPBACK" in log
    assert "'0.0.0.0'" in log
    assert "accepts any non-empty API key" in log


def _record(msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("websockets.server", logging.DEBUG, __file__, 1, msg, args, None)


@pytest.mark.parametrize("name", ["x-goog-api-key", "Authorization", "Cookie"])
def test_the_filter_hides_secret_headers_as_websockets_logs_them(name: str) -> None:
    record = _record("< %s: %s", name, "Token abc")
    assert RedactingFilter().filter(record)
    assert record.getMessage() == f"< {name}: {REDACTED}"


def test_the_filter_hides_a_key_in_a_url_and_the_keys_it_was_given() -> None:
    record = _record("< GET %s HTTP/1.1", "/ws/x.BidiGenerateContent?alt=1&key=AIzaSECRET")
    RedactingFilter().filter(record)
    assert record.getMessage() == f"< GET /ws/x.BidiGenerateContent?alt=1&key={REDACTED} HTTP/1.1"
    record = _record("client sent %r", {"note": "my-key-123 in a frame"})
    RedactingFilter(["my-key-123"]).filter(record)
    assert "my-key-123" not in record.getMessage()
    record = _record("< %s: %s", "user-agent", "google-genai-sdk")
    RedactingFilter().filter(record)
    assert record.getMessage() == "< user-agent: google-genai-sdk"
