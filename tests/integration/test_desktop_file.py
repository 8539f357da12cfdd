"""The Desktop Entry escaping: Exec runs exactly the words written, whatever they hold."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sammy_desktop.integration.desktop_file import (
    DesktopFileError,
    escape_string,
    exec_value,
    parse_desktop_file,
    parse_exec,
    render_desktop_file,
    unescape_string,
)


def test_plain_words_are_written_as_they_are() -> None:
    assert exec_value(["/usr/bin/sammy-desktop", "--start-hidden"]) == (
        "/usr/bin/sammy-desktop --start-hidden"
    )


def test_a_path_with_a_space_is_quoted() -> None:
    value = exec_value(["/home/a b/.venv/bin/sammy-desktop", "--config-dir", "/tmp/my profile"])
    assert value == '"/home/a b/.venv/bin/sammy-desktop" --config-dir "/tmp/my profile"'
    assert parse_exec(value) == [
        "/home/a b/.venv/bin/sammy-desktop",
        "--config-dir",
        "/tmp/my profile",
    ]


def test_quotes_dollars_backslashes_and_percents_follow_both_rules() -> None:
    # Quoting backslashes " ` $ \; the string escaping then doubles every backslash.
    assert exec_value(['a"b']) == '"a\\\\"b"'
    assert exec_value(["a$b"]) == '"a\\\\$b"'
    assert exec_value(["a\\b"]) == '"a\\\\\\\\b"'
    assert exec_value(["50%"]) == "50%%"
    assert exec_value([""]) == '""'
    for word in ['a"b', "a$b", "a\\b", "50%", "", "it's", "x`y`", "~/x", "a;b", "tab\there"]:
        assert parse_exec(exec_value(["prog", word])) == ["prog", word]


@given(
    st.lists(
        st.text(
            st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\x7f")
            | st.sampled_from(["\t", "\n", " ", '"', "\\", "%", "$", "`"]),
            max_size=12,
        ),
        min_size=1,
        max_size=5,
    )
)
def test_any_words_come_back_exactly(words: list[str]) -> None:
    value = exec_value(words)
    assert "\n" not in value  # one line in the file
    assert parse_exec(value) == words


def test_a_control_character_or_no_word_is_refused() -> None:
    with pytest.raises(DesktopFileError):
        exec_value([])
    with pytest.raises(DesktopFileError):
        exec_value(["prog", "a\x00b"])


def test_an_unclosed_quote_is_refused() -> None:
    with pytest.raises(DesktopFileError, match="not closed"):
        parse_exec('"/usr/bin/sammy --x')


def test_string_escapes_round_trip_and_keep_edge_spaces() -> None:
    for text in [" lead", "trail ", "new\nline", "back\\slash", "tab\t", "plain"]:
        escaped = escape_string(text)
        assert "\n" not in escaped
        assert not escaped.startswith(" ") and not escaped.endswith(" ")
        assert unescape_string(escaped) == text


def test_a_file_is_written_and_read_back_by_group() -> None:
    text = render_desktop_file(
        {"Desktop Entry": {"Type": "Application", "Name": "Sammy"}, "Desktop Action x": {}}
    )
    assert text.startswith("[Desktop Entry]\nType=Application\n")
    assert parse_desktop_file(text) == {
        "Desktop Entry": {"Type": "Application", "Name": "Sammy"},
        "Desktop Action x": {},
    }
    # Comments, blank lines and spaces around "=" are not part of anything.
    assert parse_desktop_file("# c\n\n[G]\nKey = value\n") == {"G": {"Key": "value"}}


@pytest.mark.parametrize(
    "text",
    ["Key=value\n", "[G]\nnot a pair\n", "[G]\nA=1\nA=2\n", "[G]\n[G]\n"],
)
def test_what_is_not_a_desktop_file_is_refused(text: str) -> None:
    with pytest.raises(DesktopFileError):
        parse_desktop_file(text)
