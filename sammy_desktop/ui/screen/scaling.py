"""Shrinking a frame off the Qt thread without holding Python's lock.

``QImage.scaled`` keeps the GIL for its whole run (about 10 ms for a 1280x1024 frame on a
slow machine), which a worker thread then steals from the asyncio loop on the Qt thread.
QPainter's drawing lets it go. :func:`shrink_to` halves with QPainter while the image is
more than twice the size wanted (a bilinear halving is a 2x2 box average, so small text
does not alias) and takes the last step bilinearly: a few milliseconds, nearly all of them
without the GIL.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

__all__ = ["shrink_to"]


def _drawn(image: QImage, width: int, height: int) -> QImage:
    out = QImage(width, height, QImage.Format.Format_RGB32)
    painter = QPainter(out)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    painter.drawImage(QRectF(0, 0, width, height), image)
    painter.end()
    return out


def shrink_to(image: QImage, width: int, height: int) -> QImage:
    """``image`` drawn at ``width`` x ``height`` (smaller or equal), as RGB32."""
    current = image
    while current.width() > 2 * width and current.height() > 2 * height:
        current = _drawn(current, (current.width() + 1) // 2, (current.height() + 1) // 2)
    return _drawn(current, width, height)
