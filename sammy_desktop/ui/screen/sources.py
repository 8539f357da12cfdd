"""What can be shared: the screens, and on X11 the application windows.

:class:`ShareSource` names one: a screen (by its Qt name, with its geometry) or a window
(by its X11 id). :func:`list_sources` lists Qt's screens and, on X11, the top-level windows
the window manager lists in the root window's ``_NET_CLIENT_LIST``, with their
``_NET_WM_NAME`` (or ``WM_NAME``); without a window manager (a bare X server such as the
tests' Xvfb) it falls back to the root window's mapped, named children. Sammy's own windows
are never listed. On Wayland, Windows and macOS only screens are listed: windows of other
apps cannot be named there through Qt.

:func:`x11_windows` talks to the X server on a connection of its own (a few round trips,
well under a millisecond each); the chooser may call it on the Qt thread or off it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from PySide6.QtGui import QGuiApplication

__all__ = ["ShareSource", "list_sources", "own_window_ids", "x11_window_exists", "x11_windows"]

_log = logging.getLogger(__name__)

SourceKind = Literal["screen", "window"]


@dataclass(frozen=True, slots=True)
class ShareSource:
    """One thing that can be shared.

    Attributes:
        kind: ``"screen"`` or ``"window"``.
        id: the screen's Qt name, or the window's X11 id (as a decimal string).
        title: what a person reads: "Screen 1 (1920x1080)", a window's title.
        geometry: a screen's ``(x, y, width, height)`` on the desktop; None for a window.
    """

    kind: SourceKind
    id: str
    title: str
    geometry: tuple[int, int, int, int] | None = None

    @property
    def window_id(self) -> int:
        """A window's X11 id (0 for a screen)."""
        return int(self.id) if self.kind == "window" else 0


def screen_sources() -> list[ShareSource]:
    """Qt's screens, the primary first."""
    screens = QGuiApplication.screens()
    primary = QGuiApplication.primaryScreen()
    ordered = sorted(screens, key=lambda screen: screen is not primary)
    sources = []
    for number, screen in enumerate(ordered, start=1):
        rect = screen.geometry()
        size = f"{rect.width()}x{rect.height()}"
        title = f"Screen {number} ({size})" if len(ordered) > 1 else f"Whole screen ({size})"
        sources.append(
            ShareSource(
                "screen",
                screen.name(),
                title,
                (rect.x(), rect.y(), rect.width(), rect.height()),
            )
        )
    return sources


def own_window_ids() -> frozenset[int]:
    """The native ids of this app's visible top-level windows."""
    return frozenset(
        int(window.winId()) for window in QGuiApplication.topLevelWindows() if window.isVisible()
    )


def list_sources(*, exclude: Collection[int] | None = None) -> list[ShareSource]:
    """The screens, then (on X11) the other apps' windows by title.

    Args:
        exclude: window ids never to list; None: Sammy's own windows (its Qt windows and
            any window whose ``_NET_WM_PID`` is this process).
    """
    sources = screen_sources()
    if QGuiApplication.platformName() == "xcb" and not os.environ.get("WAYLAND_DISPLAY"):
        own_pid = os.getpid() if exclude is None else None
        skip = own_window_ids() if exclude is None else frozenset(exclude)
        sources += x11_windows(exclude=skip, own_pid=own_pid)
    return sources


def _open_display(display_name: str | None) -> Any:
    """A new Xlib display connection, or None when there is none to open."""
    try:
        from Xlib import display as xdisplay  # type: ignore[import-untyped]
        from Xlib.error import DisplayError  # type: ignore[import-untyped]
    except ImportError:
        _log.info("python-xlib is not installed: no windows to share")
        return None
    try:
        return xdisplay.Display(display_name)
    except (DisplayError, OSError) as exc:
        _log.info("cannot open the X display to list windows: %s", exc)
        return None


def x11_windows(
    *,
    exclude: Collection[int] = (),
    own_pid: int | None = None,
    display_name: str | None = None,
) -> list[ShareSource]:
    """The X server's top-level application windows that have a name.

    Args:
        exclude: window ids to leave out.
        own_pid: leave out windows whose ``_NET_WM_PID`` is this (None: keep them).
        display_name: the X display (default ``$DISPLAY``).
    """
    display = _open_display(display_name)
    if display is None:
        return []
    try:
        return _list_windows(display, frozenset(exclude), own_pid)
    except Exception as exc:  # noqa: BLE001 - an X error lists nothing, never crashes
        _log.info("could not list the X windows: %s", exc)
        return []
    finally:
        display.close()


def _list_windows(display: Any, exclude: frozenset[int], own_pid: int | None) -> list[ShareSource]:
    from Xlib import X, Xatom
    from Xlib.error import XError

    root = display.screen().root
    client_list = root.get_full_property(display.intern_atom("_NET_CLIENT_LIST"), Xatom.WINDOW)
    managed = client_list is not None and len(client_list.value) > 0
    if managed:
        candidates: Iterable[Any] = (
            display.create_resource_object("window", wid) for wid in client_list.value
        )
    else:
        candidates = root.query_tree().children
    net_name = display.intern_atom("_NET_WM_NAME")
    utf8 = display.intern_atom("UTF8_STRING")
    pid_atom = display.intern_atom("_NET_WM_PID")
    sources = []
    for window in candidates:
        if window.id in exclude:
            continue
        try:
            if not managed:
                attributes = window.get_attributes()
                if attributes.map_state != X.IsViewable or attributes.override_redirect:
                    continue
            if own_pid is not None:
                pid = window.get_full_property(pid_atom, Xatom.CARDINAL)
                if pid is not None and len(pid.value) and int(pid.value[0]) == own_pid:
                    continue
            title = _window_name(window, net_name, utf8)
        except XError:
            continue  # gone while being listed
        if title:
            sources.append(ShareSource("window", str(window.id), title))
    return sources


def _window_name(window: Any, net_name: int, utf8: int) -> str:
    prop = window.get_full_property(net_name, utf8)
    if prop is not None and prop.value:
        value = prop.value
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        return text.strip()
    name = window.get_wm_name()
    if isinstance(name, bytes):
        name = name.decode("latin-1")
    return str(name or "").strip()


def x11_window_exists(window_id: int, display: Any) -> bool:
    """Whether the X window ``window_id`` still exists (one round trip on ``display``)."""
    from Xlib.error import XError

    try:
        display.create_resource_object("window", window_id).get_geometry()
    except XError:
        return False
    return True
