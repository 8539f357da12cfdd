"""The applications the assistant may open, edited as ``Name = command`` lines.

Settings > Tools shows ``allowed_applications`` (a name to an argument list) as text, one
application a line, so a person can paste and edit it like a config file. The command is
split the way a shell would split it (quotes keep spaces), but it is never run through a
shell: the launcher gets the argument list.
"""

from __future__ import annotations

import shlex

__all__ = ["ApplicationListError", "format_applications", "parse_applications"]


class ApplicationListError(ValueError):
    """A line of the applications list cannot be read; the message names the line."""


def format_applications(applications: dict[str, list[str]]) -> str:
    """``{"Calculator": ["gnome-calculator"]}`` -> ``Calculator = gnome-calculator``."""
    return "\n".join(f"{name} = {shlex.join(argv)}" for name, argv in applications.items())


def parse_applications(text: str) -> dict[str, list[str]]:
    """Read ``Name = command arguments`` lines (``#`` starts a comment line).

    Raises:
        ApplicationListError: a line has no ``=``, no name, no command, or bad quoting.
    """
    applications: dict[str, list[str]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, equals, command = line.partition("=")
        if not equals:
            raise ApplicationListError(f"line {number}: write it as Name = command")
        if not name.strip():
            raise ApplicationListError(f"line {number}: the name before = is empty")
        try:
            argv = shlex.split(command)
        except ValueError as exc:  # shlex: "No closing quotation", "No escaped character"
            what = "a quotation mark is not closed" if "quotation" in str(exc) else "it ends in \\"
            raise ApplicationListError(f"line {number}: {what}") from None
        if not argv:
            raise ApplicationListError(f"line {number}: the command after = is empty")
        applications[name.strip()] = argv
    return applications
