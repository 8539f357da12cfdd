"""Log redaction: the API key never reaches the log file or the console."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from sammy_desktop.app_logging import REDACTED, RedactingFilter, configure_logging

KEY = "AIzaSyDUMMY0123456789abcdefghijklmnopqrs"  # the shape of a Google API key
OTHER = "s3cr3t-gateway-token"


@pytest.fixture
def configured(tmp_path: Path) -> Iterator[tuple[io.StringIO, Path, RedactingFilter]]:
    stream = io.StringIO()
    log_file = tmp_path / "logs" / "app.log"
    redactor = configure_logging("DEBUG", log_file, stream=stream)
    redactor.add_secret(OTHER)
    yield stream, log_file, redactor
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_sammy_handler", False):
            root.removeHandler(handler)
            handler.close()


def test_key_in_message_and_arguments_is_redacted(
    configured: tuple[io.StringIO, Path, RedactingFilter],
) -> None:
    stream, log_file, _ = configured
    log = logging.getLogger("sammy_desktop.test")
    log.warning("connecting with key %s to %s", KEY, "wss://h/ws?key=" + KEY)
    log.info("header x-goog-api-key: %s", "abcdef123456")
    log.info("token %s", OTHER)
    for text in (stream.getvalue(), log_file.read_text(encoding="utf-8")):
        assert KEY not in text
        assert OTHER not in text
        assert "abcdef123456" not in text
        assert text.count(REDACTED) >= 4
        assert "connecting with key" in text


@pytest.mark.logs_errors("request failed")
def test_key_in_exception_text_is_redacted(
    configured: tuple[io.StringIO, Path, RedactingFilter],
) -> None:
    stream, log_file, _ = configured
    try:
        raise RuntimeError(f"auth failed for {KEY}")
    except RuntimeError:
        logging.getLogger("sammy_desktop.test").exception("request failed")
    for text in (stream.getvalue(), log_file.read_text(encoding="utf-8")):
        assert KEY not in text
        assert "RuntimeError: auth failed for [REDACTED]" in text


def test_console_level_is_respected_and_file_gets_debug(tmp_path: Path) -> None:
    stream = io.StringIO()
    log_file = tmp_path / "app.log"
    configure_logging("WARNING", log_file, stream=stream)
    try:
        logging.getLogger("sammy_desktop.test").debug("quiet detail")
        assert "quiet detail" not in stream.getvalue()
        assert "quiet detail" in log_file.read_text(encoding="utf-8")
    finally:
        configure_logging("WARNING", None, stream=io.StringIO())


def test_short_secrets_are_not_registered() -> None:
    redactor = RedactingFilter()
    redactor.add_secret("abc")
    assert redactor.redact("abc def") == "abc def"
