"""WindowGeometry alone: a window's size kept in a file, and never an error for a bad one."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.ui.window_geometry import WindowGeometry


def _window(qtbot: QtBot) -> QWidget:
    window = QWidget()
    qtbot.addWidget(window)
    window.resize(400, 300)
    return window


def test_a_saved_size_comes_back(qtbot: QtBot, tmp_path: Path) -> None:
    geometry = WindowGeometry(tmp_path / "state" / "window-geometry")
    first = _window(qtbot)
    geometry.save(first)  # hidden: nothing worth keeping
    assert not (tmp_path / "state").exists()
    first.show()
    first.resize(520, 610)
    geometry.save(first)
    second = _window(qtbot)
    geometry.restore(second)
    assert (second.width(), second.height()) == (520, 610)


def test_a_missing_or_unusable_file_keeps_the_default_size(
    qtbot: QtBot, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    window = _window(qtbot)
    WindowGeometry(tmp_path / "missing").restore(window)
    broken = tmp_path / "broken"
    broken.write_bytes(b"not a geometry")
    WindowGeometry(broken).restore(window)
    assert (window.width(), window.height()) == (400, 300)
    assert "not usable; default size" in caplog.text


def test_a_read_only_profile_does_not_stop_the_window_closing(
    qtbot: QtBot, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "config"
    blocker.write_text("a file where the folder should be")
    window = _window(qtbot)
    window.show()
    WindowGeometry(blocker / "window-geometry").save(window)
    assert "window geometry not saved" in caplog.text
