"""The Gemini API key, kept in the operating system's keyring and nowhere else.

``GEMINI_API_KEY`` in the environment overrides the keyring for one session (it is never
written anywhere). It is read once, when the store is made, and taken out of the process's
environment at once, so no program the app starts (an application, the browser, a mail
client) inherits it; :func:`child_environment` is the environment to start them with.

When the platform has no usable keyring backend, reading returns nothing and writing raises
:class:`KeyringUnavailableError` with a message that says how to fix it: there is no
plaintext fallback, by design.

The key is wrapped in :class:`ApiKey`, whose ``repr``/``str`` never show it, so it cannot leak
into a log line or an exception message by accident; ``reveal()`` is the one way out.
"""

from __future__ import annotations

import enum
import logging
import os
import sys
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Final

import keyring
import keyring.backend
import keyring.errors

__all__ = [
    "CHILD_HIDDEN_VARIABLES",
    "ENV_VAR",
    "KEYRING_SERVICE",
    "ApiKey",
    "KeySource",
    "KeyringUnavailableError",
    "SecretStore",
    "SecretStoreError",
    "child_environment",
    "key_problem",
]

_log = logging.getLogger(__name__)

KEYRING_SERVICE: Final = "sammy-desktop"
KEYRING_USERNAME: Final = "gemini-api-key"
ENV_VAR: Final = "GEMINI_API_KEY"

CHILD_HIDDEN_VARIABLES: Final = frozenset({ENV_VAR, "GOOGLE_API_KEY"})
"""Variables a started program never gets: the keys the Gemini SDKs read."""


def child_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment to start another program with: ours without any API key in it.

    Args:
        environ: the environment to start from (``os.environ`` when None).
    """
    source = os.environ if environ is None else environ
    return {name: value for name, value in source.items() if name not in CHILD_HIDDEN_VARIABLES}


SECRET_USER_PREFIX: Final = "secret:"  # noqa: S105 - a name prefix, not a password
"""The keyring user name of a named secret is this and its name (the key has its own)."""


def _secret_user(name: str) -> str:
    return f"{SECRET_USER_PREFIX}{name.strip()}"


def key_problem(value: str) -> str:
    """What is wrong with a pasted key before anyone is asked about it ("" if nothing).

    Args:
        value: the key, stripped of surrounding whitespace.
    """
    if not value:
        return "The API key is empty."
    if any(ch.isspace() or not ch.isprintable() for ch in value):
        return "The API key has spaces or invisible characters in it; paste it again."
    return ""


class SecretStoreError(RuntimeError):
    """The keyring refused an operation (locked, denied, or broken)."""


class KeyringUnavailableError(SecretStoreError):
    """No usable keyring backend exists on this system."""


class KeySource(enum.StrEnum):
    """Where the API key in use came from."""

    ENVIRONMENT = "environment"
    KEYRING = "keyring"


@dataclass(frozen=True, slots=True)
class ApiKey:
    """An API key that does not print itself."""

    _value: str
    source: KeySource

    def reveal(self) -> str:
        """The key itself, for the one place that needs it (the client)."""
        return self._value

    def __repr__(self) -> str:
        return f"ApiKey(<hidden>, source={self.source.value})"

    __str__ = __repr__


_BACKEND_TITLES = {
    "SecretService": "the desktop's keyring (Secret Service)",
    "libsecret": "the desktop's keyring (Secret Service)",
    "kwallet": "KWallet",
    "macOS": "the macOS Keychain",
    "Windows": "Windows Credential Manager",
}
"""keyring's backend modules, by the last part of their name, as people know them."""


def _refusal(error: keyring.errors.KeyringError) -> str:
    """Why the keyring said no, as a phrase (its exception's class is for the log)."""
    if isinstance(error, keyring.errors.KeyringLocked):
        return "it is locked; unlock it (log in to your desktop's keyring) and try again"
    if isinstance(error, keyring.errors.InitError):
        return "it could not be opened; check that it runs, then try again"
    return "it refused; check that it runs and is unlocked, then try again"


def _no_backend_message() -> str:
    if sys.platform.startswith("linux"):
        how = (
            "Install and start a Secret Service provider such as GNOME Keyring or KWallet "
            "(on Debian/Ubuntu: sudo apt-get install gnome-keyring), log in to a desktop "
            "session so it is unlocked, then try again. Meanwhile you can set the "
            f"{ENV_VAR} environment variable for one session."
        )
    else:
        how = (
            "The system keychain could not be reached. Meanwhile you can set the "
            f"{ENV_VAR} environment variable for one session."
        )
    return f"No password store (keyring) is available to keep your API key safely. {how}"


class SecretStore:
    """Reads and writes the API key.

    Args:
        backend: the keyring backend to use; default: keyring's choice for this platform.
        environ: the environment to read the override from (tests pass their own); the
            override is removed from it here, once read.
        on_key_saved: called with each key once it is saved (the app's log redactor learns
            it there, so a key saved in Settings is hidden in the log as exactly as one
            found at start-up).
    """

    def __init__(
        self,
        backend: keyring.backend.KeyringBackend | None = None,
        environ: MutableMapping[str, str] | None = None,
        on_key_saved: Callable[[str], None] | None = None,
    ) -> None:
        self._backend = backend
        # Read once and taken out: a child process would otherwise inherit it (os.environ
        # unsets it in the C environment too, which QProcess and xdg-open start from).
        source = os.environ if environ is None else environ
        self._env_key = source.pop(ENV_VAR, "").strip()
        self._on_key_saved = on_key_saved

    @property
    def backend(self) -> keyring.backend.KeyringBackend:
        """The keyring backend in use."""
        return self._backend if self._backend is not None else keyring.get_keyring()

    def backend_available(self) -> bool:
        """Whether a real keyring backend (not keyring's "fail" backend) is in use."""
        backend = self.backend
        module = type(backend).__module__
        return not (module == "keyring.backends.fail" or backend.priority <= 0)

    def backend_name(self) -> str:
        """The backend's class, for the log and the self-test (``keyring.backends...``)."""
        backend = self.backend
        return f"{type(backend).__module__}.{type(backend).__name__}"

    def backend_title(self) -> str:
        """What a person calls the password store in use, for the About page."""
        if not self.backend_available():
            return "none found"
        module = type(self.backend).__module__.rsplit(".", 1)[-1]
        return _BACKEND_TITLES.get(module, "the system's password store")

    def get_api_key(self) -> ApiKey | None:
        """The key to use: the environment override first, then the keyring.

        Returns None when no key is set or no keyring is available (reading never fails
        loudly: the app then shows the welcome panel).
        """
        if self._env_key:
            return ApiKey(self._env_key, KeySource.ENVIRONMENT)
        stored = self.get_stored_key()
        return None if stored is None else ApiKey(stored, KeySource.KEYRING)

    def get_stored_key(self) -> str | None:
        """The key saved in the keyring, ignoring the environment; None if unavailable."""
        if not self.backend_available():
            return None
        try:
            value = self.backend.get_password(KEYRING_SERVICE, KEYRING_USERNAME)
        except keyring.errors.KeyringError as exc:
            _log.warning("could not read the API key from the keyring: %s", type(exc).__name__)
            return None
        return value or None

    def has_stored_key(self) -> bool:
        """Whether a key is saved in the keyring."""
        return self.get_stored_key() is not None

    def set_api_key(self, value: str) -> None:
        """Save ``value`` in the keyring, replacing any earlier key.

        Raises:
            ValueError: the key is empty or has whitespace or control characters in it.
            KeyringUnavailableError: there is no keyring backend on this system.
            SecretStoreError: the keyring refused (locked, denied).
        """
        value = value.strip()
        problem = key_problem(value)
        if problem:
            raise ValueError(problem)
        self._require_backend()
        if self._on_key_saved is not None:
            # Before the keyring call: a failure logged from here on must not show it.
            self._on_key_saved(value)
        try:
            self.backend.set_password(KEYRING_SERVICE, KEYRING_USERNAME, value)
        except keyring.errors.KeyringError as exc:
            _log.warning("the keyring refused to save the key: %r", exc)
            raise SecretStoreError(
                f"The password store did not save the API key: {_refusal(exc)}."
            ) from None

    def delete_api_key(self) -> bool:
        """Remove the saved key. Returns False if there was none.

        Raises:
            KeyringUnavailableError: there is no keyring backend on this system.
            SecretStoreError: the keyring refused.
        """
        self._require_backend()
        try:
            self.backend.delete_password(KEYRING_SERVICE, KEYRING_USERNAME)
        except keyring.errors.PasswordDeleteError:
            return False
        except keyring.errors.KeyringError as exc:
            _log.warning("the keyring refused to remove the key: %r", exc)
            raise SecretStoreError(
                f"The password store did not remove the API key: {_refusal(exc)}."
            ) from None
        return True

    # ------------------------------------------------------------------ named secrets

    def get_secret(self, name: str) -> str | None:
        """The secret ``name`` (an MCP server's token, ``keyring:NAME`` in ``mcp.json``).

        Returns None when it is not stored or no keyring is available; a secret read is
        hidden in the log from then on, as the API key is.
        """
        if not self.backend_available():
            return None
        try:
            value = self.backend.get_password(KEYRING_SERVICE, _secret_user(name))
        except keyring.errors.KeyringError as exc:
            _log.warning(
                "could not read the secret %r from the keyring: %s", name, type(exc).__name__
            )
            return None
        if value and self._on_key_saved is not None:
            self._on_key_saved(value)
        return value or None

    def set_secret(self, name: str, value: str) -> None:
        """Store ``value`` as the secret ``name``, replacing any earlier one.

        Raises:
            ValueError: the name or the value is empty.
            KeyringUnavailableError: there is no keyring backend on this system.
            SecretStoreError: the keyring refused (locked, denied).
        """
        if not name.strip():
            raise ValueError("A secret needs a name.")
        if not value:
            raise ValueError(f"The secret {name!r} is empty.")
        self._require_backend()
        if self._on_key_saved is not None:
            self._on_key_saved(value)
        try:
            self.backend.set_password(KEYRING_SERVICE, _secret_user(name), value)
        except keyring.errors.KeyringError as exc:
            _log.warning("the keyring refused to save the secret %r: %r", name, exc)
            raise SecretStoreError(
                f"The password store did not save the secret {name!r}: {_refusal(exc)}."
            ) from None

    def delete_secret(self, name: str) -> bool:
        """Remove the secret ``name``. Returns False if there was none.

        Raises:
            KeyringUnavailableError: there is no keyring backend on this system.
            SecretStoreError: the keyring refused.
        """
        self._require_backend()
        try:
            self.backend.delete_password(KEYRING_SERVICE, _secret_user(name))
        except keyring.errors.PasswordDeleteError:
            return False
        except keyring.errors.KeyringError as exc:
            _log.warning("the keyring refused to remove the secret %r: %r", name, exc)
            raise SecretStoreError(
                f"The password store did not remove the secret {name!r}: {_refusal(exc)}."
            ) from None
        return True

    def _require_backend(self) -> None:
        if not self.backend_available():
            raise KeyringUnavailableError(_no_backend_message())
