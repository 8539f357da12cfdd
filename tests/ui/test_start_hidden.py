"""``--start-hidden``: only the tray icon at start, and the window anyway without a tray."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
import qasync
from PySide6.QtWidgets import QApplication

from sammy_desktop.app import AppContext, QuitSignal, build_parser, run_app
from sammy_desktop.config import AppPaths
from sammy_desktop.desktop_app import LaunchOptions
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.tray import TrayIcon


def test_the_flag_is_on_the_command_line() -> None:
    assert build_parser().parse_args(["--start-hidden"]).start_hidden
    assert not build_parser().parse_args([]).start_hidden


def _start(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, tray: bool
) -> tuple[bool, bool]:
    """Start the app with ``--start-hidden``: whether the window, and the tray icon, showed."""
    monkeypatch.setattr(TrayIcon, "available", staticmethod(lambda: tray))
    trays: list[TrayIcon] = []
    original_show = TrayIcon.show

    def show(self: TrayIcon) -> None:
        trays.append(self)
        original_show(self)

    monkeypatch.setattr(TrayIcon, "show", show)
    context = AppContext.create(AppPaths.profile(tmp_path / "profile"))
    visible: list[bool] = []
    icon_visible: list[bool] = []

    async def scenario() -> int:
        quit_signal = QuitSignal()

        def on_up(window: MainWindow) -> None:
            visible.append(window.isVisible())
            icon_visible.append(bool(trays) and trays[0].icon.isVisible())
            quit_signal.request()

        return await run_app(
            qapp, context, quit_signal, LaunchOptions(start_hidden=True), on_window_shown=on_up
        )

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0
    (was_visible,) = visible
    (was_icon_visible,) = icon_visible
    return was_visible, was_icon_visible


def test_started_hidden_only_the_tray_icon_shows(
    qapp: QApplication,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="sammy_desktop.desktop_app"):
        visible, icon_visible = _start(qapp, tmp_path, monkeypatch, tray=True)

    assert not visible
    assert icon_visible
    assert "started hidden: only the tray icon shows (--start-hidden)" in caplog.messages
    assert "window shown" not in caplog.messages


def test_without_a_system_tray_the_window_shows_anyway(
    qapp: QApplication,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="sammy_desktop.desktop_app"):
        visible, _icon = _start(qapp, tmp_path, monkeypatch, tray=False)

    assert visible
    assert "window shown" in caplog.messages
    assert any("no system tray: showing the window" in m for m in caplog.messages)
