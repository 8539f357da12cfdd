"""Shared fixtures for the whole test suite.

Tests that need the private services started by ``make test`` (PulseAudio, gnome-keyring,
Xvfb) are marked ``audio``, ``keyring`` or ``xvfb``. Outside that environment they FAIL
with a message saying how to run them; they are never skipped silently.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
