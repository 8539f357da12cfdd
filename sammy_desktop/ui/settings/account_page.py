"""Settings > Account: the Gemini API key, and where the app connects.

The key goes to the system keyring and is never read back into a widget: the page only
says whether one is saved, and whether ``GEMINI_API_KEY`` overrides it for this session.
Saving works exactly as on the welcome panel (:func:`~sammy_desktop.ui.api_key.save_pasted_key`).
Keyring calls talk D-Bus and can block, so they run in a worker thread. Under the key, the
connection's generated fields (the endpoint, connecting on start, the support contact).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout

from sammy_desktop.config.secrets import KeySource, SecretStoreError
from sammy_desktop.ui.api_key import KeyEntry, save_pasted_key
from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from sammy_desktop.config.secrets import SecretStore
    from sammy_desktop.ui.controls import UiTasks
    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["AccountPage"]


class AccountPage(FieldsPage):
    """The API key card and the connection settings.

    Args:
        state: the live settings.
        secrets: the API key store.
        tasks: runs the keyring calls.
        parent: the Qt parent.
    """

    key_changed = Signal(bool)
    """The key was saved (True) or removed (False)."""

    def __init__(
        self,
        state: SettingsState,
        secrets: SecretStore,
        tasks: UiTasks,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(SettingsSection.ACCOUNT, state, parent)
        self._secrets = secrets
        self._tasks = tasks
        self._build_key_card()
        self._key_entry = KeyEntry(self.key_input, self.save_key_button, self.key_error)
        self.save_key_button.clicked.connect(self.on_save_key)
        self.key_input.returnPressed.connect(self.on_save_key)
        self.remove_key_button.clicked.connect(self.on_remove_key)
        self.refresh_key_status()
        self.add_group_title("Connection")
        self.add_generated()

    def _build_key_card(self) -> None:
        card = QFrame()
        card.setObjectName("fieldCard")
        layout = QVBoxLayout(card)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(6)
        title = QLabel("Gemini API key")
        title.setObjectName("fieldTitle")
        self.key_status = QLabel("")
        self.key_status.setObjectName("fieldDescription")
        self.key_status.setWordWrap(True)
        self.key_input = QLineEdit()
        self.key_input.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_input.setPlaceholderText("Paste a new key")
        self.key_input.setAccessibleName("New API key")
        self.key_input.setAccessibleDescription(
            "The key is saved in the system keyring and never shown again."
        )
        title.setBuddy(self.key_input)
        buttons = QHBoxLayout()
        self.save_key_button = QPushButton("Save key")
        self.save_key_button.setObjectName("primaryButton")
        self.remove_key_button = QPushButton("Remove key")
        self.remove_key_button.setObjectName("dangerButton")
        self.remove_key_button.setEnabled(False)  # until the keyring says a key is there
        buttons.addWidget(self.save_key_button)
        buttons.addWidget(self.remove_key_button)
        buttons.addStretch(1)
        self.key_error = QLabel("")
        self.key_error.setObjectName("fieldError")
        self.key_error.setWordWrap(True)
        self.key_error.hide()
        for widget in (title, self.key_status, self.key_input):
            layout.addWidget(widget)
        layout.addLayout(buttons)
        layout.addWidget(self.key_error)
        self.body.addWidget(card)

    def refresh_key_status(self) -> None:
        """Ask the keyring (in a worker thread) whether a key is saved, and say so."""
        self._tasks.run(self._read_key_status(), "ui-key-status")

    def forget_typed_key(self) -> None:
        """Clear a key typed but not saved (the window is closing)."""
        self.key_input.clear()

    def on_save_key(self) -> None:
        """Save the pasted key to the keyring and clear the field."""
        save_pasted_key(
            self._key_entry,
            self._secrets,
            self._tasks,
            if_empty="Paste a key first.",
            task_name="ui-save-key",
            then=self._after_key_saved,
        )

    def on_remove_key(self) -> None:
        """Remove the saved key from the keyring."""
        self.remove_key_button.setEnabled(False)
        self._tasks.run(self._remove_key(), "ui-remove-key")

    async def _after_key_saved(self) -> None:
        await self._read_key_status()
        self.key_changed.emit(True)

    async def _remove_key(self) -> None:
        try:
            await asyncio.to_thread(self._secrets.delete_api_key)
        except SecretStoreError as exc:
            self._key_entry.show_error(str(exc))
            return
        self.key_error.hide()
        await self._read_key_status()
        self.key_changed.emit(False)

    async def _read_key_status(self) -> None:
        stored = await asyncio.to_thread(self._secrets.has_stored_key)
        in_use = await asyncio.to_thread(self._secrets.get_api_key)
        if in_use is not None and in_use.source is KeySource.ENVIRONMENT:
            text = "The GEMINI_API_KEY environment variable is in use for this session."
            if stored:
                text += " A key is also saved in the system keyring."
        elif stored:
            text = "A key is saved in the system keyring. It is never shown again."
        else:
            text = "No key is saved yet. Get one at aistudio.google.com, then paste it here."
        self.key_status.setText(text)
        self.remove_key_button.setEnabled(stored)
