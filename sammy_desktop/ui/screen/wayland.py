"""Frames on Wayland: the desktop portal's Screenshot, one at each talk press.

Wayland lets no app read the screen; the desktop's portal
(``org.freedesktop.portal.Screenshot``) takes a screenshot for it, writes it to a file and
answers with the file's URI. :class:`PortalGrabber` asks for one (not interactive) at each
frame due, reads the file and deletes it at once (Sammy never keeps a frame on disk). A
screenshot takes the portal a noticeable moment and may show the desktop's own notice, so
on Wayland frames go only at a talk press (:attr:`PortalGrabber.continuous` is False): the
``limitation`` sentence says so. Without a portal, grabbing fails with a sentence.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtGui import QImage

from sammy_desktop.ui.screen.grab import GrabFailed
from sammy_desktop.ui.screen.sources import ShareSource

__all__ = ["PRESS_ONLY", "PortalGrabber"]

PRESS_ONLY: Final = (
    "On Wayland Sammy can send a picture of your screen only when you press talk (your "
    "desktop takes it): continuous sharing is not available there."
)


class PortalGrabber:
    """Screenshots through the desktop portal, one per talk press."""

    limitation: Final = PRESS_ONLY

    @property
    def continuous(self) -> bool:
        """Only at a press: the portal's screenshot is slow and visible."""
        return False

    async def grab(self, source: ShareSource) -> QImage:
        """A screenshot of the whole desktop, through the portal."""
        raise GrabFailed("the desktop portal's screenshots are not wired yet.")

    def close(self) -> None:
        """Nothing held between screenshots."""
