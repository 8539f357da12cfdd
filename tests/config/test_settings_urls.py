"""The API endpoint setting never carries a credential into the settings file (issue 18, 12).

A ``?key=`` or a ``user:password@`` in ``api_base_url`` would be saved in plain text; both
are refused with a message that names the field and does not repeat the secret.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sammy_desktop.config import Settings
from sammy_desktop.config.store import SettingsError, SettingsStore

SECRET = "AIzaSyD-not-a-real-key-0123456789abcdefgh"


@pytest.mark.parametrize(
    ("url", "says"),
    [
        (f"https://gateway.example.org/v1?key={SECRET}", "query"),
        (f"wss://gateway.example.org/?api_key={SECRET}", "query"),
        (f"https://gateway.example.org/#{SECRET}", "query or fragment"),
        (f"https://me:{SECRET}@gateway.example.org/", "user name or password"),
        (f"https://{SECRET}@gateway.example.org/", "user name or password"),
    ],
)
def test_a_credential_in_the_endpoint_is_refused_without_repeating_it(
    tmp_path: Path, url: str, says: str
) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    with pytest.raises(SettingsError) as info:
        store.update(Settings(), api_base_url=url)
    message = str(info.value)
    assert message.startswith("API endpoint: The address may not")
    assert says in message
    assert "plain text" in message
    assert SECRET not in message
    assert not store.path.exists()  # nothing saved


def test_a_settings_file_with_a_key_in_the_endpoint_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps({"api_base_url": f"https://gw.example.org?key={SECRET}"}), encoding="utf-8"
    )
    result = SettingsStore(path).load()
    assert result.settings.api_base_url == ""
    (notice,) = result.notices
    assert "API endpoint cannot be used" in notice
    assert SECRET not in notice


@pytest.mark.parametrize(
    "url",
    [
        "https://gateway.example.org",
        "https://gateway.example.org:8443/live/v1/",
        "wss://127.0.0.1:9443",
        "http://[::1]:8080/base",
    ],
)
def test_ordinary_endpoints_are_accepted(url: str) -> None:
    assert Settings(api_base_url=url).api_base_url == url.rstrip("/")
