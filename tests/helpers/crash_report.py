"""Where the suite was when it crashed, in the last lines of ``make test``'s output.

CI keeps the end of what ``make test`` printed. When pytest dies of a signal (a segfault or
an abort in Qt, PortAudio or the collector), that end is faulthandler's dump of the *oldest*
thread, pytest's own loop, and neither the test nor the thread that crashed: on 2026-12-06
CI showed only "Aborted" under twenty frames of pytest. With ``SAMMY_TEST_CRASH_DIR`` set
(``make test`` sets it), :func:`install` notes each test as it starts and sends
faulthandler's dump to a file in that folder, and ``scripts/report-test-crash.sh`` prints
both after a failed run: the test, the error, the crashing thread's stack.
"""

from __future__ import annotations

import faulthandler
import os
from pathlib import Path
from typing import IO, Final

import pytest

CRASH_DIR_VARIABLE: Final = "SAMMY_TEST_CRASH_DIR"
DUMP_FILE: Final = "crash.txt"
"""faulthandler's dump, empty unless pytest crashed."""
CURRENT_TEST_FILE: Final = "current-test"
"""The node id of the test that started last."""


class CrashNotes:
    """A pytest plugin: the test running now and faulthandler's dump, kept in ``folder``."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._dump: IO[str] = (folder / DUMP_FILE).open("w", encoding="utf-8")
        self._current = os.open(
            folder / CURRENT_TEST_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644
        )
        # After pytest's own faulthandler plugin (see install): the dump goes here instead.
        faulthandler.enable(file=self._dump, all_threads=True)

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        line = f"{nodeid}\n".encode()
        os.pwrite(self._current, line, 0)
        os.ftruncate(self._current, len(line))

    @pytest.hookimpl(tryfirst=True)
    def pytest_unconfigure(self) -> None:
        faulthandler.disable()  # pytest's plugin puts back the one it had, after this
        self._dump.close()
        os.close(self._current)


def install(config: pytest.Config) -> None:
    """Keep crash notes if ``SAMMY_TEST_CRASH_DIR`` says where.

    Call it from a ``pytest_configure`` marked ``trylast``, so that faulthandler is already
    enabled by pytest and this plugin's file replaces its stderr.
    """
    # Taken out of the environment: a pytest the tests start must not share the files.
    folder = os.environ.pop(CRASH_DIR_VARIABLE, "")
    if folder:
        config.pluginmanager.register(CrashNotes(Path(folder)), "sammy-crash-notes")
