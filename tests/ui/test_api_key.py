"""save_pasted_key alone: the one way Settings > Account and the welcome panel save a key."""

from __future__ import annotations

import asyncio

import pytest
from keyring.backends import fail
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.core.key_check import KeyCheck, KeyVerdict
from sammy_desktop.ui.api_key import KeyEntry, save_pasted_key
from sammy_desktop.ui.controls import UiTasks


@pytest.fixture
def host(qtbot: QtBot) -> QWidget:
    """The widgets' parent; pytest holds it for the test (qtbot only weakly)."""
    widget = QWidget()
    qtbot.addWidget(widget)
    return widget


@pytest.fixture
def entry(host: QWidget) -> KeyEntry:
    entry = KeyEntry(QLineEdit(host), QPushButton("Save", host), QLabel(host))
    entry.error_label.hide()
    return entry


def test_an_empty_field_is_refused_before_any_keyring_call(entry: KeyEntry, tasks: UiTasks) -> None:
    saved: list[bool] = []

    async def then() -> None:
        saved.append(True)

    entry.field.setText("   ")
    save_pasted_key(
        entry, SecretStore(environ={}), tasks, if_empty="Paste one.", task_name="t", then=then
    )
    assert entry.error_label.text() == "Paste one."
    assert not entry.error_label.isHidden()
    assert tasks.pending == 0
    assert saved == []


def test_a_key_with_spaces_is_refused_before_anyone_is_asked(
    entry: KeyEntry, tasks: UiTasks
) -> None:
    asked: list[str] = []

    async def then() -> None:
        raise AssertionError("nothing was saved")

    async def check(key: str) -> KeyCheck:
        asked.append(key)
        return KeyCheck(KeyVerdict.WORKS)

    entry.field.setText("two words")
    save_pasted_key(
        entry, SecretStore(environ={}), tasks, if_empty="", task_name="t", then=then, check=check
    )
    assert "spaces or invisible characters" in entry.error_label.text()
    assert entry.field.text() == "two words"
    assert entry.save_button.isEnabled()
    assert tasks.pending == 0
    assert asked == []


def test_a_keyring_that_refuses_is_said_and_the_button_comes_back(
    qloop: asyncio.Runner, entry: KeyEntry, tasks: UiTasks
) -> None:
    saved: list[bool] = []

    async def then() -> None:
        saved.append(True)

    async def scenario() -> None:
        entry.field.setText("AIzaSyGoodTestKey-0123456789")
        # No keyring backend at all: the save is refused with how to fix it.
        store = SecretStore(backend=fail.Keyring(), environ={})  # type: ignore[no-untyped-call]
        save_pasted_key(entry, store, tasks, if_empty="", task_name="t", then=then)
        assert not entry.save_button.isEnabled()  # while the keyring is asked
        await tasks.join()
        assert "No password store (keyring) is available" in entry.error_label.text()
        assert entry.field.text() == "AIzaSyGoodTestKey-0123456789"
        assert entry.save_button.isEnabled()
        assert saved == []

    qloop.run(scenario())
