"""Loading and saving :class:`~.settings.Settings` as a JSON file.

Writes are atomic (a temp file in the same folder, fsync, rename, fsync of the folder), so a
crash or a full disk never leaves half a settings file. A file that is larger than
:data:`MAX_SETTINGS_BYTES`, is not UTF-8, does not parse (however it fails: too deep, a number
too long) or does not validate is moved aside as ``settings.json.corrupt-<timestamp>`` and
the defaults are used; the returned :class:`LoadResult` carries a notice that says so,
naming the field and the value that failed, for the window to show. Loading never raises.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sammy_desktop.config.settings import SECRET_IN_VALUE, Settings, migrate

__all__ = [
    "MAX_SETTINGS_BYTES",
    "LoadResult",
    "SettingsError",
    "SettingsStore",
    "describe_validation_error",
]

_log = logging.getLogger(__name__)

MAX_SETTINGS_BYTES = 1024 * 1024
"""A settings file is a few KiB; one larger than this is not read (it is set aside)."""


class SettingsError(ValueError):
    """A settings value was refused; the message names the field and the value."""


def describe_validation_error(error: ValidationError) -> str:
    """Turn a pydantic error into plain sentences naming each field and its value.

    Example: ``silence_duration_ms = 20: Input should be greater than or equal to 100``.
    A value refused for carrying a secret (a key in a URL) is named, never repeated.
    """
    lines = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or "settings"
        value = item.get("input")
        message = item["msg"]
        if isinstance(value, dict) or item["type"] == SECRET_IN_VALUE:
            lines.append(f"{where}: {message}")
        else:
            lines.append(f"{where} = {_shortened(repr(value))}: {message}")
    return "; ".join(lines)


def _shortened(text: str, limit: int = 120) -> str:
    """A value as a notice can show it: a hand-edited file may hold a huge one."""
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What :meth:`SettingsStore.load` found."""

    settings: Settings
    notices: tuple[str, ...] = field(default=())
    moved_aside: Path | None = None


class SettingsStore:
    """Reads and writes one settings file.

    Args:
        path: the JSON file (it and its folder are created on the first save).
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> LoadResult:
        """Read the settings; never raises for a bad file (see the module docstring).

        Whatever is in the file (not UTF-8, too big, nested too deep for the parser, a number
        too long to convert, a value of the wrong type), it is set aside and the defaults
        are used, with a notice; only a file that cannot be read at all is left in place.
        """
        try:
            with self.path.open("rb") as handle:
                raw = handle.read(MAX_SETTINGS_BYTES + 1)
        except FileNotFoundError:
            return LoadResult(Settings())
        except OSError as exc:
            note = f"Could not read the settings file {self.path} ({exc.strerror}); using defaults."
            _log.warning("%s", note)
            return LoadResult(Settings(), notices=(note,))
        if len(raw) > MAX_SETTINGS_BYTES:
            return self._set_aside(f"it is larger than {MAX_SETTINGS_BYTES // 1024} KiB")

        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            return self._set_aside(f"it is not UTF-8 text (byte {exc.start} cannot be read)")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            return self._set_aside(f"it is not valid JSON ({exc})")
        except RecursionError:
            return self._set_aside("it is not valid JSON (nested too deeply to read)")
        except ValueError as exc:  # e.g. an integer longer than Python converts
            return self._set_aside(f"it is not valid JSON ({exc})")
        if not isinstance(data, dict):
            return self._set_aside(f"expected a JSON object, found {type(data).__name__}")

        try:
            settings = Settings.model_validate(migrate(data))
            # Written back as it was read (unknown keys are kept): it must survive that too.
            json.dumps(settings.model_dump(mode="json"))
        except ValidationError as exc:
            return self._set_aside(f"a value is not valid: {describe_validation_error(exc)}")
        except (RecursionError, ValueError, TypeError) as exc:
            return self._set_aside(
                f"a value cannot be used ({_shortened(str(exc) or type(exc).__name__)})"
            )
        return LoadResult(settings)

    def save(self, settings: Settings) -> None:
        """Write ``settings`` atomically. Raises OSError if the folder is not writable."""
        data = settings.model_dump(mode="json")
        text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
        )
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            tmp.replace(self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        _fsync_dir(self.path.parent)

    def update(self, settings: Settings, **changes: Any) -> Settings:
        """Validate ``changes`` on top of ``settings``, save and return the new settings.

        Raises:
            SettingsError: a value is invalid; nothing is saved and ``settings`` is unchanged.
        """
        merged = settings.model_dump(mode="python") | changes
        try:
            new = Settings.model_validate(merged)
        except ValidationError as exc:
            raise SettingsError(describe_validation_error(exc)) from None
        self.save(new)
        return new

    def _set_aside(self, why: str) -> LoadResult:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        try:
            self.path.replace(aside)
        except OSError as exc:
            note = (
                f"Your settings file {self.path} could not be used: {why}. It could not be "
                f"moved aside either ({exc.strerror}); defaults are in use for this session."
            )
            _log.warning("%s", note)
            return LoadResult(Settings(), notices=(note,))
        note = (
            f"Your settings file could not be used: {why}. It was kept as {aside.name} and "
            "the defaults are in use."
        )
        _log.warning("%s", note)
        return LoadResult(Settings(), notices=(note,), moved_aside=aside)


def _fsync_dir(folder: Path) -> None:
    """Make a rename durable. Not possible (nor needed) on Windows."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
