"""Sharing a screen or a window with the assistant (issue 20): the capture engine.

:class:`ScreenShare` (:mod:`.share`) is the controller the window, the tray and the
shortcut drive; :func:`list_sources` (:mod:`.sources`) what can be shared. The parts, one
job each: :mod:`.policy` (when a frame is due), :mod:`.grab` (taking it, on the Qt thread),
:mod:`.change` (whether it changed), :mod:`.encode` (scaling and JPEG, on a worker),
:mod:`.wayland` (the desktop portal's Screenshot), :mod:`.macos` (the Screen Recording
permission).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sammy_desktop.lazy import lazy_attributes

if TYPE_CHECKING:
    from sammy_desktop.ui.screen.share import ScreenShare
    from sammy_desktop.ui.screen.sources import ShareSource, list_sources

__all__ = ["ScreenShare", "ShareSource", "list_sources"]

__getattr__ = lazy_attributes(
    __name__,
    {
        "ScreenShare": "sammy_desktop.ui.screen.share",
        "ShareSource": "sammy_desktop.ui.screen.sources",
        "list_sources": "sammy_desktop.ui.screen.sources",
    },
)
