"""The tools every Sammy Desktop has: endSession, getCurrentContext and escalate."""

from __future__ import annotations

from typing import Any

from sammy_desktop.tools.builtins.current_context import get_current_context
from sammy_desktop.tools.builtins.end_session import end_session
from sammy_desktop.tools.builtins.escalate import escalate
from sammy_desktop.tools.definition import ToolDefinition

__all__ = ["builtin_tools", "end_session", "escalate", "get_current_context"]


def builtin_tools() -> list[ToolDefinition[Any, Any]]:
    """The built-in tools, in the order the settings pane lists them."""
    return [end_session, get_current_context, escalate]
