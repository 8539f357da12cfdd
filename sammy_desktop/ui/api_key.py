"""Saving a pasted API key to the keyring: one way, for Settings > Account and the welcome.

Both places have a password field, a save button and an error line under them, and both
save the same way: an empty field is refused at once, without a keyring call; otherwise
the key is written off the Qt thread (the keyring talks D-Bus, which can block), the save
button is disabled meanwhile, and the field is cleared once the key is stored. The key is
never read back into a widget. What follows a saved key differs (the welcome panel
connects, Settings also updates its "a key is saved" line), so the caller says that.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sammy_desktop.config.secrets import SecretStoreError

if TYPE_CHECKING:
    from PySide6.QtWidgets import QAbstractButton, QLabel, QLineEdit

    from sammy_desktop.config.secrets import SecretStore
    from sammy_desktop.ui.controls import UiTasks

__all__ = ["KeyEntry", "save_pasted_key"]


@dataclass(frozen=True, slots=True)
class KeyEntry:
    """The widgets a key is pasted into.

    Attributes:
        field: the password field holding the pasted key.
        save_button: disabled while the key is being saved.
        error_label: says why the key was not saved; hidden once one is.
    """

    field: QLineEdit
    save_button: QAbstractButton
    error_label: QLabel

    def show_error(self, message: str) -> None:
        """Say under the field why the key was not saved."""
        self.error_label.setText(message)
        self.error_label.show()


def save_pasted_key(
    entry: KeyEntry,
    secrets: SecretStore,
    tasks: UiTasks,
    *,
    if_empty: str,
    task_name: str,
    then: Callable[[], Awaitable[None]],
) -> None:
    """Save the key in ``entry``'s field to the keyring, then await ``then()``.

    Returns at once; the keyring call runs in a worker thread as the task ``task_name``.
    A refused key (empty, with spaces in it, or a keyring that said no) is shown on
    ``entry`` and ``then`` is not called.

    Args:
        entry: the field, button and error line.
        secrets: where the key is kept.
        tasks: runs the save.
        if_empty: what to say when the field is empty (nothing is saved then).
        task_name: the task's name, for the log.
        then: what follows a saved key (connect, refresh a status line...).
    """
    value = entry.field.text()
    if not value.strip():
        entry.show_error(if_empty)
        return
    entry.save_button.setEnabled(False)
    tasks.run(_save(entry, secrets, value, then), task_name)


async def _save(
    entry: KeyEntry, secrets: SecretStore, value: str, then: Callable[[], Awaitable[None]]
) -> None:
    try:
        await asyncio.to_thread(secrets.set_api_key, value)
    except (ValueError, SecretStoreError) as exc:
        entry.show_error(str(exc))
        return
    finally:
        entry.save_button.setEnabled(True)
    entry.field.clear()
    entry.error_label.hide()
    await then()
