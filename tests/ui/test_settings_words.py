"""A refused setting says what is wrong in words, on its field (issue 24, point 10).

Every field the settings window edits is given a value of the wrong kind for its type (too
short, too long, out of range, not in the form asked for, not a choice), through the page
that shows it, as its editor would apply it. The field's card then says, under its title,
what to do: no pydantic message, no field name, no regular expression.
"""

from __future__ import annotations

import asyncio
import enum
import re
from typing import Any

from annotated_types import Ge, Le, MaxLen, MinLen
from pydantic.fields import FieldInfo

from sammy_desktop.config import Settings
from sammy_desktop.ui.settings import SettingsWindow
from sammy_desktop.ui.settings.page import FieldsPage
from tests.ui.conftest import MakeSettingsWindow

PLUMBING = re.compile(
    r"Input should|String should|should match|pattern|Value error|type=|validation error|"
    r"\b[a-z]+_[a-z_]+\b|\^|\$|\[a-z"
)


def _bad_values(info: FieldInfo) -> list[Any]:
    """Values a field of this type refuses, one per way of being wrong."""
    annotation = info.annotation
    limits = {type(item): item for item in info.metadata}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return ["loudest"]
    if annotation is bool:
        return ["maybe"]
    if annotation is int:
        low, high = limits.get(Ge), limits.get(Le)
        values: list[Any] = ["many"]
        if isinstance(low, Ge):
            values.append(int(low.ge) - 1)  # type: ignore[call-overload]
        if isinstance(high, Le):
            values.append(int(high.le) + 1)  # type: ignore[call-overload]
        return values
    values = []
    longest = limits.get(MaxLen)
    if isinstance(longest, MaxLen):
        values.append("x" * (longest.max_length + 1))
    if isinstance(limits.get(MinLen), MinLen):
        values.append("")
    if any(getattr(item, "pattern", None) for item in info.metadata):
        values.append("not like this!")
    return values


def _page_of(window: SettingsWindow, name: str) -> FieldsPage:
    for page in window.all_pages:
        if isinstance(page, FieldsPage) and name in page.cards:
            return page
    raise AssertionError(f"no page edits {name}")


def test_every_refused_setting_says_what_to_do_in_words(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow
) -> None:
    window = make_settings_window(list_devices=list, on_test_tone=lambda: None)
    said: dict[tuple[str, str], str] = {}
    for name in window.cards:
        info = Settings.model_fields.get(name)
        if info is None:
            continue
        page = _page_of(window, name)
        card = page.cards[name]
        for value in _bad_values(info):
            assert not page.apply(name, value), (name, value)
            said[(name, repr(value)[:20])] = card.error
            assert card.error.startswith(f"{card.title} was not changed. "), card.error
            assert not PLUMBING.search(card.error), card.error
            assert card.error.endswith("."), card.error
    assert len(said) > 20  # every kind of field was tried

    assert said[("language", "'not like this!'")] == (
        "Language was not changed. Use a language code like en-US, or just en."
    )
    assert said[("api_version", "'not like this!'")] == (
        "API version was not changed. Use an API version like v1beta."
    )
    assert said[("silence_duration_ms", "99")] == (
        "Pause before answering (ms) was not changed. Use a whole number from 100 to 5,000."
    )
    assert said[("model", "''")] == "Model was not changed. Fill this in: it cannot be empty."
    assert said[("talk_mode", "'loudest'")] == (
        "Talk mode was not changed. Choose one of: push to talk, hands free."
    )
    assert said[("voice", "'xxxxxxxxxxxxxxxxxxx")] == (
        "Voice was not changed. Make it shorter: at most 64 characters."
    )


def test_an_address_or_a_hotkey_is_refused_with_what_to_write(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow
) -> None:
    window = make_settings_window(list_devices=list, on_test_tone=lambda: None)
    cases = {
        "support_url": ("ftp://help.example", "Use an address that starts with https://"),
        "api_base_url": ("https://", "Put the site's name after https://."),
        "global_hotkey_keys": ("q", "Q is used for typing: add Ctrl, Alt or Super"),
    }
    for name, (value, words) in cases.items():
        page = _page_of(window, name)
        assert not page.apply(name, value)
        error = page.cards[name].error
        assert words in error, error
        assert value not in error.replace(words, "")  # what was typed is not repeated
        assert not PLUMBING.search(error), error
