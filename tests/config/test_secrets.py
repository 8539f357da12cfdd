"""The API key store against the real gnome-keyring that `make test` starts."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import keyring
import keyring.backends.fail
import pytest

from sammy_desktop.config.secrets import (
    ENV_VAR,
    ApiKey,
    KeyringUnavailableError,
    KeySource,
    SecretStore,
)

FAKE_KEY = "AIzaSyTEST-not-a-real-key-0123456789abc"


def _fail_backend() -> keyring.backends.fail.Keyring:
    """keyring's "no backend available" backend, chosen explicitly."""
    return keyring.backends.fail.Keyring()  # type: ignore[no-untyped-call]


@pytest.fixture
def store() -> Iterator[SecretStore]:
    secret_store = SecretStore(environ={})
    yield secret_store
    if secret_store.backend_available():
        secret_store.delete_api_key()


@pytest.mark.keyring
def test_the_real_secret_service_backend_is_in_use(store: SecretStore) -> None:
    assert store.backend_available()
    assert "SecretService" in store.backend_name()


@pytest.mark.keyring
def test_set_get_overwrite_delete(store: SecretStore) -> None:
    assert store.get_api_key() is None
    store.set_api_key(f"  {FAKE_KEY}\n")
    key = store.get_api_key()
    assert key is not None
    assert key.reveal() == FAKE_KEY
    assert key.source is KeySource.KEYRING
    # The key really is in the OS keyring, where any keyring client finds it.
    assert keyring.get_password("sammy-desktop", "gemini-api-key") == FAKE_KEY

    store.set_api_key("AIzaSyOTHER-key-abcdefghijklmnopqrstuvw")
    key = store.get_api_key()
    assert key is not None and key.reveal() == "AIzaSyOTHER-key-abcdefghijklmnopqrstuvw"

    assert store.delete_api_key() is True
    assert store.get_api_key() is None
    assert store.delete_api_key() is False


@pytest.mark.keyring
def test_environment_overrides_the_keyring_for_the_session() -> None:
    store = SecretStore(environ={ENV_VAR: "env-key-123456"})
    store.set_api_key(FAKE_KEY)
    try:
        key = store.get_api_key()
        assert key is not None
        assert key.reveal() == "env-key-123456"
        assert key.source is KeySource.ENVIRONMENT
        assert store.get_stored_key() == FAKE_KEY
    finally:
        store.delete_api_key()


@pytest.mark.parametrize("bad", ["", "   ", "two words", "tab\tkey", "bell\x07"])
def test_malformed_keys_are_refused_before_touching_the_keyring(bad: str) -> None:
    store = SecretStore(backend=_fail_backend(), environ={})
    with pytest.raises(ValueError, match="API key"):
        store.set_api_key(bad)


def test_no_backend_says_so_in_plain_words_and_writes_nothing() -> None:
    store = SecretStore(backend=_fail_backend(), environ={})
    assert not store.backend_available()
    assert store.get_api_key() is None
    with pytest.raises(KeyringUnavailableError) as info:
        store.set_api_key(FAKE_KEY)
    message = str(info.value)
    assert "No password store (keyring) is available" in message
    assert "gnome-keyring" in message
    assert ENV_VAR in message
    assert FAKE_KEY not in message
    with pytest.raises(KeyringUnavailableError):
        store.delete_api_key()


def test_environment_key_works_without_a_backend() -> None:
    store = SecretStore(backend=_fail_backend(), environ={ENV_VAR: " k-123456 "})
    key = store.get_api_key()
    assert key is not None and key.reveal() == "k-123456"


def test_api_key_never_prints_itself(caplog: pytest.LogCaptureFixture) -> None:
    key = ApiKey(FAKE_KEY, KeySource.KEYRING)
    assert FAKE_KEY not in repr(key)
    assert FAKE_KEY not in str(key)
    assert FAKE_KEY not in f"{key}"
    with caplog.at_level(logging.INFO):
        logging.getLogger("test").info("using %s", key)
    assert FAKE_KEY not in caplog.text


@pytest.mark.keyring
def test_a_saved_key_is_told_to_the_listener_before_the_keyring_sees_it() -> None:
    told: list[str] = []
    store = SecretStore(environ={}, on_key_saved=told.append)
    try:
        store.set_api_key(f"  {FAKE_KEY} ")
        assert told == [FAKE_KEY]
        with pytest.raises(ValueError, match="empty"):
            store.set_api_key("   ")
        assert told == [FAKE_KEY]  # refused keys are not secrets worth hiding
    finally:
        store.delete_api_key()


def test_without_a_keyring_the_listener_hears_nothing() -> None:
    told: list[str] = []
    store = SecretStore(backend=_fail_backend(), environ={}, on_key_saved=told.append)
    with pytest.raises(KeyringUnavailableError):
        store.set_api_key(FAKE_KEY)
    assert told == []


@pytest.mark.keyring
def test_named_secrets_live_beside_the_key_and_are_hidden_in_the_log() -> None:
    learnt: list[str] = []
    store = SecretStore(environ={}, on_key_saved=learnt.append)
    try:
        assert store.get_secret("home-token") is None
        store.set_secret("home-token", "Bearer abc.def")
        # In the OS keyring under the app's service, apart from the API key.
        assert keyring.get_password("sammy-desktop", "secret:home-token") == "Bearer abc.def"
        assert store.get_api_key() is None
        learnt.clear()
        # A secret read (an MCP server starting) is taught to the log's redactor.
        assert store.get_secret("home-token") == "Bearer abc.def"
        assert learnt == ["Bearer abc.def"]
        with pytest.raises(ValueError, match="empty"):
            store.set_secret("home-token", "")
        assert store.delete_secret("home-token") is True
        assert store.delete_secret("home-token") is False
        assert store.get_secret("home-token") is None
    finally:
        store.delete_secret("home-token")


def test_named_secrets_without_a_keyring_say_how_to_fix_it() -> None:
    store = SecretStore(_fail_backend(), environ={})
    assert store.get_secret("home-token") is None
    with pytest.raises(KeyringUnavailableError):
        store.set_secret("home-token", "x")
