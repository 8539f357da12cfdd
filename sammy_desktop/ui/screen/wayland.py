"""Frames on Wayland: the desktop portal's Screenshot, one at each talk press.

Wayland lets no app read the screen; the desktop's portal
(``org.freedesktop.portal.Screenshot``) takes a screenshot for it, writes it to a file and
answers with the file's URI. :class:`PortalGrabber` asks for one (not interactive) at each
frame due, reads the file and deletes it at once (Sammy never keeps a frame on disk; the
portal's file is gone before the frame is even encoded). A screenshot takes the portal a
noticeable moment and may show the desktop's own notice or, the first time, ask the
person, so on Wayland frames go only at a talk press (:attr:`PortalGrabber.continuous` is
False): the ``limitation`` sentence says so. Without a portal, or when the person or the
desktop declines, grabbing fails with a sentence, and sharing stops saying it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from PySide6.QtGui import QImage

from sammy_desktop.ui.portal import (
    PORTAL_NAME,
    PORTAL_PATH,
    Message,
    PortalConnection,
    PortalMissing,
    PortalRefused,
    jeepney,
    variant,
)
from sammy_desktop.ui.screen.grab import GrabFailed
from sammy_desktop.ui.screen.sources import ShareSource

__all__ = ["PRESS_ONLY", "SCREENSHOT_INTERFACE", "PortalGrabber"]

_log = logging.getLogger(__name__)

SCREENSHOT_INTERFACE: Final = "org.freedesktop.portal.Screenshot"
SCREENSHOT_TIMEOUT_S: Final = 60.0
"""How long a screenshot may take: the first may wait for the person to allow it."""

PRESS_ONLY: Final = (
    "On Wayland Sammy can send a picture of your screen only when you press talk (your "
    "desktop takes it): continuous sharing is not available there."
)
_NO_SCREENSHOTS: Final = "your desktop's portal takes no screenshots for apps."


class PortalGrabber:
    """Screenshots through the desktop portal, one per talk press.

    Args:
        bus: the session bus (``"SESSION"``) or an address.
    """

    limitation: Final = PRESS_ONLY

    def __init__(self, *, bus: str = "SESSION") -> None:
        self._bus = bus
        self._portal: PortalConnection | None = None
        self._closing: set[asyncio.Task[None]] = set()

    @property
    def continuous(self) -> bool:
        """Only at a press: the portal's screenshot is slow and visible."""
        return False

    async def grab(self, source: ShareSource) -> QImage:
        """A screenshot of the whole desktop, through the portal (the source is the screen).

        Raises:
            GrabFailed: no portal, no Screenshot there, the person or the desktop declined,
                or the picture could not be read (the end of a sentence, as
                "Screen sharing stopped: ..." says it).
        """
        try:
            portal = await self._connected()
            uri = await self._screenshot(portal)
        except PortalMissing as exc:
            self._drop()
            raise GrabFailed(exc.reason) from None
        except PortalRefused as exc:  # the person said no, or the desktop did
            raise GrabFailed(exc.reason) from None
        except (TimeoutError, EOFError, OSError, jeepney.DBusErrorResponse) as exc:
            _log.info("the portal's screenshot failed: %s", exc)
            self._drop()
            raise GrabFailed("the desktop portal did not take the screenshot.") from None
        return await asyncio.to_thread(_read_and_delete, uri)

    def close(self) -> None:
        """Close the portal connection, in the background (this is called from Qt code)."""
        if self._portal is None:
            return
        try:
            task = asyncio.get_running_loop().create_task(self.aclose())
        except RuntimeError:  # no loop: nothing is waiting on it either
            self._drop()
            return
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        """Close the portal connection and wait for it."""
        portal, self._portal = self._portal, None
        if portal is not None:
            await portal.close()

    async def _connected(self) -> PortalConnection:
        if self._portal is not None and self._portal.open:
            return self._portal
        portal = PortalConnection(bus=self._bus, name="ui-portal-screenshot")
        self._portal = portal
        await portal.connect()
        version = await portal.interface_version(SCREENSHOT_INTERFACE, missing=_NO_SCREENSHOTS)
        _log.debug("portal Screenshot version %s", version)
        return portal

    async def _screenshot(self, portal: PortalConnection) -> str:
        address = jeepney.DBusAddress(PORTAL_PATH, PORTAL_NAME, SCREENSHOT_INTERFACE)

        def take(options: dict[str, Any]) -> Message:
            options["interactive"] = ("b", False)
            return jeepney.new_method_call(address, "Screenshot", "sa{sv}", ("", options))

        results = await portal.request(take, "the screenshot", SCREENSHOT_TIMEOUT_S)
        uri = str(variant(results.get("uri", "")))
        if not uri:
            raise PortalRefused("the screenshot came without a picture.", cancelled=False)
        return uri

    def _drop(self) -> None:
        """Forget a connection that failed: the next press tries a new one."""
        portal, self._portal = self._portal, None
        if portal is not None:
            portal.abort()


def _read_and_delete(uri: str) -> QImage:
    """The picture at the portal's ``file://`` URI, its file deleted whatever happens.

    Raises:
        GrabFailed: not a local file, or not a picture.
    """
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        raise GrabFailed(f"the desktop's screenshot is not a local file ({parts.scheme}:).")
    path = Path(unquote(parts.path))
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GrabFailed(f"the desktop's screenshot could not be read ({exc.strerror}).") from None
    finally:
        with contextlib.suppress(OSError):
            path.unlink()  # never a frame left on disk, read or not
    image = QImage.fromData(data)
    if image.isNull():
        raise GrabFailed("the desktop's screenshot is not a picture Sammy can read.")
    return image
