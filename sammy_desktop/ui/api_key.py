"""Saving a pasted API key to the keyring: one way, for Settings > Account and the welcome.

Both places have a password field, a save button, a "Save anyway" button and an error line
under them, and both save the same way: an empty field is refused at once, without a
keyring call or a request; otherwise the key is first checked with the service (the models
list, :func:`~sammy_desktop.core.key_check.check_key`): a key the service refuses, or one
that cannot use the Live API, is not saved and the error line says why and what to do.
When the service could not be reached (no network) or could not answer, the line says so
and "Save anyway" appears: the key may be good, and the person decides. A key that works
(or one saved anyway) is written to the keyring off the Qt thread (the keyring talks
D-Bus, which can block), with the save button disabled meanwhile, and the field is cleared
once it is stored. The key is never read back into a widget. What follows a saved key
differs (the welcome panel connects, Settings also updates its "a key is saved" line), so
the caller says that.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sammy_desktop.config.secrets import SecretStoreError, key_problem

if TYPE_CHECKING:
    from PySide6.QtWidgets import QAbstractButton, QLabel, QLineEdit

    from sammy_desktop.config.secrets import SecretStore
    from sammy_desktop.core.key_check import KeyCheck
    from sammy_desktop.ui.controls import UiTasks

__all__ = ["CHECKING_TEXT", "KeyChecker", "KeyEntry", "save_pasted_key"]

KeyChecker = Callable[[str], Awaitable["KeyCheck"]]
"""Asks the service whether a pasted key works (the app's ``check_key`` with its endpoint)."""

CHECKING_TEXT = "Checking the key…"
"""The save button's text while the service is asked."""


@dataclass(frozen=True, slots=True)
class KeyEntry:
    """The widgets a key is pasted into.

    Attributes:
        field: the password field holding the pasted key.
        save_button: disabled while the key is being checked and saved.
        error_label: says why the key was not saved; hidden once one is.
        save_anyway_button: shown when the key could not be checked (no network); saves
            the key in the field without asking the service. Hidden otherwise, and again
            as soon as the field changes.
    """

    field: QLineEdit
    save_button: QAbstractButton
    error_label: QLabel
    save_anyway_button: QAbstractButton | None = None

    def show_error(self, message: str, *, save_anyway: bool = False) -> None:
        """Say under the field why the key was not saved (offering "Save anyway" or not)."""
        self.error_label.setText(message)
        self.error_label.show()
        if self.save_anyway_button is not None:
            self.save_anyway_button.setVisible(save_anyway)

    def hide_error(self) -> None:
        """The key was saved, or the field changed: nothing to say any more."""
        self.error_label.hide()
        if self.save_anyway_button is not None:
            self.save_anyway_button.hide()


def save_pasted_key(
    entry: KeyEntry,
    secrets: SecretStore,
    tasks: UiTasks,
    *,
    if_empty: str,
    task_name: str,
    then: Callable[[], Awaitable[None]],
    check: KeyChecker | None = None,
    unchecked: bool = False,
) -> None:
    """Check the key in ``entry``'s field, save it to the keyring, then await ``then()``.

    Returns at once; the check and the keyring call run as the task ``task_name``. A
    refused key (empty, with spaces in it, not accepted by the service, without Live
    access, or a keyring that said no) is shown on ``entry`` and ``then`` is not called.

    Args:
        entry: the field, buttons and error line.
        secrets: where the key is kept.
        tasks: runs the check and the save.
        if_empty: what to say when the field is empty (nothing is saved then).
        task_name: the task's name, for the log.
        then: what follows a saved key (connect, refresh a status line...).
        check: asks the service whether the key works; None saves without asking.
        unchecked: save without asking even with ``check`` ("Save anyway").
    """
    value = entry.field.text().strip()
    if not value:
        entry.show_error(if_empty)
        return
    problem = key_problem(value)
    if problem:  # said before the service is asked about it
        entry.show_error(problem)
        return
    entry.save_button.setEnabled(False)
    if entry.save_anyway_button is not None:
        entry.save_anyway_button.hide()
    if unchecked:
        check = None
    label = entry.save_button.text()
    if check is not None:
        entry.save_button.setText(CHECKING_TEXT)
    tasks.run(_check_and_save(entry, secrets, value, then, check, label), task_name)


async def _check_and_save(
    entry: KeyEntry,
    secrets: SecretStore,
    value: str,
    then: Callable[[], Awaitable[None]],
    check: KeyChecker | None,
    label: str,
) -> None:
    try:
        if check is not None:
            try:
                verdict = await check(value)
            finally:
                entry.save_button.setText(label)
            if not verdict.ok:
                entry.show_error(verdict.message, save_anyway=verdict.may_save_anyway)
                return
        try:
            await asyncio.to_thread(secrets.set_api_key, value)
        except (ValueError, SecretStoreError) as exc:
            entry.show_error(str(exc))
            return
    finally:
        entry.save_button.setEnabled(True)
    entry.field.clear()
    entry.hide_error()
    await then()
