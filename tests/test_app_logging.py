"""Log redaction: the API key never reaches the log file, the console or any other handler.

Issue 18, point 12: an uncaught exception (or one in a Qt slot) bypassed the log file and
its redactor, and a handler added by a library after start-up saw records unredacted.
"""

from __future__ import annotations

import io
import logging
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync

from sammy_desktop.app_logging import REDACTED, RedactingFilter, configure_logging

KEY = "AIzaSyDUMMY0123456789abcdefghijklmnopqrs"  # the shape of a Google API key
OTHER = "s3cr3t-gateway-token"


@pytest.fixture(autouse=True)
def _restore_process_hooks() -> Iterator[None]:
    """configure_logging changes process-wide hooks; put them back for the other tests."""
    saved = (
        logging.getLogRecordFactory(),
        sys.excepthook,
        threading.excepthook,
        sys.unraisablehook,
    )
    yield
    logging.setLogRecordFactory(saved[0])
    sys.excepthook, threading.excepthook, sys.unraisablehook = saved[1:]


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


@pytest.fixture
def late_handler() -> Iterator[io.StringIO]:
    """A handler a library adds to its own logger after start-up, with a plain formatter.

    It sees each record before the root logger's handlers (and their filters) do.
    """
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    library = logging.getLogger("thirdparty")
    library.addHandler(handler)
    yield stream
    library.removeHandler(handler)


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


def test_a_handler_added_later_by_other_code_sees_the_key_redacted(
    configured: tuple[io.StringIO, Path, RedactingFilter], late_handler: io.StringIO
) -> None:
    logging.getLogger("thirdparty.client").warning("request to %s with %s", "wss://h/ws", OTHER)
    logging.getLogger("thirdparty").info("GET https://h/v1/models?key=%s", KEY)
    text = late_handler.getvalue()
    assert OTHER not in text
    assert KEY not in text
    assert text.count(REDACTED) == 2
    assert "thirdparty.client WARNING request to wss://h/ws with [REDACTED]" in text


@pytest.mark.logs_errors("went wrong")
def test_a_later_handler_sees_exception_text_redacted(
    configured: tuple[io.StringIO, Path, RedactingFilter], late_handler: io.StringIO
) -> None:
    try:
        raise ValueError(f"bad token {OTHER}")
    except ValueError:
        logging.getLogger("thirdparty").exception("went wrong")
    assert "ValueError: bad token [REDACTED]" in late_handler.getvalue()
    assert OTHER not in late_handler.getvalue()


def test_credentials_in_a_url_are_redacted() -> None:
    redactor = RedactingFilter()
    assert redactor.redact("connecting to https://me:pa55@gw.example.org:8443/live") == (
        "connecting to https://[REDACTED]@gw.example.org:8443/live"
    )
    assert redactor.redact("wss://gw.example.org:8443/ws/x?alt=sse") == (
        "wss://gw.example.org:8443/ws/x?alt=sse"
    )


def test_a_broken_format_string_does_not_raise_where_the_record_is_made(
    configured: tuple[io.StringIO, Path, RedactingFilter],
) -> None:
    # A bug in a log call is the handler's to report (handleError), not a crash of the caller.
    make = logging.getLogRecordFactory()
    record = make("sammy_desktop.test", logging.INFO, __file__, 1, "two %s %s", ("one",), None)
    assert record.msg == "two %s %s"


@pytest.mark.logs_errors("uncaught exception")
def test_an_uncaught_exception_goes_to_the_log_redacted_not_to_bare_stderr(
    configured: tuple[io.StringIO, Path, RedactingFilter], capsys: pytest.CaptureFixture[str]
) -> None:
    stream, log_file, _ = configured
    try:
        raise RuntimeError(f"auth failed for {KEY}")
    except RuntimeError as exc:
        # What the interpreter (and PySide, for an exception in a Qt slot) calls.
        sys.excepthook(type(exc), exc, exc.__traceback__)
    logged = log_file.read_text(encoding="utf-8")
    assert "CRITICAL sammy_desktop.app_logging: uncaught exception" in logged
    assert "RuntimeError: auth failed for [REDACTED]" in logged
    assert KEY not in logged
    assert KEY not in stream.getvalue()
    assert KEY not in capsys.readouterr().err


@pytest.mark.logs_errors("uncaught exception in thread worker-7")
def test_an_exception_that_ends_a_thread_goes_to_the_log_redacted(
    configured: tuple[io.StringIO, Path, RedactingFilter],
) -> None:
    _, log_file, _ = configured

    def work() -> None:
        raise OSError(f"cannot reach https://h/?key={KEY}")

    worker = threading.Thread(target=work, name="worker-7")
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive()
    logged = log_file.read_text(encoding="utf-8")
    assert "uncaught exception in thread worker-7" in logged
    assert "OSError: cannot reach https://h/?key=[REDACTED]" in logged
    assert KEY not in logged


@pytest.mark.skipif(os.name != "posix", reason="Windows keeps the profile private")
def test_the_log_file_is_owner_only(
    configured: tuple[io.StringIO, Path, RedactingFilter],
) -> None:
    _, log_file, _ = configured
    logging.getLogger("sammy_desktop.test").info("hello")
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600


def test_what_the_app_hands_to_worker_threads_stays_out_of_the_log_file(
    configured: tuple[io.StringIO, Path, RedactingFilter],
) -> None:
    # qasync's executor logs every job at DEBUG with the repr of its arguments and result:
    # what the person said on its way to the history file, four lines per job (a speaker
    # start on the way to an answer's first sample among them), each made on the loop or
    # the worker.
    stream, log_file, _redactor = configured
    said = "my bank PIN is four four seven one"
    with qasync.QThreadExecutor(1) as executor:
        assert executor.submit(str.upper, said).result(timeout=10) == said.upper()
    logging.getLogger("sammy_desktop.test").debug("after the job")
    written = log_file.read_text(encoding="utf-8")
    assert "after the job" in written  # the file does get DEBUG
    assert said not in written and said.upper() not in written
    assert said not in stream.getvalue()
