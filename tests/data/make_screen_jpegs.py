"""Writes the two JPEG files the core's and the simulator's screen tests read (run once).

``screen_1024x640.jpg`` is a baseline JPEG (SOF0) the size of a 1024 px screenshot of a
16:10 screen; ``screen_300x200_progressive.jpg`` a progressive one (SOF2). Qt writes them
here so that the tests, which must not import Qt, read real encoder output:

    .venv/bin/python tests/data/make_screen_jpegs.py
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QImageWriter, QPainter

HERE = Path(__file__).resolve().parent


def _picture(width: int, height: int) -> QImage:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#f4f4f6"))
    painter = QPainter(image)
    painter.fillRect(0, 0, width, height // 12, QColor("#2d3a4a"))
    painter.setPen(QColor("#1b1b1f"))
    painter.drawText(image.rect(), Qt.AlignmentFlag.AlignCenter, "Sammy test screen")
    painter.end()
    return image


def _write(image: QImage, name: str, *, progressive: bool) -> None:
    writer = QImageWriter(str(HERE / name), b"jpeg")
    writer.setQuality(70)
    writer.setProgressiveScanWrite(progressive)
    if not writer.write(image):
        raise SystemExit(f"{name}: {writer.errorString()}")


def main() -> None:
    app = QGuiApplication([])
    _write(_picture(1024, 640), "screen_1024x640.jpg", progressive=False)
    _write(_picture(300, 200), "screen_300x200_progressive.jpg", progressive=True)
    del app


if __name__ == "__main__":
    main()
