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
import re
import sys
from pathlib import Path
from typing import Final, TextIO

__all__ = ["REDACTED", "RedactingFilter", "configure_logging"]

REDACTED: Final = "[REDACTED]"

_KEY_SHAPES: Final = (
    re.compile(r"AIza[0-9A-Za-z_\-]{30,}"),
    re.compile(r"(?i)(x-goog-api-key[\"']?\s*[:=]\s*[\"']?)([^\s\"',;}]+)"),
    re.compile(r"(?i)([?&]key=)([^&\s\"']+)"),
    re.compile(r"(?i)(api[_-]?key[\"']?\s*[:=]\s*[\"']?)([^\s\"',;}]{8,})"),
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
        message = record.getMessage()
        redacted = self.redact(message)
        if redacted != message:
            record.msg = redacted
            record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        return True


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
    fmt = logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s")

    console = logging.StreamHandler(stream or sys.stderr)
    console.setLevel(level if isinstance(level, int) else level.upper())
    console.setFormatter(fmt)
    console.addFilter(redactor)
    console._sammy_handler = True  # type: ignore[attr-defined]
    root.addHandler(console)

    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        file_handler = logging.handlers.RotatingFileHandler(
            log_file, maxBytes=1_000_000, backupCount=5, encoding="utf-8"
        )
        file_handler.setLevel(logging.DEBUG)
        file_handler.setFormatter(fmt)
        file_handler.addFilter(redactor)
        file_handler._sammy_handler = True  # type: ignore[attr-defined]
        root.addHandler(file_handler)

    # Third-party chatter stays out of the console unless asked for.
    for noisy in ("websockets", "httpx", "httpcore", "google_genai", "asyncio"):
        logging.getLogger(noisy).setLevel(max(logging.INFO, root.level))
    return redactor
