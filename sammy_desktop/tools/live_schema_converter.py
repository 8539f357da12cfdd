"""The converter behind :mod:`sammy_desktop.tools.live_schema`: one JSON schema node at a time.

:class:`SchemaConverter` walks a JSON schema and returns the keyword arguments of
``types.Schema`` for each node, recording what it leaves out as :class:`SchemaLoss` and
refusing what cannot be declared with :class:`LiveSchemaError`. Each node is first
flattened (``$ref`` inlined, a one-part ``allOf`` merged, an ``Optional`` union collapsed
into ``nullable``), then read keyword by keyword: its type, enum, format, the copied
keywords that apply to its type, its bounds, and its items or properties, recursively.
The tables below are the rules that :mod:`~sammy_desktop.tools.live_schema`'s docstring
states (which keyword becomes which field, for which type, what is dropped and what is
reported): that docstring is where to read them, this module is where they are kept.

No SDK here: the result is plain dicts, turned into ``types.Schema`` by the caller.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from sammy_desktop.tools.schema import SchemaError

__all__ = ["LiveSchemaError", "SchemaConverter", "SchemaLoss"]

# pydantic 2 writes "#/$defs/Name"; older generators (and MCP servers) "#/definitions/Name".
_REF_PREFIXES: Final = ("#/$defs/", "#/definitions/")

_TYPE_NAMES: Final[Mapping[str, str]] = {
    "string": "STRING",
    "integer": "INTEGER",
    "number": "NUMBER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}

# Keywords copied unchanged, JSON Schema name -> types.Schema field name.
_COPIED: Final[Mapping[str, str]] = {
    "description": "description",
    "pattern": "pattern",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
    "minProperties": "min_properties",
    "maxProperties": "max_properties",
}

# Which fields mean something for which type (the SDK's Schema.from_json_schema uses the
# same grouping); a field outside its type's set would be noise at best, a 400 at worst.
_APPLIES_TO: Final[Mapping[str, frozenset[str]]] = {
    "STRING": frozenset({"description", "pattern", "min_length", "max_length"}),
    "INTEGER": frozenset({"description"}),
    "NUMBER": frozenset({"description"}),
    "BOOLEAN": frozenset({"description"}),
    "ARRAY": frozenset({"description", "min_items", "max_items"}),
    "OBJECT": frozenset({"description", "min_properties", "max_properties"}),
}

# The formats the Gemini API's Schema reference lists, per type.
_FORMATS: Final[Mapping[str, frozenset[str]]] = {
    "STRING": frozenset({"date-time", "enum"}),
    "NUMBER": frozenset({"float", "double"}),
    "INTEGER": frozenset({"int32", "int64"}),
}

# Dropped without a report: nothing the model needs (see live_schema's module docstring).
_SILENT: Final = frozenset({"title", "default", "$schema", "$id", "$comment"})

# Read by the converter itself rather than copied.
_HANDLED: Final = frozenset(
    {
        "type",
        "enum",
        "const",
        "format",
        "nullable",
        "items",
        "prefixItems",
        "properties",
        "required",
        "additionalProperties",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "$defs",
        "definitions",
    }
)

_UNION_KEYWORDS: Final = ("anyOf", "oneOf")


class LiveSchemaError(SchemaError):
    """An input model cannot be declared to the Live API; the message names the field."""


@dataclass(frozen=True)
class SchemaLoss:
    """One thing the input model says that the Live declaration does not.

    Attributes:
        path: where, as ``Model.field``, ``Model.items[]`` or ``Model.place.city``.
        keyword: the JSON Schema keyword left out (or changed).
        detail: what the model is not told, and what still holds.
    """

    path: str
    keyword: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.keyword}: {self.detail}"


class SchemaConverter:
    """One conversion: the definitions to inline and the losses found so far.

    Args:
        owner: the model's (or tool's) name, for errors.
        definitions: the schema's ``$defs``/``definitions``, inlined where referenced.
    """

    def __init__(self, owner: str, definitions: Mapping[str, Any]) -> None:
        self._owner = owner
        self._definitions = definitions
        self.losses: list[SchemaLoss] = []

    def _lose(self, path: str, keyword: str, detail: str) -> None:
        self.losses.append(SchemaLoss(path, keyword, detail))

    # ------------------------------------------------------------------ one node

    def convert(
        self, node: Any, path: str, chain: tuple[str, ...], *, top_level: bool = False
    ) -> dict[str, Any]:
        """The ``types.Schema`` fields for ``node`` (and, recursively, its children).

        Args:
            node: a JSON schema node.
            path: where it is, for errors and losses.
            chain: the definitions being inlined on the way here (recursion check).
            top_level: whether this is the parameters object itself (it may be empty).
        """
        flat, chain, nullable = self._flatten(node, path, chain)
        kind, type_nullable = self._type_of(flat, path)
        nullable = nullable or type_nullable or flat.get("nullable") is True
        fields: dict[str, Any] = {"type": kind}

        if "enum" in flat or "const" in flat:
            values, enum_nullable = self._enum(flat, path)
            nullable = nullable or enum_nullable
            fields["type"] = kind = "STRING"
            fields["format"] = "enum"
            fields["enum"] = values
        elif "format" in flat:
            self._format(flat["format"], kind, path, fields)

        for key, value in flat.items():
            if key in _HANDLED or key in _SILENT:
                continue
            target = _COPIED.get(key)
            if target is None:
                self._lose(path, key, "types.Schema has no such field; not declared")
            elif target not in _APPLIES_TO[kind]:
                self._lose(path, key, f"does not apply to a {kind}; not declared")
            else:
                fields[target] = value

        self._bounds(flat, kind, path, fields)
        if kind == "ARRAY":
            fields["items"] = self._items(flat, path, chain)
        elif "items" in flat or "prefixItems" in flat:
            self._lose(path, "items", f"does not apply to a {kind}; not declared")
        if kind == "OBJECT":
            self._object(flat, path, chain, fields, top_level=top_level)
        elif "properties" in flat or "required" in flat:
            self._lose(path, "properties", f"does not apply to a {kind}; not declared")
        if nullable:
            fields["nullable"] = True
        return fields

    def _flatten(
        self, node: Any, path: str, chain: tuple[str, ...]
    ) -> tuple[dict[str, Any], tuple[str, ...], bool]:
        """Inline ``$ref``, merge a one-part ``allOf``, collapse ``Optional`` unions.

        Returns:
            The node with none of those keywords left, the definitions chain after the
            inlining, and whether a null alternative was seen.
        """
        if not isinstance(node, Mapping):
            raise LiveSchemaError(f"{path}: expected a schema object, got {node!r}")
        current = dict(node)
        nullable = False
        while True:
            if "$ref" in current:
                siblings = {key: value for key, value in current.items() if key != "$ref"}
                name = self._definition_name(current["$ref"], path)
                if name in chain:
                    through = " -> ".join((*chain[chain.index(name) :], name))
                    raise LiveSchemaError(
                        f"{path}: {name} refers to itself ({through}); recursive input "
                        "models cannot be declared to the Live API (the inlined schema "
                        "would be infinite)"
                    )
                chain = (*chain, name)
                target = self._definitions[name]
                if not isinstance(target, Mapping):
                    raise LiveSchemaError(f"{path}: definition {name!r} is not a schema object")
                # Keywords beside the $ref (a field's description) describe this use: they win.
                current = {**target, **siblings}
                continue
            if "allOf" in current:
                parts = current.pop("allOf")
                if not isinstance(parts, list) or len(parts) != 1:
                    raise LiveSchemaError(
                        f"{path}: allOf with several parts cannot be declared to the Live "
                        "API; use one model"
                    )
                (part,) = parts
                if not isinstance(part, Mapping):
                    raise LiveSchemaError(f"{path}: expected a schema object, got {part!r}")
                current = {**part, **current}
                continue
            union_key = next((key for key in _UNION_KEYWORDS if key in current), None)
            if union_key is not None:
                branches = current.pop(union_key)
                if not isinstance(branches, list) or not branches:
                    raise LiveSchemaError(f"{path}: {union_key} must be a non-empty list")
                others = [branch for branch in branches if not _is_null(branch)]
                nullable = nullable or len(others) < len(branches)
                if len(others) != 1:
                    raise self._union_error(path, branches)
                (branch,) = others
                if not isinstance(branch, Mapping):
                    raise LiveSchemaError(f"{path}: expected a schema object, got {branch!r}")
                # The discriminator only means something with several alternatives.
                current.pop("discriminator", None)
                current = {**branch, **current}
                continue
            return current, chain, nullable

    def _definition_name(self, ref: Any, path: str) -> str:
        if isinstance(ref, str):
            for prefix in _REF_PREFIXES:
                if ref.startswith(prefix) and ref[len(prefix) :] in self._definitions:
                    return ref[len(prefix) :]
        raise LiveSchemaError(f"{path}: cannot resolve the schema reference {ref!r}")

    def _union_error(self, path: str, branches: list[Any]) -> LiveSchemaError:
        kinds = " | ".join(_branch_label(branch) for branch in branches)
        return LiveSchemaError(
            f"{path}: a union ({kinds}) cannot be declared to the Live API; only "
            "Optional[T] can. Use one type (e.g. str, parsed in the handler) or one "
            "argument per alternative"
        )

    def _type_of(self, node: Mapping[str, Any], path: str) -> tuple[str, bool]:
        """The declared type (inferred where pydantic leaves it out) and its nullability."""
        raw = node.get("type")
        nullable = False
        if isinstance(raw, list):
            named = [name for name in raw if name != "null"]
            nullable = len(named) < len(raw)
            if len(named) > 1:
                raise self._union_error(path, [{"type": name} for name in raw])
            raw = named[0] if named else "null"
        if raw is None:
            if "enum" in node or "const" in node:
                return "STRING", nullable
            if "properties" in node:
                return "OBJECT", nullable
            if "items" in node or "prefixItems" in node:
                return "ARRAY", nullable
            raise LiveSchemaError(
                f"{path}: cannot tell the type of this value (an Any or untyped field); "
                "the Live API needs a type for every argument: give it a concrete one"
            )
        if raw == "null":
            raise LiveSchemaError(
                f"{path}: the value can only be null; there is nothing to declare (drop it)"
            )
        if not isinstance(raw, str) or raw not in _TYPE_NAMES:
            raise LiveSchemaError(f"{path}: unknown JSON Schema type {raw!r}")
        return _TYPE_NAMES[raw], nullable

    def _enum(self, node: Mapping[str, Any], path: str) -> tuple[list[str], bool]:
        """The enum's values as strings (``const`` is a one-value enum), and nullability."""
        if "const" in node:
            raw: Any = [node["const"]]
        else:
            raw = node["enum"]
            if not isinstance(raw, list):
                raise LiveSchemaError(f"{path}: enum must be a list, got {raw!r}")
        nullable = None in raw
        values = [value for value in raw if value is not None]
        if not values:
            raise LiveSchemaError(
                f"{path}: the value can only be null; there is nothing to declare (drop it)"
            )
        strings = list(dict.fromkeys(_enum_string(value) for value in values))
        if any(not isinstance(value, str) for value in values):
            self._lose(
                path,
                "enum",
                f"the values {values!r} are declared as the strings {strings!r} (the Gemini "
                "API takes only string enums), so the model sends a string: the input model "
                "must accept it (an IntEnum does; Literal[1, 2] does not, use an IntEnum or "
                "string literals)",
            )
        return strings, nullable

    def _format(self, value: Any, kind: str, path: str, fields: dict[str, Any]) -> None:
        allowed = _FORMATS.get(kind, frozenset())
        if isinstance(value, str) and value in allowed:
            fields["format"] = value
            return
        listed = ", ".join(sorted(allowed)) or "none"
        self._lose(
            path,
            "format",
            f"{value!r} is not a format the Gemini API lists for {kind} ({listed}); not "
            "declared (say it in the description if the model needs to know)",
        )

    def _bounds(
        self, node: Mapping[str, Any], kind: str, path: str, fields: dict[str, Any]
    ) -> None:
        """``minimum``/``maximum``, with the exclusive bounds the Schema lacks mapped onto them."""
        for inclusive_key, exclusive_key, up in (
            ("minimum", "exclusiveMinimum", True),
            ("maximum", "exclusiveMaximum", False),
        ):
            inclusive = node.get(inclusive_key)
            exclusive = node.get(exclusive_key)
            if inclusive is None and exclusive is None:
                continue
            if kind not in ("INTEGER", "NUMBER"):
                for key in (inclusive_key, exclusive_key):
                    if key in node:
                        self._lose(path, key, f"does not apply to a {kind}; not declared")
                continue
            if isinstance(exclusive, bool):
                # JSON Schema draft 4: a flag that makes the inclusive bound exclusive.
                inclusive, exclusive = (None, inclusive) if exclusive else (inclusive, None)
            candidates: list[float] = []
            if inclusive is not None:
                candidates.append(_number(inclusive, path, inclusive_key))
            if exclusive is not None:
                bound = _number(exclusive, path, exclusive_key)
                if kind == "INTEGER":
                    # Exact: the first integer inside the bound.
                    candidates.append(float(math.floor(bound) + 1 if up else math.ceil(bound) - 1))
                else:
                    candidates.append(bound)
                    self._lose(
                        path,
                        exclusive_key,
                        f"declared as the inclusive {inclusive_key} {bound:g}; the input "
                        f"model still refuses {bound:g} itself",
                    )
            fields[inclusive_key] = max(candidates) if up else min(candidates)

    def _items(self, node: Mapping[str, Any], path: str, chain: tuple[str, ...]) -> dict[str, Any]:
        if "prefixItems" in node:
            raise LiveSchemaError(
                f"{path}: a fixed-length tuple cannot be declared to the Live API; use a "
                "model with named fields, or a list of one type"
            )
        if "items" not in node:
            raise LiveSchemaError(
                f"{path}: a list needs an item type for the Live API (list[str], not list)"
            )
        if node.get("uniqueItems"):
            self._lose(path, "uniqueItems", "the model is not told items must differ")
        return self.convert(node["items"], f"{path}[]", chain)

    def _object(
        self,
        node: Mapping[str, Any],
        path: str,
        chain: tuple[str, ...],
        fields: dict[str, Any],
        *,
        top_level: bool,
    ) -> None:
        properties = node.get("properties", {})
        if not isinstance(properties, Mapping):
            raise LiveSchemaError(f"{path}: properties must be an object, got {properties!r}")
        extra = node.get("additionalProperties", False)
        if not properties and not top_level:
            what = "a dict (free-form keys)" if extra is not False else "an object without fields"
            raise LiveSchemaError(
                f"{path}: {what} cannot be declared to the Live API; the Gemini API refuses "
                "an OBJECT parameter without properties. Use a model with named fields, a "
                "list of key/value models, or a str holding JSON"
            )
        if extra is not False:
            self._lose(
                path,
                "additionalProperties",
                "the model is told only the declared properties (extra keys are allowed)",
            )
        fields["properties"] = {
            name: self.convert(child, f"{path}.{name}", chain) for name, child in properties.items()
        }
        required = node.get("required", [])
        if not isinstance(required, list):
            raise LiveSchemaError(f"{path}: required must be a list, got {required!r}")
        for name in required:
            if name not in properties:
                raise LiveSchemaError(f"{path}: required names {name!r}, which is not a property")
        if required:
            fields["required"] = list(required)


def _is_null(branch: Any) -> bool:
    return isinstance(branch, Mapping) and branch.get("type") == "null"


def _branch_label(branch: Any) -> str:
    if isinstance(branch, Mapping):
        if isinstance(branch.get("$ref"), str):
            return str(branch["$ref"]).rsplit("/", 1)[-1]
        if "type" in branch:
            return str(branch["type"])
        if "enum" in branch or "const" in branch:
            return "enum"
    return "?"


def _enum_string(value: Any) -> str:
    # JSON spelling, so True is "true" as the model would write it, not Python's "True".
    return value if isinstance(value, str) else json.dumps(value)


def _number(value: Any, path: str, keyword: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LiveSchemaError(f"{path}: {keyword} must be a number, got {value!r}")
    return float(value)
