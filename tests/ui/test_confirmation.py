"""The confirmation sheet and port: approve, deny, always, and denied on timeout."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.tools.context import ConfirmationPort, ConfirmationRequest
from sammy_desktop.ui.confirmation import Answer, ConfirmationSheet, QtConfirmationPort
from sammy_desktop.ui.theme import ThemeController


def _request(
    call_id: str = "c1", timeout_s: float = 30.0, tool: str = "openLink"
) -> ConfirmationRequest:
    return ConfirmationRequest(
        call_id=call_id,
        tool_name=tool,
        prompt="Open https://example.com in your browser?",
        arguments={"url": "https://example.com"},
        timeout_s=timeout_s,
    )


def _showing(sheet: ConfirmationSheet) -> ConfirmationRequest | None:
    return sheet.current  # a call, so mypy does not carry narrowing across awaits


def _sheet(qtbot: QtBot, theme: ThemeController) -> ConfirmationSheet:
    host = QWidget()
    host.resize(400, 500)
    qtbot.addWidget(host)
    sheet = ConfirmationSheet(host)
    host.show()
    qtbot.waitExposed(host)
    return sheet


def test_enter_approves(qtbot: QtBot, theme: ThemeController) -> None:
    sheet = _sheet(qtbot, theme)
    sheet.ask(_request())
    assert not sheet.isHidden()
    assert sheet.title_label.text() == "Allow openLink?"
    assert "url: https://example.com" in sheet.arguments_label.text()
    with qtbot.waitSignal(sheet.answered) as blocker:
        QTest.keyClick(sheet.approve_button, Qt.Key.Key_Return)
    assert blocker.args == ["c1", True, Answer.APPROVED]
    assert sheet.isHidden()


def test_escape_denies(qtbot: QtBot, theme: ThemeController) -> None:
    sheet = _sheet(qtbot, theme)
    sheet.ask(_request())
    with qtbot.waitSignal(sheet.answered) as blocker:
        QTest.keyClick(sheet.approve_button, Qt.Key.Key_Escape)
    assert blocker.args == ["c1", False, Answer.DENIED]


def test_no_answer_in_time_is_a_no(qtbot: QtBot, theme: ThemeController) -> None:
    sheet = _sheet(qtbot, theme)
    sheet.ask(_request(timeout_s=0.2))
    assert "counts as no" in sheet.countdown_label.text()
    with qtbot.waitSignal(sheet.answered, timeout=3000) as blocker:
        pass
    assert blocker.args == ["c1", False, Answer.TIMED_OUT]


def test_questions_wait_in_line(qtbot: QtBot, theme: ThemeController) -> None:
    sheet = _sheet(qtbot, theme)
    sheet.ask(_request("c1"))
    sheet.ask(_request("c2"))
    assert sheet.waiting == 1
    sheet.deny()
    current = sheet.current
    assert current is not None and current.call_id == "c2"


def test_port_approve_deny_always_and_timeout(
    qloop: asyncio.Runner, qtbot: QtBot, theme: ThemeController
) -> None:
    sheet = _sheet(qtbot, theme)
    port = QtConfirmationPort()
    port.attach(sheet)
    assert isinstance(port, ConfirmationPort)

    async def scenario() -> None:
        pending = asyncio.ensure_future(port.confirm(_request("a")))
        await asyncio.sleep(0)
        assert _showing(sheet) is not None
        sheet.approve_button.click()
        assert await asyncio.wait_for(pending, 2) is True

        pending = asyncio.ensure_future(port.confirm(_request("b")))
        await asyncio.sleep(0)
        sheet.deny_button.click()
        assert await asyncio.wait_for(pending, 2) is False

        pending = asyncio.ensure_future(port.confirm(_request("c")))
        await asyncio.sleep(0)
        sheet.always_button.click()
        assert await asyncio.wait_for(pending, 2) is True
        # Later questions from the same tool are approved without asking.
        assert await asyncio.wait_for(port.confirm(_request("d")), 2) is True
        assert _showing(sheet) is None
        port.forget_session()

        assert await asyncio.wait_for(port.confirm(_request("e", timeout_s=0.2)), 3) is False

        # The tool layer gives up first (its own timeout): the sheet is taken down.
        pending = asyncio.ensure_future(port.confirm(_request("f")))
        await asyncio.sleep(0)
        pending.cancel()
        await asyncio.gather(pending, return_exceptions=True)
        assert _showing(sheet) is None

    qloop.run(scenario())
