"""The benchmarks run: ``bench/run.py --smoke`` executes every one and each produces numbers.

No timing is judged here (benchmarks are not tests): only that every benchmark runs
against the real app, devices and simulator, and that every row of its table has samples.
The bundle benchmark is left out (it needs a PyInstaller build; ``make bench`` runs it when
``dist/`` holds one).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.audio, pytest.mark.xvfb]

REPO = Path(__file__).resolve().parents[2]
EXPECTED_GROUPS = {
    "latency",
    "click path",
    "jitter buffer",
    "app share",
    "tools",
    "loop",
    "resources",
    "long session",
    "audio engine",
    "microphone",
}


@pytest.mark.timeout(600)
def test_every_benchmark_runs_and_produces_numbers(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    only = "voice,click,share,jitter,tools,app,mic,long,audio"
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench/run.py"),
            "--smoke",
            "--only",
            only,
            "--json",
            str(results),
        ],
        capture_output=True,
        text=True,
        timeout=590,
        check=False,
    )
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr[-4000:]}"
    data = json.loads(results.read_text())
    assert data["mode"] == "smoke"
    assert data["machine"]["cores"] >= 1
    assert data["machine"]["python"].startswith("3.")
    rows = data["rows"]
    assert {row["group"] for row in rows} >= EXPECTED_GROUPS
    for row in rows:
        assert row["error"] == "", row
        # A row may have none only when the benchmark said why it left its samples out
        # (voice-to-voice on a stalled machine: bench/live_audio.py answer_latencies).
        assert row["values"] or row["left_out"], f"no numbers for {row['group']}: {row['name']}"
        assert all(math.isfinite(v) for v in row["values"]), row
    # The table a person reads names every measurement.
    for row in rows:
        assert row["name"] in run.stdout
