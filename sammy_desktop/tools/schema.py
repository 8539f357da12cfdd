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

__all__ = ["SchemaError", "parameters_schema"]

_DEFS_PREFIX = "#/$defs/"


class SchemaError(ValueError):
    """The input model cannot be described to the model as a flat JSON schema."""


def parameters_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of ``model`` with every ``$ref`` inlined.

    Raises:
        SchemaError: the model refers to itself, or its schema is not an object.
    """
    schema = model.model_json_schema()
    definitions: Mapping[str, Any] = schema.pop("$defs", {})
    inlined = _inline(schema, definitions, (), model.__name__)
    if not isinstance(inlined, dict) or inlined.get("type") != "object":
        raise SchemaError(f"{model.__name__}: the parameters schema must be an object")
    inlined.setdefault("properties", {})
    return inlined


def _inline(node: Any, definitions: Mapping[str, Any], seen: tuple[str, ...], owner: str) -> Any:
    if isinstance(node, list):
        return [_inline(item, definitions, seen, owner) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if not ref.startswith(_DEFS_PREFIX) or ref[len(_DEFS_PREFIX) :] not in definitions:
            raise SchemaError(f"{owner}: cannot resolve schema reference {ref!r}")
        name = ref[len(_DEFS_PREFIX) :]
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
