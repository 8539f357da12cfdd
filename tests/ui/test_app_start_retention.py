"""At start-up the app deletes history older than the person keeps it (issue 18, point 9)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
import qasync
from PySide6.QtWidgets import QApplication

from sammy_desktop.app import AppContext, QuitSignal, run_app
from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.config.settings import HistoryRetention
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.ui.main_window import MainWindow

DAY_S = 24 * 3600


def _written(path: Path, days_ago: float) -> Path:
    path.write_text("{}\n", encoding="utf-8")
    stamp = time.time() - days_ago * DAY_S
    os.utime(path, (stamp, stamp))
    return path


def _start_and_quit(qapp: QApplication, context: AppContext) -> None:
    async def scenario() -> int:
        quit_signal = QuitSignal()

        def on_shown(_window: MainWindow) -> None:
            quit_signal.request()

        return await run_app(qapp, context, quit_signal, on_window_shown=on_shown)

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0


@pytest.mark.parametrize(
    ("retention", "old_kept"),
    [(HistoryRetention.DAYS_90, False), (HistoryRetention.FOREVER, True)],
)
def test_history_older_than_the_retention_is_deleted_at_start(
    qapp: QApplication, tmp_path: Path, retention: HistoryRetention, old_kept: bool
) -> None:
    paths = AppPaths.profile(tmp_path / "profile")
    paths.ensure()
    SettingsStore(paths.settings_file).save(Settings(history_retention=retention))
    old_session = _written(paths.history_dir / "20260101-090000-old.jsonl", 120)
    old_escalation = _written(paths.escalations_dir / "esc-20260101-090000-abc123.json", 120)
    recent = _written(paths.history_dir / "20261130-090000-new.jsonl", 3)

    _start_and_quit(qapp, AppContext.create(paths))

    assert old_session.exists() is old_kept
    assert old_escalation.exists() is old_kept
    assert recent.exists()
