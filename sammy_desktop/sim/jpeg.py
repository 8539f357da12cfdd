"""A JPEG's dimensions, read from its header (standard library only).

The simulator records each video frame a client sends (docs/live-service.md S6) with the size
of the picture, which the JPEG says in its start-of-frame segment: after the SOI marker
(``FF D8``) come segments ``FF xx`` with a two-byte big-endian length; a SOF segment
(``FF C0`` baseline, ``C1`` extended, ``C2`` progressive, and the rarer ``C3``, ``C5``-``C7``,
``C9``-``CB``, ``CD``-``CF``) holds the precision (one byte), the height and the width (two
bytes each). ``C4`` (Huffman tables), ``C8`` (reserved) and ``CC`` (arithmetic coding) share
the range but are not frames. Nothing is decoded: only the header is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["JpegSize", "jpeg_size"]

_SOI: Final = b"\xff\xd8"
_NOT_FRAMES: Final = frozenset({0xC4, 0xC8, 0xCC})
_STANDALONE: Final = frozenset({0x01, *range(0xD0, 0xD8)})  # TEM, RSTn: no length
_SOS: Final = 0xDA
_EOI: Final = 0xD9


@dataclass(frozen=True, slots=True)
class JpegSize:
    """What a JPEG's start-of-frame says.

    Attributes:
        width: pixels across.
        height: pixels down.
        marker: the SOF marker's second byte (``0xC0`` baseline, ``0xC2`` progressive...).
    """

    width: int
    height: int
    marker: int

    @property
    def progressive(self) -> bool:
        """Whether the picture is progressive (SOF2, SOF6, SOF10, SOF14)."""
        return self.marker in (0xC2, 0xC6, 0xCA, 0xCE)


def _is_frame_marker(marker: int) -> bool:
    return 0xC0 <= marker <= 0xCF and marker not in _NOT_FRAMES


def jpeg_size(data: bytes) -> JpegSize | None:
    """The dimensions in ``data``'s JPEG header, or None when it is not a JPEG.

    None too for a JPEG cut before its start-of-frame, or one whose frame says 0 x 0.
    """
    if not data.startswith(_SOI):
        return None
    position = len(_SOI)
    end = len(data)
    while position + 1 < end:
        if data[position] != 0xFF:
            return None  # every segment starts with a marker
        marker = data[position + 1]
        if marker == 0xFF:
            position += 1  # fill bytes before a marker
            continue
        position += 2
        if marker in _STANDALONE:
            continue
        if marker in (_SOS, _EOI):
            return None  # the image data began (or ended) with no frame header before it
        if position + 2 > end:
            return None
        length = int.from_bytes(data[position : position + 2], "big")
        if length < 2:
            return None
        if _is_frame_marker(marker):
            if length < 7 or position + 7 > end:
                return None
            height = int.from_bytes(data[position + 3 : position + 5], "big")
            width = int.from_bytes(data[position + 5 : position + 7], "big")
            if width == 0 or height == 0:
                return None
            return JpegSize(width=width, height=height, marker=marker)
        position += length
    return None
