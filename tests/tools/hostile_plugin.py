"""Plugin entry point targets that misbehave on purpose (tests/tools/test_tool_plugins.py)."""

from __future__ import annotations

from pydantic import BaseModel

from sammy_desktop.tools import ToolContext, ToolDefinition, tool


class Nothing(BaseModel):
    pass


def interrupts() -> None:
    """A plugin factory that raises what Ctrl+C raises."""
    raise KeyboardInterrupt


def exits() -> None:
    """A plugin factory that calls ``sys.exit``."""
    raise SystemExit(3)


def _forever(name: str, timeout_s: float | None) -> ToolDefinition[Nothing, Nothing]:
    @tool(name=name, description="Waits a long time.", timeout_s=timeout_s, enabled_by_default=True)
    async def waits(args: Nothing, context: ToolContext) -> Nothing:
        return Nothing()

    return waits


def unbounded() -> list[ToolDefinition[Nothing, Nothing]]:
    """Tools asking for no time limit, and for one longer than plugins may have."""
    return [_forever("waitsForever", None), _forever("waitsAnHour", 3600.0), _forever("quick", 5.0)]
