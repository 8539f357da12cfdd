"""Whether the screen changed: a small grayscale thumbnail compared with the last one sent.

A frame that looks like the last one sent is not sent again. :func:`thumbnail` shrinks a
frame to :data:`THUMB_SIZE` pixels a side in grayscale (about a millisecond, on the worker
thread with the encoding); :func:`changed` compares two of them: a change is any thumbnail
pixel that moved by more than :data:`PIXEL_THRESHOLD` levels, which a typed word in a
terminal does and the JPEG-free grab's steady pixels never do.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from PySide6.QtGui import QImage

from sammy_desktop.ui.screen.scaling import shrink_to

__all__ = ["PIXEL_THRESHOLD", "THUMB_SIZE", "changed", "thumbnail"]

THUMB_SIZE: Final = 32
PIXEL_THRESHOLD: Final = 6
"""How many gray levels (of 255) a thumbnail pixel must move to count as a change."""


def thumbnail(image: QImage) -> bytes:
    """``image`` as THUMB_SIZE x THUMB_SIZE gray levels, row by row (safe off the Qt thread)."""
    small = shrink_to(image, THUMB_SIZE, THUMB_SIZE).convertToFormat(
        QImage.Format.Format_Grayscale8
    )
    rows = []
    line = small.bytesPerLine()
    data = bytes(small.constBits())
    for y in range(small.height()):
        rows.append(data[y * line : y * line + small.width()])
    return b"".join(rows)


def changed(previous: bytes | None, current: bytes, threshold: int = PIXEL_THRESHOLD) -> bool:
    """Whether ``current`` differs from ``previous`` (always True without a previous one)."""
    if previous is None or len(previous) != len(current):
        return True
    before = np.frombuffer(previous, dtype=np.uint8).astype(np.int16)
    after = np.frombuffer(current, dtype=np.uint8).astype(np.int16)
    return bool(np.any(np.abs(after - before) > threshold))
