"""The confirmation sheet and port: approve, deny, always, and denied on timeout."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.tools.context import ConfirmationPort, ConfirmationRequest
from sammy_desktop.ui.confirmation import (
    ARM_DELAY_MS,
    Answer,
    ConfirmationSheet,
    Grant,
    QtConfirmationPort,
)
from sammy_desktop.ui.theme import ThemeController
from tests.helpers.sheet import until_armed


def _request(
    call_id: str = "c1",
    timeout_s: float = 30.0,
    tool: str = "openLink",
    target: str | None = "example.com",
) -> ConfirmationRequest:
    return ConfirmationRequest(
        call_id=call_id,
        tool_name=tool,
        prompt="Open https://example.com in your browser?",
        arguments={"url": "https://example.com"},
        timeout_s=timeout_s,
        target=target,
    )


def _showing(sheet: ConfirmationSheet) -> ConfirmationRequest | None:
    return sheet.current  # a call, so mypy does not carry narrowing across awaits


def _grants(port: QtConfirmationPort) -> tuple[Grant, ...]:
    return port.grants  # a call, so mypy does not carry narrowing across statements


def _sheet(
    qtbot: QtBot, theme: ThemeController, arm_delay_ms: int = ARM_DELAY_MS
) -> ConfirmationSheet:
    host = QWidget()
    host.resize(400, 500)
    qtbot.addWidget(host)
    sheet = ConfirmationSheet(host, arm_delay_ms=arm_delay_ms)
    host.show()
    qtbot.waitExposed(host)
    return sheet


def _armed(qtbot: QtBot, sheet: ConfirmationSheet) -> None:
    if not sheet.armed:
        with qtbot.waitSignal(sheet.armed_request, timeout=5000):
            pass


def test_enter_approves_once_the_question_is_armed(qtbot: QtBot, theme: ThemeController) -> None:
    sheet = _sheet(qtbot, theme)
    request = _request()
    sheet.ask(request)
    assert not sheet.isHidden()
    assert sheet.title_label.text() == "Open link?"
    assert "URL: https://example.com" in sheet.arguments_label.text()
    assert not sheet.armed  # a key meant for something else cannot approve yet
    _armed(qtbot, sheet)
    with qtbot.waitSignal(sheet.answered) as blocker:
        QTest.keyClick(sheet.deny_button, Qt.Key.Key_Return)
    assert blocker.args == [request.token, True, Answer.APPROVED]
    assert sheet.isHidden()


def test_the_focus_starts_on_deny_and_nothing_approves_before_the_delay(
    qtbot: QtBot, theme: ThemeController
) -> None:
    sheet = _sheet(qtbot, theme, arm_delay_ms=60_000)
    sheet.ask(_request())
    sheet.activateWindow()
    qtbot.waitUntil(lambda: sheet.focusWidget() is sheet.deny_button, timeout=2000)
    with qtbot.assertNotEmitted(sheet.answered):
        QTest.keyClick(sheet.deny_button, Qt.Key.Key_Return)
        QTest.mouseClick(sheet.approve_button, Qt.MouseButton.LeftButton)
        QTest.mouseClick(sheet.always_button, Qt.MouseButton.LeftButton)
        sheet.approve()
    assert _showing(sheet) is not None
    with qtbot.waitSignal(sheet.answered) as blocker:
        QTest.keyClick(sheet.deny_button, Qt.Key.Key_Escape)  # no is always at hand
    assert blocker.args[1:] == [False, Answer.DENIED]


def test_space_never_answers_the_question(qtbot: QtBot, theme: ThemeController) -> None:
    sheet = _sheet(qtbot, theme, arm_delay_ms=0)
    sheet.ask(_request())
    _armed(qtbot, sheet)
    with qtbot.assertNotEmitted(sheet.answered):
        for button in (sheet.deny_button, sheet.approve_button, sheet.always_button):
            button.setFocus(Qt.FocusReason.TabFocusReason)
            QTest.keyClick(button, Qt.Key.Key_Space)
    assert _showing(sheet) is not None


def test_enter_presses_the_choice_the_person_moved_to(qtbot: QtBot, theme: ThemeController) -> None:
    sheet = _sheet(qtbot, theme, arm_delay_ms=0)
    sheet.ask(_request())
    _armed(qtbot, sheet)
    sheet.approve_button.setFocus(Qt.FocusReason.TabFocusReason)
    sheet.deny_button.setFocus(Qt.FocusReason.BacktabFocusReason)
    with qtbot.waitSignal(sheet.answered) as blocker:
        QTest.keyClick(sheet.deny_button, Qt.Key.Key_Enter)
    assert blocker.args[1:] == [False, Answer.DENIED]


def test_escape_denies(qtbot: QtBot, theme: ThemeController) -> None:
    sheet = _sheet(qtbot, theme)
    request = _request()
    sheet.ask(request)
    with qtbot.waitSignal(sheet.answered) as blocker:
        QTest.keyClick(sheet.approve_button, Qt.Key.Key_Escape)
    assert blocker.args == [request.token, False, Answer.DENIED]


def test_no_answer_in_time_is_a_no(qtbot: QtBot, theme: ThemeController) -> None:
    sheet = _sheet(qtbot, theme)
    request = _request(timeout_s=0.2)
    sheet.ask(request)
    assert "counts as no" in sheet.countdown_label.text()
    with qtbot.waitSignal(sheet.answered, timeout=3000) as blocker:
        pass
    assert blocker.args == [request.token, False, Answer.TIMED_OUT]


def test_questions_wait_in_line_and_each_is_armed_afresh(
    qtbot: QtBot, theme: ThemeController
) -> None:
    sheet = _sheet(qtbot, theme, arm_delay_ms=0)
    sheet.ask(_request("c1"))
    sheet.ask(_request("c2"))
    assert sheet.waiting == 1
    _armed(qtbot, sheet)
    sheet.deny()
    current = sheet.current
    assert current is not None and current.call_id == "c2"
    assert not sheet.armed
    _armed(qtbot, sheet)


def test_the_always_choice_names_its_target_under_the_tools_title(
    qtbot: QtBot, theme: ThemeController
) -> None:
    sheet = _sheet(qtbot, theme)
    sheet.ask(_request(target="example.com"))
    assert sheet.title_label.text() == "Open link?"
    assert sheet.always_button.text() == "Always allow example.com this session"
    sheet.deny()
    sheet.ask(_request(tool="readClipboard", target=None))
    assert sheet.title_label.text() == "Read clipboard?"
    assert sheet.always_button.text() == "Always allow this session"


def test_a_yes_reaches_only_the_question_shown_even_with_a_repeated_call_id(
    qloop: asyncio.Runner, qtbot: QtBot, theme: ThemeController
) -> None:
    """Two questions under one (server-chosen) call id: approving the visible one runs it
    alone; the other stays in line, unanswered and unseen until it is shown."""
    sheet = _sheet(qtbot, theme, arm_delay_ms=0)
    port = QtConfirmationPort()
    port.attach(sheet)
    link = _request("same", tool="openLink")
    clipboard = _request("same", tool="readClipboard", target=None)

    async def scenario() -> None:
        first = asyncio.ensure_future(port.confirm(link))
        second = asyncio.ensure_future(port.confirm(clipboard))
        await asyncio.sleep(0)
        assert _showing(sheet) is link
        await until_armed(sheet)
        sheet.approve_button.click()
        assert await asyncio.wait_for(first, 2) is True
        assert not second.done()
        assert _showing(sheet) is clipboard
        sheet.deny_button.click()
        assert await asyncio.wait_for(second, 2) is False

    qloop.run(scenario())


def test_port_approve_deny_always_per_target_revoke_and_timeout(
    qloop: asyncio.Runner, qtbot: QtBot, theme: ThemeController
) -> None:
    sheet = _sheet(qtbot, theme, arm_delay_ms=0)
    port = QtConfirmationPort()
    port.attach(sheet)
    assert isinstance(port, ConfirmationPort)
    changes: list[tuple[Grant, ...]] = []
    port.grants_changed.connect(lambda: changes.append(port.grants))

    async def answer(request: ConfirmationRequest, button: str) -> bool:
        pending = asyncio.ensure_future(port.confirm(request))
        await asyncio.sleep(0)
        assert _showing(sheet) is request
        await until_armed(sheet)
        getattr(sheet, button).click()
        return await asyncio.wait_for(pending, 2)

    async def scenario() -> None:
        assert await answer(_request("a"), "approve_button") is True
        assert await answer(_request("b"), "deny_button") is False
        assert await answer(_request("c", target="example.com"), "always_button") is True
        assert _grants(port) == (Grant("openLink", "example.com"),)
        # The same tool on the same site is approved without asking ...
        assert await asyncio.wait_for(port.confirm(_request("d", target="example.com")), 2)
        assert _showing(sheet) is None
        # ... on another site it asks again.
        assert await answer(_request("e", target="evil.example"), "deny_button") is False
        port.revoke(Grant("openLink", "example.com"))
        assert _grants(port) == ()
        assert await answer(_request("f", target="example.com"), "deny_button") is False
        assert await answer(_request("g", target="example.com"), "always_button") is True
        port.forget_session()
        assert _grants(port) == ()

        assert await asyncio.wait_for(port.confirm(_request("h", timeout_s=0.2)), 3) is False

        # The tool layer gives up first (its own timeout): the sheet is taken down.
        pending = asyncio.ensure_future(port.confirm(_request("i")))
        await asyncio.sleep(0)
        pending.cancel()
        await asyncio.gather(pending, return_exceptions=True)
        assert _showing(sheet) is None

    qloop.run(scenario())
    granted = (Grant("openLink", "example.com"),)
    assert changes == [granted, (), granted, ()]


def test_the_question_shows_the_models_text_as_written_never_as_markup(
    qtbot: QtBot, theme: ThemeController
) -> None:
    sheet = _sheet(qtbot, theme)
    hidden = "https://example.com<!-- and also read your clipboard -->"
    sheet.ask(
        ConfirmationRequest(
            call_id="c1",
            tool_name="openLink",
            prompt=f"Open {hidden}?",
            arguments={"url": hidden},
            timeout_s=30,
            title="Open <b>link</b>",
        )
    )
    for label in (sheet.title_label, sheet.prompt_label, sheet.arguments_label):
        assert label.textFormat() is Qt.TextFormat.PlainText
    assert "read your clipboard" in sheet.prompt_label.text()
    assert "read your clipboard" in sheet.arguments_label.text()
    assert sheet.title_label.text() == "Open <b>link</b>?"
