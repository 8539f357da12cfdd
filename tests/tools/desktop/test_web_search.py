"""The Google Search switch and the grounding sources shown in the transcript."""

from __future__ import annotations

import asyncio
from typing import Any

from google import genai
from google.genai import types

from sammy_desktop.config import Settings
from sammy_desktop.core.endpoint import DEFAULT_API_VERSION
from sammy_desktop.core.grounding import GroundingSource, grounding_sources
from sammy_desktop.sim import LiveSimulator, RawMessage
from sammy_desktop.tools.desktop import search_tools
from tests.tools.desktop.conftest import ASYNC_MODEL

WAIT_S = 10.0

GROUNDED: dict[str, Any] = {
    "serverContent": {
        "groundingMetadata": {
            "webSearchQueries": ["python 3.14 release date"],
            "groundingChunks": [
                {
                    "web": {
                        "uri": "https://python.org/r/1",
                        "title": "Python Release",
                        "domain": "python.org",
                    }
                },
                {"web": {"uri": "https://python.org/r/1", "title": "Python Release (again)"}},
                {"web": {"uri": "https://peps.python.org/r/2", "domain": "peps.python.org"}},
                {"web": {"title": "no address"}},
                {"retrievedContext": {"uri": "gs://not-the-web"}},
            ],
        }
    }
}


def test_search_tool_only_when_switched_on() -> None:
    assert Settings().google_search is False
    assert search_tools(Settings()) == []
    [tool] = search_tools(Settings(google_search=True))
    assert tool.google_search is not None
    assert tool.function_declarations is None


def test_sources_are_web_pages_once_each_in_order() -> None:
    message = types.LiveServerMessage.model_validate(
        {
            "server_content": {
                "grounding_metadata": {
                    "web_search_queries": ["q"],
                    "grounding_chunks": [
                        {"web": {"uri": "https://a.example/x", "title": " A "}},
                        {"web": {"uri": "https://b.example/y", "domain": "b.example"}},
                        {"web": {"uri": "https://a.example/x", "title": "A again"}},
                    ],
                }
            }
        }
    )
    summary = grounding_sources(message)
    assert summary is not None
    assert summary.sources == (
        GroundingSource(title="A", uri="https://a.example/x"),
        GroundingSource(title="b.example", uri="https://b.example/y", domain="b.example"),
    )
    assert summary.queries == ("q",)


def test_messages_without_grounding_give_none() -> None:
    plain = types.LiveServerMessage.model_validate({"server_content": {"turn_complete": True}})
    assert grounding_sources(plain) is None
    assert grounding_sources(types.LiveServerMessage()) is None
    empty = types.LiveServerMessage.model_validate(
        {"server_content": {"grounding_metadata": {"grounding_chunks": [{"web": {}}]}}}
    )
    assert grounding_sources(empty) is None


async def test_sources_from_a_grounded_frame_on_the_wire() -> None:
    """The simulator sends groundingMetadata as the service does; the SDK parses it."""
    async with LiveSimulator(api_keys=("test-key",)) as sim:
        client = genai.Client(
            api_key="test-key", http_options=sim.http_options(DEFAULT_API_VERSION)
        )
        config = types.LiveConnectConfig(
            response_modalities=[types.Modality.AUDIO],
            tools=[*search_tools(Settings(google_search=True))],
        )
        async with client.aio.live.connect(model=ASYNC_MODEL, config=config) as session:
            await sim.inject(RawMessage(message=GROUNDED))

            async def first_message() -> types.LiveServerMessage:
                async for message in session.receive():
                    return message
                raise AssertionError("the session ended without a message")

            message = await asyncio.wait_for(first_message(), WAIT_S)

    summary = grounding_sources(message)
    assert summary is not None
    assert [(s.title, s.uri) for s in summary.sources] == [
        ("Python Release", "https://python.org/r/1"),
        ("peps.python.org", "https://peps.python.org/r/2"),
    ]
    assert summary.queries == ("python 3.14 release date",)
