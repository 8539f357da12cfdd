"""Settings > Privacy: how long the history is kept, and "Delete all history" (issue 18, 9)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox
from pytestqt.qtbot import QtBot

from sammy_desktop.config import AppPaths
from sammy_desktop.config.private_data import history_files
from sammy_desktop.config.settings import HistoryRetention
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.ui.settings.privacy_page import PrivacyPage
from sammy_desktop.ui.settings_state import SettingsState
from tests.ui.conftest import MakeSettingsWindow


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    paths = AppPaths.profile(tmp_path / "profile")
    paths.ensure()
    return paths


@pytest.fixture
def page(qtbot: QtBot, settings_state: SettingsState, paths: AppPaths) -> PrivacyPage:
    page = PrivacyPage(settings_state, paths=paths)
    qtbot.addWidget(page)
    page.show()
    return page


def _some_history(paths: AppPaths) -> list[Path]:
    files = [
        paths.history_dir / "20261201-090000-a.jsonl",
        paths.history_dir / "20261201-100000-b.jsonl",
        paths.escalations_dir / "esc-20261201-100500-abc123.json",
    ]
    for path in files:
        path.write_text("{}\n", encoding="utf-8")
    (paths.notes_dir / "notes.sqlite3").write_bytes(b"")
    return files


def test_the_retention_is_chosen_on_the_page_and_saved(
    page: PrivacyPage, settings_state: SettingsState, tmp_path: Path
) -> None:
    combo = page.cards["history_retention"].editor
    assert isinstance(combo, QComboBox)
    labels = [combo.itemText(i) for i in range(combo.count())]
    assert labels == ["7 days", "30 days", "90 days", "365 days", "Forever"]
    assert combo.currentText() == "90 days"
    combo.setCurrentIndex(labels.index("Forever"))
    assert settings_state.settings.history_retention is HistoryRetention.FOREVER
    saved = SettingsStore(tmp_path / "settings.json").load().settings  # the fixture's file
    assert saved.history_retention is HistoryRetention.FOREVER


def test_delete_all_history_asks_first_and_cancel_keeps_everything(
    page: PrivacyPage, paths: AppPaths, qtbot: QtBot
) -> None:
    files = _some_history(paths)
    QTest.mouseClick(page.delete_history_button, Qt.MouseButton.LeftButton)

    assert page.delete_question.isVisible()
    assert "Delete 3 files" in page.delete_question.text()
    assert "cannot be undone" in page.delete_question.text()
    assert page.confirm_delete_button.isVisible()
    assert not page.delete_history_button.isVisible()
    # A stray Space or Enter lands on Cancel, not on Delete.
    assert QApplication.focusWidget() is page.cancel_delete_button
    QTest.keyClick(page.cancel_delete_button, Qt.Key.Key_Space)

    assert all(path.exists() for path in files)
    assert page.delete_result.text() == "Nothing was deleted."
    assert page.delete_history_button.isVisible()


def test_delete_all_history_deletes_it_once_confirmed_and_says_so(
    page: PrivacyPage, paths: AppPaths, qtbot: QtBot
) -> None:
    files = _some_history(paths)
    QTest.mouseClick(page.delete_history_button, Qt.MouseButton.LeftButton)
    QTest.mouseClick(page.confirm_delete_button, Qt.MouseButton.LeftButton)

    assert not any(path.exists() for path in files)
    assert history_files(paths) == []
    assert (paths.notes_dir / "notes.sqlite3").exists()  # the notes are not history
    assert page.delete_result.isVisible()
    assert page.delete_result.text() == ("Deleted 3 files. No history is left on this computer.")
    assert not page.delete_question.isVisible()


def test_with_no_history_there_is_nothing_to_ask(page: PrivacyPage, qtbot: QtBot) -> None:
    QTest.mouseClick(page.delete_history_button, Qt.MouseButton.LeftButton)
    assert not page.delete_question.isVisible()
    assert page.delete_result.text() == "There is no history to delete."


def test_the_settings_window_offers_it_with_the_app_folders(
    make_settings_window: MakeSettingsWindow, paths: AppPaths
) -> None:
    window = make_settings_window(paths=paths)
    files = _some_history(paths)
    page = window.privacy_page
    page.on_delete_history_requested()
    page.on_delete_history_confirmed()
    assert not any(path.exists() for path in files)
    assert "history_retention" in window.cards
