"""What the demo's tests check of every call it made: the arguments its setup declared."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sammy_desktop.sim import LiveSimulator, Received

__all__ = ["assert_calls_match_declarations", "declared_parameters"]


def declared_parameters(setup: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Each declared function's ``parameters`` schema (``{}`` for none), by name."""
    found: dict[str, Mapping[str, Any]] = {}
    for tool in setup.get("tools") or ():
        for declaration in (
            tool.get("functionDeclarations") or tool.get("function_declarations") or ()
        ):
            found[declaration["name"]] = declaration.get("parameters") or {}
    return found


def assert_calls_match_declarations(sim: LiveSimulator) -> int:
    """Every function call sent carries its declaration's required arguments and no other.

    Returns:
        How many calls were checked (the caller asserts there were some).
    """
    (setup, *_) = sim.recorder.events(Received.SETUP)
    declared = declared_parameters(setup.data)
    checked = 0
    for frame in sim.recorder.sent("toolCall"):
        for call in frame.data["toolCall"]["functionCalls"]:
            assert call["name"] in declared, f"{call['name']} was not declared"
            schema = declared[call["name"]]
            args = call.get("args") or {}
            missing = set(schema.get("required") or ()) - set(args)
            assert not missing, f"{call['name']} called without {sorted(missing)}: {args}"
            unknown = set(args) - set(schema.get("properties") or {})
            assert not unknown, f"{call['name']} called with undeclared {sorted(unknown)}"
            checked += 1
    assert checked, "no function was called"
    return checked
