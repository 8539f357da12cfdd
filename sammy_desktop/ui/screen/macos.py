"""macOS's Screen Recording permission, asked through CoreGraphics with ctypes.

Without the permission a grab on macOS returns only the wallpaper, with no error; so before
sharing, :func:`capture_refusal` asks ``CGPreflightScreenCaptureAccess`` (macOS 10.15 and
later) whether Sammy may record the screen, and when not asks for it once
(``CGRequestScreenCaptureAccess``, which adds Sammy to the list in System Settings) and says
how to switch it on. Where the functions are missing (older macOS, another OS) nothing is
refused.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from typing import Final

__all__ = ["PERMISSION_NEEDED", "capture_refusal", "screen_capture_allowed"]

_log = logging.getLogger(__name__)

PERMISSION_NEEDED: Final = (
    "macOS lets Sammy see only your wallpaper until you allow it: open System Settings > "
    "Privacy & Security > Screen & System Audio Recording, switch Sammy on, then quit and "
    "reopen Sammy."
)

_asked = False


def screen_capture_allowed() -> bool | None:
    """Whether macOS lets this app record the screen; None when it cannot be asked."""
    path = ctypes.util.find_library("CoreGraphics") or ctypes.util.find_library(
        "ApplicationServices"
    )
    if not path:
        return None
    try:
        graphics = ctypes.CDLL(path)
        preflight = graphics.CGPreflightScreenCaptureAccess
    except (OSError, AttributeError) as exc:
        _log.info("cannot ask macOS for the screen recording permission: %s", exc)
        return None
    preflight.restype = ctypes.c_bool
    preflight.argtypes = []
    allowed = bool(preflight())
    global _asked
    if not allowed and not _asked:
        _asked = True
        request = getattr(graphics, "CGRequestScreenCaptureAccess", None)
        if request is not None:
            request.restype = ctypes.c_bool
            request.argtypes = []
            request()
    return allowed


def capture_refusal() -> str:
    """The sentence saying how to allow screen recording, or "" when it is allowed."""
    return PERMISSION_NEEDED if screen_capture_allowed() is False else ""
