"""A widget saved as a PNG for a person to look at, checked not to be blank."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget


def save_screenshot(widget: QWidget, folder: Path, name: str) -> Path:
    """Grab ``widget`` into ``folder/screenshots/name``; fail if the picture is blank."""
    path = folder / "screenshots" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(path))
    image = QImage(str(path))
    assert image.width() >= 100 and image.height() >= 40
    colors = {
        image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
    }
    assert len(colors) > 5, "the screenshot is blank"
    return path
