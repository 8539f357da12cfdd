"""Tools from installed packages, through the entry point group ``sammy_desktop.tools``.

A plugin package declares, in its ``pyproject.toml``::

    [project.entry-points."sammy_desktop.tools"]
    weather = "sammy_weather.tools:weather_tool"

The object named may be a :class:`~sammy_desktop.tools.definition.ToolDefinition`, a list
or tuple of them, or a function without arguments returning either. Anything else, and any
exception while importing it (``SystemExit`` and ``KeyboardInterrupt`` too), is a
:class:`PluginError` that the manager reports and skips: a broken plugin never stops the app.

A plugin's tools start switched off until the person turns them on (they run code the
person did not choose with the app), and none may run without a time limit.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from sammy_desktop.tools.definition import ToolDefinition

__all__ = [
    "ENTRY_POINT_GROUP",
    "PLUGIN_MAX_TIMEOUT_S",
    "PluginError",
    "describe_entry_point",
    "discover",
    "distribution_of",
    "load",
]

ENTRY_POINT_GROUP = "sammy_desktop.tools"

PLUGIN_MAX_TIMEOUT_S = 300.0
"""The longest a plugin's tool may run; a plugin asking for no limit, or a longer one, gets
this (a hung plugin must not hold the model's answer, or a task, for ever)."""


class PluginError(Exception):
    """A plugin entry point could not be turned into tools."""


def discover() -> list[EntryPoint]:
    """The entry points installed in the ``sammy_desktop.tools`` group."""
    return list(entry_points(group=ENTRY_POINT_GROUP))


def distribution_of(entry_point: EntryPoint) -> str:
    """The name of the package that installed ``entry_point`` (what Settings shows)."""
    return entry_point.dist.name if entry_point.dist is not None else "unknown package"


def describe_entry_point(entry_point: EntryPoint) -> str:
    """Where a plugin comes from, for error messages: package, entry point, target."""
    distribution = distribution_of(entry_point)
    return f"plugin {distribution} (entry point {entry_point.name} = {entry_point.value})"


def load(entry_point: EntryPoint) -> list[ToolDefinition[Any, Any]]:
    """Import the entry point and return its tools.

    Raises:
        PluginError: it cannot be imported, or it is not a tool, a list of tools, or a
            function returning either. The message names the plugin.
    """
    where = describe_entry_point(entry_point)
    try:
        target = entry_point.load()
        if callable(target) and not isinstance(target, ToolDefinition):
            target = target()
    except BaseException as error:
        raise PluginError(f"{where} failed to load: {type(error).__name__}: {error}") from error
    return _as_definitions(target, where)


def _as_definitions(target: object, where: str) -> list[ToolDefinition[Any, Any]]:
    if isinstance(target, ToolDefinition):
        return [target]
    if isinstance(target, list | tuple):
        items: Iterable[object] = target
        definitions = [item for item in items if isinstance(item, ToolDefinition)]
        if definitions and len(definitions) == len(target):
            return definitions
    raise PluginError(
        f"{where} gave {type(target).__name__}, not a ToolDefinition, a list of them, or a "
        "function returning either"
    )
