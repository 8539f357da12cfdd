"""The tool layer's :class:`~sammy_desktop.tools.context.UrlOpener`, done with Qt.

``QDesktopServices.openUrl`` hands the URL to the desktop (a browser for https:, the mail
program for mailto:). Only those schemes are opened: a tool must not be able to start
arbitrary handlers (file:, custom schemes) through this port.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

__all__ = ["QtUrlOpener"]

_log = logging.getLogger(__name__)

ALLOWED_SCHEMES: Final = frozenset({"https", "http", "mailto"})


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
