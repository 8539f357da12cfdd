"""Turn a pydantic input model into the ``parameters_json_schema`` the Live API accepts.

Pydantic puts enums and nested models under ``$defs`` and points at them with ``$ref``.
Gemini's schema support for function parameters is a subset of JSON Schema, and references
are where implementations differ, so they are inlined here: the declaration the model gets
is one self-contained object. Recursive models cannot be inlined and are refused when the
tool is defined, with the model's name in the error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

__all__ = ["SchemaError", "inline_references", "parameters_schema"]

_DEFS_PREFIXES = ("#/$defs/", "#/definitions/")


class SchemaError(ValueError):
    """The input model cannot be described to the model as a flat JSON schema."""


def parameters_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of ``model`` with every ``$ref`` inlined.

    Raises:
        SchemaError: the model refers to itself, or its schema is not an object.
    """
    return inline_references(model.model_json_schema(), owner=model.__name__)


def inline_references(schema: Mapping[str, Any], *, owner: str) -> dict[str, Any]:
    """A JSON schema whose top level is an object, with its local ``$ref``s inlined.

    References into ``$defs`` and ``definitions`` are resolved; the definitions themselves
    are left out of the result. An MCP server's ``inputSchema`` goes through here as a
    pydantic model's schema does.

    Raises:
        SchemaError: a reference does not resolve or refers to itself, or the schema is
            not an object.
    """
    definitions: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        found = schema.get(key)
        if isinstance(found, Mapping):
            definitions.update(found)
    top = {key: value for key, value in schema.items() if key not in ("$defs", "definitions")}
    inlined = _inline(top, definitions, (), owner)
    if not isinstance(inlined, dict) or inlined.get("type") != "object":
        raise SchemaError(f"{owner}: the parameters schema must be an object")
    inlined.setdefault("properties", {})
    return inlined


def _inline(node: Any, definitions: Mapping[str, Any], seen: tuple[str, ...], owner: str) -> Any:
    if isinstance(node, list):
        return [_inline(item, definitions, seen, owner) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        prefix = next((p for p in _DEFS_PREFIXES if ref.startswith(p)), None)
        if prefix is None or ref[len(prefix) :] not in definitions:
            raise SchemaError(f"{owner}: cannot resolve schema reference {ref!r}")
        name = ref[len(prefix) :]
        if name in seen:
            raise SchemaError(
                f"{owner}: {name} refers to itself; recursive input models cannot be "
                "declared to the Live API"
            )
        target = _inline(definitions[name], definitions, (*seen, name), owner)
        # Keywords beside the $ref (description, default) describe this use; they win.
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        return {**target, **_inline(siblings, definitions, seen, owner)}
    return {key: _inline(value, definitions, seen, owner) for key, value in node.items()}
