"""Tools from installed packages, through the entry point group ``sammy_desktop.tools``.

A plugin package declares, in its ``pyproject.toml``::

    [project.entry-points."sammy_desktop.tools"]
    weather = "sammy_weather.tools:weather_tool"

The object named may be a :class:`~sammy_desktop.tools.definition.ToolDefinition`, a list
or tuple of them, or a function without arguments returning either. Anything else, and any
exception while importing it, is a :class:`PluginError` that the manager reports and skips:
a broken plugin never stops the app.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from sammy_desktop.tools.definition import ToolDefinition

__all__ = ["ENTRY_POINT_GROUP", "PluginError", "describe_entry_point", "discover", "load"]

ENTRY_POINT_GROUP = "sammy_desktop.tools"


class PluginError(Exception):
    """A plugin entry point could not be turned into tools."""


def discover() -> list[EntryPoint]:
    """The entry points installed in the ``sammy_desktop.tools`` group."""
    return list(entry_points(group=ENTRY_POINT_GROUP))


def describe_entry_point(entry_point: EntryPoint) -> str:
    """Where a plugin comes from, for error messages: package, entry point, target."""
    distribution = entry_point.dist.name if entry_point.dist is not None else "unknown package"
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
    except Exception as error:
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
