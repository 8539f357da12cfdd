"""Handing URLs and folders to the desktop: the tool layer's UrlOpener, and folders.

``QDesktopServices.openUrl`` hands the URL to the desktop (a browser for https:, the mail
program for mailto:). :class:`QtUrlOpener`, the tool layer's
:class:`~sammy_desktop.tools.context.UrlOpener`, opens only those schemes: a tool must not
be able to start arbitrary handlers (file:, custom schemes) through this port.
:func:`open_folder_on_desktop` is for the person's own clicks (a log folder, an escalation
record), never for a tool.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Final

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

__all__ = ["QtUrlOpener", "open_folder_on_desktop"]

_log = logging.getLogger(__name__)

ALLOWED_SCHEMES: Final = frozenset({"https", "http", "mailto"})


def open_folder_on_desktop(folder: Path) -> bool:
    """Show ``folder`` in the desktop's file manager; False when the desktop refused."""
    return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))


class QtUrlOpener:
    """Opens https:, http: and mailto: URLs in the person's default applications.

    Args:
        open_url: the function that opens a QUrl; ``QDesktopServices.openUrl`` by default
            (tests pass a recorder, so no browser starts).
    """

    def __init__(self, open_url: Callable[[QUrl], bool] | None = None) -> None:
        self._open_url = open_url or QDesktopServices.openUrl

    async def open_url(self, url: str) -> bool:
        """Open ``url``; False when its scheme is not allowed or the desktop refused it."""
        qurl = QUrl(url.strip(), QUrl.ParsingMode.StrictMode)
        if not qurl.isValid() or qurl.scheme().lower() not in ALLOWED_SCHEMES:
            _log.warning("refused to open a URL with scheme %r", qurl.scheme())
            return False
        opened = bool(self._open_url(qurl))
        if not opened:
            _log.warning("the desktop could not open a %s: URL", qurl.scheme())
        return opened
