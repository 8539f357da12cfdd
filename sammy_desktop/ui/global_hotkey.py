"""The optional global push-to-talk hotkey: hold a key combination in any window to talk.

:class:`GlobalHotkey` follows the ``global_hotkey`` and ``global_hotkey_keys`` settings:
it starts a system-wide key listener when the person switches the hotkey on, and stops it
when they switch it off, live. Holding the whole combination emits ``pressed``; letting go
of any key of it emits ``released``; the window treats them like its talk button.

The listener (:mod:`sammy_desktop.ui.key_listeners`: the X server's RECORD extension on
X11, pynput's on Windows and macOS) runs in its own thread; key events cross to the Qt
thread through queued signals, and starting or stopping it (which talks to the X server)
happens in a worker thread, never on the event loop. Where the desktop cannot let an app
see keys pressed in other windows (Wayland, an X server without RECORD, macOS without the
Input Monitoring permission) the hotkey stays
off and ``status`` says why, in a sentence the settings pane shows; nothing crashes.

In a Wayland session the desktop itself holds the keys: where it offers the portal's
GlobalShortcuts, the hotkey is a shortcut bound there (:mod:`sammy_desktop.ui.portal_shortcuts`),
pressed and released like the listener's; where it does not, ``status`` names the command
line to bind in the desktop's keyboard settings instead. ``unavailable_changed`` tells the
settings pane when to offer those command lines.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from sammy_desktop.config import Settings
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.key_listeners import (
    STOP_TIMEOUT_S,
    HotkeyUnavailableError,
    KeyListener,
    StartListener,
    start_system_listener,
)
from sammy_desktop.ui.portal_shortcuts import (
    PortalOutcome,
    PortalShortcuts,
    PortalState,
    status_sentence,
    wayland_session,
)
from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["GlobalHotkey"]

_log = logging.getLogger(__name__)


class _Relay(QObject):
    """Carries the listener thread's key events to the Qt thread."""

    down = Signal()
    up = Signal()


class GlobalHotkey(QObject):
    """The global talk hotkey, on and off with the settings.

    Args:
        settings_state: the live settings (``global_hotkey``, ``global_hotkey_keys``).
        tasks: runs the start and stop steps.
        start_listener: starts the system-wide listener (:func:`start_system_listener`).
        environ: the environment that says whether this is a Wayland session
            (``os.environ`` when None).
        parent: the Qt parent.
    """

    pressed = Signal()
    """The whole combination went down (talk pressed)."""

    released = Signal()
    """A key of the combination came up, or the hotkey stopped while held (talk released)."""

    status_changed = Signal(str)
    """A sentence for the settings pane: on, unavailable and why, or "" when off."""

    unavailable_changed = Signal(bool)
    """True while the hotkey is switched on but cannot work here, False otherwise."""

    def __init__(
        self,
        settings_state: SettingsState,
        tasks: UiTasks,
        *,
        start_listener: StartListener = start_system_listener,
        environ: Mapping[str, str] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._state = settings_state
        self._tasks = tasks
        self._start_listener = start_listener
        self._wayland = wayland_session(os.environ if environ is None else environ, sys.platform)
        self._relay = _Relay(self)
        self._listener: KeyListener | PortalShortcuts | None = None
        self._listening_keys: str | None = None
        self._tried: str | None = None
        self._down = False
        self._status = ""
        self._unavailable = False
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
        if task is not None and not task.done():  # e.g. the desktop's shortcut dialog is open
            task.cancel()
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
        if self._wayland:
            await self._start_portal(keys)
            return
        try:
            self._listener = await asyncio.to_thread(
                self._start_listener, keys, self._relay.down.emit, self._relay.up.emit
            )
        except HotkeyUnavailableError as exc:
            _log.info("global hotkey not available: %s", exc)
            self._set_status(
                f"Not available on this desktop: {exc} Hold Space in Sammy's window to talk "
                "instead.",
                unavailable=True,
            )
            return
        except Exception:  # noqa: BLE001 - a broken listener must not break the app
            _log.exception("the global hotkey could not start")
            self._set_status(
                "The hotkey could not start; the log file has the details. Hold Space in "
                "Sammy's window to talk instead.",
                unavailable=True,
            )
            return
        self._listening_keys = keys
        _log.info("global hotkey on: %s", keys)
        self._set_status(f"On: hold {keys} in any window to talk.")

    async def _start_portal(self, keys: str) -> None:
        """Wayland: the shortcut through the desktop portal (it may ask the person first)."""
        portal = PortalShortcuts(
            self._relay.down.emit, self._relay.up.emit, lambda state: self._on_portal(portal, state)
        )
        state = await portal.bind(keys)
        if state.outcome is PortalOutcome.BOUND:
            self._listener, self._listening_keys = portal, keys
        self._show_portal(state)

    def _on_portal(self, portal: PortalShortcuts, state: PortalState) -> None:
        """The bound shortcut got other keys, or was lost (the portal or the bus went away)."""
        if portal is not self._listener:
            return
        if state.outcome is not PortalOutcome.BOUND:
            self._listener = self._listening_keys = None
            self._on_up()  # never leave the person "talking"
        self._show_portal(state)

    def _show_portal(self, state: PortalState) -> None:
        bound = state.outcome is PortalOutcome.BOUND
        self._set_status(status_sentence(state), unavailable=not bound)

    async def _stop_listener(self) -> None:
        listener, self._listener, self._listening_keys = self._listener, None, None
        if isinstance(listener, PortalShortcuts):
            await listener.close()
        elif listener is not None:
            await asyncio.to_thread(listener.stop)
        if self._down:  # never leave the person "talking" after the hotkey went away
            self._down = False
            self.released.emit()

    def _set_status(self, text: str, *, unavailable: bool = False) -> None:
        if text != self._status:
            self._status = text
            self.status_changed.emit(text)
        if unavailable != self._unavailable:
            self._unavailable = unavailable
            self.unavailable_changed.emit(unavailable)

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
