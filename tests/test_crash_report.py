"""A crash of pytest itself is reported with its test and stack (tests/helpers/crash_report.py).

Each case runs a small suite in a pytest of its own, with the crash notes on as ``make test``
has them, and then the script ``make test`` runs after a failure.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REPORT = REPO / "scripts" / "report-test-crash.sh"

CONFTEST = """
import pytest
from tests.helpers import crash_report

@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    crash_report.install(config)
"""

TESTS = """
import faulthandler

def test_passes():
    pass

def test_crashes():
    faulthandler._sigabrt()
"""


def _run_suite(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    suite = tmp_path / "suite"
    suite.mkdir(exist_ok=True)
    (suite / "conftest.py").write_text(CONFTEST)
    (suite / "test_it.py").write_text(TESTS)
    notes = tmp_path / "notes"
    env = {**os.environ, "PYTHONPATH": str(REPO), "SAMMY_TEST_CRASH_DIR": str(notes)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    run = subprocess.run(
        [*command, "--rootdir", str(suite), *args, str(suite)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return run, notes


def _report(notes: Path) -> str:
    run = subprocess.run(
        [str(REPORT), str(notes)], capture_output=True, text=True, timeout=30, check=True
    )
    return run.stdout


def test_a_crash_is_reported_with_its_test_and_the_crashing_stack(tmp_path: Path) -> None:
    run, notes = _run_suite(tmp_path)

    assert run.returncode == -signal.SIGABRT, run.stdout + run.stderr
    report = _report(notes)
    assert "while running: test_it.py::test_crashes" in report
    assert "Fatal Python error: Aborted" in report
    current = report.split("Current thread", 1)[1]
    assert 'test_it.py", line 8 in test_crashes' in current
    # CI keeps the log's end: the test comes last.
    assert report.splitlines()[-1] == "while running: test_it.py::test_crashes"
    # The dump went to the notes, not to the end of the log.
    assert "Fatal Python error" not in run.stderr


def test_a_run_without_a_crash_reports_nothing(tmp_path: Path) -> None:
    run, notes = _run_suite(tmp_path, "-k", "passes")

    assert run.returncode == 0, run.stdout + run.stderr
    assert (notes / "current-test").read_text() == "test_it.py::test_passes\n"
    assert (notes / "crash.txt").read_text() == ""
    assert _report(notes) == ""
