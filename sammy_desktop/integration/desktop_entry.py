"""The applications-menu entry (Linux and the BSDs): ``sammy-desktop.desktop`` and its icon.

One template (:func:`menu_entry_text`) makes both the entry a pip install writes for itself
(``$XDG_DATA_HOME/applications/sammy-desktop.desktop``, with the icon in
``$XDG_DATA_HOME/icons/hicolor/256x256/apps/sammy-desktop.png``) and the packaged
``packaging/linux/sammy-desktop.desktop``, which is the template for the program
``sammy-desktop``; the installer (``packaging/linux/install.sh``) puts the installed
executable's full path in place of that first word of every ``Exec`` line. A test keeps the
two the same.

The entry has the right-click actions Talk (``--toggle-talk``), Show (``--show``) and Quit
(``--quit``), which act on the running Sammy.

The frozen app from the installer has its entry already; :func:`should_offer` says when a
pip install (``make run``) should offer to write one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sammy_desktop.integration.desktop_file import escape_string, exec_value, render_desktop_file
from sammy_desktop.integration.files import IntegrationError, path_problem, write_atomically
from sammy_desktop.integration.launch import APP_ID

__all__ = [
    "ENTRY_ACTIONS",
    "ENTRY_FILE_NAME",
    "InstalledEntry",
    "applications_dirs",
    "icon_path",
    "install",
    "installed_entries",
    "menu_entry_path",
    "menu_entry_text",
    "should_offer",
    "uses_xdg",
    "xdg_data_home",
]

ENTRY_FILE_NAME: Final = f"{APP_ID}.desktop"


@dataclass(frozen=True, slots=True)
class EntryAction:
    """A right-click action of the menu entry: ``[Desktop Action <key>]``."""

    key: str
    name: str
    flag: str


ENTRY_ACTIONS: Final = (
    EntryAction("talk", "Talk", "--toggle-talk"),
    EntryAction("show", "Show Sammy", "--show"),
    EntryAction("quit", "Quit Sammy", "--quit"),
)
"""The flags are the running app's remote commands (ui/instance/commands.py)."""


def uses_xdg(platform: str | None = None) -> bool:
    """Whether the platform's desktops read XDG desktop files (Linux and the BSDs)."""
    return (platform or sys.platform).startswith(("linux", "freebsd", "openbsd", "netbsd"))


def xdg_data_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share`` when it is unset or not an absolute path."""
    env = os.environ if environ is None else environ
    value = env.get("XDG_DATA_HOME", "")
    if value and Path(value).is_absolute():
        return Path(value)
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".local" / "share"


def applications_dirs(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every folder the menus read entries from: the person's, then ``$XDG_DATA_DIRS``'."""
    env = os.environ if environ is None else environ
    system = env.get("XDG_DATA_DIRS", "") or "/usr/local/share:/usr/share"
    dirs = [xdg_data_home(env)]
    dirs += [Path(part) for part in system.split(":") if part and Path(part).is_absolute()]
    return [folder / "applications" for folder in dirs]


def menu_entry_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the person's own entry goes: ``$XDG_DATA_HOME/applications/sammy-desktop.desktop``."""
    return xdg_data_home(environ) / "applications" / ENTRY_FILE_NAME


def icon_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where its icon goes: ``$XDG_DATA_HOME/icons/hicolor/256x256/apps/sammy-desktop.png``."""
    return xdg_data_home(environ) / "icons" / "hicolor" / "256x256" / "apps" / f"{APP_ID}.png"


def menu_entry_text(program: str | Sequence[str] = APP_ID) -> str:
    """The menu entry whose every ``Exec`` starts with ``program`` (a path, or its words)."""
    words = [program] if isinstance(program, str) else list(program)
    groups: dict[str, dict[str, str]] = {
        "Desktop Entry": {
            "Type": "Application",
            "Version": "1.5",
            "Name": "Sammy Desktop",
            "GenericName": "Voice Assistant",
            "Comment": escape_string(
                "Hold to talk; Gemini Live answers in voice and can use tools on your desktop"
            ),
            "Exec": exec_value(words),
            "Icon": APP_ID,
            "Terminal": "false",
            "Categories": "Utility;Accessibility;",
            "Keywords": "voice;assistant;gemini;speech;",
            "StartupNotify": "true",
            "StartupWMClass": APP_ID,
            "SingleMainWindow": "true",
            "Actions": "".join(f"{action.key};" for action in ENTRY_ACTIONS),
        }
    }
    for action in ENTRY_ACTIONS:
        groups[f"Desktop Action {action.key}"] = {
            "Name": escape_string(action.name),
            "Exec": exec_value([*words, action.flag]),
        }
    return render_desktop_file(groups)


def installed_entries(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The ``sammy-desktop.desktop`` files the menus already have (the person's or the system's)."""
    found = []
    for folder in applications_dirs(environ):
        candidate = folder / ENTRY_FILE_NAME
        try:
            if candidate.is_file():
                found.append(candidate)
        except OSError:
            continue  # a folder we may not look into has no entry of ours for the menu either
    return found


def should_offer(
    *, offered: bool, is_profile: bool, environ: Mapping[str, str] | None = None
) -> bool:
    """Whether to offer a menu entry: a pip install on an XDG desktop that has none yet.

    Not once the person has answered (``offered``), not for a ``--config-dir`` profile (the
    entry starts the standard one), not in the frozen app (its installer writes the entry),
    and not where an entry named ``sammy-desktop.desktop`` is already in the menus.
    """
    if offered or is_profile or getattr(sys, "frozen", False) or not uses_xdg():
        return False
    return not installed_entries(environ)


@dataclass(frozen=True, slots=True)
class InstalledEntry:
    """The files :func:`install` wrote."""

    entry: Path
    icon: Path


def install(
    program: str, icon_png: bytes, environ: Mapping[str, str] | None = None
) -> InstalledEntry:
    """Write the menu entry running ``program`` and its 256 px icon (replacing them).

    Raises:
        IntegrationError: a file could not be written; the text says which and why.
    """
    entry, icon = menu_entry_path(environ), icon_path(environ)
    for path, data in ((icon, icon_png), (entry, menu_entry_text(program).encode("utf-8"))):
        try:
            write_atomically(path, data, 0o644)
        except OSError as exc:
            raise IntegrationError(
                f"Sammy could not add itself to the applications menu: it could not write "
                f"{path} ({path_problem(path, exc)})."
            ) from exc
    return InstalledEntry(entry, icon)
