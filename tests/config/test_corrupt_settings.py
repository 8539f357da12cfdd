"""A settings file with anything in it never stops the app from starting (issue 18, point 10).

Whatever the bytes, :meth:`SettingsStore.load` returns settings: the file's own when they
are valid, otherwise the defaults, with the file set aside and a notice saying why. The
fixed cases are the ones that crashed every start; the hypothesis tests throw bytes and
JSON of every shape at the loader.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sammy_desktop.config import Settings
from sammy_desktop.config.store import MAX_SETTINGS_BYTES, LoadResult, SettingsStore

DEEP = 100_000


def _load(folder: Path, content: bytes) -> tuple[SettingsStore, LoadResult]:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "settings.json"
    for old in folder.glob("settings.json*"):
        old.unlink()
    path.write_bytes(content)
    store = SettingsStore(path)
    return store, store.load()


def _set_aside_with_a_notice(store: SettingsStore, result: LoadResult, why: str) -> None:
    assert result.settings == Settings()
    assert len(result.notices) == 1
    assert why in result.notices[0]
    assert "defaults are in use" in result.notices[0]
    assert result.moved_aside is not None
    assert result.moved_aside.exists()
    assert not store.path.exists()
    # The next start finds no file and says nothing: the problem is reported once.
    assert store.load().notices == ()


@pytest.mark.parametrize(
    ("content", "why"),
    [
        pytest.param(b'{"voice": "Kore\xff\xfe"}', "not UTF-8", id="invalid-utf-8"),
        pytest.param(b"\xff\xfe{\x00}\x00", "not UTF-8", id="utf-16"),
        pytest.param(b"[" * DEEP + b"]" * DEEP, "nested too deeply", id="deep-array"),
        pytest.param(
            b'{"enabled_tools": ' + b'{"a": ' * DEEP + b"1" + b"}" * DEEP + b"}",
            "nested too deeply",
            id="deep-object",
        ),
        pytest.param(
            b'{"silence_duration_ms": ' + b"7" * 5000 + b"}", "digits", id="5000-digit-int"
        ),
        pytest.param(
            b'{"from_a_newer_version": ' + b"[" * 900 + b"]" * 900 + b"}",
            "a value cannot be used",
            id="too-deep-to-save-again",
        ),
        pytest.param(b"{" + b" " * MAX_SETTINGS_BYTES + b"}", "larger than", id="too-big"),
    ],
)
def test_a_corrupt_file_is_set_aside_and_the_defaults_used(
    tmp_path: Path, content: bytes, why: str
) -> None:
    store, result = _load(tmp_path, content)
    _set_aside_with_a_notice(store, result, why)


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    # Windows Notepad writes one in front of UTF-8.
    store, result = _load(tmp_path, b'\xef\xbb\xbf{"voice": "Kore"}')
    assert result.notices == ()
    assert result.settings.voice == "Kore"
    assert store.path.exists()


def test_a_huge_bad_value_is_not_repeated_whole_in_the_notice(tmp_path: Path) -> None:
    _, result = _load(tmp_path, json.dumps({"voice": "x" * 50_000}).encode())
    assert "Voice is “xxx" in result.notices[0]
    assert "make it shorter: at most 64 characters" in result.notices[0]
    assert len(result.notices[0]) < 600


def _check(folder: Path, content: bytes) -> None:
    store, result = _load(folder, content)
    assert isinstance(result.settings, Settings)
    if result.notices:
        assert result.settings == Settings()
        assert result.moved_aside is not None and result.moved_aside.exists()
        assert not store.path.exists()
    else:
        assert store.path.exists()
        # What loaded can be saved and loaded again unchanged.
        store.save(result.settings)
        assert store.load().settings == result.settings


_FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@_FUZZ
@given(content=st.binary(max_size=2048))
def test_any_bytes_load_without_raising(tmp_path: Path, content: bytes) -> None:
    _check(tmp_path / "bytes", content)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=30,
)

# The real field names, so values reach the validators instead of being kept as unknown keys.
_FIELDS = st.sampled_from([*Settings.model_fields, "privacy", "unknown_key"])


@st.composite
def _settings_like(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = draw(st.dictionaries(_FIELDS, _JSON, max_size=8))
    if draw(st.booleans()):
        data["privacy"] = draw(st.dictionaries(st.sampled_from(["share_time", "x"]), _JSON))
    return data


@_FUZZ
@given(data=_settings_like())
def test_any_json_object_loads_without_raising(tmp_path: Path, data: dict[str, Any]) -> None:
    _check(tmp_path / "json", json.dumps(data).encode())


@_FUZZ
@given(
    prefix=st.binary(max_size=20),
    data=_settings_like(),
    cut=st.integers(min_value=0, max_value=400),
)
def test_damaged_json_loads_without_raising(
    tmp_path: Path, prefix: bytes, data: dict[str, Any], cut: int
) -> None:
    text = json.dumps(data).encode()
    _check(tmp_path / "damaged", prefix + text[: max(0, len(text) - cut)])


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_number_json_does_not_allow_sets_the_file_aside(tmp_path: Path, constant: str) -> None:
    # Python's parser takes them; saved again they would come back as null (hypothesis found
    # it with an unknown key holding Infinity): refused, as any non-JSON is.
    store = SettingsStore(tmp_path / "settings.json")
    store.path.write_text(f'{{"voice": "Kore", "unknown_key": {constant}}}', encoding="utf-8")
    result = store.load()
    assert result.settings == Settings()
    (notice,) = result.notices
    assert f"it holds {constant}, which JSON does not allow" in notice
    assert list(tmp_path.glob("settings.json.corrupt-*"))


@pytest.mark.parametrize(
    "version", [False, True, 0, "1", " 1 ", 1.0, 2.5, "abc", None, [1], -3, 10**30]
)
def test_an_odd_schema_version_loads_the_same_after_a_save(tmp_path: Path, version: object) -> None:
    # Hypothesis found {"schema_version": false}: the model read it as 0, so the file was
    # migrated only at the next load and what was saved did not load back the same.
    _check(tmp_path / "version", json.dumps({"schema_version": version}).encode())
