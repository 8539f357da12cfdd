"""The password store is named and its refusals said in words (issue 24, points 10 and 11):
no ``keyring.backends...`` module path and no exception class in what the window shows."""

from __future__ import annotations

import keyring.backends.fail
import keyring.errors
import pytest
from keyring.backend import KeyringBackend

from sammy_desktop.config.secrets import SecretStore, SecretStoreError


class RefusingKeyring(KeyringBackend):
    """A keyring that is there but says no, as a locked or broken one does."""

    priority = 1

    def __init__(self, error: keyring.errors.KeyringError) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.error = error

    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        raise self.error

    def delete_password(self, service: str, username: str) -> None:
        raise self.error


@pytest.mark.keyring
def test_the_real_password_store_has_a_name_people_know() -> None:
    store = SecretStore(environ={})
    assert "SecretService" in store.backend_name()  # for the log and the self-test
    assert store.backend_title() == "the desktop's keyring (Secret Service)"


def test_no_password_store_is_said_so() -> None:
    nothing = keyring.backends.fail.Keyring()  # type: ignore[no-untyped-call]
    store = SecretStore(backend=nothing, environ={})
    assert store.backend_title() == "none found"


@pytest.mark.parametrize(
    ("error", "says"),
    [
        (keyring.errors.KeyringLocked("locked"), "it is locked; unlock it"),
        (keyring.errors.InitError("no dbus"), "it could not be opened"),
        (keyring.errors.PasswordSetError("denied"), "it refused; check that it runs"),
    ],
)
def test_a_refusing_password_store_says_why_in_words(
    error: keyring.errors.KeyringError, says: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = SecretStore(backend=RefusingKeyring(error), environ={})
    assert store.backend_title() == "the system's password store"
    with pytest.raises(SecretStoreError) as saving:
        store.set_api_key("AIzaSyTEST-not-a-real-key-0123456789abc")
    message = str(saving.value)
    assert message.startswith("The password store did not save the API key: ")
    assert says in message
    assert type(error).__name__ not in message
    assert type(error).__name__ in caplog.text  # the log keeps what exactly
    with pytest.raises(SecretStoreError, match="did not remove the API key: "):
        store.delete_api_key()
