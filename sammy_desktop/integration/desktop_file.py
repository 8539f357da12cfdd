r"""The Desktop Entry format (freedesktop.org, version 1.5), written by hand and read back.

A value of type string escapes ``\s``, ``\n``, ``\t``, ``\r`` and ``\\``
(:func:`escape_string`). ``Exec`` is a string too, and inside it each argument that holds a
reserved character (a space, a quote, ``$``...) is double-quoted, with ``"``, the backtick,
``$`` and ``\`` backslashed, and a literal ``%`` is doubled (:func:`exec_value`). Both rules
apply, the quoting first: a backslash in a path is four in the file. :func:`parse_exec`
undoes them, so a test (or a staleness check) can compare the words exactly.

No configparser: it lower-cases keys, treats ``;`` and ``%`` its own way and knows neither
escaping rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

__all__ = [
    "DesktopFileError",
    "escape_string",
    "exec_value",
    "parse_desktop_file",
    "parse_exec",
    "render_desktop_file",
    "unescape_string",
]

_RESERVED: Final = frozenset(" \t\n\"'\\><~|&;$*?#()`")
"""Characters that make an ``Exec`` argument need quotes (the spec's list)."""
_QUOTED_ESCAPES: Final = frozenset('"`$\\')
"""Characters backslashed inside a quoted ``Exec`` argument."""
_STRING_ESCAPES: Final = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


class DesktopFileError(ValueError):
    """Text that is not a desktop file, or an ``Exec`` value that cannot be read."""


def escape_string(value: str) -> str:
    """``value`` as a desktop file's string value (one line, its spaces kept)."""
    out = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    # Spaces around "=" and at the end of the line are not part of the value: \s keeps them.
    if out.startswith(" "):
        out = "\\s" + out[1:]
    if out.endswith(" "):
        out = out[:-1] + "\\s"
    return out


def unescape_string(value: str) -> str:
    """A string value as read from the file, its escapes undone."""
    out: list[str] = []
    chars = iter(value)
    for char in chars:
        if char != "\\":
            out.append(char)
            continue
        following = next(chars, "")
        # An unknown escape (\; in a list) is kept as written.
        out.append(_STRING_ESCAPES.get(following, "\\" + following))
    return "".join(out)


def _quote_argument(word: str) -> str:
    word = word.replace("%", "%%")
    if word and not any(char in _RESERVED for char in word):
        return word
    escaped = "".join("\\" + char if char in _QUOTED_ESCAPES else char for char in word)
    return f'"{escaped}"'


def exec_value(words: Sequence[str]) -> str:
    """The ``Exec`` value (string-escaped, ready for the file) that runs exactly ``words``.

    Raises:
        DesktopFileError: there is no word, or a word holds a character no desktop file can
            carry (a NUL or another control character but tab and newline).
    """
    if not words:
        raise DesktopFileError("a command needs at least the program")
    for word in words:
        if any(ord(char) < 0x20 and char not in "\t\n" for char in word) or "\x7f" in word:
            raise DesktopFileError(f"{word!r} holds a control character")
    return escape_string(" ".join(_quote_argument(word) for word in words))


def parse_exec(value: str) -> list[str]:
    """The words an ``Exec`` value as found in the file runs (the reverse of :func:`exec_value`).

    Field codes (``%f``, ``%U``...) are kept as they are written.

    Raises:
        DesktopFileError: a quote is not closed.
    """
    text = unescape_string(value)
    words: list[str] = []
    current: list[str] = []
    in_word = False
    index = 0
    while index < len(text):
        char = text[index]
        if char == '"':
            in_word = True
            index += 1
            while True:
                if index >= len(text):
                    raise DesktopFileError(f"a quote is not closed in {value!r}")
                char = text[index]
                if char == '"':
                    index += 1
                    break
                if char == "\\" and index + 1 < len(text) and text[index + 1] in _QUOTED_ESCAPES:
                    current.append(text[index + 1])
                    index += 2
                    continue
                if char == "%" and text[index + 1 : index + 2] == "%":
                    current.append("%")
                    index += 2
                    continue
                current.append(char)
                index += 1
            continue
        if char == " ":
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
            index += 1
            continue
        in_word = True
        if char == "%" and text[index + 1 : index + 2] == "%":
            current.append("%")
            index += 2
            continue
        current.append(char)
        index += 1
    if in_word:
        words.append("".join(current))
    return words


def render_desktop_file(groups: Mapping[str, Mapping[str, str]]) -> str:
    """The text of a desktop file: each group's ``[name]`` then its ``key=value`` lines.

    The values are written as given: escape them first (:func:`escape_string`,
    :func:`exec_value`).
    """
    blocks = []
    for name, entries in groups.items():
        lines = [f"[{name}]", *(f"{key}={value}" for key, value in entries.items())]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def parse_desktop_file(text: str) -> dict[str, dict[str, str]]:
    """Group name -> key -> value (as written, escapes kept), of a desktop file's text.

    Raises:
        DesktopFileError: a line is neither a group header, a ``key=value``, a comment nor
            blank, or a key comes before any group, or a group or key appears twice.
    """
    groups: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1]
            if name in groups:
                raise DesktopFileError(f"line {number}: the group [{name}] appears twice")
            current = groups[name] = {}
            continue
        key, equals, value = raw.partition("=")
        key = key.strip()
        if not equals or not key:
            raise DesktopFileError(f"line {number} is not key=value: {raw!r}")
        if current is None:
            raise DesktopFileError(f"line {number}: {key} comes before any [group]")
        if key in current:
            raise DesktopFileError(f"line {number}: {key} appears twice")
        current[key] = value.strip()
    return groups
