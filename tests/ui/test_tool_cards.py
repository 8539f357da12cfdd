"""Tool cards appear, finish, fail and cancel from real tool events on a real bus."""

from __future__ import annotations

import pytest
from pydantic import BaseModel
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.events import (
    ConfirmationRequested,
    ToolCallCancelled,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallStarted,
)
from sammy_desktop.tools.results import ToolErrorKind, ToolResult
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.tool_card import format_duration, key_argument, summarize_result
from sammy_desktop.ui.transcript import TranscriptView


class Clock(BaseModel):
    city: str
    local_time: str


def _view(qtbot: QtBot, theme: ThemeController, bridge: EventBridge) -> TranscriptView:
    view = TranscriptView(theme)
    qtbot.addWidget(view)
    bridge.tool_call_started.connect(view.add_tool_call)
    bridge.tool_call_finished.connect(view.finish_tool_call)
    bridge.tool_call_failed.connect(view.fail_tool_call)
    bridge.tool_call_cancelled.connect(view.cancel_tool_call)
    view.show()
    return view


def test_a_card_runs_then_shows_result_and_duration(
    qtbot: QtBot, theme: ThemeController, bridge: EventBridge, bus: EventBus
) -> None:
    view = _view(qtbot, theme, bridge)
    bus.emit(
        ToolCallStarted(
            call_id="c1", name="getDateTime", arguments={"city": "Tokyo"}, title="Date and time"
        )
    )
    card = view.tool_card("c1")
    assert card is not None
    assert card.status == "running"
    assert card.spinner.is_spinning()
    assert card.name_label.text() == "Date and time"
    assert card.argument_label.text() == "Tokyo"
    result = ToolResult.success(Clock(city="Tokyo", local_time="21:40"))
    bus.emit(
        ToolCallFinished(
            call_id="c1",
            name="getDateTime",
            result=result,
            model_output=result.to_model_payload(),
            duration_s=0.012,
            summary="It is 21:40 in Tokyo",
        )
    )
    assert card.status == "finished"
    assert not card.spinner.is_spinning()
    assert card.duration_label.text() == "12 ms"
    assert card.result_label.text() == "It is 21:40 in Tokyo"
    assert "done in 12 ms" in card.accessibleName()
    card.details_button.click()
    assert not card.details_label.isHidden()
    assert card.details_label.text() == "City: Tokyo"


def test_a_result_no_tool_worded_says_done_never_its_fields(
    qtbot: QtBot, theme: ThemeController, bridge: EventBridge, bus: EventBus
) -> None:
    view = _view(qtbot, theme, bridge)
    bus.emit(ToolCallStarted(call_id="c1", name="worldClock", arguments={}))
    result = ToolResult.success(Clock(city="Tokyo", local_time="21:40"))
    bus.emit(ToolCallFinished("c1", "worldClock", result, result.to_model_payload(), 0.01))
    card = view.tool_card("c1")
    assert card is not None
    assert card.name_label.text() == "World clock"
    assert card.result_label.text() == "Done"
    assert card.details_button.isHidden()  # nothing was asked for


def test_a_failed_card_says_why_with_a_red_edge(
    qtbot: QtBot, theme: ThemeController, bridge: EventBridge, bus: EventBus
) -> None:
    view = _view(qtbot, theme, bridge)
    bus.emit(ToolCallStarted(call_id="c2", name="openPage", arguments={"url": "x"}))
    bus.emit(ConfirmationRequested("c2", "openPage", "Open x?", {"url": "x"}, 30))
    failure = ToolResult.failure(
        "The person denied the call. Do not try again unless they ask.",
        error_kind=ToolErrorKind.DENIED,
    )
    bus.emit(
        ToolCallFailed(
            call_id="c2",
            name="openPage",
            kind=ToolErrorKind.DENIED,
            problems=failure.problems,
            duration_s=1.5,
            result=failure,
            model_output=failure.to_model_payload(),
        )
    )
    card = view.tool_card("c2")
    assert card is not None
    assert card.status == "failed"
    assert card.property("status") == "failed"
    assert card.result_label.text() == "You did not allow it."
    assert card.duration_label.text() == "1.5 s"


def _ink(label: QWidget) -> set[str]:
    """The colours of the text drawn on ``label``: its darkest and most saturated pixels."""
    image = label.grab().toImage()
    background = image.pixelColor(1, 1)
    colours = set()
    for x in range(image.width()):
        for y in range(image.height()):
            colour = image.pixelColor(x, y)
            if abs(colour.lightness() - background.lightness()) > 60:
                colours.add(colour.name())
    return colours


def _reddish(colours: set[str]) -> bool:
    return any(
        QColor(c).red() > QColor(c).green() + 60 and QColor(c).red() > QColor(c).blue() + 60
        for c in colours
    )


@pytest.mark.parametrize("kind", [ToolErrorKind.DENIED, ToolErrorKind.TIMEOUT])
def test_a_failed_cards_reason_is_red_at_once_in_the_light_theme(
    qtbot: QtBot, theme: ThemeController, bridge: EventBridge, bus: EventBus, kind: ToolErrorKind
) -> None:
    """The tour: the reason stayed in the normal colour until the theme changed."""
    assert theme.palette.name == "light"
    view = _view(qtbot, theme, bridge)
    bus.emit(ToolCallStarted(call_id="c9", name="readClipboard", arguments={}))
    card = view.tool_card("c9")
    assert card is not None
    card.show_waiting_for_approval()  # the result line is shown, and polished, while waiting
    qtbot.waitUntil(card.result_label.isVisible)
    assert not _reddish(_ink(card.result_label)), "waiting is not a failure"
    failure = ToolResult.failure("The person denied the call.", error_kind=kind)
    bus.emit(
        ToolCallFailed(
            call_id="c9",
            name="readClipboard",
            kind=kind,
            problems=failure.problems,
            duration_s=1.2,
            result=failure,
            model_output=failure.to_model_payload(),
        )
    )
    assert card.status == "failed"
    red = QColor(theme.palette.red)
    assert card.result_label.palette().color(QPalette.ColorRole.WindowText) == red
    assert _reddish(_ink(card.result_label)), "the reason is drawn in red"


def test_cancelled_card(
    qtbot: QtBot, theme: ThemeController, bridge: EventBridge, bus: EventBus
) -> None:
    view = _view(qtbot, theme, bridge)
    bus.emit(ToolCallStarted(call_id="c3", name="slow", arguments={}))
    bus.emit(ToolCallCancelled(call_id="c3", name="slow"))
    card = view.tool_card("c3")
    assert card is not None and card.status == "cancelled"
    assert card.result_label.text() == "Cancelled"


def test_formatting_helpers() -> None:
    assert format_duration(0.0004) == "0 ms"
    assert format_duration(2.25) == "2.2 s" or format_duration(2.25) == "2.3 s"
    assert key_argument({"flag": True, "n": 3}) == "3"
    assert key_argument({"text": "x" * 100}).endswith("…")
    assert summarize_result(ToolResult.success(None)) == "Done"
    assert summarize_result(ToolResult.success(1, display="One thing")) == "One thing"


def test_what_a_tool_says_is_shown_as_written_never_as_markup(
    qtbot: QtBot, theme: ThemeController, bridge: EventBridge, bus: EventBus
) -> None:
    view = _view(qtbot, theme, bridge)
    markup = '<a href="https://evil.example">click</a>'
    bus.emit(ToolCallStarted(call_id="c4", name="<b>tool</b>", arguments={"q": markup}))
    result = ToolResult.success(None, display=f"<img src=x> {markup}")
    bus.emit(ToolCallFinished("c4", "<b>tool</b>", result, result.to_model_payload(), 0.01))
    card = view.tool_card("c4")
    assert card is not None
    for label in (card.name_label, card.argument_label, card.result_label, card.details_label):
        assert label.textFormat() is Qt.TextFormat.PlainText, label.objectName()
    assert card.result_label.text() == f"<img src=x> {markup}"
    note = view.add_note("Sammy is ending the conversation: <b>bye</b>")
    assert note.textFormat() is Qt.TextFormat.PlainText
