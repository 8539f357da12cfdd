"""The real ScreenShare for the window's tests, on a grabber, a clock and a timer the test
holds: frames are painted pictures, time moves when the test says, and a frame is taken
when the test fires the timer (never by waiting for one)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QImage, QLinearGradient, QPainter

from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.screen.grab import GrabFailed
from sammy_desktop.ui.screen.share import ScreenShare
from sammy_desktop.ui.screen.sources import ShareSource
from sammy_desktop.ui.settings_state import SettingsState

from .conftest import FakeAgent

SCREEN_1 = ShareSource("screen", "DP-1", "Screen 1 (1920x1080)", (0, 0, 1920, 1080))
SCREEN_2 = ShareSource("screen", "HDMI-1", "Screen 2 (2560x1440)", (1920, 0, 2560, 1440))
EDITOR = ShareSource("window", "4194305", "notes.md - Editor")
BROWSER = ShareSource("window", "4194306", "Python docs - Browser")
EVERYTHING = [SCREEN_1, SCREEN_2, EDITOR, BROWSER]


def desktop_picture(number: int, width: int = 1920, height: int = 1080) -> QImage:
    """A made-up desktop: a window with a title bar and some lines, different each time."""
    image = QImage(width, height, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    gradient = QLinearGradient(QPointF(0, 0), QPointF(width, height))
    gradient.setColorAt(0, QColor("#2b5876"))
    gradient.setColorAt(1, QColor("#4e4376"))
    painter.fillRect(image.rect(), gradient)
    window = QRectF(width * 0.12, height * 0.12, width * 0.62, height * 0.7)
    painter.fillRect(window, QColor("#fafafa"))
    painter.fillRect(QRectF(window.x(), window.y(), window.width(), height * 0.06), QColor("#ddd"))
    painter.setPen(QColor("#333"))
    font = QFont()
    font.setPixelSize(int(height * 0.04))
    painter.setFont(font)
    for line in range(6):
        y = window.y() + height * (0.12 + 0.08 * line)
        painter.drawText(QPointF(window.x() + width * 0.03, y), f"Line {line + 1} of note {number}")
    painter.fillRect(
        QRectF(width * 0.78, height * 0.2 + number * 40 % 400, width * 0.15, height * 0.3),
        QColor("#f2c94c"),
    )
    painter.end()
    return image


@dataclass
class FakeGrabber:
    """Frames the test paints; ``fail`` makes the next grab end the sharing with it."""

    continuous: bool = True
    grabbed: list[ShareSource] = field(default_factory=list)
    fail: str = ""
    closed: bool = False

    async def grab(self, source: ShareSource) -> QImage:
        self.grabbed.append(source)
        if self.fail:
            raise GrabFailed(self.fail)
        return desktop_picture(len(self.grabbed))

    def close(self) -> None:
        self.closed = True


class ManualTimer:
    """The frame timer: remembers that a frame is due; the test fires it."""

    def __init__(self, callback: Callable[[], None]) -> None:
        self._callback = callback
        self.pending: float | None = None

    def start(self, delay_s: float) -> None:
        self.pending = delay_s

    def stop(self) -> None:
        self.pending = None

    def fire(self) -> None:
        assert self.pending is not None, "no frame is due"
        self.pending = None
        self._callback()


@dataclass
class ManualClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class ShareRig:
    """A real ScreenShare and the parts a test drives it through."""

    share: ScreenShare
    grabber: FakeGrabber
    clock: ManualClock
    timers: list[ManualTimer]
    sources: list[ShareSource]

    @property
    def timer(self) -> ManualTimer:
        return self.timers[0]

    def list_sources(self) -> Sequence[ShareSource]:
        return list(self.sources)


def make_rig(
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
    *,
    sources: Sequence[ShareSource] = tuple(EVERYTHING),
    bridge: EventBridge | None = None,
    capture_allowed: Callable[[], str] | None = None,
) -> ShareRig:
    grabber = FakeGrabber()
    clock = ManualClock()
    timers: list[ManualTimer] = []

    def timer(callback: Callable[[], None]) -> ManualTimer:
        made = ManualTimer(callback)
        timers.append(made)
        return made

    share = ScreenShare(
        agent,
        settings_state,
        tasks,
        grabber=grabber,
        clock=clock,
        timer=timer,
        bridge=bridge,
        capture_allowed=capture_allowed or (lambda: ""),
    )
    return ShareRig(share, grabber, clock, timers, list(sources))


__all__ = [
    "BROWSER",
    "EDITOR",
    "EVERYTHING",
    "SCREEN_1",
    "SCREEN_2",
    "FakeGrabber",
    "ManualClock",
    "ManualTimer",
    "ShareRig",
    "desktop_picture",
    "make_rig",
]
