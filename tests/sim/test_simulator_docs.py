"""docs/simulator.md and docs/live-service.md agree with the simulator's code."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from sammy_desktop.sim import Scenario, ServiceProfile
from sammy_desktop.sim.scenario import ACTION_TYPES, TRIGGER_TYPES

DOC = Path(__file__).resolve().parents[2] / "docs" / "simulator.md"


def test_the_json_examples_load() -> None:
    text = DOC.read_text(encoding="utf-8")
    (block, *actions) = re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)
    scenario = Scenario.from_json(block, base_dir=DOC.parent)
    assert len(scenario.turns) == 2
    assert actions  # the intents action's example
    for action in actions:
        document = f'{{"turns": [{{"on": {{"type": "text"}}, "actions": [{action}]}}]}}'
        (turn,) = Scenario.from_json(document).turns
        assert len(turn.actions) == 1


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


LIVE_SERVICE = DOC.with_name("live-service.md")
SIM = Path(__file__).resolve().parents[2] / "sammy_desktop" / "sim"
_NOT_BEHAVIOURS = {
    "name",
    "display_name",
    "version",
    "description",
    "input_token_limit",
    "output_token_limit",
}


def test_every_profile_flag_is_explained_in_live_service_md() -> None:
    text = LIVE_SERVICE.read_text(encoding="utf-8")
    flags = {f.name for f in fields(ServiceProfile)} - _NOT_BEHAVIOURS
    missing = sorted(flag for flag in flags if not re.search(rf"`{flag}[`=]", text))
    assert missing == []


def test_every_evidence_id_the_simulator_cites_is_an_entry_of_live_service_md() -> None:
    entries = set(
        re.findall(
            r"^### ([CSTRML]\d+) ", LIVE_SERVICE.read_text(encoding="utf-8"), flags=re.MULTILINE
        )
    )
    cited: set[str] = set()
    for path in SIM.glob("*.py"):
        for comment in re.findall(r"#.*$", path.read_text(encoding="utf-8"), flags=re.MULTILINE):
            cited |= set(re.findall(r"\b([CSTRML]\d{1,2})\b", comment))
    assert cited
    assert sorted(cited - entries) == []
