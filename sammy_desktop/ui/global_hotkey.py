"""The optional global push-to-talk hotkey: hold a key combination in any window to talk.

:class:`GlobalHotkey` follows the ``global_hotkey`` and ``global_hotkey_keys`` settings:
it starts a system-wide key listener when the person switches the hotkey on, and stops it
when they switch it off, live. Holding the whole combination emits ``pressed``; letting go
of any key of it emits ``released``; the window treats them like its talk button.

The listener is pynput's (X11 through the RECORD extension, Windows, macOS). It runs in
its own thread; key events cross to the Qt thread through queued signals, and starting or
stopping it (which talks to the X server) happens in a worker thread, never on the event
loop. Where the desktop cannot let an app see keys pressed in other windows (Wayland, an
X server without RECORD, macOS without the Input Monitoring permission) the hotkey stays
off and ``status`` says why, in a sentence the settings pane shows; nothing crashes.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Collection, Hashable, Mapping
from typing import Any, Final, Protocol

from PySide6.QtCore import QObject, Qt, Signal

from sammy_desktop.config import Settings
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.settings_state import SettingsState

__all__ = [
    "ComboTracker",
    "GlobalHotkey",
    "HotkeyUnavailableError",
    "KeyListener",
    "StartListener",
    "platform_refusal",
    "pynput_combination",
    "start_pynput_listener",
]

_log = logging.getLogger(__name__)

READY_TIMEOUT_S: Final = 3.0
STOP_TIMEOUT_S: Final = 2.0
_POLL_S: Final = 0.005

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


class _XRecordControl:
    """Talks to the X server beside pynput's X11 listener, on a connection of its own.

    pynput reports ready just before it asks the server to start recording, and its
    ``stop()`` sends the disable request on the connection that is blocked recording, so
    the thread only ends at the next key event. This checks for RECORD up front, waits
    until the server really records, and disables the recording from here.
    """

    def __init__(self) -> None:
        from Xlib import display as xdisplay  # type: ignore[import-untyped]
        from Xlib import error as xerror

        try:
            self._display: Any = xdisplay.Display()
        except (xerror.DisplayError, xerror.ConnectionClosedError, OSError) as exc:
            raise HotkeyUnavailableError(f"the X display cannot be reached ({exc}).") from None
        if not self._display.has_extension("RECORD"):
            self._display.close()
            raise HotkeyUnavailableError(
                "this X server has no RECORD extension, which is how an app sees keys "
                "pressed in other windows."
            )

    def wait_recording(self, listener: Any, deadline: float) -> bool:
        """Wait until the server records for ``listener``; False at the deadline."""
        while time.monotonic() < deadline:
            context = getattr(listener, "_context", None)
            if context is not None and self._display.record_get_context(context).enabled:
                return True
            if not listener.is_alive():
                return False
            time.sleep(_POLL_S)  # a worker thread, waiting on the X server
        return False

    def disable(self, listener: Any) -> None:
        """End the listener's recording so its thread returns now."""
        context = getattr(listener, "_context", None)
        if context is not None:
            self._display.record_disable_context(context)
            self._display.sync()

    def close(self) -> None:
        """Close the connection."""
        self._display.close()


class _PynputKeyListener:
    """pynput's keyboard listener driving a :class:`ComboTracker`."""

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
        self._x11 = _XRecordControl() if sys.platform.startswith("linux") else None

    def start(self) -> None:
        """Start the listener thread and wait until it listens."""
        self._listener.start()
        waited = threading.Event()

        def wait_ready() -> None:
            self._listener.wait()
            waited.set()

        waiter = threading.Thread(target=wait_ready, name="hotkey-ready", daemon=True)
        waiter.start()
        deadline = time.monotonic() + READY_TIMEOUT_S
        # pynput's wait() never returns when its thread died early: wait with a deadline.
        ready = waited.wait(READY_TIMEOUT_S)
        if ready and self._x11 is not None:
            ready = self._x11.wait_recording(self._listener, deadline)
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
        if self._x11 is not None:
            try:
                self._x11.disable(self._listener)
            except Exception as exc:  # noqa: BLE001 - the X server may be gone already
                _log.debug("could not end the key recording: %s", exc)
            self._x11.close()
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


def start_pynput_listener(
    keys: str,
    on_down: Callable[[], None],
    on_up: Callable[[], None],
    *,
    environ: Mapping[str, str] | None = None,
    platform: str = sys.platform,
) -> KeyListener:
    """Listen system-wide for ``keys`` with pynput (a :data:`StartListener`).

    Blocks until listening: call it from a worker thread.

    Raises:
        HotkeyUnavailableError: the desktop does not allow it; the message says why.
    """
    refusal = platform_refusal(os.environ if environ is None else environ, platform)
    if refusal is not None:
        raise HotkeyUnavailableError(refusal)
    listener = _PynputKeyListener(keys, on_down, on_up)
    listener.start()
    return listener


class _Relay(QObject):
    """Carries the listener thread's key events to the Qt thread."""

    down = Signal()
    up = Signal()


class GlobalHotkey(QObject):
    """The global talk hotkey, on and off with the settings.

    Args:
        settings_state: the live settings (``global_hotkey``, ``global_hotkey_keys``).
        tasks: runs the start and stop steps.
        start_listener: starts the system-wide listener; pynput's by default.
        parent: the Qt parent.
    """

    pressed = Signal()
    """The whole combination went down (talk pressed)."""

    released = Signal()
    """A key of the combination came up, or the hotkey stopped while held (talk released)."""

    status_changed = Signal(str)
    """A sentence for the settings pane: on, unavailable and why, or "" when off."""

    def __init__(
        self,
        settings_state: SettingsState,
        tasks: UiTasks,
        *,
        start_listener: StartListener = start_pynput_listener,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._state = settings_state
        self._tasks = tasks
        self._start_listener = start_listener
        self._relay = _Relay(self)
        self._listener: KeyListener | None = None
        self._listening_keys: str | None = None
        self._tried: str | None = None
        self._down = False
        self._status = ""
        self._closed = False
        self._reconcile_task: asyncio.Task[Any] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        # Queued: the relay's signals are emitted from the listener's thread.
        self._relay.down.connect(self._on_down, Qt.ConnectionType.QueuedConnection)
        self._relay.up.connect(self._on_up, Qt.ConnectionType.QueuedConnection)
        settings_state.changed.connect(self._on_settings_changed)

    @property
    def listening(self) -> bool:
        """Whether the listener runs now."""
        return self._listener is not None

    @property
    def status(self) -> str:
        """What the settings pane says about the hotkey ("" when it is off)."""
        return self._status

    def apply(self) -> None:
        """Start or stop the listener to match the settings (returns at once)."""
        if self._closed:
            return
        self._idle.clear()
        if self._reconcile_task is None or self._reconcile_task.done():
            self._reconcile_task = self._tasks.run(self._reconcile(), "ui-global-hotkey")
            if self._reconcile_task is None:
                self._idle.set()

    async def wait_applied(self, timeout_s: float = 5.0) -> None:
        """Wait until the listener matches the settings (for the app's start and tests).

        Raises:
            TimeoutError: still starting or stopping after ``timeout_s``.
        """
        await asyncio.wait_for(self._idle.wait(), timeout_s)

    async def aclose(self, timeout_s: float = STOP_TIMEOUT_S + 1) -> None:
        """Stop listening for good (at quit)."""
        self._closed = True
        task = self._reconcile_task
        if task is not None and not task.done():
            await asyncio.wait([task], timeout=timeout_s)
        if self._listener is not None:
            try:
                await asyncio.wait_for(self._stop_listener(), timeout_s)
            except TimeoutError:
                _log.warning("the global hotkey did not stop within %.0f s", timeout_s)

    def _wanted(self) -> str | None:
        settings = self._state.settings
        return settings.global_hotkey_keys if settings.global_hotkey and not self._closed else None

    async def _reconcile(self) -> None:
        try:
            while True:
                wanted = self._wanted()
                if self._listener is not None:
                    if wanted == self._listening_keys:
                        break
                    await self._stop_listener()
                    continue
                if wanted is None:
                    self._tried = None
                    self._set_status("")
                    break
                if wanted == self._tried:
                    break  # it failed with these keys: try again when they or the switch change
                self._tried = wanted
                await self._start(wanted)
        finally:
            self._idle.set()

    async def _start(self, keys: str) -> None:
        try:
            self._listener = await asyncio.to_thread(
                self._start_listener, keys, self._relay.down.emit, self._relay.up.emit
            )
        except HotkeyUnavailableError as exc:
            _log.info("global hotkey not available: %s", exc)
            self._set_status(
                f"Not available on this desktop: {exc} Hold Space in Sammy's window to talk "
                "instead."
            )
            return
        except Exception as exc:  # noqa: BLE001 - a broken listener must not break the app
            _log.exception("the global hotkey could not start")
            self._set_status(f"The hotkey could not start ({exc}). Hold Space in Sammy's window.")
            return
        self._listening_keys = keys
        _log.info("global hotkey on: %s", keys)
        self._set_status(f"On: hold {keys} in any window to talk.")

    async def _stop_listener(self) -> None:
        listener, self._listener, self._listening_keys = self._listener, None, None
        if listener is not None:
            await asyncio.to_thread(listener.stop)
        if self._down:  # never leave the person "talking" after the hotkey went away
            self._down = False
            self.released.emit()

    def _set_status(self, text: str) -> None:
        if text != self._status:
            self._status = text
            self.status_changed.emit(text)

    def _on_settings_changed(self, _settings: Settings, names: frozenset[str]) -> None:
        if names & {"global_hotkey", "global_hotkey_keys"}:
            self.apply()

    def _on_down(self) -> None:
        if self._listener is None or self._down:
            return  # an event still queued from a listener that was stopped
        self._down = True
        self.pressed.emit()

    def _on_up(self) -> None:
        if not self._down:
            return
        self._down = False
        self.released.emit()
