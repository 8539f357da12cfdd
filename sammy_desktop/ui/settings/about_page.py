"""Settings > About: the version, and the folders the app keeps its files in.

Each folder (logs, data, settings) is shown with an "Open" button that hands it to the file
manager, so a person asked for a log file can find it; the password store in use is named
too. :class:`AboutInfo` carries what the page shows, and the notes folder the Tools page
offers to open.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from sammy_desktop.ui.settings.page import SettingsPage
from sammy_desktop.ui.settings.sections import SettingsSection

__all__ = ["AboutInfo", "AboutPage"]


@dataclass(frozen=True, slots=True)
class AboutInfo:
    """What the About page shows, and the folders other pages open.

    Attributes:
        notes_folder: where the notes tools keep their file (``AppPaths.notes_dir``); the
            Tools page has an "Open notes folder" button when it is given.
    """

    version: str
    log_folder: Path
    data_folder: Path
    config_folder: Path
    keyring_backend: str = ""
    notes_folder: Path | None = None


class AboutPage(SettingsPage):
    """The version, the folders and the password store.

    Args:
        about: what to show; the page is empty without it.
        open_folder: shows a folder in the file manager.
        parent: the Qt parent.
    """

    def __init__(
        self,
        about: AboutInfo | None,
        open_folder: Callable[[Path], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(SettingsSection.ABOUT, parent)
        if about is None:
            return
        version = QLabel(f"Sammy Desktop {about.version}")
        version.setObjectName("fieldTitle")
        self.body.addWidget(version)
        for label, folder in (
            ("Log folder", about.log_folder),
            ("Data folder (history, escalations)", about.data_folder),
            ("Settings folder", about.config_folder),
        ):
            row = QHBoxLayout()
            text = QLabel(f"{label}: {folder}")
            text.setObjectName("fieldDescription")
            text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            text.setWordWrap(True)
            button = QPushButton("Open")
            button.setAccessibleName(f"Open the {label.lower()}")
            button.clicked.connect(lambda _c=False, f=folder: open_folder(f))
            row.addWidget(text, 1)
            row.addWidget(button)
            self.body.addLayout(row)
        if about.keyring_backend:
            backend = QLabel(f"Password store: {about.keyring_backend}")
            backend.setObjectName("fieldDescription")
            self.body.addWidget(backend)
