"""Settings > Account: the Gemini API key, the offline demo, and where the app connects.

The key goes to the system keyring and is never read back into a widget: the page only
says whether one is saved, and whether ``GEMINI_API_KEY`` overrides it for this session.
Saving works exactly as on the welcome panel (:func:`~sammy_desktop.ui.api_key.save_pasted_key`):
the key is checked with the service first and a key that does not work is not saved.
"Remove key" asks first and is disabled while no key is saved. Keyring calls talk D-Bus and
can block, so they run in a worker thread. Under the key, "Try the offline demo" (the demo
stays reachable once a key is saved; during the demo the button leaves it, with a key to
leave to), then the connection's generated fields (the endpoint, connecting on start, the
support contact), and last the prices the cost estimates use (``cost_estimate``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
)

from sammy_desktop.config.secrets import KeySource, SecretStoreError
from sammy_desktop.ui.api_key import KeyChecker, KeyEntry, save_pasted_key
from sammy_desktop.ui.settings.cost_estimate import add_cost_estimate
from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtWidgets import QWidget

    from sammy_desktop.config.secrets import SecretStore
    from sammy_desktop.ui.controls import UiTasks
    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["AccountPage"]


class AccountPage(FieldsPage):
    """The API key card, the offline demo and the connection settings.

    Args:
        state: the live settings.
        secrets: the API key store.
        tasks: runs the keyring calls.
        check_key: asks the service whether a pasted key works before it is saved; None
            saves without asking.
        on_try_demo: starts the offline demo; None leaves the demo card out.
        parent: the Qt parent.
    """

    key_changed = Signal(bool)
    """The key was saved (True) or removed (False)."""

    leave_demo_requested = Signal()
    """The person asked to leave the offline demo for the key saved (the app reconnects)."""

    def __init__(
        self,
        state: SettingsState,
        secrets: SecretStore,
        tasks: UiTasks,
        *,
        check_key: KeyChecker | None = None,
        on_try_demo: Callable[[], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(SettingsSection.ACCOUNT, state, parent)
        self._secrets = secrets
        self._tasks = tasks
        self._check_key = check_key
        self._on_try_demo = on_try_demo
        self._demo_mode = False
        self._key_available = False
        self._build_key_card()
        self._key_entry = KeyEntry(
            self.key_input, self.save_key_button, self.key_error, self.save_anyway_button
        )
        self.save_key_button.clicked.connect(self.on_save_key)
        self.key_input.returnPressed.connect(self.on_save_key)
        self.key_input.textEdited.connect(lambda _text: self._key_entry.hide_error())
        self.save_anyway_button.clicked.connect(self.on_save_key_anyway)
        self.remove_key_button.clicked.connect(self.on_remove_key)
        self.remove_confirmation: QMessageBox | None = None
        """The question "Remove the API key?" while it is asked."""
        self.demo_button: QPushButton | None = None
        if on_try_demo is not None:
            self._build_demo_card()
        self.refresh_key_status()
        self.add_group_title("Connection")
        self.add_generated()
        self.cost_estimate = add_cost_estimate(self, state.changed)
        """Cost estimate: the prices in use for the model, and the person's own rates."""

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
        self.save_anyway_button = QPushButton("Save anyway")
        self.save_anyway_button.setAccessibleDescription(
            "Save the key without checking it with Google"
        )
        self.save_anyway_button.hide()  # until Google could not be reached
        buttons.addWidget(self.save_key_button)
        buttons.addWidget(self.save_anyway_button)
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
        """Check the pasted key with the service, save it to the keyring, clear the field."""
        self._save_key(unchecked=False)

    def on_save_key_anyway(self) -> None:
        """Save the pasted key without checking it (Google could not be reached)."""
        self._save_key(unchecked=True)

    def _save_key(self, *, unchecked: bool) -> None:
        save_pasted_key(
            self._key_entry,
            self._secrets,
            self._tasks,
            if_empty="Paste a key first.",
            task_name="ui-save-key",
            then=self._after_key_saved,
            check=self._check_key,
            unchecked=unchecked,
        )

    def on_remove_key(self) -> None:
        """Ask first; on "Remove", remove the saved key from the keyring."""
        question = QMessageBox(
            QMessageBox.Icon.Question,
            "Remove the API key",
            "Remove the API key?",
            QMessageBox.StandardButton.NoButton,
            self,
        )
        question.setInformativeText(
            "Sammy will forget the key saved in the system keyring and disconnect. You can "
            "paste it again at any time."
        )
        remove = question.addButton("Remove key", QMessageBox.ButtonRole.DestructiveRole)
        cancel = question.addButton(QMessageBox.StandardButton.Cancel)
        question.setDefaultButton(cancel)
        question.setEscapeButton(cancel)
        question.buttonClicked.connect(lambda button: self._on_remove_answered(button, remove))
        self.remove_confirmation = question
        question.open()  # not exec(): the loop (and the keyring's thread) goes on

    def _on_remove_answered(self, button: QAbstractButton, remove: QAbstractButton) -> None:
        question, self.remove_confirmation = self.remove_confirmation, None
        if question is not None:
            question.deleteLater()
        if button is not remove:
            return
        self.remove_key_button.setEnabled(False)
        self._tasks.run(self._remove_key(), "ui-remove-key")

    def set_demo_mode(self, on: bool) -> None:
        """The app entered (True) or left (False) the offline demo: the demo card follows."""
        self._demo_mode = on
        self._update_demo_card()

    def on_demo_button(self) -> None:
        """Start the offline demo, or leave it for the key that is saved."""
        if self._demo_mode:
            self.leave_demo_requested.emit()
        elif self._on_try_demo is not None:
            self._on_try_demo()

    def _build_demo_card(self) -> None:
        card = QFrame()
        card.setObjectName("fieldCard")
        layout = QVBoxLayout(card)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(6)
        title = QLabel("Offline demo")
        title.setObjectName("fieldTitle")
        self.demo_status = QLabel("")
        self.demo_status.setObjectName("fieldDescription")
        self.demo_status.setWordWrap(True)
        self.demo_button = QPushButton("Try the offline demo")
        self.demo_button.clicked.connect(self.on_demo_button)
        row = QHBoxLayout()
        row.addWidget(self.demo_button)
        row.addStretch(1)
        layout.addWidget(title)
        layout.addWidget(self.demo_status)
        layout.addLayout(row)
        self.body.addWidget(card)
        self._update_demo_card()

    def _update_demo_card(self) -> None:
        if self.demo_button is None:
            return
        if not self._demo_mode:
            self.demo_button.setText("Try the offline demo")
            self.demo_button.setEnabled(True)
            self.demo_status.setText(
                "Talk to a local simulator that answers without a key or internet. "
                "A saved key stays saved."
            )
        elif self._key_available:
            self.demo_button.setText("Leave the demo and use my key")
            self.demo_button.setEnabled(True)
            self.demo_status.setText("The offline demo is running. Your saved key is not used.")
        else:
            self.demo_button.setText("Leave the demo and use my key")
            self.demo_button.setEnabled(False)
            self.demo_status.setText(
                "The offline demo is running. Saving a key above ends it, and Sammy then "
                "talks to Gemini."
            )

    async def _after_key_saved(self) -> None:
        leaving_demo = self._demo_mode
        await self._read_key_status()
        if leaving_demo:
            self.key_status.setText(
                "Your key is saved, so the offline demo has ended: Sammy now talks to Gemini."
            )
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
        self._key_available = in_use is not None
        self._update_demo_card()
