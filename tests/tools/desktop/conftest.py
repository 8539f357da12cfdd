"""Fixtures for the desktop tool pack: fakes for the UI's ports, a timer service on a
manual clock, and a helper that sends one call through the real ToolManager."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from google.genai import types

from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import ToolManager
from sammy_desktop.tools.desktop import TimerService, desktop_tools
from tests.helpers.clock import ManualScheduler
from tests.tools.conftest import FIXED_NOW, ManagerFactory
from tests.tools.desktop.fakes import (
    FakeClipboard,
    RecordingLauncher,
    RecordingNotifier,
)
from tests.tools.fakes import RecordingResponder

ASYNC_MODEL = "gemini-2.5-flash-native-audio-preview-12-2025"
SYNC_MODEL = "gemini-3.1-flash-live-preview"

Call = Callable[..., Awaitable[types.FunctionResponse]]


@pytest.fixture
def scheduler() -> ManualScheduler:
    return ManualScheduler()


@pytest.fixture
def notifier() -> RecordingNotifier:
    return RecordingNotifier()


@pytest.fixture
def clipboard() -> FakeClipboard:
    return FakeClipboard("a secret")


@pytest.fixture
def launcher() -> RecordingLauncher:
    return RecordingLauncher()


@pytest.fixture
def timers(bus: EventBus, notifier: RecordingNotifier, scheduler: ManualScheduler) -> TimerService:
    return TimerService(bus, notifier, wall_clock=lambda: FIXED_NOW, scheduler=scheduler)


@pytest.fixture
def make_pack_manager(
    make_manager: ManagerFactory,
    timers: TimerService,
    clipboard: FakeClipboard,
    launcher: RecordingLauncher,
) -> ManagerFactory:
    """A manager with the built-ins and the whole desktop pack; options go to ToolManager."""

    def build(**options: Any) -> ToolManager:
        pack = desktop_tools(timers=timers, clipboard=clipboard, launcher=launcher)
        return make_manager(*pack, **options)

    return build


@pytest.fixture
def call(responder: RecordingResponder) -> Call:
    """Send one call through ``manager.handle`` and return its (only) answer."""

    async def run(
        manager: ToolManager, name: str, args: dict[str, Any] | None = None, call_id: str = "fc-1"
    ) -> types.FunctionResponse:
        function_call = types.FunctionCall(id=call_id, name=name, args=args or {})
        await manager.handle(types.LiveServerToolCall(function_calls=[function_call]), responder)
        return responder.by_id(call_id)

    return run


def output(response: types.FunctionResponse) -> dict[str, Any]:
    """The success payload (``output``) of an answer; fails the test on an error answer."""
    assert response.response is not None
    assert "output" in response.response, f"expected a success, got {response.response}"
    body: dict[str, Any] = response.response["output"]
    return body


def error(response: types.FunctionResponse) -> dict[str, Any]:
    """The failure payload (``error``) of an answer; fails the test on a success."""
    assert response.response is not None
    assert "error" in response.response, f"expected a failure, got {response.response}"
    body: dict[str, Any] = response.response["error"]
    return body


__all__ = ["ASYNC_MODEL", "SYNC_MODEL", "Call", "error", "output"]
