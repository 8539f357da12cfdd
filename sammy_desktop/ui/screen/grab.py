"""Taking a frame of a screen or a window, on the Qt thread.

:class:`Grabber` is what :class:`~.share.ScreenShare` asks for a frame. :class:`QtGrabber`
grabs through Qt (X11, Windows, macOS): a screen with ``QScreen.grabWindow(0)``, an X11
window by its id, each turned into a QImage at once (a QPixmap must not leave the Qt thread).
Before grabbing a window it asks the X server whether the window still exists: a closed
window ends the sharing with :class:`SourceGone`. The Wayland grabber (the desktop portal's
Screenshot) is in :mod:`.wayland`.

Sammy's own windows are blanked out of a screen's picture (:func:`blank_out`): the model
has no use for its own transcript, and Sammy's window changes whenever it listens (the
level ring) or speaks, which would make every grab a change, sent, at a frame a second.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter

from sammy_desktop.ui.screen.sources import ShareSource, x11_window_exists

__all__ = [
    "BLANK",
    "FrameUnavailable",
    "GrabFailed",
    "Grabber",
    "QtGrabber",
    "SourceGone",
    "blank_out",
    "this_apps_windows",
]

_log = logging.getLogger(__name__)


BLANK: Final = QColor(40, 40, 40)
"""What Sammy's own windows look like in a shared screen's picture."""


def blank_out(
    image: QImage, screen: QRect, windows: Sequence[QRect], pixel_ratio: float = 1.0
) -> QImage:
    """``image`` (a grab of ``screen``) with the parts ``windows`` cover painted :data:`BLANK`.

    Args:
        image: the screen's picture, in device pixels.
        screen: the screen's geometry in global (logical) coordinates.
        windows: the areas to blank, in global (logical) coordinates.
        pixel_ratio: the screen's device pixel ratio.
    """
    parts = [window.intersected(screen) for window in windows]
    parts = [part for part in parts if not part.isEmpty()]
    if not parts:
        return image
    blanked = image.copy()
    painter = QPainter(blanked)
    for part in parts:
        local = part.translated(-screen.topLeft())
        painter.fillRect(
            QRect(
                round(local.x() * pixel_ratio),
                round(local.y() * pixel_ratio),
                round(local.width() * pixel_ratio),
                round(local.height() * pixel_ratio),
            ),
            BLANK,
        )
    painter.end()
    return blanked


def this_apps_windows() -> list[QRect]:
    """Where this process's visible windows are (global coordinates): in the app, Sammy's."""
    return [
        window.frameGeometry() for window in QGuiApplication.topLevelWindows() if window.isVisible()
    ]


class GrabFailed(Exception):
    """No frame can be taken from the source: sharing stops, saying this sentence."""


class SourceGone(GrabFailed):
    """The window closed, or the screen was unplugged: sharing stops, saying so."""


class FrameUnavailable(Exception):
    """No frame this time (a minimized window); the next may work."""


class Grabber(Protocol):
    """Takes frames of a source, on the Qt thread (under qasync the loop's thread)."""

    @property
    def continuous(self) -> bool:
        """Whether frames can be taken at any time (False: only at a talk press)."""
        ...

    async def grab(self, source: ShareSource) -> QImage:
        """One frame of ``source``.

        Raises:
            SourceGone: the source no longer exists.
            GrabFailed: frames cannot be taken (the sentence says why).
            FrameUnavailable: no frame this time.
        """
        ...

    def close(self) -> None:
        """Release what the grabber holds (a display connection)."""
        ...


class QtGrabber:
    """Frames through Qt's own screen grab; windows by X11 id on xcb.

    Args:
        own_windows: the areas of Sammy's own visible windows (global coordinates), blanked
            out of a screen's picture; none by default.
    """

    def __init__(self, own_windows: Callable[[], Sequence[QRect]] = tuple) -> None:
        self._own_windows = own_windows
        self._display: Any = None

    @property
    def continuous(self) -> bool:
        """Qt grabs whenever asked."""
        return True

    async def grab(self, source: ShareSource) -> QImage:
        """Grab ``source`` now, on this (the Qt) thread; nothing is awaited."""
        if source.kind == "screen":
            return self._grab_screen(source)
        return self._grab_window(source)

    def _grab_screen(self, source: ShareSource) -> QImage:
        screen = next((s for s in QGuiApplication.screens() if s.name() == source.id), None)
        if screen is None:
            raise SourceGone(f"the screen {source.title} is no longer connected.")
        image = screen.grabWindow(0).toImage()
        if image.isNull():
            raise GrabFailed("the screen could not be captured.")
        return blank_out(image, screen.geometry(), self._own_windows(), screen.devicePixelRatio())

    def _grab_window(self, source: ShareSource) -> QImage:
        display = self._x_display()
        if display is not None and not x11_window_exists(source.window_id, display):
            raise SourceGone(f"the window \u201c{source.title}\u201d closed.")
        screen = QGuiApplication.primaryScreen()
        if screen is None:
            raise GrabFailed("there is no screen to capture from.")
        image = screen.grabWindow(source.window_id).toImage()
        if image.isNull():
            raise FrameUnavailable(f"window {source.id} gave no picture (minimized?)")
        return image

    def _x_display(self) -> Any:
        if self._display is None and QGuiApplication.platformName() == "xcb":
            try:
                from Xlib import display as xdisplay  # type: ignore[import-untyped]

                self._display = xdisplay.Display(os.environ.get("DISPLAY"))
            except Exception as exc:  # noqa: BLE001 - without Xlib, a closed window grabs empty
                _log.info("no X connection to watch the shared window: %s", exc)
                self._display = False
        return self._display or None

    def close(self) -> None:
        """Close the X connection, if one was opened."""
        if self._display:
            self._display.close()
        self._display = None
