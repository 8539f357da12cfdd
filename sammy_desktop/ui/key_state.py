"""Whether a key is physically down right now, asked of the window system.

Qt marks keyboard auto-repeat with ``QKeyEvent.isAutoRepeat()``, but on X servers without
detectable auto-repeat (and on busy machines, where Qt's look-ahead misses the paired
press) a held key arrives as a stream of unmarked release/press pairs. For push-to-talk
each of those would end the turn and start a new one: "a key that fires twice"
(shared/USERS.md #12). On X11 the server knows better: :class:`X11KeyState` asks it
(``QueryKeymap``, one round trip, well under a millisecond) whether the key of a release
event is in fact still held, so a real release is acted on at once and a repeat is not.
Other platforms (Wayland, Windows, macOS) mark repeats reliably and need no second opinion.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Protocol

__all__ = ["KeyState", "X11KeyState", "key_state_for_platform"]

_log = logging.getLogger(__name__)


class KeyState(Protocol):
    """Asks whether a key is down, by the native key code of its event."""

    def is_down(self, native_scan_code: int) -> bool:
        """True when the key is still physically held."""
        ...

    def close(self) -> None:
        """Release the connection to the window system."""
        ...


class X11KeyState:
    """Key state from the X server, on a connection of its own.

    Args:
        display_name: the X display (default: ``$DISPLAY``).

    Raises:
        OSError: python-xlib is missing or the display cannot be opened.
    """

    def __init__(self, display_name: str | None = None) -> None:
        try:
            from Xlib import display as xdisplay  # type: ignore[import-untyped]
            from Xlib.error import DisplayError  # type: ignore[import-untyped]
        except ImportError as exc:
            raise OSError(f"python-xlib is not installed ({exc})") from None
        try:
            self._display: Any = xdisplay.Display(display_name)
        except (DisplayError, OSError) as exc:
            raise OSError(f"cannot open the X display {display_name or ''}: {exc}") from None

    def is_down(self, native_scan_code: int) -> bool:
        """Whether the X key code ``native_scan_code`` is held (Qt's xcb scan code)."""
        if not 8 <= native_scan_code <= 255:
            return False
        keymap = self._display.query_keymap()
        return bool(keymap[native_scan_code // 8] & (1 << (native_scan_code % 8)))

    def close(self) -> None:
        """Close the X connection."""
        self._display.close()


def key_state_for_platform(platform_name: str) -> KeyState | None:
    """The key-state source for Qt's platform plugin, or None where none is needed."""
    if platform_name != "xcb":
        return None
    try:
        return X11KeyState(os.environ.get("DISPLAY"))
    except OSError as exc:
        _log.info("no X key state (auto-repeat detection falls back to Qt's): %s", exc)
        return None
