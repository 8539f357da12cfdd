"""Notices alone: each event's banner or transcript note, and where its action leads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.audio.events import (
    DeviceFallback,
    DeviceSwitched,
    StreamError,
    StreamRecovered,
)
from sammy_desktop.core.events import (
    AgentState,
    ErrorKind,
    ErrorRaised,
    NoResponse,
    Reconnected,
    Reconnecting,
    StateChanged,
    ToolsChanged,
    TurnStats,
)
from sammy_desktop.tools.desktop.events import (
    TimerCancelled,
    TimerFired,
    TimerInfo,
    TimerStarted,
    TimerStatus,
)
from sammy_desktop.ui.banners import Banner, BannerArea
from sammy_desktop.ui.notices import Notices, shared_summary
from sammy_desktop.ui.settings import SettingsSection
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.transcript import TranscriptView


@dataclass
class Window:
    """Notices with the banner column and the transcript it speaks into."""

    host: QWidget  # holds the Qt objects (qtbot keeps only a weak reference)
    notices: Notices
    banners: BannerArea
    transcript: TranscriptView

    def banner(self, key: str) -> Banner:
        banner = self.banners.banner(key)
        assert banner is not None, f"no banner {key!r}"
        return banner

    def has_banner(self, key: str) -> bool:
        return self.banners.banner(key) is not None

    def notes(self) -> list[str]:
        return [label.text() for label in self.transcript.findChildren(QLabel, "systemLine")]


@pytest.fixture
def shown(qtbot: QtBot, theme: ThemeController) -> Window:
    host = QWidget()
    qtbot.addWidget(host)
    banners = BannerArea(theme, host)
    transcript = TranscriptView(theme, parent=host)
    notices = Notices(banners, transcript, state=AgentState.READY, parent=host)
    return Window(host, notices, banners, transcript)


def _state(shown: Window, new: AgentState) -> None:
    shown.notices.on_state_changed(StateChanged(old=AgentState.READY, new=new, reason="test"))


def _timer(status: TimerStatus = TimerStatus.RUNNING) -> TimerInfo:
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    return TimerInfo("1", "check the oven", 300.0, start, start + timedelta(minutes=5), status)


@pytest.mark.parametrize(
    ("kind", "section"),
    [
        (ErrorKind.AUTH, SettingsSection.ACCOUNT),
        # The model is not available to the key: Voice & language lists the ones that are.
        (ErrorKind.MODEL, SettingsSection.VOICE),
        (ErrorKind.CONFIGURATION, SettingsSection.VOICE),
    ],
)
def test_an_error_the_settings_can_fix_opens_them(
    qtbot: QtBot, shown: Window, kind: ErrorKind, section: str
) -> None:
    shown.notices.on_error_raised(ErrorRaised(kind, "Refused.", "Check it."))
    banner = shown.banner("error")
    assert banner.text == "Refused. Check it."
    (button,) = banner.action_buttons
    with qtbot.waitSignal(shown.notices.settings_requested) as blocker:
        button.click()
    assert blocker.args == [section]


def test_a_connection_error_offers_to_connect_again(qtbot: QtBot, shown: Window) -> None:
    shown.notices.on_error_raised(ErrorRaised(ErrorKind.CONNECTION, "Unreachable.", ""))
    (button,) = shown.banner("error").action_buttons
    assert button.text() == "Connect again"
    with qtbot.waitSignal(shown.notices.connect_requested):
        button.click()


def test_a_used_up_quota_says_what_to_do_and_offers_no_settings(
    qtbot: QtBot, shown: Window
) -> None:
    what_to_do = "Wait a while, or check your plan and billing in Google AI Studio."
    shown.notices.on_error_raised(
        ErrorRaised(ErrorKind.QUOTA, "The API key's quota is used up.", what_to_do)
    )
    banner = shown.banner("error")
    assert banner.kind == "error"
    assert banner.text == f"The API key's quota is used up. {what_to_do}"
    # Nothing in the settings raises a quota; once it is back, connecting again helps.
    assert [button.text() for button in banner.action_buttons] == ["Connect again"]
    with (
        qtbot.assertNotEmitted(shown.notices.settings_requested),
        qtbot.waitSignal(shown.notices.connect_requested),
    ):
        banner.action_buttons[0].click()


def test_a_banner_shows_the_services_words_as_written(shown: Window) -> None:
    reason = "1008 models/<b>x</b> is not found for API version v1beta"
    shown.notices.on_error_raised(ErrorRaised(ErrorKind.MODEL, reason, ""))
    label = shown.banner("error").text_label
    assert label.textFormat() is Qt.TextFormat.PlainText
    assert label.text() == reason


def test_reconnecting_replaces_its_banner_and_being_back_removes_it(shown: Window) -> None:
    shown.notices.on_reconnecting(Reconnecting(attempt=1, max_attempts=5, delay_s=0.5, reason="x"))
    shown.notices.on_reconnecting(Reconnecting(attempt=2, max_attempts=5, delay_s=1.0, reason="x"))
    assert "attempt 2 of 5" in shown.banner("connection").text
    assert len(shown.banners.banners()) == 1
    shown.notices.on_reconnected(
        Reconnected(resumed=True, attempts=2, replayed_messages=0, planned=False)
    )
    assert not shown.has_banner("connection")
    assert shown.notes() == ["Reconnected · conversation resumed"]
    # A reconnection the service asked for is not the person's business.
    shown.notices.on_reconnected(
        Reconnected(resumed=False, attempts=1, replayed_messages=0, planned=True)
    )
    assert shown.notes() == ["Reconnected · conversation resumed"]


def test_talking_again_clears_the_connection_banner_and_ready_clears_the_error(
    shown: Window,
) -> None:
    shown.notices.on_reconnecting(Reconnecting(attempt=1, max_attempts=5, delay_s=0.5, reason="x"))
    shown.notices.on_error_raised(ErrorRaised(ErrorKind.INTERNAL, "Oops.", ""))
    _state(shown, AgentState.THINKING)
    assert not shown.has_banner("connection")
    assert shown.has_banner("error")
    _state(shown, AgentState.READY)
    assert not shown.has_banner("error")


def test_no_answer_is_noted_then_bannered_until_an_answer_comes(shown: Window) -> None:
    shown.notices.on_no_response(NoResponse(turn_id=1, waited_s=8.0, nudged=True, gave_up=False))
    assert shown.notes() == ["Waiting for an answer…"]
    shown.notices.on_no_response(NoResponse(turn_id=1, waited_s=16.0, nudged=True, gave_up=True))
    assert "No answer came back" in shown.banner("no-response").text
    shown.notices.on_turn_stats(TurnStats(2, 380.0, 0.0, 0, 0, 1, 1, 2))
    assert not shown.has_banner("no-response")


def test_a_timer_has_a_banner_from_start_to_end_or_cancel(shown: Window) -> None:
    shown.notices.on_timer_started(TimerStarted(_timer()))
    text = shown.banner("timer-1").text
    assert text.startswith("Timer “check the oven” set for 5 minutes; it ends at ")
    shown.notices.on_timer_fired(TimerFired(_timer(TimerStatus.FINISHED)))
    fired = shown.banner("timer-1")
    assert (fired.kind, fired.text) == ("success", "Timer done: “check the oven”.")
    shown.notices.on_timer_cancelled(TimerCancelled(_timer(TimerStatus.CANCELLED)))
    assert not shown.has_banner("timer-1")


def test_a_timer_without_a_label_is_just_a_timer(shown: Window) -> None:
    """The tour: "Timer “” set for 2 minutes" for "set a timer for two minutes"."""
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    timer = TimerInfo("2", "", 120.0, start, start + timedelta(minutes=2), TimerStatus.RUNNING)
    shown.notices.on_timer_started(TimerStarted(timer))
    text = shown.banner("timer-2").text
    assert text.startswith("Timer set for 2 minutes; it ends at "), text
    assert "“" not in text
    done = TimerInfo("2", " ", 120.0, start, start + timedelta(minutes=2), TimerStatus.FINISHED)
    shown.notices.on_timer_fired(TimerFired(done))
    assert shown.banner("timer-2").text == "Timer done (set for 2 minutes)."


def test_a_device_problem_offers_the_devices_page_until_it_recovers(
    qtbot: QtBot, shown: Window
) -> None:
    reason = "the microphone “USB Mic” was not found; using the system default, “Built-in”"
    shown.notices.on_device_fallback(DeviceFallback("usb_mic", "Built-in", reason, "input"))
    assert shown.banner("device-input").text == (
        "The microphone “USB Mic” was not found; using the system default, “Built-in”."
    )
    shown.notices.on_stream_error(StreamError("output", "device lost"))
    banner = shown.banner("device-output")
    assert banner.text == "The speaker is not working: device lost. Trying again…"
    (button,) = banner.action_buttons
    with qtbot.waitSignal(shown.notices.settings_requested) as blocker:
        button.click()
    assert blocker.args == [SettingsSection.DEVICES]
    shown.notices.on_stream_recovered(StreamRecovered("output", "Built-in"))
    assert not shown.has_banner("device-output")
    assert shown.has_banner("device-input")
    # Moving to the chosen microphone, plugged in again, ends the fallback.
    shown.notices.on_device_switched(DeviceSwitched("input", "usb_mic", "built_in"))
    assert shown.has_banner("device-input")
    shown.notices.on_device_switched(DeviceSwitched("input", "usb_mic", "usb_mic"))
    assert not shown.has_banner("device-input")


def test_tool_changes_say_when_they_apply_and_only_during_a_conversation(shown: Window) -> None:
    shown.notices.on_tools_changed(ToolsChanged(enabled=("a", "b"), applied_live=True))
    shown.notices.on_tools_changed(
        ToolsChanged(enabled=("a", "b", "c"), applied_live=False, after_this_answer=True)
    )
    shown.notices.on_tools_changed(ToolsChanged(enabled=("a",), applied_live=False))
    assert shown.notes() == [
        "Tools updated (2 available to Sammy): applies now",
        "Tools updated (3 available to Sammy): applies after this answer",
        "Tools updated (1 available to Sammy): applies when Sammy next connects",
    ]
    _state(shown, AgentState.DISCONNECTED)
    shown.notices.on_tools_changed(ToolsChanged(enabled=("a",), applied_live=True))
    assert len(shown.notes()) == 3


def test_start_up_notices_and_the_not_connected_banner(shown: Window) -> None:
    (label,) = shown.notices.show_startup_notices(["The settings file could not be used."])
    assert label.text() == "The settings file could not be used."
    shown.notices.show_not_connected()
    assert "Your text is kept" in shown.banner("not-connected").text
    shown.notices.on_connecting()
    assert not shown.has_banner("not-connected")


def test_the_shared_context_is_summed_up_in_words() -> None:
    shared: dict[str, object] = {"local_time": "09:40", "time": "09:40", "timezone": "UTC"}
    assert shared_summary(shared) == "date and time, time zone"
    assert shared_summary({"new_kind": 1}) == "new kind"
    assert shared_summary({}) == "nothing"
