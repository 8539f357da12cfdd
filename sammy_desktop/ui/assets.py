"""Finding and loading the files under ``resources/``: icons, the stylesheet, sounds.

Icons are single-colour SVGs drawn with ``currentColor``; :meth:`Assets.icon` renders one
in the colour the current theme asks for, so one file serves both themes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

__all__ = ["AssetMissingError", "Assets", "default_resources_dir"]


class AssetMissingError(FileNotFoundError):
    """A file the UI needs is not in the resources folder (a broken install)."""


def default_resources_dir() -> Path:
    """Where ``resources/`` is: beside the package in a checkout, or in a frozen bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parents[2] / "resources"


class Assets:
    """Read-only access to the resources folder.

    Args:
        root: the ``resources`` folder; :func:`default_resources_dir` by default.
    """

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else default_resources_dir()
        # Icons are re-rendered on every theme change and many cards share them.
        self._pixmaps: dict[tuple[str, str, int, int], QPixmap] = {}

    def path(self, relative: str) -> Path:
        """The path of ``relative`` under the resources folder.

        Raises:
            AssetMissingError: the file does not exist.
        """
        path = self.root / relative
        if not path.is_file():
            raise AssetMissingError(f"resource file missing: {path} (reinstall the app)")
        return path

    def stylesheet_template(self) -> str:
        """The stylesheet with its ``${name}`` palette placeholders."""
        return self.path("style/app.qss").read_text(encoding="utf-8")

    def sound(self, name: str) -> Path:
        """The WAV file of the sound ``name`` (``listen_start``, ``listen_stop``...)."""
        return self.path(f"sounds/{name}.wav")

    def icon(self, name: str, color: str, size: int = 24) -> QIcon:
        """The SVG icon ``name`` drawn in ``color`` (any form QColor accepts)."""
        return QIcon(self.pixmap(name, color, size))

    def pixmap(self, name: str, color: str, size: int = 24) -> QPixmap:
        """The SVG icon ``name`` drawn in ``color`` at ``size`` px (at 2x for sharpness)."""
        return self._cached(f"icons/{name}.svg", QColor(color).name(), size, 2)

    def app_icon(self, variant: str = "app") -> QIcon:
        """The app icon (``app``) or a tray variant (``tray-listening``...), multi-size."""
        icon = QIcon()
        for size in (16, 24, 32, 48, 64, 128, 256):
            icon.addPixmap(self._cached(f"icons/{variant}.svg", "", size, 1))
        return icon

    def _cached(self, relative: str, color: str, size: int, scale: int) -> QPixmap:
        key = (relative, color, size, scale)
        pixmap = self._pixmaps.get(key)
        if pixmap is None:
            pixmap = _render(self.path(relative), color, size, scale)
            self._pixmaps[key] = pixmap
        return pixmap


def _render(svg_path: Path, color: str, size: int, scale: int) -> QPixmap:
    data = svg_path.read_bytes()
    if color:
        data = data.replace(b"currentColor", color.encode("ascii"))
    renderer = QSvgRenderer(QByteArray(data))
    pixmap = QPixmap(QSize(size * scale, size * scale))
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size * scale, size * scale))
    painter.end()
    pixmap.setDevicePixelRatio(scale)
    return pixmap
