"""The tools the app knows: definitions, sources, the enabled set, declarations per model.

:class:`ToolRegistry` registers the built-ins, the application's tools and the plugins'
(a broken plugin or a name clash becomes a :class:`RegistrationProblem`, never a crash;
a plugin's tools start switched off and run within a time limit),
keeps the enabled set (the settings, overridden at run time by
:meth:`ToolRegistry.set_enabled`), and builds the ``types.Tool`` declarations for a
model's capabilities. It runs nothing.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint
from typing import Any

from sammy_desktop.config import Settings
from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import types
from sammy_desktop.tools import plugins
from sammy_desktop.tools.capabilities import ModelCapabilities, capabilities_for
from sammy_desktop.tools.definition import ToolDefinition
from sammy_desktop.tools.events import ToolEnabledChanged, ToolSetChanged

__all__ = [
    "SOURCE_APPLICATION",
    "SOURCE_BUILTIN",
    "DuplicateToolError",
    "RegistrationProblem",
    "ToolRegistry",
    "UnknownToolError",
]

_log = logging.getLogger(__name__)

SOURCE_BUILTIN = "built-in"
SOURCE_APPLICATION = "the application"


class DuplicateToolError(ValueError):
    """A tool's name is already taken; the message names both sources."""


class UnknownToolError(LookupError):
    """No tool of that name is registered."""


@dataclass(frozen=True, slots=True)
class RegistrationProblem:
    """A tool or plugin that could not be registered, for the log and the settings pane.

    Attributes:
        source: where it came from (``built-in``, ``the application``, ``plugin ...``).
        message: what went wrong, in a sentence.
        tool_name: the tool concerned, when known.
    """

    source: str
    message: str
    tool_name: str | None = None


@dataclass(frozen=True, slots=True)
class _Registered:
    definition: ToolDefinition[Any, Any]
    source: str
    plugin: str | None = None  # the installing package, for a plugin's tool


class ToolRegistry:
    """Definitions by name, their sources, the enabled set and the declarations per model.

    Args:
        bus: where :class:`ToolEnabledChanged` goes.
        settings: returns the current settings (their ``enabled_tools`` decide what is on
            unless :meth:`set_enabled` said otherwise).
        enabled: tool name -> on/off, overriding the settings and the tools' own defaults.
    """

    def __init__(
        self,
        bus: EventBus,
        settings: Callable[[], Settings],
        *,
        enabled: Mapping[str, bool] | None = None,
    ) -> None:
        self._bus = bus
        self._settings = settings
        self._overrides: dict[str, bool] = dict(enabled or {})
        self._registry: dict[str, _Registered] = {}
        self._problems: list[RegistrationProblem] = []
        self._declared_capabilities: ModelCapabilities | None = None

    # ------------------------------------------------------------------ registration

    def register(
        self, definition: ToolDefinition[Any, Any], *, source: str, plugin: str | None = None
    ) -> None:
        """Add one tool.

        Args:
            definition: the tool.
            source: where it comes from, named in errors (``plugin foo``, ``built-in``).
            plugin: the package that installed it, for a plugin's tool: it starts switched
                off, and runs within :data:`~sammy_desktop.tools.plugins.PLUGIN_MAX_TIMEOUT_S`.

        Raises:
            TypeError: ``definition`` is not a :class:`ToolDefinition`.
            DuplicateToolError: the name is taken; the message names both sources.
        """
        if not isinstance(definition, ToolDefinition):
            raise TypeError(f"{source} gave {type(definition).__name__}, not a ToolDefinition")
        existing = self._registry.get(definition.name)
        if existing is not None:
            raise DuplicateToolError(
                f"tool {definition.name!r} from {source} is refused: the name is already "
                f"taken by the tool from {existing.source}"
            )
        if plugin is not None:
            definition = self._bounded(definition, source)
        self._registry[definition.name] = _Registered(definition, source, plugin)

    def _bounded(
        self, definition: ToolDefinition[Any, Any], source: str
    ) -> ToolDefinition[Any, Any]:
        """A plugin's tool with its time limit no longer than the plugins' maximum."""
        limit = plugins.PLUGIN_MAX_TIMEOUT_S
        if definition.timeout_s is not None and definition.timeout_s <= limit:
            return definition
        asked = "no time limit" if definition.timeout_s is None else f"{definition.timeout_s:g} s"
        message = (
            f"tool {definition.name!r} from {source} asked for {asked}; plugins' tools run "
            f"for at most {limit:g} s, so it is stopped after that"
        )
        _log.warning("%s", message)
        self._problems.append(RegistrationProblem(source, message, definition.name))
        return dataclasses.replace(definition, timeout_s=limit)

    def register_all(
        self,
        definitions: Iterable[ToolDefinition[Any, Any]],
        source: str,
        *,
        plugin: str | None = None,
    ) -> None:
        """Add several tools; each one refused becomes a :class:`RegistrationProblem`."""
        for definition in definitions:
            try:
                self.register(definition, source=source, plugin=plugin)
            except (TypeError, DuplicateToolError) as error:
                self._report(RegistrationProblem(source, str(error), _name_of(definition)))

    def load_plugins(self, entry_points: Iterable[EntryPoint]) -> None:
        """Register the tools of each plugin; a broken plugin becomes a problem, not a crash."""
        for entry_point in entry_points:
            source = plugins.describe_entry_point(entry_point)
            try:
                definitions = plugins.load(entry_point)
            except plugins.PluginError as error:
                self._report(RegistrationProblem(source, str(error)))
                continue
            self.register_all(definitions, source, plugin=plugins.distribution_of(entry_point))

    def replace_source(
        self, source: str, definitions: Iterable[ToolDefinition[Any, Any]]
    ) -> tuple[RegistrationProblem, ...]:
        """Make ``definitions`` the tools of ``source``, whose tools may change at run time.

        The tools ``source`` registered before and does not give again are removed; a
        definition whose name another source holds is refused. Emits one
        :class:`ToolSetChanged` when the declared set changes (a tool's new definition
        under the same name counts as a change: its schema may differ).

        Returns:
            The definitions refused, as problems (also logged and kept in :attr:`problems`).
        """
        before = {name: entry for name, entry in self._registry.items() if entry.source == source}
        for name in before:
            del self._registry[name]
        refused: list[RegistrationProblem] = []
        for definition in definitions:
            try:
                self.register(definition, source=source)
            except (TypeError, DuplicateToolError) as error:
                problem = RegistrationProblem(source, str(error), _name_of(definition))
                _log.warning("tool registration problem: %s", problem.message)
                refused.append(problem)
        self._problems = [p for p in self._problems if p.source != source] + refused
        after = [name for name, entry in self._registry.items() if entry.source == source]
        added = tuple(name for name in after if name not in before)
        removed = tuple(name for name in before if name not in after)
        changed = any(
            not _same_declaration(self._registry[name].definition, before[name].definition)
            for name in after
            if name in before
        )
        if added or removed or changed:
            self._bus.emit(ToolSetChanged(source=source, added=added, removed=removed))
        return tuple(refused)

    def remove_source(self, source: str) -> None:
        """Remove every tool of ``source`` (an MCP server taken out of ``mcp.json``)."""
        self.replace_source(source, ())

    def _report(self, problem: RegistrationProblem) -> None:
        _log.error("tool registration problem: %s", problem.message)
        self._problems.append(problem)

    @property
    def problems(self) -> tuple[RegistrationProblem, ...]:
        """Tools and plugins that were refused or broken, in the order found."""
        return tuple(self._problems)

    @property
    def tools(self) -> tuple[ToolDefinition[Any, Any], ...]:
        """Every registered tool (enabled or not), in registration order."""
        return tuple(entry.definition for entry in self._registry.values())

    def find(self, name: str) -> ToolDefinition[Any, Any] | None:
        """The tool called ``name``, or None."""
        entry = self._registry.get(name)
        return entry.definition if entry is not None else None

    def get(self, name: str) -> ToolDefinition[Any, Any]:
        """The tool called ``name``.

        Raises:
            UnknownToolError: no such tool.
        """
        return self._lookup(name).definition

    def source_of(self, name: str) -> str:
        """Where the tool ``name`` came from (``built-in``, ``the application``, a plugin).

        Raises:
            UnknownToolError: no such tool.
        """
        return self._lookup(name).source

    def plugin_of(self, name: str) -> str | None:
        """The package that installed the tool ``name``, or None when it is not a plugin's.

        Raises:
            UnknownToolError: no such tool.
        """
        return self._lookup(name).plugin

    def _lookup(self, name: str) -> _Registered:
        entry = self._registry.get(name)
        if entry is None:
            known = ", ".join(self._registry) or "none"
            raise UnknownToolError(f"no tool named {name!r} (registered: {known})")
        return entry

    # ------------------------------------------------------------------ enabled set

    def is_enabled(self, name: str) -> bool:
        """Whether the model may use ``name`` now; False for unknown names."""
        entry = self._registry.get(name)
        if entry is None:
            return False
        if name in self._overrides:
            return self._overrides[name]
        # A plugin's tool is off until the person switches it on, whatever it declares.
        default = entry.definition.enabled_by_default and entry.plugin is None
        return self._settings().is_tool_enabled(name, default)

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Switch ``name`` on or off from now on; emits ``ToolEnabledChanged``.

        Raises:
            UnknownToolError: no such tool.
        """
        self._lookup(name)
        changed = self.is_enabled(name) != enabled
        self._overrides[name] = enabled
        if changed:
            self._bus.emit(ToolEnabledChanged(name=name, enabled=enabled))

    def enabled_names(self) -> tuple[str, ...]:
        """Names of the tools the model may use now, in registration order."""
        return tuple(name for name in self._registry if self.is_enabled(name))

    # ------------------------------------------------------------------ declarations

    def declarations(self, model: str) -> list[types.Tool]:
        """The enabled tools, declared for ``model``, for ``LiveConnectConfig(tools=...)``.

        ``behavior`` is set only for models with asynchronous function calling (always
        explicitly, so a model whose default is NON_BLOCKING still blocks where the tool
        asks). The model given here is remembered: it decides how answers are shaped
        (:attr:`declared_capabilities`).

        Returns:
            One ``Tool`` holding every declaration, or an empty list when no tool is enabled.
        """
        capabilities = capabilities_for(model)
        self._declared_capabilities = capabilities
        declarations = [
            types.FunctionDeclaration(
                name=definition.name,
                description=definition.description,
                # parameters, not parameters_json_schema: docs/live-service.md T1.
                parameters=definition.live_parameters,
                behavior=(
                    definition.behavior.to_genai() if capabilities.async_function_calling else None
                ),
            )
            for definition in self.tools
            if self.is_enabled(definition.name)
        ]
        if not declarations:
            return []
        return [types.Tool(function_declarations=declarations)]

    @property
    def declared_capabilities(self) -> ModelCapabilities | None:
        """The capabilities of the model the tools were last declared for, if any."""
        return self._declared_capabilities


def _same_declaration(a: ToolDefinition[Any, Any], b: ToolDefinition[Any, Any]) -> bool:
    """Whether the model would be told the same about both (a re-listed, unchanged tool)."""
    return (
        a.description == b.description
        and a.behavior is b.behavior
        and a.live_conversion.fields == b.live_conversion.fields
    )


def _name_of(definition: object) -> str | None:
    name = getattr(definition, "name", None)
    return name if isinstance(name, str) else None


def declaration_names(tools: Sequence[types.Tool]) -> tuple[str, ...]:
    """The function names declared in ``tools`` (Google Search and the like have none)."""
    return tuple(fd.name for tool in tools for fd in tool.function_declarations or () if fd.name)
