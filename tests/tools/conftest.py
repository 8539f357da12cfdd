"""Fixtures for the tool tests: a bus that records events, services on a temp profile."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

import pytest

from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.eventbus import Event, EventBus
from sammy_desktop.tools import (
    AgentStateSnapshot,
    ToolDefinition,
    ToolManager,
    ToolServices,
    TranscriptLine,
)
from tests.helpers.events import EventLog
from tests.tools.fakes import RecordingResponder

E = TypeVar("E", bound=Event)

# A fixed, non-UTC local time so time-zone handling is visible in assertions.
FIXED_NOW = datetime(2026, 11, 30, 9, 15, tzinfo=timezone(timedelta(hours=1), "CET"))
SESSION_START = FIXED_NOW - timedelta(minutes=5)


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def events(bus: EventBus) -> EventLog:
    return EventLog(bus)


@pytest.fixture
def settings() -> Settings:
    return Settings()


@pytest.fixture
def transcript() -> list[TranscriptLine]:
    return [
        TranscriptLine("user", "My printer will not print.", FIXED_NOW - timedelta(minutes=2)),
        TranscriptLine("assistant", "Let me get you a human.", FIXED_NOW - timedelta(minutes=1)),
    ]


@pytest.fixture
def services(tmp_path: Path, settings: Settings, transcript: list[TranscriptLine]) -> ToolServices:
    return ToolServices(
        paths=AppPaths.profile(tmp_path / "profile"),
        settings=lambda: settings,
        transcript=lambda: transcript,
        url_opener=None,
        clock=lambda: FIXED_NOW,
        platform_description="Linux-6.1-x86_64",
    )


@pytest.fixture
def snapshot() -> AgentStateSnapshot:
    return AgentStateSnapshot(
        state="listening",
        talk_mode="push_to_talk",
        model="gemini-2.5-flash-native-audio-preview-12-2025",
        session_started_at=SESSION_START,
        enabled_tools=("endSession", "getCurrentContext", "escalate"),
        demo_mode=False,
        reconnects=1,
    )


ManagerFactory = Callable[..., ToolManager]


@pytest.fixture
def make_manager(
    bus: EventBus, services: ToolServices, snapshot: AgentStateSnapshot
) -> ManagerFactory:
    """A manager without installed plugins; keyword arguments go to ToolManager."""

    def build(*tools: ToolDefinition[Any, Any], **options: Any) -> ToolManager:
        options.setdefault("load_entry_points", False)
        options.setdefault("state", lambda: snapshot)
        return ToolManager(bus, services, tools=tools, **options)

    return build


@pytest.fixture
def responder() -> RecordingResponder:
    return RecordingResponder()


__all__ = ["FIXED_NOW", "SESSION_START", "EventLog", "ManagerFactory"]
