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

The rules above are this module's contract. The conversion that follows them, node by
node, is :class:`~sammy_desktop.tools.live_schema_converter.SchemaConverter`; this module is
the API around it (a model, or an MCP server's schema, in; a :class:`LiveConversion` out)
and the report of what was left out.

Nothing here imports the SDK until :meth:`LiveConversion.to_schema`: converting (and so
checking) a model at tool-definition time does not load ``google.genai`` at start-up.

On the wire the SDK sends the declaration as ``model_dump(exclude_none=True)``, so the keys
inside ``parameters`` are the SDK's snake_case field names (``max_length``) with upper-case
type names (``OBJECT``); protobuf JSON parsing accepts them beside camelCase.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.errors import PydanticUserError

from sammy_desktop.live_sdk import types
from sammy_desktop.tools.live_schema_converter import LiveSchemaError, SchemaConverter, SchemaLoss

__all__ = [
    "LiveConversion",
    "LiveSchemaError",
    "SchemaLoss",
    "convert_json_schema",
    "convert_model",
    "describe_losses",
    "live_parameters",
]


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
    converter = SchemaConverter(owner, definitions)
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
