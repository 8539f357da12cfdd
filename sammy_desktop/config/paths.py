"""Where the app keeps its files.

By default the platform's own folders (platformdirs): settings in the config dir, the
conversation history, notes and escalation records in the data dir, logs in the log dir.
``--config-dir DIR`` (a profile folder, for tests and for people who keep several) puts all
of them under DIR instead: ``DIR/settings.json``, ``DIR/data/``, ``DIR/logs/``.

The folders are the person's alone: :meth:`AppPaths.ensure` makes them ``0700`` on POSIX
systems (see :mod:`~sammy_desktop.config.private_data`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import platformdirs

from sammy_desktop.config.private_data import make_private_dir

__all__ = ["APP_NAME", "AppPaths"]

APP_NAME = "sammy-desktop"


@dataclass(frozen=True, slots=True)
class AppPaths:
    """The folders the app writes to. Create them with :meth:`ensure`."""

    config_dir: Path
    data_dir: Path
    log_dir: Path
    is_profile: bool = False
    """Whether ``--config-dir`` chose the folders (a command for this app must say it too)."""

    @classmethod
    def default(cls) -> AppPaths:
        """The platform's standard folders for this app."""
        return cls(
            config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
            data_dir=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
            log_dir=Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)),
        )

    @classmethod
    def profile(cls, root: Path) -> AppPaths:
        """Everything under one profile folder ``root`` (the ``--config-dir`` flag)."""
        root = root.expanduser().resolve()
        return cls(config_dir=root, data_dir=root / "data", log_dir=root / "logs", is_profile=True)

    @property
    def profile_dir(self) -> Path | None:
        """The ``--config-dir`` folder, or None for the platform's standard folders."""
        return self.config_dir if self.is_profile else None

    @property
    def settings_file(self) -> Path:
        """The JSON settings file."""
        return self.config_dir / "settings.json"

    @property
    def history_dir(self) -> Path:
        """Conversation history, one JSON-lines file per session."""
        return self.data_dir / "history"

    @property
    def notes_dir(self) -> Path:
        """The notes the assistant keeps (``addNote``), in one SQLite file."""
        return self.data_dir / "notes"

    @property
    def escalations_dir(self) -> Path:
        """Escalation records written by the ``escalate`` tool."""
        return self.data_dir / "escalations"

    @property
    def log_file(self) -> Path:
        """The rotating log file."""
        return self.log_dir / "sammy-desktop.log"

    def ensure(self) -> None:
        """Create the folders if they are missing, readable by their owner only.

        The data and log folders and the ones under them are the app's own and are made
        ``0700`` even when they exist. The config folder is created ``0700`` but an existing
        one keeps its permissions: with ``--config-dir`` it is a folder the person chose
        (the settings file in it is ``0600`` anyway).

        Raises:
            OSError: a folder cannot be created.
        """
        if not self.config_dir.is_dir():
            make_private_dir(self.config_dir)
        for folder in (
            self.data_dir,
            self.history_dir,
            self.notes_dir,
            self.escalations_dir,
            self.log_dir,
        ):
            make_private_dir(folder)
