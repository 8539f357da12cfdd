"""The window's notices say what happened, then what to do, once (issue 24, point 11): no
close reason, errno text or service advice in a banner, no advice twice, no sentence
inside parentheses where a clause belongs."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import (
    AgentState,
    ConnectionLost,
    ErrorKind,
    ErrorRaised,
    SessionEnded,
)
from sammy_desktop.core.failures import what_to_do
from sammy_desktop.ui.banners import BannerArea
from sammy_desktop.ui.notices import Notices
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.transcript import TranscriptView


@dataclass
class Shown:
    host: QWidget  # holds the Qt objects (qtbot keeps only a weak reference)
    notices: Notices
    banners: BannerArea
    transcript: TranscriptView


@pytest.fixture
def shown(qtbot: QtBot, theme: ThemeController) -> Shown:
    host = QWidget()
    qtbot.addWidget(host)
    banners = BannerArea(theme, host)
    transcript = TranscriptView(theme, parent=host)
    notices = Notices(banners, transcript, state=AgentState.READY, parent=host)
    return Shown(host, notices, banners, transcript)


def test_a_lost_connection_keeps_the_network_words_to_the_log(shown: Shown) -> None:
    notices, banners = shown.notices, shown.banners
    notices.on_connection_lost(
        ConnectionLost(code=None, reason="[Errno 101] Network is unreachable")
    )
    banner = banners.banner("connection")
    assert banner is not None
    assert banner.text == "Connection lost. Trying again…"


def test_an_error_says_what_happened_then_what_to_do_once(shown: Shown) -> None:
    notices, banners, transcript = shown.notices, shown.banners, shown.transcript
    advice = what_to_do(ErrorKind.AUTH)
    notices.on_error_raised(ErrorRaised(ErrorKind.AUTH, "No API key is saved yet.", advice))
    banner = banners.banner("error")
    assert banner is not None
    assert banner.text == (
        "No API key is saved yet. Paste a working API key in Settings > Account, or try the "
        "offline demo."
    )
    # A message that already holds the advice does not get it a second time.
    notices.on_error_raised(ErrorRaised(ErrorKind.AUTH, f"The key was refused. {advice}", advice))
    banner = banners.banner("error")
    assert banner is not None and banner.text.count(advice) == 1

    notices.on_session_ended(SessionEnded("The service did not accept the API key.", None))
    notes = [label.text() for label in transcript.findChildren(QLabel, "systemLine")]
    assert notes[-1] == "Conversation ended (the service did not accept the API key)"
    notices.on_session_ended(SessionEnded("API key refused.", None))
    notes = [label.text() for label in transcript.findChildren(QLabel, "systemLine")]
    assert notes[-1] == "Conversation ended (API key refused)"
