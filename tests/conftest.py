"""Shared fixtures for the whole test suite.

Tests that need the private services started by ``make test`` (PulseAudio, gnome-keyring,
Xvfb) are marked ``audio``, ``keyring`` or ``xvfb``. Outside that environment they FAIL
with a message saying how to run them; they are never skipped silently.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import crash_report

# Qt widgets render offscreen unless a test asks for a real X server.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_SERVICE_MARKERS = ("audio", "keyring", "xvfb")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail tests that need the private services when they are not running."""
    needed = [m for m in _SERVICE_MARKERS if item.get_closest_marker(m)]
    if needed and not os.environ.get("SAMMY_TEST_SERVICES"):
        pytest.fail(
            f"this test needs the private {', '.join(needed)} service(s): run it with "
            "`make test`, or `scripts/with-test-services.sh .venv/bin/pytest ...`",
            pytrace=False,
        )


@pytest.fixture
def test_output_dir() -> Path:
    """A folder for artefacts a person may want to look at (screenshots, recordings)."""
    root = Path(os.environ.get("SAMMY_TEST_OUTPUT", "build/test-output"))
    root.mkdir(parents=True, exist_ok=True)
    return root


@pytest.hookimpl(trylast=True)  # crash_report replaces pytest's faulthandler output
def pytest_configure(config: pytest.Config) -> None:
    """Register the marker that lets a test expect errors in the log; keep crash notes."""
    config.addinivalue_line(
        "markers",
        "logs_errors(*patterns): the test expects ERROR records matching these regular "
        "expressions (any other ERROR still fails it)",
    )
    crash_report.install(config)


@pytest.fixture(autouse=True)
def _fail_on_unexpected_errors(
    request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> Iterator[None]:
    """A test fails when the app logs an ERROR it did not say it expects (qutebrowser).

    An error in the log is a bug or a failure the person would see; a test that provokes
    one on purpose says so with ``@pytest.mark.logs_errors("pattern", ...)``.
    """
    yield
    marker = request.node.get_closest_marker("logs_errors")
    patterns = [re.compile(p) for p in marker.args] if marker is not None else []
    unexpected = [
        record
        for when in ("setup", "call", "teardown")
        for record in caplog.get_records(when)
        if record.levelno >= logging.ERROR
        and not any(p.search(record.getMessage()) for p in patterns)
    ]
    if unexpected:
        lines = "\n".join(f"  {r.name}: {r.getMessage()}" for r in unexpected[:10])
        pytest.fail(f"unexpected ERROR in the log:\n{lines}", pytrace=False)


def _qt_windows() -> list[Any]:
    """The application's parentless top-level widgets; none when Qt is not loaded."""
    widgets = sys.modules.get("PySide6.QtWidgets")  # a test without Qt never imports it
    if widgets is None or widgets.QApplication.instance() is None:
        return []
    return [w for w in widgets.QApplication.topLevelWidgets() if w.parent() is None]


@pytest.fixture(autouse=True)
def _windows_of_the_test_deleted() -> Iterator[None]:
    """Delete the windows a test left, once it is done.

    A running app's windows (main, settings, history, the tray's menu) and the windows a
    test shows without handing them to ``qtbot`` outlive the test: the app quits, but in
    the test session nothing ends the process, and a window not deleted lives on in Qt
    (the app itself once stayed alive too, through the helpers it parents to the
    session's QApplication, until DesktopApp.shutdown deleted them).
    Each one left alive is restyled by every later theme change and repainted with every
    later window: 218 windows and 8,964 widgets were alive by the screenshot tour, which
    then took 44 s instead of 12, and ``tests/ui`` 280 s instead of 132. Windows made
    before the test (a fixture of a wider scope) are left alone.
    """
    before = set(_qt_windows())
    yield
    left = [w for w in _qt_windows() if w not in before]
    if not left:
        return
    for window in left:
        window.close()
        window.deleteLater()
    core = sys.modules["PySide6.QtCore"]
    sys.modules["PySide6.QtWidgets"].QApplication.sendPostedEvents(
        None, core.QEvent.Type.DeferredDelete
    )
