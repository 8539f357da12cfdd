"""An application the Qt launcher starts gets no API key (issue 18, point 11)."""

from __future__ import annotations

import asyncio
import os
import select
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from sammy_desktop.config.secrets import ENV_VAR
from sammy_desktop.ui.desktop_ports import QtApplicationLauncher

KEY = "AIzaSyTEST-launcher-key-0123456789abcdef"


def _read_until_closed(fd: int, timeout_s: float) -> str:
    """Everything written to the FIFO open as ``fd``, once its writer has closed it."""
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([fd], [], [], timeout_s)
        assert ready, "the started program wrote nothing in time"
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks).decode()
        chunks.append(chunk)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_the_started_application_has_no_key_in_its_environment(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, KEY)
    monkeypatch.setenv("GOOGLE_API_KEY", KEY)
    monkeypatch.setenv("SAMMY_TEST_MARKER", "passed on")
    fifo = tmp_path / "env.fifo"
    os.mkfifo(fifo)
    script = f"import os, sys; open({str(fifo)!r}, 'w').write('\\n'.join(sorted(os.environ)))"
    # Open first, so the program's open() does not wait; select() then waits for its end.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        asyncio.run(QtApplicationLauncher().launch([sys.executable, "-c", script]))
        names = _read_until_closed(reader, timeout_s=30).splitlines()
    finally:
        os.close(reader)
    assert "SAMMY_TEST_MARKER" in names
    assert ENV_VAR not in names
    assert "GOOGLE_API_KEY" not in names
