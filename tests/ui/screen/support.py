"""Helpers for the screen-sharing tests: a picture, a fake clock, timer and grabber."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter

from sammy_desktop.ui.screen.grab import GrabFailed
from sammy_desktop.ui.screen.sources import ShareSource

QUADRANTS = (QColor(220, 30, 30), QColor(30, 200, 40), QColor(30, 60, 220), QColor(240, 220, 30))
"""Top left red, top right green, bottom left blue, bottom right yellow."""

SCREEN = ShareSource("screen", "fake-screen", "Whole screen (640x480)", (0, 0, 640, 480))


def quadrants(width: int, height: int, colours: tuple[QColor, ...] = QUADRANTS) -> QImage:
    """An image in four coloured quadrants."""
    image = QImage(width, height, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    half_w, half_h = width // 2, height // 2
    rects = (
        QRect(0, 0, half_w, half_h),
        QRect(half_w, 0, width - half_w, half_h),
        QRect(0, half_h, half_w, height - half_h),
        QRect(half_w, half_h, width - half_w, height - half_h),
    )
    for rect, colour in zip(rects, colours, strict=True):
        painter.fillRect(rect, colour)
    painter.end()
    return image


def close_to(actual: QColor, expected: QColor, tolerance: int = 40) -> bool:
    """Whether two colours match within ``tolerance`` per channel (JPEG shifts them)."""
    return all(
        abs(a - b) <= tolerance
        for a, b in zip(
            (actual.red(), actual.green(), actual.blue()),
            (expected.red(), expected.green(), expected.blue()),
            strict=True,
        )
    )


def quadrant_colours(image: QImage) -> tuple[QColor, ...]:
    """The colours at the middle of each quadrant of ``image``."""
    w, h = image.width(), image.height()
    return tuple(
        image.pixelColor(x, y)
        for x, y in (
            (w // 4, h // 4),
            (3 * w // 4, h // 4),
            (w // 4, 3 * h // 4),
            (3 * w // 4, 3 * h // 4),
        )
    )


def shows_quadrants(image: QImage, colours: tuple[QColor, ...] = QUADRANTS) -> bool:
    """Whether ``image`` shows the four quadrants' colours."""
    return all(close_to(a, e) for a, e in zip(quadrant_colours(image), colours, strict=True))


class FakeClock:
    """Monotonic seconds the test moves on."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeTimer:
    """A single-shot timer the test fires; records each start's delay."""

    callback: Callable[[], None]
    clock: FakeClock
    delay_s: float | None = None
    due_at: float | None = None
    starts: list[float] = field(default_factory=list)

    def start(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.due_at = self.clock.now + delay_s
        self.starts.append(delay_s)

    def stop(self) -> None:
        self.delay_s = self.due_at = None

    def fire(self) -> None:
        self.delay_s = self.due_at = None
        self.callback()


class FakeGrabber:
    """Hands out ``image``; raises ``error`` instead when set."""

    def __init__(self, image: QImage, *, continuous: bool = True) -> None:
        self.image = image
        self.error: GrabFailed | None = None
        self.grabs = 0
        self.closed = False
        self._continuous = continuous

    @property
    def continuous(self) -> bool:
        return self._continuous

    async def grab(self, source: ShareSource) -> QImage:
        self.grabs += 1
        if self.error is not None:
            raise self.error
        return self.image.copy()

    def close(self) -> None:
        self.closed = True
