"""What an MCP server's tool is called for the model: ``<server>__<tool>``.

The Live API's function names allow letters, digits, ``_ . : -`` and must start with a
letter or ``_``; the Gemini API's v1beta reference says "a maximum length of 64", the SDK's
docstring says 128 (docs/live-service.md T7). Names here keep to ``[A-Za-z0-9_]`` (any other
character becomes ``_``), start with a letter or ``_``, and are at most
:data:`MAX_NAME_CHARS` = 64 long, which both sources accept: a longer name keeps its start
and ends in ``_`` and 8 hexadecimal digits of a hash of the full name, so two long names stay
apart. Two tools that still come out with the same name (``my-tool`` and ``my_tool``) are a
clash: the first keeps the name, the next gets a hashed one, and the clash is reported.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = ["MAX_NAME_CHARS", "NamedTool", "declared_name", "name_tools"]

MAX_NAME_CHARS: Final = 64
_SEPARATOR: Final = "__"
_HASH_CHARS: Final = 8
_OUTSIDE = re.compile(r"[^A-Za-z0-9_]")


def _clean(text: str) -> str:
    return _OUTSIDE.sub("_", text)


def _hashed(name: str, full: str) -> str:
    digest = hashlib.sha256(full.encode("utf-8")).hexdigest()[:_HASH_CHARS]
    return f"{name[: MAX_NAME_CHARS - _HASH_CHARS - 1]}_{digest}"


def declared_name(server: str, tool: str) -> str:
    """The function name the model calls for ``tool`` of ``server`` (before clashes)."""
    name = f"{_clean(server)}{_SEPARATOR}{_clean(tool)}"
    if not (name[0].isalpha() or name[0] == "_"):
        name = f"_{name}"
    if len(name) > MAX_NAME_CHARS:
        name = _hashed(name, f"{server}{_SEPARATOR}{tool}")
    return name


@dataclass(frozen=True, slots=True)
class NamedTool:
    """One tool's name on the server and for the model.

    Attributes:
        original: the name the server gave (what ``tools/call`` is sent with).
        declared: the name the model sees and calls.
        clash: a sentence when the name had to change because another tool took it.
    """

    original: str
    declared: str
    clash: str = ""


def name_tools(server: str, tools: Iterable[str], taken: Iterable[str] = ()) -> list[NamedTool]:
    """Name every tool of ``server``, resolving clashes among them and with ``taken``.

    Args:
        server: the server's name in ``mcp.json``.
        tools: its tools' names, in the server's order.
        taken: names already used by other tools (the built-ins, other servers).
    """
    used = set(taken)
    named: list[NamedTool] = []
    for original in tools:
        wanted = declared_name(server, original)
        name, clash = wanted, ""
        if name in used:
            name = _hashed(wanted, f"{server}{_SEPARATOR}{original}")
            counter = 1
            while name in used:  # a hash clash too: practically never
                name = _hashed(wanted, f"{server}{_SEPARATOR}{original}#{counter}")
                counter += 1
            clash = (
                f'MCP server "{server}": its tool "{original}" would be declared as '
                f"{wanted!r}, which another tool has; it is declared as {name!r}."
            )
        used.add(name)
        named.append(NamedTool(original=original, declared=name, clash=clash))
    return named
