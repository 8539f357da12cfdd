"""The first-run panel: paste a key, or try the offline demo.

Shown in the main window instead of the transcript when no key is available. Saving a
key first asks the service whether it works, then writes it to the keyring (off the Qt
thread, as Settings > Account does: see :mod:`sammy_desktop.ui.api_key`) and calls
``on_key_saved``; a key that does not work is not saved, and the line under the field says
why (with "Save anyway" when Google could not be reached). "Try the offline demo" calls
``on_try_demo``, which the app wires to the embedded simulator.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.ui.api_key import KeyChecker, KeyEntry, save_pasted_key
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.theme import ThemeController

__all__ = ["WelcomePanel"]


class WelcomePanel(QWidget):
    """Welcome, with the two ways to start.

    Args:
        secrets: where a pasted key is saved.
        theme: colours and the app icon.
        tasks: runs the keyring call in a worker thread.
        on_key_saved: called once a key is in the keyring (the app connects).
        on_try_demo: called by "Try the offline demo" (the app starts the simulator).
        check_key: asks the service whether a pasted key works before it is saved; None
            saves without asking.
        parent: the Qt parent.
    """

    def __init__(
        self,
        secrets: SecretStore,
        theme: ThemeController,
        tasks: UiTasks,
        *,
        on_key_saved: Callable[[], None],
        on_try_demo: Callable[[], None],
        check_key: KeyChecker | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._secrets = secrets
        self._check_key = check_key
        self._tasks = tasks
        self._on_key_saved = on_key_saved
        self._on_try_demo = on_try_demo
        self.setObjectName("welcomePanel")
        self.setAccessibleName("Welcome")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 16)
        layout.setSpacing(12)
        layout.addStretch(1)
        icon = QLabel(self)
        icon.setPixmap(theme.assets.app_icon().pixmap(56, 56))
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(icon)
        title = QLabel("Welcome to Sammy", self)
        title.setObjectName("welcomeTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(title)
        text = QLabel(
            "Hold a button (or the Space bar), talk, and Sammy answers in voice. "
            "Paste your Gemini API key to start; it is kept in your system's keyring.",
            self,
        )
        text.setObjectName("welcomeText")
        text.setWordWrap(True)
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(text)

        self.key_input = QLineEdit(self)
        self.key_input.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_input.setPlaceholderText("Paste your Gemini API key")
        self.key_input.setAccessibleName("Gemini API key")
        self.save_button = QPushButton("Save and connect", self)
        self.save_button.setObjectName("primaryButton")
        layout.addSpacing(8)
        layout.addWidget(self.key_input)
        layout.addWidget(self.save_button)
        self.error_label = QLabel("", self)
        self.error_label.setObjectName("welcomeError")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        layout.addWidget(self.error_label)
        self.save_anyway_button = QPushButton("Save anyway", self)
        self.save_anyway_button.setAccessibleDescription(
            "Save the key without checking it with Google"
        )
        self.save_anyway_button.hide()
        layout.addWidget(self.save_anyway_button)

        self.demo_button = QPushButton("Try the offline demo", self)
        self.demo_button.setAccessibleDescription(
            "Talk to a local simulator that answers without a key or internet."
        )
        layout.addSpacing(16)
        or_label = QLabel("or", self)
        or_label.setObjectName("welcomeText")
        or_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(or_label)
        layout.addWidget(self.demo_button)
        note = QLabel("No key, no internet: the demo answers from a local simulator.", self)
        note.setObjectName("welcomeText")
        note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        note.setWordWrap(True)
        layout.addWidget(note)
        layout.addStretch(2)

        self._key_entry = KeyEntry(
            self.key_input, self.save_button, self.error_label, self.save_anyway_button
        )
        self.save_button.clicked.connect(self.on_save)
        self.key_input.returnPressed.connect(self.on_save)
        self.key_input.textEdited.connect(lambda _text: self._key_entry.hide_error())
        self.save_anyway_button.clicked.connect(self.on_save_anyway)
        self.demo_button.clicked.connect(self._on_try_demo)

    def on_save(self) -> None:
        """Check the pasted key with the service, save it (in a worker thread), connect."""
        self._save(unchecked=False)

    def on_save_anyway(self) -> None:
        """Save the pasted key without checking it (Google could not be reached)."""
        self._save(unchecked=True)

    def _save(self, *, unchecked: bool) -> None:
        save_pasted_key(
            self._key_entry,
            self._secrets,
            self._tasks,
            if_empty="Paste a key first, or try the offline demo.",
            task_name="ui-welcome-save-key",
            then=self._after_key_saved,
            check=self._check_key,
            unchecked=unchecked,
        )

    async def _after_key_saved(self) -> None:
        self._on_key_saved()
