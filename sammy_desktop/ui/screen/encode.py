"""A grabbed frame made ready to send: scaled to the long edge, JPEG-encoded, on a worker.

:func:`encode_frame` runs on a worker thread (``asyncio.to_thread``): QImage scaling and
saving into a QBuffer are safe there (a QPixmap is not, so the grab becomes a QImage on the
Qt thread first). It computes the change thumbnail first and stops there when the frame
looks like the last one sent. The bytes live in memory only: nothing is written to disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QImage

from sammy_desktop.ui.screen.change import changed, thumbnail
from sammy_desktop.ui.screen.scaling import shrink_to

__all__ = ["JPEG_QUALITY", "PREVIEW_EDGE", "Encoded", "encode_frame", "encode_jpeg", "scaled_to"]

JPEG_QUALITY: Final = 85
PREVIEW_EDGE: Final = 160
"""The long edge of the thumbnail the window shows of the frame sent."""


@dataclass(frozen=True, slots=True)
class Encoded:
    """A frame ready to send.

    Attributes:
        jpeg: the JPEG bytes.
        width: the frame's width in pixels (after scaling).
        height: its height.
        thumbnail: its change thumbnail (:func:`~.change.thumbnail`).
        preview: a small copy for the window (long edge :data:`PREVIEW_EDGE`).
    """

    jpeg: bytes = field(repr=False)  # never the bytes in a log line
    width: int
    height: int
    thumbnail: bytes = field(repr=False)
    preview: QImage = field(repr=False)


def scaled_to(image: QImage, long_edge: int) -> QImage:
    """``image`` with its long edge at most ``long_edge`` (never enlarged)."""
    width, height = image.width(), image.height()
    if max(width, height) <= long_edge:
        return image
    if width >= height:
        return shrink_to(image, long_edge, max(1, round(height * long_edge / width)))
    return shrink_to(image, max(1, round(width * long_edge / height)), long_edge)


def encode_jpeg(image: QImage, quality: int = JPEG_QUALITY) -> bytes:
    """``image`` as JPEG bytes, in memory.

    Raises:
        ValueError: Qt could not encode it (an empty image, no JPEG plugin).
    """
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    ok = image.save(buffer, "JPEG", quality)  # type: ignore[call-overload]  # str at run time
    buffer.close()
    if not ok or data.isEmpty():
        raise ValueError("Qt could not encode the frame as JPEG")
    return bytes(data.data())


def encode_frame(image: QImage, long_edge: int, previous: bytes | None) -> Encoded | None:
    """Scale and encode ``image``; None when it looks like ``previous`` (the last thumbnail).

    Raises:
        ValueError: the frame could not be encoded.
    """
    thumb = thumbnail(image)
    if not changed(previous, thumb):
        return None
    frame = scaled_to(image, long_edge)
    if frame.format() not in (QImage.Format.Format_RGB32, QImage.Format.Format_RGB888):
        frame = frame.convertToFormat(QImage.Format.Format_RGB32)
    preview = scaled_to(frame, PREVIEW_EDGE).copy()
    return Encoded(encode_jpeg(frame), frame.width(), frame.height(), thumb, preview)
