"""Code the model ran on the service's side: a card per code, its result on the same card.

Driven through the real bus and bridge into the main window, as the core's ``CodeExecuted``
events arrive: one for the ``executableCode`` part, one for its ``codeExecutionResult``.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import CodeExecuted, Speaker, TranscriptUpdated
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.tool_card import CodeCard

from .conftest import MakeWindow

CODE = "total = sum(range(1, 101))\nprint(total)"


@pytest.fixture
def window(qtbot: QtBot, make_window: MakeWindow) -> MainWindow:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    return window


def _code(turn_id: int = 1, code: str = CODE, code_id: str | None = None) -> CodeExecuted:
    return CodeExecuted(turn_id=turn_id, code=code, language="PYTHON", code_id=code_id)


def _result(
    outcome: str, output: str, turn_id: int = 1, code_id: str | None = None
) -> CodeExecuted:
    return CodeExecuted(
        turn_id=turn_id, code="", language="", outcome=outcome, output=output, code_id=code_id
    )


def _only_card(window: MainWindow) -> CodeCard:
    (card,) = window.transcript.code_cards()
    return card


def test_the_code_shows_in_a_tool_card_and_its_result_completes_it(
    window: MainWindow, bus: EventBus
) -> None:
    bus.emit(_code(code_id="x1"))
    card = _only_card(window)
    assert card.objectName() == "toolCard"  # styled as the tool cards are
    assert card.status == "running" and card.spinner.is_spinning()
    assert card.name_label.text() == "Code execution"
    assert card.language_label.text() == "Python"
    assert card.code == CODE
    assert card.code_label.objectName() == "toolDetails"  # the cards' monospace text
    assert not card.code_label.isHidden()
    assert card.output_label.isHidden()

    bus.emit(_result("OUTCOME_OK", "5050\n", code_id="x1"))
    assert window.transcript.code_cards() == [card]  # the same card, not a second one
    assert card.status == "finished" and card.property("status") == "finished"
    assert not card.spinner.is_spinning()
    assert card.outcome_text == "Ran without errors."
    assert card.output == "5050"
    assert not card.output_label.isHidden()
    assert card.accessibleName() == "Code execution (Python): done. Ran without errors."


def test_a_result_without_an_id_completes_the_turns_last_waiting_card(
    window: MainWindow, bus: EventBus
) -> None:
    bus.emit(_code(turn_id=1, code="print(1)"))
    bus.emit(_result("OUTCOME_OK", "1", turn_id=1))
    bus.emit(_code(turn_id=2, code="print(2)"))
    bus.emit(_code(turn_id=2, code="1 / 0"))
    bus.emit(_result("OUTCOME_FAILED", "ZeroDivisionError: division by zero", turn_id=2))
    first, second, third = window.transcript.code_cards()
    assert (first.code, first.output) == ("print(1)", "1")
    assert second.code == "print(2)" and second.waiting_for_result
    assert third.code == "1 / 0"
    assert third.status == "failed" and third.property("status") == "failed"
    assert third.outcome_text == "The code failed."
    assert third.output == "ZeroDivisionError: division by zero"
    # The answer ends; the code that never got a result stops waiting.
    bus.emit(TranscriptUpdated(Speaker.ASSISTANT, "It failed.", final=True, turn_id=2))
    assert second.status == "cancelled" and not second.spinner.is_spinning()
    assert second.outcome_text == "No result came back."
    assert first.status == "finished" and third.status == "failed"


def test_a_result_whose_code_never_came_still_gets_a_card(
    window: MainWindow, bus: EventBus
) -> None:
    bus.emit(_result("OUTCOME_DEADLINE_EXCEEDED", "", code_id="lost"))
    card = _only_card(window)
    assert card.status == "failed"
    assert card.outcome_text == "It took too long and was stopped."
    assert card.code_label.isHidden() and card.output_label.isHidden()


def test_the_models_code_and_output_are_shown_as_plain_text(
    window: MainWindow, bus: EventBus
) -> None:
    code = "print(\"<b>bold</b> <a href='https://evil.example'>docs</a>\")"
    bus.emit(_code(code=code, code_id="h"))
    bus.emit(_result("OUTCOME_OK", "<b>bold</b> <img src=x>", code_id="h"))
    card = _only_card(window)
    labels = [label for label in card.findChildren(QLabel) if label.text()]
    assert len(labels) >= 4  # name, language, code, outcome, output
    for label in labels:
        assert label.textFormat() is Qt.TextFormat.PlainText, label.objectName()
    assert card.code == code
    assert card.output == "<b>bold</b> <img src=x>"
