"""SessionControls alone: typing, and End conversation / New conversation, against the agent."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from PySide6.QtWidgets import QLineEdit, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.banners import BannerArea
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.notices import Notices
from sammy_desktop.ui.session_controls import (
    END_CONVERSATION,
    NEW_CONVERSATION,
    SessionControls,
)
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.transcript import TranscriptView

from .conftest import FakeAgent


@dataclass
class Controls:
    host: QWidget  # holds the Qt objects (qtbot keeps only a weak reference)
    session: SessionControls
    text: QLineEdit
    conversation: QPushButton
    banners: BannerArea


@pytest.fixture
def controls(
    qtbot: QtBot, theme: ThemeController, bridge: EventBridge, agent: FakeAgent, tasks: UiTasks
) -> Controls:
    host = QWidget()
    qtbot.addWidget(host)
    banners = BannerArea(theme, host)
    notices = Notices(banners, TranscriptView(theme, parent=host), parent=host)
    text, conversation = QLineEdit(host), QPushButton(host)
    session = SessionControls(
        text, conversation, notices=notices, tasks=tasks, controls=agent, parent=host
    )
    bridge.state_changed.connect(session.on_state_changed)
    conversation.clicked.connect(session.on_conversation_clicked)  # as the window does
    return Controls(host, session, text, conversation, banners)


def test_typed_text_waits_for_a_connection_then_goes(controls: Controls, agent: FakeAgent) -> None:
    controls.text.setText("  hello  ")
    controls.session.on_send_text()
    assert agent.calls == []
    assert controls.text.text() == "  hello  "  # kept for later
    assert controls.banners.banner("not-connected") is not None
    agent.move_to(AgentState.RECONNECTING)  # kept and sent once the connection is back
    controls.session.on_send_text()
    assert agent.calls == [("send_text", ("hello",))]
    assert controls.text.text() == "  hello  "  # the agent refused it while reconnecting
    agent.move_to(AgentState.READY)
    controls.session.on_send_text()
    assert controls.text.text() == ""


def test_one_button_ends_the_conversation_and_then_starts_a_new_one(
    qloop: asyncio.Runner, controls: Controls, agent: FakeAgent, tasks: UiTasks
) -> None:
    button = controls.conversation

    def says() -> tuple[str, str]:
        return button.text(), button.accessibleName()

    async def scenario() -> None:
        assert says() == (NEW_CONVERSATION, NEW_CONVERSATION)
        assert button.isEnabled()
        button.click()
        await tasks.join()
        assert agent.names() == ["start"]
        assert says() == (END_CONVERSATION, END_CONVERSATION)
        assert "history" in button.accessibleDescription()
        button.click()
        await tasks.join()
        assert agent.names() == ["start", "end_session"]
        assert agent.calls[-1] == ("end_session", ("ended by the person",))
        assert says() == (NEW_CONVERSATION, NEW_CONVERSATION)
        # While connecting (or reconnecting) there is a conversation to end.
        agent.move_to(AgentState.CONNECTING)
        assert says() == (END_CONVERSATION, END_CONVERSATION)
        agent.move_to(AgentState.ERROR)
        assert says() == (NEW_CONVERSATION, NEW_CONVERSATION)
        # A banner's "Connect again" connects; it never ends a running conversation.
        controls.session.on_connect_clicked()
        await tasks.join()
        controls.session.on_connect_clicked()
        await tasks.join()
        assert agent.names() == ["start", "end_session", "start"]

    qloop.run(scenario())


def test_without_the_agent_the_button_is_disabled(
    qtbot: QtBot, theme: ThemeController, tasks: UiTasks
) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    notices = Notices(BannerArea(theme, host), TranscriptView(theme, parent=host), parent=host)
    button = QPushButton(host)
    SessionControls(QLineEdit(host), button, notices=notices, tasks=tasks, parent=host)
    assert not button.isEnabled()
    assert button.accessibleName() == NEW_CONVERSATION
