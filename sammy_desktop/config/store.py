"""Loading and saving :class:`~.settings.Settings` as a JSON file.

Writes are atomic (a temp file in the same folder, fsync, rename, fsync of the folder), so a
crash or a full disk never leaves half a settings file. A file that is larger than
:data:`MAX_SETTINGS_BYTES`, is not UTF-8, does not parse (however it fails: too deep, a number
too long) or does not validate is moved aside as ``settings.json.corrupt-<timestamp>`` and
the defaults are used; the returned :class:`LoadResult` carries a notice that says so,
naming the field and the value that failed, for the window to show. Loading never raises.

A refused value is said in words (:func:`describe_problems`): the field by its title, and
what to do ("Use a language code like en-US."), never pydantic's message or a field's name.
"""

from __future__ import annotations

import contextlib
import enum
import json
import logging
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotated_types import Ge, Le
from pydantic import BaseModel, ValidationError

from sammy_desktop.config.settings import SECRET_IN_VALUE, Settings, migrate
from sammy_desktop.os_errors import os_error_reason

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo
    from pydantic_core import ErrorDetails

__all__ = [
    "MAX_SETTINGS_BYTES",
    "FieldProblem",
    "LoadResult",
    "SettingsError",
    "SettingsStore",
    "describe_problems",
    "describe_validation_error",
]

_log = logging.getLogger(__name__)

MAX_SETTINGS_BYTES = 1024 * 1024
"""A settings file is a few KiB; one larger than this is not read (it is set aside)."""


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One refused value, in words for the person.

    Attributes:
        field: where it is (``language``, ``privacy.share_time``), for code and the log.
        title: the field's title ("Language").
        sentence: what to do, as a sentence ("Use a language code like en-US.").
        value: the refused value as it may be shown (cut short), or None when it must not
            be repeated (it carries a secret) or is not a plain value.
    """

    field: str
    title: str
    sentence: str
    value: str | None = None

    def in_file(self) -> str:
        """The problem as a settings file's notice says it: title, value, what to do."""
        value = f" is “{self.value}”" if self.value is not None else " cannot be used"
        return f"{self.title}{value} ({_lower_first(self.sentence.rstrip('.'))})"


class SettingsError(ValueError):
    """A settings value was refused; the message says which and what to do, in words.

    Attributes:
        problems: each refused value (empty for an error that is not about one value).
    """

    def __init__(self, message: str, problems: Sequence[FieldProblem] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)

    @property
    def sentence(self) -> str:
        """What to do, without the field's name (for the field's own card)."""
        if self.problems:
            return " ".join(dict.fromkeys(problem.sentence for problem in self.problems))
        return str(self)


def describe_problems(error: ValidationError) -> tuple[FieldProblem, ...]:
    """Each value pydantic refused, said in words for the person (see :class:`FieldProblem`).

    A value refused for carrying a secret (a key in a URL) is named, never repeated.
    """
    problems = []
    for item in error.errors(include_url=False):
        location = tuple(str(part) for part in item["loc"])
        info = _field_info(location)
        value = item.get("input")
        shown: str | None = None
        if item["type"] != SECRET_IN_VALUE and isinstance(value, str | int | float | bool):
            shown = _shortened(str(value))
        _log.debug("setting %s refused: %s", ".".join(location), item["msg"])
        problems.append(
            FieldProblem(
                field=".".join(location) or "settings",
                title=_title(location, info),
                sentence=_sentence(item, info),
                value=shown,
            )
        )
    return tuple(problems)


def describe_validation_error(error: ValidationError) -> str:
    """The refused values as one line of sentences, each naming the field by its title.

    Example: ``Language: Use a language code like en-US.``
    """
    return " ".join(f"{problem.title}: {problem.sentence}" for problem in describe_problems(error))


def _field_info(location: tuple[str, ...]) -> FieldInfo | None:
    """The FieldInfo of the setting at ``location`` (nested models followed), if any."""
    model: type[BaseModel] | None = Settings
    info: FieldInfo | None = None
    for part in location:
        if model is None or part not in model.model_fields:
            return info if info is not None and model is None else None
        info = model.model_fields[part]
        annotation = info.annotation
        model = (
            annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel)
            else None
        )
    return info


def _title(location: tuple[str, ...], info: FieldInfo | None) -> str:
    if not location:
        return "The settings"
    top = Settings.model_fields.get(location[0])
    if info is not None and info.title:
        if top is not None and top is not info and top.title and len(location) > 1:
            return f"{top.title}, {info.title}"
        return info.title
    if top is not None and top.title:
        return f"{top.title} ({' '.join(location[1:])})" if len(location) > 1 else top.title
    return " ".join(location).replace("_", " ").capitalize()


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _sentence(item: ErrorDetails, info: FieldInfo | None) -> str:
    """What to do about one refused value, as a sentence."""
    kind = item["type"]
    context = item.get("ctx") or {}
    extra = info.json_schema_extra if info is not None else None
    hint = extra.get("format_hint") if isinstance(extra, dict) else None
    if kind == SECRET_IN_VALUE or kind == "value_error":
        text = str(item["msg"]).removeprefix("Value error, ")
        return _as_sentence(text)
    if kind == "string_pattern_mismatch":
        return str(hint) if hint else "Write it in the form shown under the field."
    if kind == "string_too_short":
        return "Fill this in: it cannot be empty."
    if kind == "string_too_long":
        return f"Make it shorter: at most {context.get('max_length', 0):,} characters."
    if kind in (
        "greater_than_equal",
        "less_than_equal",
        "greater_than",
        "less_than",
        "int_parsing",
        "int_type",
        "int_from_float",
    ):
        return f"Use a whole number{_range(info)}."
    if kind in ("float_parsing", "float_type"):
        return f"Use a number{_range(info)}."
    if kind in ("bool_parsing", "bool_type"):
        return "Use on or off (true or false in the settings file)."
    if kind in ("enum", "literal_error"):
        return _choices(info)
    if kind in ("string_type", "string_unicode"):
        return "Use text here."
    if kind == "missing":
        return "This setting is missing."
    return "This value cannot be used here."


def _as_sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return "This value cannot be used here."
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _range(info: FieldInfo | None) -> str:
    low = high = None
    for item in info.metadata if info is not None else ():
        if isinstance(item, Ge):
            low = item.ge
        elif isinstance(item, Le):
            high = item.le
    if low is not None and high is not None:
        return f" from {low:,} to {high:,}"
    if low is not None:
        return f" of at least {low:,}"
    if high is not None:
        return f" of at most {high:,}"
    return ""


def _choices(info: FieldInfo | None) -> str:
    annotation = info.annotation if info is not None else None
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        words = [str(member.value).replace("_", " ") for member in annotation]
        return f"Choose one of: {', '.join(words)}."
    return "Choose one of the values offered."


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
            _log.warning("could not read the settings file %s: %s", self.path, exc)
            note = (
                f"Your settings file {self.path} could not be read: {os_error_reason(exc)}. "
                "The defaults are in use; check the file and start Sammy again."
            )
            return LoadResult(Settings(), notices=(note,))
        if len(raw) > MAX_SETTINGS_BYTES:
            return self._set_aside(f"it is larger than {MAX_SETTINGS_BYTES // 1024} KiB")

        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            return self._set_aside(f"it is not UTF-8 text (byte {exc.start} cannot be read)")
        try:
            data = json.loads(text, parse_constant=_refuse_constant)
        except _NotJson as exc:
            return self._set_aside(f"it holds {exc}, which JSON does not allow")
        except json.JSONDecodeError as exc:
            return self._set_aside(
                f"it is not valid JSON (it breaks off at line {exc.lineno}, column {exc.colno})"
            )
        except RecursionError:
            return self._set_aside("it is not valid JSON (nested too deeply to read)")
        except ValueError:  # an integer longer than Python converts
            return self._set_aside("a number in it has too many digits")
        if not isinstance(data, dict):
            return self._set_aside("it holds something other than a set of settings")

        try:
            settings = Settings.model_validate(migrate(data))
            # Written back as it was read (unknown keys are kept): it must survive that too.
            json.dumps(settings.model_dump(mode="json"))
        except ValidationError as exc:
            return self._set_aside(
                "; ".join(problem.in_file() for problem in describe_problems(exc))
            )
        except (RecursionError, ValueError, TypeError) as exc:
            _log.warning("a settings value cannot be saved again: %r", exc)
            why = (
                "it is nested too deeply"
                if isinstance(exc, RecursionError)
                else "it cannot be saved again"
            )
            return self._set_aside(f"a value cannot be used ({why})")
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
            problems = describe_problems(exc)
            raise SettingsError(
                " ".join(f"{p.title}: {p.sentence}" for p in problems), problems
            ) from None
        self.save(new)
        return new

    def _set_aside(self, why: str) -> LoadResult:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        try:
            self.path.replace(aside)
        except OSError as exc:
            _log.warning("could not move the settings file %s aside: %s", self.path, exc)
            note = (
                f"Your settings file {self.path} could not be used: {why}. It could not be "
                f"kept aside either ({os_error_reason(exc)}), so the defaults are in use for "
                "now: move the file away or fix it, then start Sammy again."
            )
            return LoadResult(Settings(), notices=(note,))
        note = (
            f"Your settings file could not be used: {why}. It was kept as {aside.name} and "
            "the defaults are in use."
        )
        _log.warning("%s", note)
        return LoadResult(Settings(), notices=(note,), moved_aside=aside)


class _NotJson(ValueError):
    """A constant Python's parser takes but JSON has not (it could not be saved back as read)."""


def _refuse_constant(name: str) -> Any:
    """``NaN``, ``Infinity``, ``-Infinity``: refused, as the app never writes them."""
    raise _NotJson(name)


def _fsync_dir(folder: Path) -> None:
    """Make a rename durable. Not possible (nor needed) on Windows."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
