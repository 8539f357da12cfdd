"""Settings: round trip, atomic writes, corrupt files kept aside, clear validation errors."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from sammy_desktop.config import SCHEMA_VERSION, Settings, TalkKey, TalkMode, Theme
from sammy_desktop.config.store import SettingsError, SettingsStore


@pytest.fixture
def store(tmp_path: Path) -> SettingsStore:
    return SettingsStore(tmp_path / "profile" / "settings.json")


def test_missing_file_gives_defaults_without_notice(store: SettingsStore) -> None:
    result = store.load()
    assert result.settings == Settings()
    assert result.notices == ()
    assert not store.path.exists()


def test_round_trip_keeps_every_field(store: SettingsStore) -> None:
    settings = Settings(
        voice="Kore",
        language="de-DE",
        talk_mode=TalkMode.HANDS_FREE,
        theme=Theme.DARK,
        enabled_tools={"escalate": False},
        support_url="mailto:help@example.org",
        api_base_url="https://gateway.example.org/",
    )
    settings.privacy.share_platform = False
    store.save(settings)
    loaded = store.load()
    assert loaded.notices == ()
    assert loaded.settings == settings
    assert loaded.settings.api_base_url == "https://gateway.example.org"  # normalised
    assert loaded.settings.talk_mode is TalkMode.HANDS_FREE
    assert loaded.settings.privacy.share_platform is False


def _strings(value: object) -> list[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_saved_file_is_plain_json_without_secrets(
    store: SettingsStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "AIzaSyD-test-0123456789abcdefghijklmnopqrs"
    monkeypatch.setenv("GEMINI_API_KEY", key)
    store.save(Settings(api_base_url="https://gateway.example.org", voice="Kore"))
    text = store.path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["talk_mode"] == "push_to_talk"
    # What is checked is the values: the key in the environment is not in the file, and
    # nothing in it is shaped like a Google API key, whatever its field is called.
    assert key not in text
    assert not [s for s in _strings(data) if re.search(r"AIza[0-9A-Za-z_\-]{30,}", s)]


def test_save_is_atomic_and_leaves_no_temp_files(
    store: SettingsStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.save(Settings(voice="Kore"))
    before = store.path.read_bytes()

    def failing_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="No space left"):
        store.save(Settings(voice="Charon"))
    # The old file is untouched and no half-written temp file is left behind.
    assert store.path.read_bytes() == before
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["settings.json"]


def test_unparseable_file_is_kept_aside_and_defaults_used(store: SettingsStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text('{"voice": "Kore",', encoding="utf-8")
    result = store.load()
    assert result.settings == Settings()
    assert result.moved_aside is not None
    assert result.moved_aside.name.startswith("settings.json.corrupt-")
    assert result.moved_aside.read_text(encoding="utf-8") == '{"voice": "Kore",'
    assert not store.path.exists()
    (notice,) = result.notices
    assert "not valid JSON" in notice
    assert result.moved_aside.name in notice


def test_invalid_value_names_the_field_and_the_value(store: SettingsStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text(
        json.dumps({"schema_version": 1, "silence_duration_ms": 20}), encoding="utf-8"
    )
    result = store.load()
    assert result.settings == Settings()
    (notice,) = result.notices
    assert "Pause before answering (ms) is “20” (use a whole number from 100 to 5,000)" in notice
    assert "greater than or equal" not in notice  # pydantic's words stay in the log
    assert result.moved_aside is not None and result.moved_aside.exists()


@pytest.mark.parametrize(
    ("toggle", "talk_key"),
    [(True, TalkKey.TAP_TO_TOGGLE), (False, TalkKey.HOLD_TO_TALK), (None, TalkKey.AUTO)],
)
def test_a_version_1_file_keeps_its_way_of_talking(
    store: SettingsStore, toggle: bool | None, talk_key: TalkKey
) -> None:
    """Version 2 replaced the "click to toggle" switch by the talk key (Auto for new files)."""
    store.path.parent.mkdir(parents=True)
    old: dict[str, object] = {"schema_version": 1, "voice": "Kore"}
    if toggle is not None:
        old["push_to_talk_toggle"] = toggle
    store.path.write_text(json.dumps(old), encoding="utf-8")
    result = store.load()
    assert not result.notices
    assert result.settings.talk_key is talk_key
    assert result.settings.voice == "Kore"
    store.save(result.settings)
    data = json.loads(store.path.read_text(encoding="utf-8"))
    assert data["schema_version"] == SCHEMA_VERSION == 2
    assert "push_to_talk_toggle" not in data, "the old switch is gone, not kept as unknown"
    assert data["talk_key"] == talk_key.value


def test_a_new_settings_file_talks_with_the_auto_key() -> None:
    assert Settings().talk_key is TalkKey.AUTO


def test_a_json_array_is_not_settings(store: SettingsStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text("[1, 2]", encoding="utf-8")
    (notice,) = store.load().notices
    assert "it holds something other than a set of settings" in notice


def test_keys_from_a_newer_version_are_preserved(store: SettingsStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text(
        json.dumps(
            {
                "schema_version": 7,
                "voice": "Kore",
                "future_feature": {"enabled": True},
                "privacy": {"share_time": False, "share_location": False},
            }
        ),
        encoding="utf-8",
    )
    result = store.load()
    assert result.notices == ()
    assert result.settings.voice == "Kore"
    store.save(result.settings)
    data = json.loads(store.path.read_text(encoding="utf-8"))
    assert data["future_feature"] == {"enabled": True}
    assert data["schema_version"] == 7
    assert data["privacy"]["share_location"] is False
    assert data["privacy"]["share_time"] is False


def test_update_refuses_bad_values_with_the_field_named(store: SettingsStore) -> None:
    settings = Settings()
    store.save(settings)
    with pytest.raises(
        SettingsError, match=r"^Support contact: Use an address that starts with https://, http://"
    ):
        store.update(settings, support_url="ftp://x")
    with pytest.raises(SettingsError, match=r"^Language: Use a language code like en-US"):
        store.update(settings, language="english")
    assert store.load().settings == settings  # nothing was saved


def test_update_saves_good_values(store: SettingsStore) -> None:
    new = store.update(Settings(), voice="Aoede", pre_roll_ms=500)
    assert new.voice == "Aoede"
    assert store.load().settings.pre_roll_ms == 500


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("api_base_url", "gateway.example.org", "starts with https://"),
        ("api_base_url", "https://", "put the site's name after https://"),
        ("support_url", "mailto:", "put an e-mail address after mailto:"),
        ("pre_roll_ms", -1, "greater than or equal to 0"),
        ("talk_mode", "shouting", "push_to_talk"),
    ],
)
def test_field_validation_messages(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Settings.model_validate({field: value})


def test_every_field_has_a_title_and_description() -> None:
    for name, info in Settings.model_fields.items():
        assert info.title, f"{name} has no title"
        assert info.description, f"{name} has no description"
