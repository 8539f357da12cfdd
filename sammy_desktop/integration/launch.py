"""How this installation of Sammy is started, and the words of a command that starts it.

A desktop file, an autostart entry and a keyboard shortcut all name the program the same
way (:func:`program_path`), followed by ``--config-dir DIR`` for a profile and then the
command's own flags (:func:`launch_words`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

__all__ = ["APP_ID", "launch_words", "program_path"]

APP_ID: Final = "sammy-desktop"
"""The name of the script, the desktop file and the icon."""


def program_path() -> str:
    """How this installation's Sammy is started from a desktop shortcut.

    The frozen app is its executable; a pip install is its ``sammy-desktop`` script, named
    by its full path when it is known (a desktop session's PATH may not have it).
    """
    if getattr(sys, "frozen", False):
        return sys.executable
    launched = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if launched is not None and launched.name == APP_ID and launched.exists():
        return str(launched.resolve())
    script = Path(sys.executable).with_name(APP_ID)
    return str(script) if script.exists() else APP_ID


def launch_words(
    flags: Sequence[str] = (), config_dir: Path | None = None, *, program: str | None = None
) -> list[str]:
    """The program, the profile's ``--config-dir DIR`` (if any), then ``flags``.

    Args:
        flags: what the command asks (``["--toggle-talk"]``, ``["--start-hidden"]``).
        config_dir: the ``--config-dir`` profile the app runs with; None for the default.
        program: the executable to name (:func:`program_path` when None).
    """
    words = [program or program_path()]
    if config_dir is not None:
        words += ["--config-dir", str(config_dir)]
    words.extend(flags)
    return words
