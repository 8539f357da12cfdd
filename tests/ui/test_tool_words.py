"""What the window says about tools is for the person, never for the model (issue 24, 10).

Every tool of the app (the built-ins and the desktop pack) is called through the real
ToolManager, in its success and its failure states, with its confirmation sheet answered
yes or no as a person would; the cards in the transcript and the sheets are then read label
by label. No camelCase function name, no JSON, no field name, no pydantic message, no errno
text and no instruction written for the model reaches a QLabel; each card has the tool's
title and a line saying what happened; and what the model was told is still in its
FunctionResponse, unchanged.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from google.genai import types
from PySide6.QtWidgets import QAbstractButton, QLabel, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.core.events import AgentState
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import AgentStateSnapshot, ToolManager, ToolServices
from sammy_desktop.tools.desktop import TimerService, desktop_tools
from sammy_desktop.ui.banners import BannerArea
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.confirmation import ConfirmationSheet, QtConfirmationPort
from sammy_desktop.ui.notices import Notices
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.transcript import TranscriptView
from tests.helpers.clock import ManualScheduler
from tests.tools.conftest import FIXED_NOW
from tests.tools.desktop.fakes import FakeClipboard, RecordingNotifier
from tests.tools.fakes import RecordingResponder, RecordingUrlOpener

FOR_DEVELOPERS: Sequence[tuple[re.Pattern[str], str]] = (
    (re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b"), "a camelCase name"),
    (re.compile(r"[{}\[\]]"), "JSON"),
    (re.compile(r"\b[a-z]+_[a-z_]+\b"), "a field name"),
    (
        re.compile(
            r"\bDo not\b|do not (?:retry|try again|call)|Tell the person|the person|"
            r"call (?:it )?again|\bvalidation\b|\bparameters?\b|\bargument"
        ),
        "words for the model",
    ),
    (
        re.compile(r"Input should|String should|Field required|Value error|type=|pydantic"),
        "a pydantic message",
    ),
    (re.compile(r"Errno|No such file|strerror|Traceback|Error:"), "errno or exception text"),
)


def for_developers(text: str) -> list[str]:
    """What in ``text`` is written for developers or the model (empty when none)."""
    return [f"{what}: {m.group(0)!r}" for rx, what in FOR_DEVELOPERS if (m := rx.search(text))]


class PickyLauncher:
    """Starts programs, except one that is not installed (as the system says it)."""

    def __init__(self) -> None:
        self.launched: list[list[str]] = []

    async def launch(self, argv: Sequence[str]) -> None:
        if argv[0] == "not-installed":
            raise FileNotFoundError(2, "No such file or directory", "not-installed")
        self.launched.append(list(argv))


class SheetReader:
    """Answers each question on the sheet as planned, after reading what it says."""

    def __init__(self, sheet: ConfirmationSheet) -> None:
        self.sheet = sheet
        self.answers: dict[str, bool] = {}
        self.seen: list[tuple[str, list[str]]] = []
        sheet.armed_request.connect(self._on_armed)

    def _on_armed(self, _token: str) -> None:
        request = self.sheet.current
        assert request is not None
        self.seen.append((request.tool_name, texts_of(self.sheet)))
        if self.answers.get(request.call_id, False):
            self.sheet.approve()
        else:
            self.sheet.deny()


def texts_of(root: QWidget) -> list[str]:
    """The text of every label and button under ``root``, shown or folded away."""
    labels = [label.text() for label in root.findChildren(QLabel) if label.text()]
    buttons = [button.text() for button in root.findChildren(QAbstractButton) if button.text()]
    return labels + buttons


@pytest.fixture
def manager_parts(
    tmp_path: Path, bus: EventBus
) -> tuple[ToolManager, QtConfirmationPort, FakeClipboard, RecordingUrlOpener]:
    settings = Settings(
        allowed_applications={"Calculator": ["gnome-calculator"], "Atlas": ["not-installed"]}
    )
    opener = RecordingUrlOpener()
    services = ToolServices(
        paths=AppPaths.profile(tmp_path / "profile"),
        settings=lambda: settings,
        transcript=list,
        url_opener=opener,
        clock=lambda: FIXED_NOW,
        platform_description="Linux-6.1-x86_64",
    )
    timers = TimerService(
        bus, RecordingNotifier(), wall_clock=lambda: FIXED_NOW, scheduler=ManualScheduler()
    )
    clipboard = FakeClipboard("what I copied")
    port = QtConfirmationPort()
    snapshot = AgentStateSnapshot(
        state="ready",
        talk_mode="push_to_talk",
        model="gemini-2.5-flash-native-audio-preview-12-2025",
        session_started_at=FIXED_NOW,
        enabled_tools=(),
        demo_mode=True,
        reconnects=0,
    )
    manager = ToolManager(
        bus,
        services,
        tools=desktop_tools(timers=timers, clipboard=clipboard, launcher=PickyLauncher()),
        load_entry_points=False,
        confirmer=port,
        state=lambda: snapshot,
    )
    return manager, port, clipboard, opener


# (call id, tool, arguments, the person's answer if asked): success and failure of each.
CALLS: Sequence[tuple[str, str, dict[str, Any], bool]] = (
    ("time-here", "getDateTime", {}, False),
    ("time-tokyo", "getDateTime", {"timezone": "Asia/Tokyo"}, False),
    ("time-nowhere", "getDateTime", {"timezone": "Atlantis/Nowhere"}, False),
    ("timer", "setTimer", {"duration": "5m", "label": "check the oven"}, False),
    ("timer-no-args", "setTimer", {}, False),
    ("timer-soon", "setTimer", {"duration": "soon"}, False),
    ("timers", "listTimers", {}, False),
    ("timer-not-there", "cancelTimer", {"id": "7"}, False),
    ("timer-cancel", "cancelTimer", {"id": "1"}, False),
    ("note", "addNote", {"text": "The wifi password is on the router", "tags": ["home"]}, False),
    ("note-empty", "addNote", {"text": "   "}, False),
    ("note-search", "searchNotes", {"query": "wifi"}, False),
    ("note-search-none", "searchNotes", {"query": "zebra"}, False),
    ("note-search-nothing", "searchNotes", {"query": "?!"}, False),
    ("note-delete-kept", "deleteNote", {"id": 1}, False),
    ("note-delete-missing", "deleteNote", {"id": 42}, False),
    ("note-delete", "deleteNote", {"id": 1}, True),
    ("clipboard-read-denied", "readClipboard", {}, False),
    ("clipboard-read", "readClipboard", {}, True),
    ("clipboard-write-denied", "writeClipboard", {"text": "rm -rf build"}, False),
    ("clipboard-write", "writeClipboard", {"text": "rm -rf build"}, True),
    ("url", "openUrl", {"url": "https://www.wikipedia.org/wiki/Ada"}, True),
    ("url-denied", "openUrl", {"url": "https://example.com/"}, False),
    ("url-file", "openUrl", {"url": "file:///etc/passwd"}, False),
    ("app", "openApplication", {"name": "Calculator"}, True),
    ("app-denied", "openApplication", {"name": "Calculator"}, False),
    ("app-unknown", "openApplication", {"name": "Spreadsheet"}, False),
    ("app-missing", "openApplication", {"name": "Atlas"}, True),
    ("context", "getCurrentContext", {"reason": "to know the local time"}, False),
    ("context-no-reason", "getCurrentContext", {}, False),
    ("escalate", "escalate", {"reason": "The printer is broken", "category": "other"}, False),
    ("escalate-no-args", "escalate", {}, False),
    ("end-unconfirmed", "endSession", {"reason": "goodbye", "confirmed": False}, False),
    ("end", "endSession", {"reason": "they said goodbye", "confirmed": True}, False),
    ("unknown", "getWeather", {"city": "Paris"}, False),
)


def test_every_tool_card_and_sheet_speaks_to_the_person(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    theme: ThemeController,
    bridge: EventBridge,
    manager_parts: tuple[ToolManager, QtConfirmationPort, FakeClipboard, RecordingUrlOpener],
) -> None:
    manager, port, clipboard, opener = manager_parts
    view = TranscriptView(theme)
    qtbot.addWidget(view)
    view.resize(420, 600)
    bridge.tool_call_started.connect(view.add_tool_call)
    bridge.tool_call_progress.connect(view.progress_tool_call)
    bridge.tool_call_finished.connect(view.finish_tool_call)
    bridge.tool_call_failed.connect(view.fail_tool_call)
    bridge.tool_call_cancelled.connect(view.cancel_tool_call)
    banners = BannerArea(theme)
    qtbot.addWidget(banners)
    notices = Notices(banners, view, state=AgentState.READY)
    bridge.context_shared.connect(notices.on_context_shared)
    bridge.escalation_raised.connect(notices.on_escalation_raised)
    bridge.end_session_requested.connect(notices.on_end_session_requested)
    sheet = ConfirmationSheet(view, arm_delay_ms=0)
    port.attach(sheet)
    reader = SheetReader(sheet)
    view.show()
    responder = RecordingResponder()

    async def run() -> None:
        for call_id, name, args, yes in CALLS:
            if call_id == "clipboard-write-denied":
                clipboard.text = "what I copied"  # the person's own text: writing asks
            reader.answers[call_id] = yes
            call = types.FunctionCall(id=call_id, name=name, args=args)
            async with asyncio.timeout(10):
                await manager.handle(types.LiveServerToolCall(function_calls=[call]), responder)
        manager.set_enabled("listTimers", False)
        off = types.FunctionCall(id="switched-off", name="listTimers", args={})
        async with asyncio.timeout(10):
            await manager.handle(types.LiveServerToolCall(function_calls=[off]), responder)

    qloop.run(run())

    # Every call has a card with the tool's title and a line saying what happened.
    cards = {card.call_id: card for card in view.tool_cards()}
    assert set(cards) == {call_id for call_id, *_ in CALLS} | {"switched-off"}
    for call_id, card in cards.items():
        assert card.status in ("finished", "failed"), call_id
        assert card.name_label.text() and card.name_label.text() != card.tool_name, call_id
        assert card.result_label.text(), call_id
    problems = {
        f"{call_id}: {text!r}": found
        for call_id, card in cards.items()
        for text in texts_of(card)
        if (found := for_developers(text))
    }
    problems |= {
        f"sheet of {name}: {text!r}": found
        for name, texts in reader.seen
        for text in texts
        if (found := for_developers(text))
    }
    # What the built-ins tell through banners and notes: the context shared, the case saved.
    told = texts_of(banners) + [note.text() for note in view.findChildren(QLabel, "systemLine")]
    problems |= {f"banner: {text!r}": found for text in told if (found := for_developers(text))}
    assert problems == {}
    context = banners.banner("context")
    assert context is not None and context.details_label is not None
    assert context.details_label.text().splitlines()[:3] == [
        "Date and time: 30 November 2026, 09:15",
        "Day: Monday",
        "Time zone: CET (UTC+01:00)",
    ]

    said = {call_id: card.result_label.text() for call_id, card in cards.items()}
    assert said["time-here"] == "It is 09:15 on Monday"
    assert said["time-tokyo"] == "It is 17:15 on Monday in Tokyo"
    assert said["timer"] == "Timer for 5 minutes set: check the oven"
    assert said["timer-no-args"] == "Sammy did not say the duration, so nothing was done."
    assert said["timers"] == "1 timer running: check the oven, 5 minutes left"
    assert said["note-delete-kept"] == "You did not allow deleting the note; it is kept."
    assert said["clipboard-read-denied"] == "You did not allow reading the clipboard."
    assert said["url"] == "Opened wikipedia.org"
    assert said["app-missing"].startswith("Atlas could not be started: its program was not found")
    assert said["unknown"] == "Sammy asked for a tool this app does not have."
    assert said["switched-off"] == "This tool is switched off in Settings > Tools."
    assert cards["timer"].name_label.text() == "Timer"
    assert cards["url"].name_label.text() == "Open a web page"
    titles = {name: texts[0] for name, texts in reader.seen}
    assert titles["openUrl"] == "Open a web page?"
    assert titles["readClipboard"] == "Read the clipboard?"
    assert opener.opened == ["https://www.wikipedia.org/wiki/Ada"]

    # The model is still told what it needs, in its own words, unchanged.
    denied = responder.by_id("clipboard-read-denied").response or {}
    assert denied["error"]["problems"] == [
        "The person did not allow reading the clipboard (they said no or did not answer); "
        "nothing was read. Do not try again unless they ask."
    ]
    no_args = responder.by_id("timer-no-args").response or {}
    assert "validation" in no_args["error"]
    assert "Fix the parameters listed under 'validation'" in no_args["error"]["problems"][0]
    timer = responder.by_id("timer").response or {}
    assert timer["output"]["value"]["remaining_s"] == 300
