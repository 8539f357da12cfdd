"""A window's size and position, kept in a file between runs.

Qt's ``saveGeometry`` / ``restoreGeometry`` bytes, written to one file (``window-geometry``
in the config folder). Neither a missing file nor a read-only profile is an error: the
window then simply opens at its default size, or closes without remembering.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray

if TYPE_CHECKING:
    from pathlib import Path

    from PySide6.QtWidgets import QWidget

__all__ = ["WindowGeometry"]

_log = logging.getLogger(__name__)


class WindowGeometry:
    """Restores and saves one window's geometry.

    Args:
        path: the file; None remembers nothing.
    """

    def __init__(self, path: Path | None) -> None:
        self._path = path

    def restore(self, window: QWidget) -> None:
        """Give ``window`` the size and position saved last time, if there is one."""
        if self._path is None:
            return
        try:
            data = self._path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            _log.info("window geometry not restored: %s", exc)
            return
        if not window.restoreGeometry(QByteArray(data)):
            _log.info("window geometry in %s not usable; default size", self._path)

    def save(self, window: QWidget) -> None:
        """Keep ``window``'s size and position (a hidden window has none worth keeping)."""
        if self._path is None or not window.isVisible():
            return
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._path.write_bytes(window.saveGeometry().data())
        except OSError as exc:  # a read-only profile must not stop the window closing
            _log.info("window geometry not saved: %s", exc)
