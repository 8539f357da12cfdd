r"""Start at login: the platform's autostart entry for this installation, written and removed.

* Linux and the BSDs: an XDG autostart file, ``$XDG_CONFIG_HOME/autostart/sammy-desktop.desktop``
  (``~/.config`` when the variable is unset), read by every desktop's session manager.
* Windows: a value under ``HKEY_CURRENT_USER\Software\Microsoft\Windows\CurrentVersion\Run``.
* macOS: a LaunchAgent, ``~/Library/LaunchAgents/org.sammy.SammyDesktop.plist``, with
  ``ProgramArguments`` and ``RunAtLoad``.

A ``--config-dir`` profile has an entry of its own (its name ends in a short hash of the
folder), so two profiles started at login do not overwrite each other's entry. The command an
entry launches is :func:`launch_command`: the program, the profile's ``--config-dir DIR``
and ``--start-hidden`` when Sammy is to start in the tray.

:class:`Autostart` does the writing; the builders beside it (:func:`xdg_autostart_text`,
:func:`launch_agent_plist`, :func:`run_key_value`) are pure, so every platform's entry can be
checked on any platform. Paths come from the environment at call time.
"""

from __future__ import annotations

import hashlib
import os
import plistlib
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from sammy_desktop.integration.desktop_file import (
    DesktopFileError,
    escape_string,
    exec_value,
    parse_desktop_file,
    parse_exec,
    render_desktop_file,
)
from sammy_desktop.integration.files import (
    IntegrationError,
    path_problem,
    remove_file,
    write_atomically,
)
from sammy_desktop.integration.launch import APP_ID, launch_words
from sammy_desktop.os_errors import os_error_reason

__all__ = [
    "LAUNCH_AGENT_LABEL",
    "RUN_KEY",
    "START_HIDDEN_FLAG",
    "Autostart",
    "launch_agent_label",
    "launch_agent_path",
    "launch_agent_plist",
    "launch_command",
    "profile_tag",
    "run_key_value",
    "run_value_name",
    "same_command",
    "xdg_autostart_path",
    "xdg_autostart_text",
    "xdg_config_home",
]

START_HIDDEN_FLAG: Final = "--start-hidden"
LAUNCH_AGENT_LABEL: Final = "org.sammy.SammyDesktop"
"""The LaunchAgent's label: the macOS bundle's identifier (packaging/bundle_manifest.py)."""
RUN_KEY: Final = r"Software\Microsoft\Windows\CurrentVersion\Run"
RUN_VALUE_NAME: Final = "Sammy Desktop"


def profile_tag(profile_dir: Path) -> str:
    """A short name for a profile folder, the same every time: 10 hex digits of its hash."""
    return hashlib.sha256(str(profile_dir).encode("utf-8", "surrogatepass")).hexdigest()[:10]


def launch_command(
    profile_dir: Path | None = None, *, start_hidden: bool, program: str | None = None
) -> list[str]:
    """What the entry starts: the program, ``--config-dir DIR`` for a profile, ``--start-hidden``.

    Args:
        profile_dir: the ``--config-dir`` folder, or None for the standard folders.
        start_hidden: start with only the tray icon.
        program: the program (:func:`~sammy_desktop.integration.launch.program_path` when None).
    """
    return launch_words([START_HIDDEN_FLAG] if start_hidden else [], profile_dir, program=program)


# ---------------------------------------------------------------------- XDG (Linux, BSDs)


def xdg_config_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME``, or ``~/.config`` when it is unset or not an absolute path."""
    env = os.environ if environ is None else environ
    value = env.get("XDG_CONFIG_HOME", "")
    if value and Path(value).is_absolute():
        return Path(value)
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".config"


def xdg_autostart_path(
    profile_dir: Path | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """The autostart file: ``sammy-desktop.desktop``, or ``sammy-desktop-<tag>.desktop``."""
    name = APP_ID if profile_dir is None else f"{APP_ID}-{profile_tag(profile_dir)}"
    return xdg_config_home(environ) / "autostart" / f"{name}.desktop"


def xdg_autostart_text(command: Sequence[str], profile_dir: Path | None = None) -> str:
    """The autostart file that runs ``command`` at login."""
    name = "Sammy Desktop" if profile_dir is None else f"Sammy Desktop ({profile_dir.name})"
    return render_desktop_file(
        {
            "Desktop Entry": {
                "Type": "Application",
                "Version": "1.5",
                "Name": escape_string(name),
                "Comment": "Starts Sammy when you log in; turn it off in Sammy's Settings > "
                "Appearance",
                "Exec": exec_value(command),
                "Icon": APP_ID,
                "Terminal": "false",
                "StartupNotify": "false",
                "X-GNOME-Autostart-enabled": "true",
            }
        }
    )


def _xdg_command(text: str) -> list[str] | None:
    """The command an autostart file runs, or None if it is switched off or unreadable."""
    try:
        entry = parse_desktop_file(text).get("Desktop Entry", {})
        words = parse_exec(entry.get("Exec", ""))
    except DesktopFileError:
        return None
    if entry.get("Hidden") == "true" or entry.get("X-GNOME-Autostart-enabled") == "false":
        return None
    return words or None


# ---------------------------------------------------------------------- macOS


def launch_agent_label(profile_dir: Path | None = None) -> str:
    """The LaunchAgent's label; a profile's ends in its tag."""
    return (
        LAUNCH_AGENT_LABEL
        if profile_dir is None
        else f"{LAUNCH_AGENT_LABEL}.{profile_tag(profile_dir)}"
    )


def launch_agent_path(home: Path, profile_dir: Path | None = None) -> Path:
    """``~/Library/LaunchAgents/<label>.plist`` under ``home``."""
    return home / "Library" / "LaunchAgents" / f"{launch_agent_label(profile_dir)}.plist"


def launch_agent_plist(command: Sequence[str], profile_dir: Path | None = None) -> bytes:
    """The LaunchAgent (an XML property list) that runs ``command`` when the person logs in."""
    if not command:
        raise ValueError("a command needs at least the program")
    return plistlib.dumps(
        {
            "Label": launch_agent_label(profile_dir),
            "ProgramArguments": list(command),
            "RunAtLoad": True,
            "ProcessType": "Interactive",
            "LimitLoadToSessionType": "Aqua",
        },
        fmt=plistlib.FMT_XML,
    )


def _launch_agent_command(data: bytes) -> list[str] | None:
    try:
        plist = plistlib.loads(data)
    except (plistlib.InvalidFileException, ValueError):
        return None
    words = plist.get("ProgramArguments") if isinstance(plist, dict) else None
    if isinstance(words, list) and words and all(isinstance(w, str) for w in words):
        return list(words)
    return None


# ---------------------------------------------------------------------- Windows


def run_value_name(profile_dir: Path | None = None) -> str:
    """The name of the Run key's value: "Sammy Desktop", or with the profile's tag."""
    return (
        RUN_VALUE_NAME if profile_dir is None else f"{RUN_VALUE_NAME} ({profile_tag(profile_dir)})"
    )


def run_key_value(command: Sequence[str]) -> str:
    """The Run key's value: ``command`` as one Windows command line (the C runtime's quoting)."""
    if not command:
        raise ValueError("a command needs at least the program")
    return subprocess.list2cmdline(list(command))


def _run_key_read(name: str) -> str | None:
    if sys.platform == "win32":
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                value, _kind = winreg.QueryValueEx(key, name)
        except FileNotFoundError:
            return None
        return value if isinstance(value, str) else None
    raise OSError("the Run key exists only on Windows")


def _run_key_write(name: str, value: str) -> None:
    if sys.platform == "win32":
        import winreg

        with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
            winreg.SetValueEx(key, name, 0, winreg.REG_SZ, value)
        return
    raise OSError("the Run key exists only on Windows")


def _run_key_delete(name: str) -> bool:
    if sys.platform == "win32":
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
                winreg.DeleteValue(key, name)
        except FileNotFoundError:
            return False
        return True
    raise OSError("the Run key exists only on Windows")


# ---------------------------------------------------------------------- the entry


class Autostart:
    """This installation's start-at-login entry on the platform it runs on.

    Args:
        profile_dir: the ``--config-dir`` folder, or None for the standard folders.
    """

    def __init__(self, profile_dir: Path | None = None) -> None:
        self.profile_dir = profile_dir

    @staticmethod
    def _platform() -> str:
        if sys.platform == "win32":
            return "windows"
        if sys.platform == "darwin":
            return "macos"
        return "xdg"

    def path(self) -> Path | None:
        """The entry's file (None on Windows, where it is a registry value)."""
        platform = self._platform()
        if platform == "xdg":
            return xdg_autostart_path(self.profile_dir)
        if platform == "macos":
            return launch_agent_path(Path.home(), self.profile_dir)
        return None

    @property
    def location(self) -> str:
        """Where the entry is, for people: a path, or the registry value."""
        path = self.path()
        if path is not None:
            return str(path)
        return f"the value “{run_value_name(self.profile_dir)}” in HKEY_CURRENT_USER\\{RUN_KEY}"

    def enable(self, command: Sequence[str]) -> None:
        """Write the entry so that ``command`` runs at login (replacing what was there).

        Raises:
            IntegrationError: it could not be written; the text says where and why.
        """
        path = self.path()
        try:
            if path is None:
                _run_key_write(run_value_name(self.profile_dir), run_key_value(command))
            elif self._platform() == "macos":
                write_atomically(path, launch_agent_plist(command, self.profile_dir), 0o644)
            else:
                text = xdg_autostart_text(command, self.profile_dir)
                write_atomically(path, text.encode("utf-8"), 0o644)
        except OSError as exc:
            reason = path_problem(path, exc) if path is not None else os_error_reason(exc)
            raise IntegrationError(
                f"Start at login could not be turned on: Sammy could not write "
                f"{self.location} ({reason})."
            ) from exc

    def disable(self) -> None:
        """Remove the entry (nothing happens if there is none).

        Raises:
            IntegrationError: it is there but could not be removed.
        """
        path = self.path()
        try:
            if path is None:
                _run_key_delete(run_value_name(self.profile_dir))
            else:
                remove_file(path)
        except OSError as exc:
            raise IntegrationError(
                f"Start at login could not be turned off: Sammy could not remove "
                f"{self.location} ({os_error_reason(exc)})."
            ) from exc

    def command(self) -> list[str] | str | None:
        """What the entry launches: its words (a string on Windows), or None if there is none.

        An entry switched off in the desktop's own settings (``Hidden=true``) counts as none.

        Raises:
            IntegrationError: the entry could not be read.
        """
        path = self.path()
        try:
            if path is None:
                return _run_key_read(run_value_name(self.profile_dir))
            try:
                data = path.read_bytes()
            except (FileNotFoundError, NotADirectoryError):
                return None
        except OSError as exc:
            raise IntegrationError(
                f"Sammy could not read {self.location} ({os_error_reason(exc)})."
            ) from exc
        if self._platform() == "macos":
            return _launch_agent_command(data)
        return _xdg_command(data.decode("utf-8", "replace"))

    def is_enabled(self) -> bool:
        """Whether an entry starts this Sammy at login.

        Raises:
            IntegrationError: the entry could not be read.
        """
        return self.command() is not None

    def launches(self, command: Sequence[str]) -> bool:
        """Whether the entry is there and runs exactly ``command``.

        Raises:
            IntegrationError: the entry could not be read.
        """
        return same_command(self.command(), command)


def same_command(found: list[str] | str | None, command: Sequence[str]) -> bool:
    """Whether an entry's command (:meth:`Autostart.command`) is exactly ``command``."""
    if isinstance(found, str):
        return found == run_key_value(command)
    return found == list(command)
