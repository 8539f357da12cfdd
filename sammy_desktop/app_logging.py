"""Logging: a rotating file, stderr at the chosen level, and API keys redacted everywhere.

The log file lives in the platform's log dir; stderr gets the level chosen on the command
line; a filter takes anything that looks like the API key out of every record.

The filter redacts the exact key in use (registered with :meth:`RedactingFilter.add_secret`)
and, as a second line of defence, anything shaped like a Google API key (``AIza`` + 35
characters) or passed as ``key=``/``x-goog-api-key``. It rewrites the final message, so keys
inside ``%`` arguments and exception text are caught too.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import re
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import Any, Final, TextIO

__all__ = [
    "REDACTED",
    "RedactingFilter",
    "RedactingFormatter",
    "configure_logging",
    "install_exception_hooks",
]

_log = logging.getLogger(__name__)

REDACTED: Final = "[REDACTED]"

_KEY_SHAPES: Final = (
    re.compile(r"AIza[0-9A-Za-z_\-]{30,}"),
    re.compile(r"(?i)(x-goog-api-key[\"']?\s*[:=]\s*[\"']?)([^\s\"',;}]+)"),
    re.compile(r"(?i)([?&]key=)([^&\s\"']+)"),
    re.compile(r"(?i)(api[_-]?key[\"']?\s*[:=]\s*[\"']?)([^\s\"',;}]{8,})"),
    # A URL's user:password@ (a gateway's credentials given on the command line).
    re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://)([^/\s@:]*:[^/\s@]*)(?=@)"),
)


class RedactingFilter(logging.Filter):
    """Replaces secrets in log records with ``[REDACTED]``."""

    def __init__(self) -> None:
        super().__init__()
        self._secrets: set[str] = set()

    def add_secret(self, secret: str) -> None:
        """Redact ``secret`` wherever it appears from now on (ignored if very short)."""
        if len(secret) >= 6:
            self._secrets.add(secret)

    def redact(self, text: str) -> str:
        """``text`` with every known secret and key-shaped string replaced."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        for shape in _KEY_SHAPES:
            if shape.groups:
                text = shape.sub(lambda m: m.group(1) + REDACTED, text)
            else:
                text = shape.sub(REDACTED, text)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message (and its exception text) without secrets."""
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string is the handler's to report
            return True
        redacted = self.redact(message)
        if redacted != message:
            record.msg = redacted
            record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


class RedactingFormatter(logging.Formatter):
    """A formatter whose output has every secret of ``redactor`` taken out.

    The last line of defence for the app's own handlers: whatever the record carries (a
    field set after it was made, an ``extra`` value in the format), the text written is
    redacted.
    """

    def __init__(self, fmt: str, redactor: RedactingFilter) -> None:
        super().__init__(fmt)
        self._redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        """The formatted record, redacted."""
        return self._redactor.redact(super().format(record))


class _RedactingRecordFactory:
    """The log record factory, with each new record redacted before any handler sees it."""

    def __init__(self, wrapped: Any, redactor: RedactingFilter) -> None:
        self.wrapped = wrapped
        self.redactor = redactor

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record: logging.LogRecord = self.wrapped(*args, **kwargs)
        self.redactor.filter(record)
        return record


def _install_record_redaction(redactor: RedactingFilter) -> None:
    """Redact every record as it is made (once: a second call replaces the redactor)."""
    current = logging.getLogRecordFactory()
    if isinstance(current, _RedactingRecordFactory):
        current = current.wrapped
    logging.setLogRecordFactory(_RedactingRecordFactory(current, redactor))


class _PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log file readable by its owner only (``0600``), rotated files too."""

    def _open(self) -> Any:
        stream = super()._open()
        if os.name == "posix":
            os.fchmod(stream.fileno(), 0o600)
        return stream


def configure_logging(
    level: str | int,
    log_file: Path | None,
    *,
    stream: TextIO | None = None,
    redactor: RedactingFilter | None = None,
) -> RedactingFilter:
    """Set up the root logger for the app.

    Args:
        level: the stderr level (``"INFO"``, ``"DEBUG"``...). The file always gets DEBUG.
        log_file: the rotating log file (1 MB x 5), or None for stderr only.
        stream: where console output goes (default ``sys.stderr``).
        redactor: an existing filter to reuse; a new one is made otherwise.

    Every record is redacted as it is made (the record factory), whichever handler gets
    it, and uncaught exceptions are logged (:func:`install_exception_hooks`).

    Returns:
        The redacting filter, so the app can register the key once it is known.
    """
    redactor = redactor or RedactingFilter()
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_sammy_handler", False):
            root.removeHandler(handler)
            handler.close()
    root.setLevel(logging.DEBUG)
    _install_record_redaction(redactor)
    fmt = RedactingFormatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s", redactor)

    console = logging.StreamHandler(stream or sys.stderr)
    console.setLevel(level if isinstance(level, int) else level.upper())
    console.setFormatter(fmt)
    console.addFilter(redactor)
    console._sammy_handler = True  # type: ignore[attr-defined]
    root.addHandler(console)

    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        file_handler = _PrivateRotatingFileHandler(
            log_file, maxBytes=1_000_000, backupCount=5, encoding="utf-8"
        )
        file_handler.setLevel(logging.DEBUG)
        file_handler.setFormatter(fmt)
        file_handler.addFilter(redactor)
        file_handler._sammy_handler = True  # type: ignore[attr-defined]
        root.addHandler(file_handler)

    # Third-party chatter stays out of the console and the file. qasync's executor logs
    # every job at DEBUG with the repr of its arguments and result (what the person said,
    # on its way to the history file), four lines a job, the speaker's start on the way to
    # an answer's first sample among them.
    for noisy in ("websockets", "httpx", "httpcore", "google_genai", "asyncio", "qasync"):
        logging.getLogger(noisy).setLevel(max(logging.INFO, root.level))
    install_exception_hooks()
    return redactor


def install_exception_hooks() -> None:
    """Log what would otherwise print a bare traceback to stderr, past the redactor.

    An uncaught exception in the main thread or in a Qt slot (PySide calls
    ``sys.excepthook`` for those), in another thread, or one Python cannot raise (in a
    ``__del__``, say) goes to the log as CRITICAL or ERROR, redacted like every record.
    """
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_uncaught_in_thread
    sys.unraisablehook = _log_unraisable


def _log_uncaught(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> None:
    _log.critical("uncaught exception", exc_info=(exc_type, exc, tb))


def _log_uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return  # how a thread ends on purpose, as the default hook treats it
    name = args.thread.name if args.thread is not None else "unknown"
    exc_info = (args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback)
    _log.error("uncaught exception in thread %s", name, exc_info=exc_info)


def _log_unraisable(args: Any) -> None:
    what = args.err_msg or "Exception ignored in"
    exc_info = (args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback)
    _log.error("%s: %r", what, args.object, exc_info=exc_info)
