"""Turn a pydantic input model into the ``parameters`` a Live function declaration needs.

Why this exists: Live models have been seen to ignore ``FunctionDeclaration.
parameters_json_schema`` and call every tool with ``args={}`` (issue 16, point 2), so every
tool with a required argument fails. ``FunctionDeclaration.parameters`` is what the SDK's
own real-backend Live test declares (``google/genai/tests/live_api/test_live_session.py``,
``parameters=types.Schema(type=OBJECT, properties={})``). It takes a ``types.Schema``: a
select subset of the OpenAPI 3.0 schema object, not JSON Schema. This module converts a
pydantic JSON schema (``model.model_json_schema()``, or the inlined form of
:func:`sammy_desktop.tools.schema.parameters_schema`) into that subset, and says what it
had to leave out. :func:`~sammy_desktop.tools.schema.parameters_schema` stays as it is.

What is declared (JSON Schema keyword -> ``types.Schema`` field), and only where it applies
to the declared type, as the SDK's own ``Schema.from_json_schema`` does:

* ``type`` -> ``type`` (upper-case ``Type``), on every node. Where pydantic leaves it out
  it is inferred: ``enum``/``const`` -> STRING, ``properties`` -> OBJECT, ``items`` ->
  ARRAY.
* ``description``; ``enum`` and ``const`` (a one-value enum); ``items``; ``properties``;
  ``required``; ``minimum``/``maximum``; ``minItems``/``maxItems``;
  ``minLength``/``maxLength``; ``pattern``; ``minProperties``/``maxProperties``.
* ``anyOf [T, {"type": "null"}]`` (pydantic's ``Optional``) -> ``T`` with
  ``nullable=True``; so does ``"type": [T, "null"]`` and a ``None`` among enum values.
* ``$ref``/``$defs`` are inlined; keywords beside a ``$ref`` (a field's description)
  win over the referenced definition's (the enum's or nested model's docstring).
* ``format`` only where the Gemini API's Schema reference lists it: ``date-time`` and
  ``enum`` for STRING, ``float``/``double`` for NUMBER, ``int32``/``int64`` for INTEGER.
  Third-party reports say other formats (``uri``) are refused with INVALID_ARGUMENT.

Enums: every value becomes a string, the node's type becomes STRING and its format
``enum``. The Gemini API's Schema reference defines ``enum`` as "possible values of the
element of Type.STRING with enum format", and users report a number in ``enum``
refused with "Invalid value at '...enum[0]' (TYPE_STRING)". Non-string values are
written as JSON (``1`` -> ``"1"``, ``True`` -> ``"true"``), so the model sends that string
back. An
``IntEnum`` field accepts ``"1"`` (pydantic's lax mode); a ``Literal[1, 2]`` field does
not, so such an enum is reported as a loss and its author should switch to an ``IntEnum``
or string literals.

Dropped without a word (nothing the model needs is lost): ``title`` (pydantic derives it
from the field name), ``default`` (the input model applies it when the model leaves the
argument out; the issue asks for it to go), ``$schema``/``$id``/``$comment``, and
``additionalProperties: false`` (``extra="forbid"``: the input model still refuses extra
keys).

Dropped and reported by :func:`describe_losses` (the input model still enforces them, the
model is just not told): ``exclusiveMinimum``/``exclusiveMaximum`` on a NUMBER become the
inclusive ``minimum``/``maximum`` (on an INTEGER they become the exact next integer, and
nothing is reported); ``multipleOf``; ``uniqueItems`` (a ``set``); ``additionalProperties``
allowed beside declared properties (``extra="allow"``); a ``format`` not listed above;
keywords ``types.Schema`` has no field for (``examples``, ``deprecated``, ``readOnly``,
``not`` ...); and keywords that do not apply to the declared type. ``types.Schema`` also
has ``additional_properties``, ``default``, ``example``, ``title``, ``ref``/``defs``,
``property_ordering`` and ``any_of``: none of them is emitted, for the reasons above and
below.

Refused with :class:`LiveSchemaError`, naming the model and the field's path (e.g.
``AddNoteInput.tags[]``), when the tool is defined rather than when the service would
refuse the whole session setup:

* unions other than ``Optional`` (``str | int``, ``oneOf``, discriminated unions). The
  Schema has ``any_of``, but no tool needs it and no evidence shows the Live service
  honouring it in ``parameters``; a union the service ignored would degrade silently into
  arguments the handler refuses, where a clear error at definition time costs one type.
* a property whose type cannot be decided (``Any``, ``list[Any]``'s items): guessing STRING
  would tell the model something the author never said.
* objects without declared properties below the top level (``dict[str, X]``, an empty
  nested model): the Gemini API answers "properties: should be non-empty for OBJECT type"
  for such a parameter (Google AI developer forum, 2025). The top-level object may be empty
  (a tool without arguments), as the SDK's real-backend test declares it.
* fixed-length tuples (``prefixItems``), a value that can only be null, recursion (the
  inlined schema would be infinite), and references that do not resolve.

Nothing here imports the SDK until :meth:`LiveConversion.to_schema`: converting (and so
checking) a model at tool-definition time does not load ``google.genai`` at start-up.

On the wire the SDK sends the declaration as ``model_dump(exclude_none=True)``, so the keys
inside ``parameters`` are the SDK's snake_case field names (``max_length``) with upper-case
type names (``OBJECT``); protobuf JSON parsing accepts them beside camelCase.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel
from pydantic.errors import PydanticUserError

from sammy_desktop.live_sdk import types
from sammy_desktop.tools.schema import SchemaError

__all__ = [
    "LiveConversion",
    "LiveSchemaError",
    "SchemaLoss",
    "convert_json_schema",
    "convert_model",
    "describe_losses",
    "live_parameters",
]

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

# Dropped without a report: nothing the model needs (see the module docstring).
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


@dataclass(frozen=True)
class LiveConversion:
    """A converted input model: the declaration's fields and what was left out.

    Attributes:
        owner: the model's name, as used in paths and errors.
        fields: keyword arguments of ``types.Schema`` (snake_case field names, nested
            dicts), built without the SDK; :meth:`to_schema` turns them into the object.
        losses: what the declaration does not say, in schema order.
    """

    owner: str
    fields: Mapping[str, Any]
    losses: tuple[SchemaLoss, ...]

    def to_schema(self) -> types.Schema:
        """The ``types.Schema`` for ``FunctionDeclaration(parameters=...)``.

        This is the first point at which the SDK is loaded.
        """
        return types.Schema.model_validate(self.fields)

    def describe(self) -> str:
        """A few lines for a tool author: what the Live model is not told, or that nothing is."""
        if not self.losses:
            return f"{self.owner}: the Live declaration says everything the model says."
        lines = [f"{self.owner}: the Live declaration leaves out {len(self.losses)} thing(s):"]
        lines.extend(f"  - {loss}" for loss in self.losses)
        return "\n".join(lines)


def live_parameters(model: type[BaseModel]) -> types.Schema:
    """The Live-safe ``parameters`` schema of an input model.

    Args:
        model: the tool's pydantic input model.

    Returns:
        An OBJECT ``types.Schema`` with every property typed and ``required`` kept.

    Raises:
        LiveSchemaError: the model cannot be declared (see the module docstring).
    """
    return convert_model(model).to_schema()


def convert_model(model: type[BaseModel]) -> LiveConversion:
    """Convert an input model, keeping the record of what was left out.

    Args:
        model: the tool's pydantic input model.

    Returns:
        The declaration's fields and the losses; no SDK is loaded.

    Raises:
        LiveSchemaError: the model cannot be declared (see the module docstring).
    """
    try:
        json_schema = model.model_json_schema()
    except PydanticUserError as error:
        raise LiveSchemaError(
            f"{model.__name__}: pydantic has no JSON schema for it: {error}"
        ) from error
    return convert_json_schema(json_schema, owner=model.__name__)


def convert_json_schema(json_schema: Mapping[str, Any], *, owner: str) -> LiveConversion:
    """Convert a JSON schema whose top level is an object (with or without ``$defs``).

    This is the entry point for schemas that do not come from a pydantic model here (e.g.
    an MCP server's tool ``inputSchema``).

    Args:
        json_schema: the JSON schema; it is not modified.
        owner: a name for errors and paths, usually the model's or the tool's.

    Returns:
        The declaration's fields and the losses; no SDK is loaded.

    Raises:
        LiveSchemaError: the schema cannot be declared, or its top level is not an object.
    """
    definitions: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        found = json_schema.get(key)
        if isinstance(found, Mapping):
            definitions.update(found)
    converter = _Converter(owner, definitions)
    fields = converter.convert(json_schema, owner, (), top_level=True)
    if fields["type"] != "OBJECT":
        raise LiveSchemaError(
            f"{owner}: the parameters must be an object (a model with fields), not {fields['type']}"
        )
    # A null argument list means nothing to the service; the top level is always there.
    fields.pop("nullable", None)
    return LiveConversion(owner=owner, fields=fields, losses=tuple(converter.losses))


def describe_losses(model: type[BaseModel]) -> str:
    """Tell a tool author what the Live declaration of ``model`` leaves out.

    Args:
        model: the tool's pydantic input model.

    Returns:
        One line per loss under a heading, or one line saying nothing is lost.

    Raises:
        LiveSchemaError: the model cannot be declared at all; the message says why.
    """
    return convert_model(model).describe()


class _Converter:
    """One conversion: the definitions to inline and the losses found so far."""

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
