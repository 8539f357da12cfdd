"""An MCP server's tool as a :class:`~sammy_desktop.tools.definition.ToolDefinition`.

An MCP tool is a first-class tool: declared per model from the server's ``inputSchema``
(through the same Live-safe converter the built-in tools use), its arguments checked against
that schema before the server is called (so the model gets per-parameter feedback, as for
any tool), run in parallel with a timeout and cancellation by the tool runner, confirmed
first by the server's policy, shown as a card with the server's title.

What the Live model sends is brought back to the schema's types before the check: the
declaration gives every enum as strings (docs/live-service.md T3), so ``"2"`` is sent back
for an enum of numbers, and a whole number may come as ``2.0``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from sammy_desktop.tools.context import ToolContext
from sammy_desktop.tools.definition import ToolDefinition, ToolDefinitionError
from sammy_desktop.tools.kinds import ResponseScheduling, ToolBehavior, ToolCategory
from sammy_desktop.tools.live_schema import LiveConversion, LiveSchemaError, convert_json_schema
from sammy_desktop.tools.mcp.config import ConfirmPolicy
from sammy_desktop.tools.mcp.results import McpAnswer
from sammy_desktop.tools.results import ToolResult
from sammy_desktop.tools.schema import SchemaError, inline_references
from sammy_desktop.tools.wording import title_from_name

if TYPE_CHECKING:
    import jsonschema

__all__ = ["McpArguments", "McpToolDefinition", "McpToolInfo", "build_definition"]

MAX_DESCRIPTION_CHARS: Final = 1_000
"""A server's description is cut to this: the model reads every declaration on every turn."""

_MAX_TITLE: Final = 60


class McpArguments(BaseModel):
    """A call's arguments, already checked against the server's schema."""

    model_config = ConfigDict(extra="allow")

    def as_dict(self) -> dict[str, Any]:
        """The arguments as the server gets them."""
        return dict(self.model_extra or {})


@dataclass(frozen=True, slots=True)
class McpToolInfo:
    """What the server said about one tool (``tools/list``), as the definition needs it.

    Attributes:
        name: the tool's name on the server.
        description: the server's description ("" when none).
        input_schema: its ``inputSchema``.
        title: its display name (``title``, then ``annotations.title``), or "".
        read_only: ``annotations.readOnlyHint`` is true.
        destructive: ``annotations.destructiveHint`` (true by the specification's default
            when the tool is not read-only).
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    title: str = ""
    read_only: bool = False
    destructive: bool = True


McpCall = Callable[[str, dict[str, Any]], Awaitable[ToolResult[McpAnswer]]]
"""Calls the server: ``(tool's name on the server, arguments) -> result``."""


@dataclass(frozen=True, kw_only=True)
class McpToolDefinition(ToolDefinition[McpArguments, McpAnswer]):
    """A tool of an MCP server; its arguments are described by a JSON schema, not a model.

    Attributes:
        server: the server's name in ``mcp.json``.
        original_name: the tool's name on the server (``tools/call`` uses it).
        input_schema: the server's ``inputSchema``.
        read_only: the server says the tool changes nothing.
    """

    server: str
    original_name: str
    input_schema: Mapping[str, Any]
    read_only: bool = False

    @cached_property
    def parameters_json_schema(self) -> dict[str, Any]:
        """The server's schema with its references inlined."""
        try:
            return inline_references(self.input_schema, owner=self.name)
        except SchemaError as error:
            raise ToolDefinitionError(f"tool {self.name!r}: {error}") from error

    @cached_property
    def live_conversion(self) -> LiveConversion:
        """The server's schema as the Live-safe ``parameters`` subset."""
        try:
            return convert_json_schema(self.input_schema, owner=self.name)
        except LiveSchemaError as error:
            raise ToolDefinitionError(f"tool {self.name!r}: {error}") from error

    @cached_property
    def argument_titles(self) -> dict[str, str]:
        """Labels of the arguments whose schema gives a ``title``."""
        properties = self.parameters_json_schema.get("properties", {})
        return {
            name: str(prop["title"])
            for name, prop in properties.items()
            if isinstance(prop, Mapping) and isinstance(prop.get("title"), str)
        }

    @cached_property
    def _validator(self) -> jsonschema.protocols.Validator:
        import jsonschema  # a tenth of a second: at the first call, not at start-up

        schema = dict(self.input_schema)
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        return cls(schema)

    def parse_arguments(self, arguments: Mapping[str, Any]) -> McpArguments:
        """The arguments brought to the schema's types and checked against it.

        Raises:
            pydantic.ValidationError: one entry per problem, located at the argument.
        """
        value = coerce(dict(arguments), self.parameters_json_schema)
        errors: list[InitErrorDetails] = []
        for error in sorted(self._validator.iter_errors(value), key=lambda e: list(e.path)):
            errors.extend(_details(error))
        if errors:
            raise ValidationError.from_exception_data(self.name, errors)
        return McpArguments.model_validate(value)


def _details(error: jsonschema.ValidationError) -> list[InitErrorDetails]:
    path = tuple(str(part) for part in error.absolute_path)
    if error.validator == "required" and isinstance(error.validator_value, list):
        instance = error.instance if isinstance(error.instance, Mapping) else {}
        return [
            {"type": "missing", "loc": (*path, name), "input": instance}
            for name in error.validator_value
            if name not in instance
        ]
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        declared = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
        return [
            {"type": "extra_forbidden", "loc": (*path, name), "input": error.instance[name]}
            for name in error.instance
            if name not in declared
        ]
    return [
        {
            "type": PydanticCustomError("json_schema", "{reason}", {"reason": error.message}),
            "loc": path,
            "input": error.instance,
        }
    ]


def coerce(value: Any, schema: Any) -> Any:
    """``value`` with what the Live model sends in its own way turned back to ``schema``'s types.

    An enum value sent as its JSON text (``"2"``, ``"true"``) becomes the enum's value; a
    float with nothing after the point becomes an integer where the schema wants one.
    Anything else is left for the schema check to judge.
    """
    if not isinstance(schema, Mapping):
        return value
    for union_key in ("anyOf", "oneOf"):
        options = schema.get(union_key)
        if isinstance(options, list):
            typed = [o for o in options if isinstance(o, Mapping) and o.get("type") != "null"]
            if len(typed) == 1:
                return coerce(value, typed[0])
    enum = schema.get("enum")
    if isinstance(enum, list) and isinstance(value, str) and value not in enum:
        for option in enum:
            if not isinstance(option, str) and json.dumps(option) == value:
                return option
    const = schema.get("const")
    if (
        const is not None
        and isinstance(value, str)
        and not isinstance(const, str)
        and json.dumps(const) == value
    ):
        return const
    kind = schema.get("type")
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        if isinstance(properties, Mapping):
            return {key: coerce(item, properties.get(key, {})) for key, item in value.items()}
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, Mapping):
            return [coerce(item, items) for item in value]
    return value


def _title(info: McpToolInfo, server: str) -> str:
    base = " ".join((info.title or title_from_name(info.name)).split())
    suffix = f" ({server})"
    if len(base) + len(suffix) <= _MAX_TITLE:
        return base + suffix
    room = _MAX_TITLE - len(suffix) - 1
    if room < 8:
        return base[: _MAX_TITLE - 1] + "…"
    return base[:room] + "…" + suffix


def _description(info: McpToolInfo, server: str) -> str:
    text = info.description.strip() or f"The tool {info.name!r} of the MCP server {server!r}."
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[: MAX_DESCRIPTION_CHARS - 1].rstrip() + "…"
    return text


def _asks_first(info: McpToolInfo, policy: ConfirmPolicy) -> bool:
    if policy is ConfirmPolicy.NEVER:
        return False
    if policy is ConfirmPolicy.ALWAYS:
        return True
    return not info.read_only


def build_definition(
    *,
    server: str,
    declared_name: str,
    info: McpToolInfo,
    policy: ConfirmPolicy,
    timeout_s: float,
    call: McpCall,
    confirm_timeout_s: float = 60.0,
) -> McpToolDefinition:
    """The tool definition for one MCP tool.

    Args:
        server: the server's name in ``mcp.json``.
        declared_name: the name the model calls (see :mod:`.naming`).
        info: what the server said about the tool.
        policy: the server's confirm policy.
        timeout_s: how long a call may take before it is cancelled at the server.
        call: sends the call to the server.
        confirm_timeout_s: how long the question waits for the person (no answer is no).

    Raises:
        ToolDefinitionError: the schema cannot be declared to the Live API (the message
            names the tool and the field).
    """
    original = info.name

    async def handler(arguments: McpArguments, context: ToolContext) -> ToolResult[McpAnswer]:
        del context
        return await call(original, arguments.as_dict())

    title = _title(info, server)

    def prompt(arguments: McpArguments) -> str:
        what = "change things" if not info.read_only else "look something up"
        warning = (
            " It may delete or overwrite things." if info.destructive and not info.read_only else ""
        )
        return f"The MCP server “{server}” wants to {what} with “{title}”.{warning} Allow it?"

    return McpToolDefinition(
        name=declared_name,
        description=_description(info, server),
        input_model=McpArguments,
        output_model=McpAnswer,
        handler=handler,
        category=ToolCategory.CONTEXT if info.read_only else ToolCategory.ACTION,
        # Every MCP call crosses a process or the network: the model keeps talking where
        # it can (docs/tools.md, "MCP servers").
        behavior=ToolBehavior.NON_BLOCKING,
        scheduling=ResponseScheduling.WHEN_IDLE,
        error_scheduling=ResponseScheduling.WHEN_IDLE,
        timeout_s=timeout_s,
        requires_confirmation=_asks_first(info, policy),
        confirmation_prompt=prompt,
        confirmation_timeout_s=confirm_timeout_s,
        title=title,
        about=_description(info, server).split("\n\n")[0][:200],
        server=server,
        original_name=original,
        input_schema=dict(info.input_schema),
        read_only=info.read_only,
    )
