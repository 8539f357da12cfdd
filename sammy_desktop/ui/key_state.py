"""Whether a key is physically down right now, asked of the window system.

Qt marks keyboard auto-repeat with ``QKeyEvent.isAutoRepeat()``, but on X servers without
detectable auto-repeat (and on busy machines, where Qt's look-ahead misses the paired
press) a held key arrives as a stream of unmarked release/press pairs. For push-to-talk
each of those would end the turn and start a new one: "a key that fires twice"
(shared/USERS.md #12). On X11 the server knows better: :class:`X11KeyState` asks it
(``QueryKeymap``, one round trip) whether the key of a release event is in fact still held,
so a real release is acted on at once and a repeat is not. Other platforms (Wayland,
Windows, macOS) mark repeats reliably and need no second opinion.

The question is asked on every release of the talk key, before the turn's end can go out,
so it is asked through libxcb (the C library Qt's own xcb platform runs on, always on the
system) in one ctypes call: 53 µs on a quiet Xvfb against python-xlib's 110, and python-xlib
took 0.24 ms median (p95 0.54) of the release in the voice bench, where its pure-Python
request and reply let go of the GIL and take it back several times (docs/benchmarks.md).
"""

from __future__ import annotations

import ctypes
import logging
import os
from typing import Protocol

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


class _Cookie(ctypes.Structure):
    """``xcb_query_keymap_cookie_t``."""

    _fields_ = [("sequence", ctypes.c_uint)]


class _KeymapReply(ctypes.Structure):
    """``xcb_query_keymap_reply_t``: one bit per key code, 256 keys."""

    _fields_ = [
        ("response_type", ctypes.c_uint8),
        ("pad0", ctypes.c_uint8),
        ("sequence", ctypes.c_uint16),
        ("length", ctypes.c_uint32),
        ("keys", ctypes.c_uint8 * 32),
    ]


def _load_xcb() -> tuple[ctypes.CDLL, ctypes.CDLL]:
    """The libxcb library and the process's C library (whose ``free`` frees its replies), typed.

    Raises:
        OSError: libxcb cannot be loaded.
    """
    xcb = ctypes.CDLL("libxcb.so.1")  # its soname: no search (find_library runs ldconfig)
    libc = ctypes.CDLL(None)
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.restype = ctypes.c_int
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.restype = None
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    xcb.xcb_query_keymap.restype = _Cookie
    xcb.xcb_query_keymap.argtypes = [ctypes.c_void_p]
    xcb.xcb_query_keymap_reply.restype = ctypes.POINTER(_KeymapReply)
    xcb.xcb_query_keymap_reply.argtypes = [ctypes.c_void_p, _Cookie, ctypes.c_void_p]
    libc.free.restype = None
    libc.free.argtypes = [ctypes.c_void_p]
    return xcb, libc


class X11KeyState:
    """Key state from the X server, on a connection of its own (libxcb).

    Args:
        display_name: the X display (default: ``$DISPLAY``).

    Raises:
        OSError: libxcb is missing or the display cannot be opened.
    """

    def __init__(self, display_name: str | None = None) -> None:
        self._xcb, self._libc = _load_xcb()
        name = display_name.encode() if display_name else None
        connection = self._xcb.xcb_connect(name, None)
        error = self._xcb.xcb_connection_has_error(connection)
        if error:
            self._xcb.xcb_disconnect(connection)
            raise OSError(f"cannot open the X display {display_name or ''} (xcb error {error})")
        self._connection: int | None = connection
        self._lost_logged = False

    def is_down(self, native_scan_code: int) -> bool:
        """Whether the X key code ``native_scan_code`` is held (Qt's xcb scan code).

        False when the server cannot say (the connection is gone): a release is then taken
        as one, since a turn that never ends is worse than one that ends early.
        """
        if not 8 <= native_scan_code <= 255 or self._connection is None:
            return False
        reply = self._xcb.xcb_query_keymap_reply(
            self._connection, self._xcb.xcb_query_keymap(self._connection), None
        )
        if not reply:
            if not self._lost_logged:
                self._lost_logged = True
                _log.warning("the X server did not answer whether a key is held")
            return False
        try:
            keys = reply.contents.keys
            return bool(keys[native_scan_code // 8] & (1 << (native_scan_code % 8)))
        finally:
            self._libc.free(reply)

    def close(self) -> None:
        """Close the X connection (once)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            self._xcb.xcb_disconnect(connection)


def key_state_for_platform(platform_name: str) -> KeyState | None:
    """The key-state source for Qt's platform plugin, or None where none is needed."""
    if platform_name != "xcb":
        return None
    try:
        return X11KeyState(os.environ.get("DISPLAY"))
    except OSError as exc:
        _log.info("no X key state (auto-repeat detection falls back to Qt's): %s", exc)
        return None
