"""The offline demo scenario (placeholder until the full demo lands)."""

from __future__ import annotations

from sammy_desktop.sim.scenario import Scenario


def demo_scenario() -> Scenario:
    """Return the offline demo scenario."""
    return Scenario(name="demo")
