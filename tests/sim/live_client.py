"""Helpers for the simulator tests: connect the real google-genai client to a simulator."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from google import genai
from google.genai import live, types

from sammy_desktop.sim import LiveSimulator

MODEL = "gemini-2.5-flash-native-audio-preview-09-2025"
"""The model of the lenient tests (any id is served there)."""

MODELS = {
    "gemini-3.8-live": "gemini-3.8-live",
    "gemini-3.1-flash-live": "gemini-3.1-flash-live-preview",
    "gemini-2.5-flash-native-audio": "gemini-2.5-flash-native-audio-preview-12-2025",
}
"""A model id each strict profile serves."""


def full_config(**overrides: object) -> types.LiveConnectConfig:
    """A config like the app's: audio out, both transcriptions, resumption, tools."""
    values: dict[str, object] = {
        "response_modalities": [types.Modality.AUDIO],
        "input_audio_transcription": types.AudioTranscriptionConfig(),
        "output_audio_transcription": types.AudioTranscriptionConfig(),
        "session_resumption": types.SessionResumptionConfig(),
        "tools": [
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(name="get_time", description="Current time"),
                    types.FunctionDeclaration(name="end_conversation", description="Hang up"),
                ]
            )
        ],
    }
    values.update(overrides)
    return types.LiveConnectConfig.model_validate(values)


@asynccontextmanager
async def connect(
    sim: LiveSimulator,
    config: types.LiveConnectConfig | None = None,
    *,
    api_key: str = "test-key",
    api_version: str | None = None,
    model: str = MODEL,
) -> AsyncIterator[live.AsyncSession]:
    """Open a real SDK session to the simulator (connect bounded by a timeout)."""
    client = genai.Client(api_key=api_key, http_options=sim.http_options(api_version))
    manager = client.aio.live.connect(model=model, config=config or full_config())
    session = await asyncio.wait_for(manager.__aenter__(), 10)
    try:
        yield session
    finally:
        await manager.__aexit__(None, None, None)


def strict(
    sim: LiveSimulator,
    profile: str,
    config: types.LiveConnectConfig | None = None,
    *,
    api_key: str = "test-key",
) -> AbstractAsyncContextManager[live.AsyncSession]:
    """Connect as a correct client does: v1beta and a model ``profile`` serves."""
    return connect(sim, config, api_key=api_key, api_version="v1beta", model=MODELS[profile])


async def receive_turn(session: live.AsyncSession) -> list[types.LiveServerMessage]:
    """Collect the messages of one turn (receive() stops at turnComplete)."""

    async def collect() -> list[types.LiveServerMessage]:
        return [message async for message in session.receive()]

    return await asyncio.wait_for(collect(), 10)


async def receive_messages(session: live.AsyncSession, count: int) -> list[types.LiveServerMessage]:
    """Collect exactly ``count`` messages, across turn boundaries."""

    async def collect() -> list[types.LiveServerMessage]:
        messages: list[types.LiveServerMessage] = []
        while len(messages) < count:
            async for message in session.receive():
                messages.append(message)
                if len(messages) == count:
                    break
        return messages

    return await asyncio.wait_for(collect(), 10)
