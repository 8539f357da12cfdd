"""The settings in use, changed one validated and saved step at a time.

Every part of the app (the core, the tools, the windows) holds the same :class:`Settings`
object. :meth:`SettingsState.update` validates the change on a copy and saves it through the
:class:`~sammy_desktop.config.store.SettingsStore`; only then is the shared object updated in
place, so a refused value changes nothing anywhere and an accepted one is seen by everyone
at once. ``changed`` tells the widgets which fields changed.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, Signal

from sammy_desktop.config import Settings
from sammy_desktop.config.store import SettingsError, SettingsStore
from sammy_desktop.os_errors import os_error_reason

__all__ = ["SettingsSaveError", "SettingsState"]

_log = logging.getLogger(__name__)


class SettingsSaveError(SettingsError):
    """The values were fine but the settings file could not be written."""


class SettingsState(QObject):
    """Holds the app's one :class:`Settings` object and applies changes to it.

    Args:
        store: where the settings are saved.
        settings: the shared settings object (loaded at start).
        parent: the Qt parent.
    """

    changed = Signal(object, object)
    """``(settings, names)``: the settings object and the frozenset of changed field names."""

    def __init__(
        self, store: SettingsStore, settings: Settings, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._settings = settings

    @property
    def settings(self) -> Settings:
        """The shared settings object (always the same object)."""
        return self._settings

    def update(self, **changes: Any) -> Settings:
        """Validate, save and apply ``changes``; return the shared settings object.

        Raises:
            SettingsError: a value is invalid (the message names the field); nothing changed.
            SettingsSaveError: the file could not be written; nothing changed.
        """
        unknown = sorted(set(changes) - set(Settings.model_fields))
        if unknown:
            raise SettingsError(f"{', '.join(unknown)}: there is no such setting")
        try:
            new = self._store.update(self._settings, **changes)
        except OSError as exc:
            _log.warning("could not save the settings to %s: %s", self._store.path, exc)
            raise SettingsSaveError(
                f"The settings could not be saved to {self._store.path}: "
                f"{os_error_reason(exc)}. Nothing was changed; check that you can write there."
            ) from None
        names = frozenset(
            name for name in changes if getattr(new, name) != getattr(self._settings, name)
        )
        for name in names:
            setattr(self._settings, name, getattr(new, name))
        if names:
            self.changed.emit(self._settings, names)
        return self._settings
