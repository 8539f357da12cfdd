"""The global hotkey's key combination: written the way people write it, refused clearly."""

from __future__ import annotations

from pathlib import Path

import pytest

from sammy_desktop.config import Settings
from sammy_desktop.config.store import SettingsError, SettingsStore


def test_the_default_is_off_with_ctrl_alt_space() -> None:
    settings = Settings()
    assert settings.global_hotkey is False
    assert settings.global_hotkey_keys == "Ctrl+Alt+Space"


def test_the_field_carries_what_the_settings_pane_needs() -> None:
    schema = Settings.model_json_schema()["properties"]["global_hotkey_keys"]
    assert schema["title"]
    assert "Ctrl+Alt+Space" in schema["description"]
    assert schema["section"] == "Talking"


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("ctrl+alt+space", "Ctrl+Alt+Space"),
        (" Alt + Ctrl + SPACE ", "Ctrl+Alt+Space"),
        ("control+shift+k", "Ctrl+Shift+K"),
        ("super+1", "Super+1"),
        ("meta+page up", "Super+PageUp"),
        ("f9", "F9"),
        ("Shift+F12", "Shift+F12"),
        ("pause", "Pause"),
    ],
)
def test_combinations_are_stored_in_one_spelling(written: str, stored: str) -> None:
    assert Settings(global_hotkey_keys=written).global_hotkey_keys == stored


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "at least 1 character"),
        ("space", "Space is used for typing: add Ctrl, Alt or Super"),
        ("shift+a", "A is used for typing"),
        ("ctrl+alt", "exactly one key besides the modifiers"),
        ("ctrl+a+b", "exactly one key besides the modifiers"),
        ("ctrl++", "joined with \\+"),
        ("ctrl+hyper", "'hyper' is not a key Sammy knows"),
        ("ctrl+ctrl+a", "Ctrl appears twice"),
    ],
)
def test_what_cannot_be_a_hotkey_is_refused_with_a_reason(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Settings(global_hotkey_keys=value)


def test_a_refused_combination_names_the_field_and_saves_nothing(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    settings = store.update(Settings(), global_hotkey=True, global_hotkey_keys="alt+f2")
    assert store.load().settings.global_hotkey_keys == "Alt+F2"
    with pytest.raises(SettingsError, match=r"^Global hotkey keys: Q is used for typing"):
        store.update(settings, global_hotkey_keys="q")
    assert store.load().settings.global_hotkey_keys == "Alt+F2"
