"""The backend's offline demo: a key of its own per run, and a recorder that stays small."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from google import genai
from google.genai import errors

from sammy_desktop.backend import Backend
from sammy_desktop.config import Settings
from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.config.settings import DEFAULT_MODEL
from sammy_desktop.sim import DEMO_RECORD_LIMIT, LiveSimulator, Received


@asynccontextmanager
async def _demo() -> AsyncIterator[tuple[Backend, LiveSimulator]]:
    settings = Settings()
    backend = Backend(SecretStore(environ={}), lambda: settings)
    await backend.start_demo()
    try:
        simulator = backend.simulator
        assert simulator is not None
        yield backend, simulator
    finally:
        await backend.stop_demo()


def _key_of(backend: Backend) -> str:
    return str(backend()._api_client.api_key)


async def test_each_demo_run_has_a_random_key_that_only_its_client_knows() -> None:
    async with _demo() as (backend, simulator):
        first = _key_of(backend)
        async with backend().aio.live.connect(model=DEFAULT_MODEL) as session:
            assert session.session_id
        # The key everyone could read in the source before is not let in.
        wrong = genai.Client(api_key="offline-demo", http_options=simulator.http_options("v1beta"))
        with pytest.raises(errors.APIError) as raised:
            async with wrong.aio.live.connect(model=DEFAULT_MODEL):
                pass
        assert raised.value.code == 1007
    async with _demo() as (backend, _):
        second = _key_of(backend)
    assert first != second
    assert len(first) >= 40  # secrets.token_urlsafe(32)


async def test_the_demo_recorder_keeps_only_the_newest_audio() -> None:
    async with _demo() as (_, simulator):
        recorder = simulator.recorder
        assert recorder.limit == DEMO_RECORD_LIMIT
        chunk = bytes(3200)  # 100 ms of 16 kHz microphone audio
        for _ in range(20 * 60 * 10):  # 20 minutes of talking
            recorder.record(Received.AUDIO, connection_id=1, audio=chunk)
        kept = len(recorder.audio_bytes())
    assert kept <= DEMO_RECORD_LIMIT.max_audio_bytes
    assert kept >= DEMO_RECORD_LIMIT.max_audio_bytes - len(chunk)
