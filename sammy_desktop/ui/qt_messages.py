"""Qt's own messages (qDebug, qWarning, qCritical...) into the app's log, past its redactor.

Without a handler Qt writes them straight to stderr, where neither the log file nor the
redaction of keys (``app_logging``) sees them. :func:`install_qt_message_handler` routes
each one to a logger named after Qt's category (``qt.qpa.xcb``; ``qt`` when it has none), at
the matching level.
"""

from __future__ import annotations

import logging
from typing import Final

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

__all__ = ["install_qt_message_handler"]

_LEVELS: Final = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}


def _to_logging(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    category = context.category or ""
    if category in ("", "default"):
        name = "qt"
    else:
        name = category if category.startswith("qt") else f"qt.{category}"
    logging.getLogger(name).log(_LEVELS.get(kind, logging.WARNING), "%s", message)


def install_qt_message_handler() -> None:
    """Send every Qt message to the log from now on (call before the QApplication exists)."""
    qInstallMessageHandler(_to_logging)
