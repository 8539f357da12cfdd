"""System-wide key listeners for the global talk hotkey: X11's RECORD, and pynput.

:func:`start_system_listener` listens for one key combination (settings spelling, such as
"Ctrl+Alt+Space") in every window, and calls back from its own thread when the whole
combination goes down (:class:`ComboTracker`) and when any key of it comes up. On X11 it is
the X server's RECORD extension through python-xlib; on Windows and macOS pynput's
listener. :func:`platform_refusal` says, without trying, why a desktop cannot have one
(Wayland lets no app see keys pressed in other windows); a refusal found while trying is
a :class:`HotkeyUnavailableError` whose message is a sentence for the person.

This module has no Qt: :class:`~sammy_desktop.ui.global_hotkey.GlobalHotkey` carries the
callbacks to the Qt thread and switches the listener on and off with the settings.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Collection, Hashable, Mapping
from typing import Any, Final, Protocol

__all__ = [
    "READY_TIMEOUT_S",
    "STOP_TIMEOUT_S",
    "ComboTracker",
    "HotkeyUnavailableError",
    "KeyListener",
    "StartListener",
    "platform_refusal",
    "pynput_combination",
    "start_system_listener",
]

_log = logging.getLogger(__name__)

READY_TIMEOUT_S: Final = 3.0
STOP_TIMEOUT_S: Final = 2.0

# Settings spelling (config/settings.py normalizes to it) -> pynput's HotKey.parse spelling.
_PYNPUT_NAMES: Final = {
    "Ctrl": "<ctrl>",
    "Alt": "<alt>",
    "Shift": "<shift>",
    "Super": "<cmd>",
    "Space": "<space>",
    "Tab": "<tab>",
    "Enter": "<enter>",
    "Delete": "<delete>",
    "Home": "<home>",
    "End": "<end>",
    "PageUp": "<page_up>",
    "PageDown": "<page_down>",
    "Up": "<up>",
    "Down": "<down>",
    "Left": "<left>",
    "Right": "<right>",
    "Insert": "<insert>",
    "Pause": "<pause>",
    "ScrollLock": "<scroll_lock>",
    "PrintScreen": "<print_screen>",
    "Menu": "<menu>",
    **{f"F{n}": f"<f{n}>" for n in range(1, 21)},
}


class HotkeyUnavailableError(Exception):
    """The desktop does not let the app listen for keys in other windows.

    The message is a sentence for the person: what is missing, in plain words.
    """


class KeyListener(Protocol):
    """A running system-wide key listener."""

    def stop(self) -> None:
        """Stop listening; blocks briefly (call it from a worker thread)."""
        ...


StartListener = Callable[[str, Callable[[], None], Callable[[], None]], KeyListener]
"""``start(keys, on_down, on_up)``: listen for ``keys`` (settings spelling, "Ctrl+Alt+Space").

Blocks until listening (call it from a worker thread); ``on_down`` and ``on_up`` are then
called from the listener's own thread. Raises :class:`HotkeyUnavailableError`.
"""


class ComboTracker:
    """Hold-to-talk over a key combination: down when all its keys are held, up on any release.

    Keys are anything hashable (pynput's canonical keys in the app). Other keys pressed
    meanwhile do not matter; auto-repeated presses do nothing while the combination is down.

    Args:
        keys: the keys of the combination.
    """

    def __init__(self, keys: Collection[Hashable]) -> None:
        if not keys:
            raise ValueError("a key combination needs at least one key")
        self._keys = frozenset(keys)
        self._held: set[Hashable] = set()
        self._down = False

    @property
    def down(self) -> bool:
        """Whether the whole combination is held."""
        return self._down

    def press(self, key: Hashable) -> bool:
        """A key went down; True when that completed the combination."""
        if key in self._keys:
            self._held.add(key)
        if not self._down and self._held == self._keys:
            self._down = True
            return True
        return False

    def release(self, key: Hashable) -> bool:
        """A key came up; True when that ended the combination."""
        self._held.discard(key)
        if self._down and key in self._keys:
            self._down = False
            return True
        return False


def pynput_combination(keys: str) -> str:
    """``Ctrl+Alt+Space`` -> ``<ctrl>+<alt>+<space>`` (pynput's ``HotKey.parse`` spelling).

    Raises:
        HotkeyUnavailableError: a part has no pynput name (not a normalized setting).
    """
    parts = []
    for part in keys.split("+"):
        if part in _PYNPUT_NAMES:
            parts.append(_PYNPUT_NAMES[part])
        elif len(part) == 1:
            parts.append(part.lower())
        else:
            raise HotkeyUnavailableError(f"the key {part!r} cannot be listened for.")
    return "+".join(parts)


def platform_refusal(environ: Mapping[str, str], platform: str) -> str | None:
    """Why this desktop cannot have a global hotkey, known without trying; None if it may.

    Args:
        environ: the process environment (``os.environ``).
        platform: ``sys.platform``.
    """
    if platform in ("win32", "darwin"):
        return None
    if environ.get("WAYLAND_DISPLAY") or environ.get("XDG_SESSION_TYPE") == "wayland":
        return (
            "this desktop runs Wayland, which does not let apps see keys pressed in other windows."
        )
    if not environ.get("DISPLAY"):
        return "there is no X11 display (DISPLAY is not set)."
    return None


# Settings spelling -> X keysym names (Xlib.XK); single characters are looked up as such.
_X11_MODIFIERS: Final = {
    "Ctrl": ("Control_L", "Control_R"),
    "Alt": ("Alt_L", "Alt_R", "Meta_L", "Meta_R"),
    "Shift": ("Shift_L", "Shift_R"),
    "Super": ("Super_L", "Super_R"),
}
_X11_KEYS: Final = {
    "Space": "space",
    "Tab": "Tab",
    "Enter": "Return",
    "Delete": "Delete",
    "Home": "Home",
    "End": "End",
    "PageUp": "Prior",
    "PageDown": "Next",
    "Up": "Up",
    "Down": "Down",
    "Left": "Left",
    "Right": "Right",
    "Insert": "Insert",
    "Pause": "Pause",
    "ScrollLock": "Scroll_Lock",
    "PrintScreen": "Print",
    "Menu": "Menu",
    **{f"F{n}": f"F{n}" for n in range(1, 21)},
}


def _require_record(display: Any) -> None:
    if not display.has_extension("RECORD"):
        raise HotkeyUnavailableError(
            "this X server has no RECORD extension, which is how an app sees keys pressed in "
            "other windows."
        )


class _X11KeyListener:
    """Keys pressed anywhere on an X11 display, through the RECORD extension (python-xlib).

    Its own rather than pynput's X11 listener, which reports ready before the server
    records (a key pressed at once is lost) and whose ``stop()`` waits for the next key
    event. Here ``start`` returns once the server sent StartOfData, and ``stop`` disables
    the recording from a second connection, so the thread ends at once.

    Args:
        keys: the combination in settings spelling (``Ctrl+Alt+Space``).
        on_down: called from the recording thread when the combination goes down.
        on_up: called from the recording thread when it comes up.
        display_name: the X display; ``$DISPLAY`` when None.
    """

    def __init__(
        self,
        keys: str,
        on_down: Callable[[], None],
        on_up: Callable[[], None],
        display_name: str | None = None,
    ) -> None:
        try:
            from Xlib import XK, X  # type: ignore[import-untyped]
            from Xlib import display as xdisplay
            from Xlib import error as xerror
            from Xlib.ext import record  # type: ignore[import-untyped]
            from Xlib.protocol import rq  # type: ignore[import-untyped]
        except ImportError as exc:
            _log.info("python-xlib cannot be imported: %s", exc)
            raise HotkeyUnavailableError(
                "the X11 keyboard library (python-xlib) is missing."
            ) from None
        self._x = X
        self._record_ext = record
        self._event_field = rq.EventField(None)
        try:
            self._control: Any = xdisplay.Display(display_name)
        except (xerror.DisplayError, xerror.ConnectionClosedError, OSError) as exc:
            _log.info("the X display %r cannot be opened: %s", display_name, exc)
            raise HotkeyUnavailableError("the X display cannot be reached.") from None
        try:
            _require_record(self._control)
            self._parts = self._keycodes(keys, XK)
            self._recording: Any = xdisplay.Display(display_name)
        except BaseException:
            self._control.close()
            raise
        self._tracker = ComboTracker(set(self._parts.values()))
        self._on_down = on_down
        self._on_up = on_up
        self._context = self._control.record_create_context(
            0,
            [record.AllClients],
            [
                {
                    "core_requests": (0, 0),
                    "core_replies": (0, 0),
                    "ext_requests": (0, 0, 0, 0),
                    "ext_replies": (0, 0, 0, 0),
                    "delivered_events": (0, 0),
                    "device_events": (X.KeyPress, X.KeyRelease),
                    "errors": (0, 0),
                    "client_started": False,
                    "client_died": False,
                }
            ],
        )
        self._control.sync()
        self._started = threading.Event()
        self._failure = ""
        self._thread = threading.Thread(target=self._run, name="global-hotkey-x11", daemon=True)

    def _keycodes(self, keys: str, xk: Any) -> dict[int, str]:
        """Map each keycode to the part of the combination it is (both Ctrl keys are "Ctrl")."""
        parts: dict[int, str] = {}
        for part in keys.split("+"):
            names = _X11_MODIFIERS.get(part) or (_X11_KEYS.get(part) or part.lower(),)
            found = False
            for name in names:
                keysym = xk.string_to_keysym(name)
                if not keysym and len(name) == 1:
                    keysym = ord(name)  # Latin-1 keysyms are the characters' code points
                for keycode, _index in self._control.keysym_to_keycodes(keysym) if keysym else ():
                    parts[keycode] = part
                    found = True
            if not found:
                raise HotkeyUnavailableError(f"this keyboard has no {part} key.")
        return parts

    def start(self) -> None:
        """Start recording; returns once the server records (or raises)."""
        self._thread.start()
        if not self._started.wait(READY_TIMEOUT_S):
            self._failure = self._failure or f"no answer within {READY_TIMEOUT_S:.0f} s"
        if self._failure:
            problem = self._failure
            self.stop()
            raise HotkeyUnavailableError(f"the X server did not start recording keys ({problem}).")

    def _run(self) -> None:
        try:
            self._recording.record_enable_context(self._context, self._on_reply)
        except Exception as exc:  # noqa: BLE001 - said by start(), or logged after it
            self._failure = str(exc) or type(exc).__name__
            _log.warning("global hotkey: key recording ended: %s", self._failure)
        finally:
            self._started.set()

    def _on_reply(self, reply: Any) -> None:
        if reply.category == self._record_ext.StartOfData:
            self._started.set()
            return
        if reply.category != self._record_ext.FromServer or reply.client_swapped:
            return
        data = reply.data
        # An exception here would end the recording for good: log it and go on.
        try:
            while data:
                event, data = self._event_field.parse_binary_value(
                    data, self._recording.display, None, None
                )
                part = self._parts.get(event.detail)
                if part is None:
                    continue
                if event.type == self._x.KeyPress and self._tracker.press(part):
                    self._on_down()
                elif event.type == self._x.KeyRelease and self._tracker.release(part):
                    self._on_up()
        except Exception:  # noqa: BLE001
            _log.exception("global hotkey: a key event could not be read")

    def stop(self) -> None:
        """Stop recording and wait for the thread (at most a couple of seconds)."""
        try:
            self._control.record_disable_context(self._context)
            self._control.sync()
        except Exception as exc:  # noqa: BLE001 - the X server may be gone already
            _log.debug("could not end the key recording: %s", exc)
        if self._thread.is_alive():
            self._thread.join(STOP_TIMEOUT_S)
        if self._thread.is_alive():
            _log.warning("the key recording did not stop within %.0f s", STOP_TIMEOUT_S)
            return  # its connection is still in use; the thread is a daemon
        for display in (self._control, self._recording):
            try:
                if display is self._control:
                    display.record_free_context(self._context)
                display.close()
            except Exception as exc:  # noqa: BLE001 - closing a dead connection
                _log.debug("closing an X connection failed: %s", exc)


class _PynputKeyListener:
    """pynput's keyboard listener driving a :class:`ComboTracker` (Windows and macOS)."""

    def __init__(self, keys: str, on_down: Callable[[], None], on_up: Callable[[], None]) -> None:
        try:
            from pynput import keyboard  # type: ignore[import-untyped]
        except ImportError as exc:
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise HotkeyUnavailableError(
                f"the keyboard listener cannot load here ({first_line})."
            ) from None
        try:
            combination = keyboard.HotKey.parse(pynput_combination(keys))
        except ValueError:
            raise HotkeyUnavailableError(f"{keys} cannot be listened for.") from None
        self._tracker = ComboTracker(combination)
        self._on_down = on_down
        self._on_up = on_up
        self._listener: Any = keyboard.Listener(
            on_press=self._on_press, on_release=self._on_release
        )

    def start(self) -> None:
        """Start the listener thread and wait until it listens."""
        self._listener.start()
        waited = threading.Event()

        def wait_ready() -> None:
            self._listener.wait()
            waited.set()

        # pynput's wait() never returns when its thread died early: wait with a deadline.
        threading.Thread(target=wait_ready, name="hotkey-ready", daemon=True).start()
        ready = waited.wait(READY_TIMEOUT_S)
        if ready and sys.platform == "darwin" and not getattr(self._listener, "IS_TRUSTED", True):
            self.stop()
            raise HotkeyUnavailableError(
                "macOS has not allowed Sammy to watch the keyboard: allow it under System "
                "Settings > Privacy & Security > Input Monitoring (and Accessibility), then "
                "switch the hotkey off and on."
            )
        if not ready:
            problem = self._failure()
            self.stop()
            raise HotkeyUnavailableError(f"the keyboard listener did not start ({problem}).")

    def _failure(self) -> str:
        if self._listener.is_alive():
            return f"no answer within {READY_TIMEOUT_S:.0f} s"
        try:
            self._listener.join(0)
        except Exception as exc:  # noqa: BLE001 - pynput re-raises whatever its thread hit
            return str(exc) or type(exc).__name__
        return "it stopped at once"

    def stop(self) -> None:
        """Stop listening and wait for the thread (at most a couple of seconds)."""
        self._listener.stop()
        try:
            self._listener.join(STOP_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - a failure inside the thread, now moot
            _log.debug("the key listener had failed: %s", exc)
        if self._listener.is_alive():
            _log.warning("the key listener did not stop within %.0f s", STOP_TIMEOUT_S)

    def _on_press(self, key: Any) -> None:
        # An exception here would stop pynput's listener for good: never let one out.
        try:
            if key is not None and self._tracker.press(self._listener.canonical(key)):
                self._on_down()
        except Exception:  # noqa: BLE001
            _log.exception("global hotkey: a key press could not be handled")

    def _on_release(self, key: Any) -> None:
        try:
            if key is not None and self._tracker.release(self._listener.canonical(key)):
                self._on_up()
        except Exception:  # noqa: BLE001
            _log.exception("global hotkey: a key release could not be handled")


def start_system_listener(
    keys: str,
    on_down: Callable[[], None],
    on_up: Callable[[], None],
    *,
    environ: Mapping[str, str] | None = None,
    platform: str = sys.platform,
) -> KeyListener:
    """Listen system-wide for ``keys`` (a :data:`StartListener`).

    X11: the RECORD extension through python-xlib; Windows and macOS: pynput. Blocks
    until listening: call it from a worker thread.

    Raises:
        HotkeyUnavailableError: the desktop does not allow it; the message says why.
    """
    environ = os.environ if environ is None else environ
    refusal = platform_refusal(environ, platform)
    if refusal is not None:
        raise HotkeyUnavailableError(refusal)
    listener: _X11KeyListener | _PynputKeyListener
    if platform in ("win32", "darwin"):
        listener = _PynputKeyListener(keys, on_down, on_up)
    else:
        listener = _X11KeyListener(keys, on_down, on_up, environ.get("DISPLAY"))
    listener.start()
    return listener
