"""``GEMINI_API_KEY`` is read once and taken out of the environment (issue 18, point 11).

Before, it stayed in ``os.environ`` and every application, browser or mail client the app
started inherited it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import keyring.backends.fail
import pytest

from sammy_desktop.config.secrets import ENV_VAR, KeySource, SecretStore, child_environment
from sammy_desktop.tools.desktop.links import _spawn

KEY = "AIzaSyTEST-environment-key-0123456789ab"


def _no_keyring() -> keyring.backends.fail.Keyring:
    return keyring.backends.fail.Keyring()  # type: ignore[no-untyped-call]


def _child_sees(name: str) -> bool:
    script = f"import os, sys; sys.exit(0 if {name!r} in os.environ else 1)"
    return subprocess.run([sys.executable, "-c", script], check=False, timeout=60).returncode == 0


def test_the_key_is_taken_out_of_the_environment_once_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV_VAR, f" {KEY} ")
    assert _child_sees(ENV_VAR)  # what every child got before

    store = SecretStore(backend=_no_keyring())

    assert ENV_VAR not in os.environ
    assert not _child_sees(ENV_VAR)  # gone from the C environment too
    key = store.get_api_key()
    assert key is not None
    assert key.reveal() == KEY
    assert key.source is KeySource.ENVIRONMENT
    assert store.get_api_key() == key  # still there for the session


def test_a_given_environment_is_scrubbed_too() -> None:
    environ = {ENV_VAR: KEY, "HOME": "/home/x"}
    store = SecretStore(backend=_no_keyring(), environ=environ)
    assert environ == {"HOME": "/home/x"}
    key = store.get_api_key()
    assert key is not None and key.reveal() == KEY


def test_a_child_environment_has_no_api_key() -> None:
    environ = {ENV_VAR: KEY, "GOOGLE_API_KEY": KEY, "PATH": "/usr/bin", "LANG": "C.UTF-8"}
    assert child_environment(environ) == {"PATH": "/usr/bin", "LANG": "C.UTF-8"}


def test_an_application_started_by_the_assistant_gets_no_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Even one set again after start-up (by a plugin, say) is not passed on.
    monkeypatch.setenv(ENV_VAR, KEY)
    monkeypatch.setenv("GOOGLE_API_KEY", KEY)
    monkeypatch.setenv("SAMMY_TEST_MARKER", "passed on")
    script = (
        "import os, sys; e = os.environ; "
        "sys.exit(0 if 'GEMINI_API_KEY' not in e and 'GOOGLE_API_KEY' not in e "
        "and e.get('SAMMY_TEST_MARKER') == 'passed on' else 3)"
    )
    process = _spawn([sys.executable, "-c", script])
    assert process.wait(timeout=60) == 0
