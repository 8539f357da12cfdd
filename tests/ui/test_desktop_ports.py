"""The desktop tool pack's ports done with Qt: clipboard, notifier, application launcher."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from sammy_desktop.config import Settings
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.desktop.events import (
    TimerCancelled,
    TimerFired,
    TimerInfo,
    TimerStarted,
    TimerStatus,
)
from sammy_desktop.tools.desktop.ports import (
    ApplicationLauncher,
    ClipboardPort,
    DesktopNotifier,
    Earcon,
)
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.desktop_ports import QtApplicationLauncher, QtClipboard, QtDesktopNotifier
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.theme import ThemeController


def test_clipboard_round_trip(qapp: QApplication) -> None:
    clipboard = QtClipboard()
    assert isinstance(clipboard, ClipboardPort)

    async def scenario() -> str | None:
        await clipboard.write_text("the oven at 180 °C")
        return await clipboard.read_text()

    assert asyncio.run(scenario()) == "the oven at 180 °C"


def test_notifier_signals_and_plays_earcons_unless_sounds_are_off(qtbot: QtBot) -> None:
    settings = Settings()
    played: list[str] = []
    notifier = QtDesktopNotifier(lambda: settings, played.append)
    assert isinstance(notifier, DesktopNotifier)
    with qtbot.waitSignal(notifier.notification) as blocker:
        notifier.notify("Timer done", "check the oven")
    assert blocker.args == ["Timer done", "check the oven"]
    notifier.play_earcon(Earcon.TIMER_DONE)
    assert played == ["timer_done"]
    settings.earcons = False
    notifier.play_earcon(Earcon.TIMER_DONE)
    assert played == ["timer_done"]


def test_launcher_starts_programs_and_says_when_it_cannot(qapp: QApplication) -> None:
    launcher = QtApplicationLauncher()
    assert isinstance(launcher, ApplicationLauncher)
    asyncio.run(launcher.launch(["true"]))
    with pytest.raises(OSError, match="could not start"):
        asyncio.run(launcher.launch(["/nonexistent/sammy-program"]))
    with pytest.raises(OSError, match="no program"):
        asyncio.run(launcher.launch([]))


def _timer(status: TimerStatus = TimerStatus.RUNNING) -> TimerInfo:
    start = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    return TimerInfo(
        id="1",
        label="check the oven",
        duration_s=300,
        started_at=start,
        ends_at=start + timedelta(minutes=5),
        status=status,
    )


def test_timer_banners(
    qtbot: QtBot, theme: ThemeController, bridge: EventBridge, bus: EventBus
) -> None:
    window = MainWindow(Settings(), on_quit=lambda: None, theme=theme, bridge=bridge)
    qtbot.addWidget(window)
    bus.emit(TimerStarted(_timer()))
    banner = window.banners.banner("timer-1")
    assert banner is not None
    assert "“check the oven” set for 5 minutes" in banner.text
    bus.emit(TimerFired(_timer(TimerStatus.FINISHED)))
    banner = window.banners.banner("timer-1")
    assert banner is not None and banner.kind == "success"
    assert banner.text == "Timer done: “check the oven”."
    bus.emit(TimerCancelled(_timer(TimerStatus.CANCELLED)))
    assert window.banners.banner("timer-1") is None
