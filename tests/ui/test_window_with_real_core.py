"""The window driving the real AgentCore, the real google-genai client and the simulator.

The offline demo scenario answers over TLS on loopback; the real ToolManager runs the
built-in tools and a test tool that asks first, answered on the window's sheet. The only
stand-in is the speaker (the audio layer's part), as in the core's own tests.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from sammy_desktop.config import AppPaths, Settings, TalkKey
from sammy_desktop.core.agent import AgentCore
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.endpoint import make_client_factory
from sammy_desktop.core.events import AgentState, Speaker, StateChanged, TranscriptUpdated
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.eventbus import Event, EventBus
from sammy_desktop.sim import LiveSimulator
from sammy_desktop.sim.demo import demo_scenario
from sammy_desktop.tools import (
    ToolCategory,
    ToolContext,
    ToolManager,
    ToolResult,
    ToolServices,
    tool,
)
from sammy_desktop.tools.events import ToolCallFailed, ToolCallFinished
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.confirmation import QtConfirmationPort
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.theme import ThemeController
from tests.helpers.audio import speech
from tests.helpers.events import next_event

from .conftest import wait_until

E = TypeVar("E", bound=Event)
API_KEY = "ui-test-key"


class NoInput(BaseModel):
    pass


class Opened(BaseModel):
    opened: bool


class Greeting(BaseModel):
    text: str


def _said(result: ToolResult[Greeting]) -> str | None:
    return f"Said “{result.value.text}”" if result.value is not None else None


@tool(name="sayHello", title="Say hello", summary=_said, category=ToolCategory.CONTEXT)
async def say_hello(args: NoInput, context: ToolContext) -> Greeting:
    """Greet the person."""
    return Greeting(text="hello from the tool")


@tool(name="openHelpPage", category=ToolCategory.ACTION, requires_confirmation=True)
async def open_help_page(args: NoInput, context: ToolContext) -> Opened:
    """Open the help page (asks first)."""
    return Opened(opened=True)


class RecordingSink:
    """The speaker stand-in: counts what it is asked to play."""

    def __init__(self) -> None:
        self.played = 0

    def play(self, pcm24k: bytes) -> None:
        self.played += len(pcm24k)

    def flush(self) -> None:
        pass

    @property
    def is_playing(self) -> bool:
        return False


def test_demo_conversation_through_the_window(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    theme: ThemeController,
    tmp_path: Path,
) -> None:
    bus = EventBus()
    bridge = EventBridge(bus)
    paths = AppPaths.profile(tmp_path / "profile")
    settings = Settings(talk_key=TalkKey.HOLD_TO_TALK)  # its presses are instant
    history = ConversationHistory(paths.history_dir)
    port = QtConfirmationPort()
    tools = ToolManager(
        bus,
        ToolServices(paths=paths, settings=lambda: settings, transcript=history.transcript),
        tools=(say_hello, open_help_page),
        load_entry_points=False,
        confirmer=port,
    )
    sink = RecordingSink()
    tasks = UiTasks()

    async def scenario() -> None:
        async with LiveSimulator(demo_scenario(chime_hz=0), api_keys=(API_KEY,)) as sim:
            core = AgentCore(
                bus=bus,
                settings=settings,
                tools=tools,
                sink=sink,
                client_factory=make_client_factory(
                    lambda: API_KEY, base_url=sim.base_url, ssl_context=sim.ssl_context
                ),
                history=history,
                reconnect=ReconnectPolicy(initial_s=0.01, maximum_s=0.05, max_attempts=2),
                rng=random.Random(1),
                demo_mode=True,
            )
            window = MainWindow(
                settings,
                on_quit=lambda: None,
                theme=theme,
                bridge=bridge,
                controls=core,
                tasks=tasks,
                demo_mode=True,
                confirmations=port,
            )
            qtbot.addWidget(window)
            window.show()
            try:
                # Hold the talk button while disconnected: it connects, then listens.
                ready = asyncio.ensure_future(
                    next_event(bus, StateChanged, lambda e: e.new is AgentState.USER_SPEAKING)
                )
                center = window.talk_button.rect().center()
                QTest.mousePress(
                    window.talk_button,
                    Qt.MouseButton.LeftButton,
                    Qt.KeyboardModifier.NoModifier,
                    center,
                )
                await ready
                assert window.state_label.text() == "Listening"
                core.send_audio(speech(1.0))  # the audio layer's job in the app
                heard = asyncio.ensure_future(
                    next_event(bus, TranscriptUpdated, lambda e: e.speaker is Speaker.USER)
                )
                answered = asyncio.ensure_future(
                    next_event(bus, StateChanged, lambda e: e.new is AgentState.READY)
                )
                QTest.mouseRelease(
                    window.talk_button,
                    Qt.MouseButton.LeftButton,
                    Qt.KeyboardModifier.NoModifier,
                    center,
                )
                line = await heard
                assert line.text.startswith("[you spoke for 1.0 s]")
                row = window.transcript.line(line.turn_id, Speaker.USER)
                assert row is not None and row.text == line.text
                await answered
                assert sink.played > 0  # the echo of the person's voice
                assert window.state_label.text() == "Ready"

                # A typed request for a tool: a card that finishes, and the read-back.
                finished = asyncio.ensure_future(next_event(bus, ToolCallFinished))
                read_back = asyncio.ensure_future(
                    next_event(
                        bus,
                        TranscriptUpdated,
                        lambda e: e.speaker is Speaker.ASSISTANT and e.final,
                    )
                )
                settled = asyncio.ensure_future(
                    next_event(bus, StateChanged, lambda e: e.new is AgentState.READY)
                )
                window.message_input.setText("sayHello please")
                QTest.keyClick(window.message_input, Qt.Key.Key_Return)
                call = await finished
                card = window.transcript.tool_card(call.call_id)
                assert card is not None and card.status == "finished"
                assert card.name_label.text() == "Say hello"
                assert card.result_label.text() == "Said “hello from the tool”"
                answer = await read_back
                assert "hello from the tool" in answer.text
                await settled

                # A tool that asks first: the sheet appears over the transcript; Esc denies.
                failed = asyncio.ensure_future(next_event(bus, ToolCallFailed))
                window.message_input.setText("openHelpPage")
                QTest.keyClick(window.message_input, Qt.Key.Key_Return)
                await wait_until(lambda: window.confirmation_sheet.current is not None)
                assert window.confirmation_sheet.title_label.text() == "Open help page?"
                QTest.keyClick(window.confirmation_sheet.approve_button, Qt.Key.Key_Escape)
                denied = await failed
                card = window.transcript.tool_card(denied.call_id)
                assert card is not None and card.status == "failed"
                assert card.result_label.text() == "You did not allow it."
                assert window.demo_badge.isVisible()
            finally:
                await core.stop()
                await tools.aclose()
                await tasks.aclose()
                bridge.close()

    qloop.run(scenario())
