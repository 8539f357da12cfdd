"""docs/simulator.md: its JSON scenario example is a valid scenario."""

from __future__ import annotations

import re
from pathlib import Path

from sammy_desktop.sim import Scenario
from sammy_desktop.sim.scenario import ACTION_TYPES, TRIGGER_TYPES

DOC = Path(__file__).resolve().parents[2] / "docs" / "simulator.md"


def test_the_json_example_loads() -> None:
    text = DOC.read_text(encoding="utf-8")
    (block,) = re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)
    scenario = Scenario.from_json(block, base_dir=DOC.parent)
    assert len(scenario.turns) == 2


def test_every_trigger_and_action_type_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z_]+)`", text, flags=re.MULTILINE))
    documented |= {
        name
        for row in re.findall(r"^\| (`[a-z_]+`(?:, `[a-z_]+`)+) \|", text, flags=re.MULTILINE)
        for name in re.findall(r"`([a-z_]+)`", row)
    }
    assert set(TRIGGER_TYPES) <= documented
    assert set(ACTION_TYPES) <= documented
