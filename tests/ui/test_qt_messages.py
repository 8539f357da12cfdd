"""Qt's own messages reach the log, and so its redactor (issue 18, point 12)."""

from __future__ import annotations

import io
import logging
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import qInstallMessageHandler, qWarning
from PySide6.QtWidgets import QApplication

from sammy_desktop.app_logging import configure_logging
from sammy_desktop.ui.qt_messages import install_qt_message_handler

KEY = "AIzaSyDUMMY0123456789abcdefghijklmnopqrs"


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "app.log"
    saved = (
        logging.getLogRecordFactory(),
        sys.excepthook,
        threading.excepthook,
        sys.unraisablehook,
    )
    configure_logging("CRITICAL", path, stream=io.StringIO())
    install_qt_message_handler()
    yield path
    qInstallMessageHandler(None)
    logging.setLogRecordFactory(saved[0])
    sys.excepthook, threading.excepthook, sys.unraisablehook = saved[1:]
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_sammy_handler", False):
            root.removeHandler(handler)
            handler.close()


def test_a_qt_warning_is_logged_with_the_key_redacted(
    qapp: QApplication, log_file: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    qWarning(f"QNetworkReply: https://h/v1?key={KEY} failed")
    logged = log_file.read_text(encoding="utf-8")
    assert "WARNING qt: QNetworkReply: https://h/v1?key=[REDACTED] failed" in logged
    assert KEY not in logged
    assert KEY not in capfd.readouterr().err  # not written to stderr by Qt itself
