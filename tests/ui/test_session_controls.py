"""SessionControls alone: typing, Connect / Disconnect and End session, against the agent."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from PySide6.QtWidgets import QLineEdit, QToolButton, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.banners import BannerArea
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.notices import Notices
from sammy_desktop.ui.session_controls import SessionControls
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.transcript import TranscriptView

from .conftest import FakeAgent


@dataclass
class Controls:
    host: QWidget  # holds the Qt objects (qtbot keeps only a weak reference)
    session: SessionControls
    text: QLineEdit
    connect: QToolButton
    end: QToolButton
    banners: BannerArea


@pytest.fixture
def controls(
    qtbot: QtBot, theme: ThemeController, bridge: EventBridge, agent: FakeAgent, tasks: UiTasks
) -> Controls:
    host = QWidget()
    qtbot.addWidget(host)
    banners = BannerArea(theme, host)
    notices = Notices(banners, TranscriptView(theme, parent=host), parent=host)
    text, connect, end = QLineEdit(host), QToolButton(host), QToolButton(host)
    session = SessionControls(
        text, connect, end, notices=notices, tasks=tasks, controls=agent, parent=host
    )
    bridge.state_changed.connect(session.on_state_changed)
    return Controls(host, session, text, connect, end, banners)


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


def test_connect_turns_into_disconnect_and_end_session_needs_a_session(
    qloop: asyncio.Runner, controls: Controls, agent: FakeAgent, tasks: UiTasks
) -> None:
    async def scenario() -> None:
        assert controls.connect.toolTip() == "Connect"
        assert not controls.end.isEnabled()
        controls.session.on_end_session_clicked()
        controls.session.on_connect_clicked()
        await tasks.join()
        assert agent.names() == ["start"]
        assert controls.connect.toolTip() == "Disconnect"
        assert controls.end.isEnabled()
        controls.session.on_connect_clicked()
        await tasks.join()
        assert agent.names() == ["start", "stop"]
        assert controls.connect.accessibleName() == "Connect"

    qloop.run(scenario())
