"""The settings the desktop tool pack adds: the Google Search switch and the app allow-list."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from sammy_desktop.config import Settings
from sammy_desktop.config.store import SettingsError, SettingsStore

PACK_FIELDS = ("google_search", "allowed_applications")


def test_defaults_are_safe() -> None:
    settings = Settings()
    assert settings.google_search is False
    assert settings.allowed_applications == {}


@pytest.mark.parametrize("name", PACK_FIELDS)
def test_fields_carry_what_the_settings_pane_needs(name: str) -> None:
    schema = Settings.model_json_schema()["properties"][name]
    assert schema["title"]
    assert schema["description"]
    assert schema["section"] == "Tools"


def test_allow_list_round_trips_through_the_store(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    store.save(
        Settings(
            google_search=True,
            allowed_applications={" Calculator ": ["gnome-calculator"], "Editor": ["gedit", "-s"]},
        )
    )
    loaded = store.load()
    assert loaded.notices == ()
    assert loaded.settings.google_search is True
    assert loaded.settings.allowed_applications == {
        "Calculator": ["gnome-calculator"],
        "Editor": ["gedit", "-s"],
    }


@pytest.mark.parametrize(
    ("allowed", "message"),
    [
        ({"": ["x"]}, "must be 1 to 100 characters"),
        ({"x" * 101: ["x"]}, "must be 1 to 100 characters"),
        ({"Calc": []}, "needs a command"),
        ({"Calc": ["gnome-calculator", " "]}, "needs a command"),
        ({"Calc": ["a"], "calc": ["b"]}, "have the same name"),
        ({"Calc": "gnome-calculator"}, "valid list"),
    ],
)
def test_bad_allow_lists_are_refused_with_a_reason(allowed: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Settings.model_validate({"allowed_applications": allowed})


def test_editing_the_allow_list_through_the_store_names_the_field(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    settings = store.load().settings
    with pytest.raises(SettingsError, match=r"^Applications the assistant may open: “Calc” needs"):
        store.update(settings, allowed_applications={"Calc": []})
    assert store.load().settings.allowed_applications == {}


def test_assignment_is_validated_too() -> None:
    settings = Settings()
    with pytest.raises(ValidationError, match="needs a command"):
        settings.allowed_applications = {"Calc": []}
