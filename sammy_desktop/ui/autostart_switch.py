"""Settings > Appearance > Start at login: the switch kept in step with the platform's entry.

:class:`AutostartSwitch` listens to the settings: turning Start at login on writes the
autostart entry (:mod:`sammy_desktop.integration.autostart`), off removes it, and changing
Start hidden in the tray while it is on writes the entry again with or without
``--start-hidden``. The file work runs on a worker thread, one change after another, so the
window never waits on a disk. A change that cannot be made puts the switch back and says why,
on the switch's card (and in a banner when the card is not in sight).

At start (:meth:`AutostartSwitch.reconcile`) the entry on disk is what happens at login, so
the switch follows it: an entry there shows the switch on, none shows it off (the person may
have removed it in the desktop's own startup settings). An entry whose command is not this
installation's any more (the app moved, Start hidden changed elsewhere) is written again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QAbstractButton

from sammy_desktop.config.store import SettingsError
from sammy_desktop.integration import IntegrationError
from sammy_desktop.integration.autostart import Autostart, launch_command, same_command
from sammy_desktop.integration.launch import program_path

if TYPE_CHECKING:
    from sammy_desktop.config import Settings
    from sammy_desktop.ui.controls import UiTasks
    from sammy_desktop.ui.settings.fields import FieldCard
    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["AutostartSwitch"]

_log = logging.getLogger(__name__)

_FIELDS = frozenset({"start_at_login", "start_hidden"})


class AutostartSwitch(QObject):
    """Writes and removes the start-at-login entry as the settings say.

    Args:
        settings_state: the live settings (``start_at_login``, ``start_hidden``).
        tasks: where the file work runs from (off the loop, on a worker thread).
        profile_dir: the ``--config-dir`` folder, or None for the standard folders.
        autostart: the entry (this platform's for ``profile_dir`` by default).
        program: how this installation is started (:func:`program_path` by default).
        parent: the Qt parent.
    """

    applied = Signal(bool)
    """The entry is now there (True) or not (False), as the switch shows."""
    failed = Signal(str)
    """A change could not be made: the sentence why; the switch is back as it was."""

    def __init__(
        self,
        settings_state: SettingsState,
        tasks: UiTasks,
        *,
        profile_dir: Path | None,
        autostart: Autostart | None = None,
        program: Callable[[], str] = program_path,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._state = settings_state
        self._tasks = tasks
        self._profile_dir = profile_dir
        self.autostart = autostart or Autostart(profile_dir)
        self._program = program
        self._lock = asyncio.Lock()
        self._quiet = False
        settings_state.changed.connect(self.on_settings_changed)

    def command(self) -> list[str]:
        """What the entry is to start: this installation, its profile, maybe hidden."""
        return launch_command(
            self._profile_dir,
            start_hidden=self._state.settings.start_hidden,
            program=self._program(),
        )

    # ------------------------------------------------------------------ the switch

    def on_settings_changed(self, settings: Settings, names: frozenset[str]) -> None:
        """Start at login or Start hidden changed: write or remove the entry."""
        if self._quiet or not names & _FIELDS:
            return
        if "start_at_login" in names or settings.start_at_login:
            self._tasks.run(self._apply(), name="autostart-apply")

    async def _apply(self) -> None:
        async with self._lock:  # one change after another, each as the settings are now
            want = self._state.settings.start_at_login
            command = self.command()
            try:
                if want:
                    await asyncio.to_thread(self.autostart.enable, command)
                else:
                    await asyncio.to_thread(self.autostart.disable)
            except IntegrationError as exc:
                _log.warning("start at login: %s", exc)
                if self._state.settings.start_at_login is want:
                    self._set_quietly(start_at_login=not want)
                self.failed.emit(exc.sentence)
                return
            _log.info("start at login %s: %s", "on" if want else "off", self.autostart.location)
            self.applied.emit(want)

    # ------------------------------------------------------------------ at start

    def reconcile(self) -> None:
        """Bring the switch and the entry in step, on a worker thread (the app's start)."""
        self._tasks.run(self._reconcile(), name="autostart-reconcile")

    async def _reconcile(self) -> None:
        async with self._lock:
            try:
                found = await asyncio.to_thread(self.autostart.command)
            except IntegrationError as exc:
                _log.warning("start at login: %s", exc)
                return
            on = self._state.settings.start_at_login
            if found is None:
                if on:
                    _log.info(
                        "start at login: no entry at %s; the switch goes off",
                        self.autostart.location,
                    )
                    self._set_quietly(start_at_login=False)
                    self.applied.emit(False)
                return
            if not on:
                _log.info(
                    "start at login: the entry at %s is there; the switch goes on",
                    self.autostart.location,
                )
                self._set_quietly(start_at_login=True)
            command = self.command()
            if not same_command(found, command):
                _log.info(
                    "start at login: the entry at %s is stale; writing it again",
                    self.autostart.location,
                )
                try:
                    await asyncio.to_thread(self.autostart.enable, command)
                except IntegrationError as exc:
                    _log.warning("start at login: %s", exc)
                    self.failed.emit(exc.sentence)
                    return
            self.applied.emit(True)

    def _set_quietly(self, **changes: Any) -> None:
        """Change the settings to match the entry, without writing the entry again."""
        self._quiet = True
        try:
            self._state.update(**changes)
        except SettingsError as exc:
            _log.warning("start at login: the switch could not be saved: %s", exc)
        finally:
            self._quiet = False

    # ------------------------------------------------------------------ feedback

    def show_on(self, card: FieldCard, banner: Callable[[str], None] | None = None) -> None:
        """Keep ``card`` (the Start at login switch) showing the entry, and its failures.

        Args:
            card: the switch's card on the settings page.
            banner: shows a failure where the person looks when the card is out of sight.
        """

        def sync(_on: object = None) -> None:
            editor = card.editor
            if isinstance(editor, QAbstractButton):
                on = self._state.settings.start_at_login
                if editor.isChecked() != on:
                    editor.blockSignals(True)
                    editor.setChecked(on)
                    editor.blockSignals(False)

        def on_applied(_on: bool) -> None:
            sync()
            card.clear_error()

        def on_failed(sentence: str) -> None:
            sync()
            card.show_error(sentence)
            if banner is not None and not card.isVisible():
                banner(sentence)

        self.applied.connect(on_applied)
        self.failed.connect(on_failed)
