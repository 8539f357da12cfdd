"""``sammy-desktop history``: the conversation history from a shell, without a window.

Three actions, each honouring ``--config-dir`` (before ``history`` or after the action):

* ``list``: one line per session, newest first: its short id, when it started, how long
  it took, its tokens, its tool calls and the first thing said, cut to 100 columns;
* ``search TEXT``: the lines and tool calls that match, best first (``--format`` as for
  export; the words may be typed unquoted);
* ``export ID|latest --format md|txt|json``: one session whole, to stdout.

Exit codes: 0 when it worked (``list`` of an empty history too: it says "No conversations
yet."), 1 when there is nothing to show (an unknown id, with the latest ids to try; no
conversations yet; nothing found) or the history cannot be read, 2 for a command line
argparse refuses. Nothing here starts Qt, the audio or the keyring: the history is files
and an SQLite index, read with the standard library.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final

from sammy_desktop.archive.formats import EXPORT_FORMATS, ExportFormat

if TYPE_CHECKING:
    from sammy_desktop.archive.sessions import SessionSummary
    from sammy_desktop.archive.store import HistoryArchive, UnknownSession
    from sammy_desktop.config.paths import AppPaths

# The archive itself is imported by the functions that run an action: building the app's
# command line (every launch, remote commands too) must not load it.

__all__ = ["COMMAND", "LINE_WIDTH", "add_history_command", "list_lines", "run_history_command"]

COMMAND: Final = "history"
LINE_WIDTH: Final = 100
_PROG: Final = "sammy-desktop"


def _config_dir_option() -> argparse.ArgumentParser:
    """``--config-dir`` again after ``history`` and after each action.

    Its default is SUPPRESS, so that leaving it out there keeps the value given before
    ``history``, where the app's own parser reads it.
    """
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument(
        "--config-dir",
        type=Path,
        default=argparse.SUPPRESS,
        metavar="DIR",
        help="the profile folder whose history to read (as for the app)",
    )
    return options


def _positive(text: str) -> int:
    """A count of at least 1, for argparse (which says what was wrong, and exits 2)."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of at least 1")
    return number


def add_history_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``history`` and its actions to the app's command line (``app.build_parser``)."""
    config_dir = _config_dir_option()
    history = commands.add_parser(
        COMMAND,
        parents=[config_dir],
        help="list, search or export the conversation history, without opening a window",
        description="The conversation history kept in the data folder (one file per "
        "session), read without opening a window.",
    )
    actions = history.add_subparsers(dest="history_action", metavar="ACTION", required=True)
    actions.add_parser(
        "list",
        parents=[config_dir],
        help="one line per conversation, newest first",
        description="One line per conversation, newest first: its id, when it started, "
        "how long it took, its tokens, its tool calls and the first thing you said.",
    )
    search = actions.add_parser(
        "search",
        parents=[config_dir],
        help="find the lines and tool calls that contain every word of TEXT",
        description="The lines said and the tool calls that contain every word of TEXT "
        "(or a word starting with it), best first. Quotes and operators are plain words.",
    )
    search.add_argument("text", nargs="+", metavar="TEXT", help="the words to look for")
    search.add_argument(
        "--format", choices=EXPORT_FORMATS, default="txt", help="how to print them (default: txt)"
    )
    search.add_argument(
        "--limit", type=_positive, default=50, metavar="N", help="at most N matches (default: 50)"
    )
    export = actions.add_parser(
        "export",
        parents=[config_dir],
        help="print one conversation whole: every line, the tool calls and their results",
        description="Print one conversation whole to stdout: every line with its time, "
        "every tool call with its arguments and its results.",
    )
    export.add_argument(
        "session",
        metavar="ID|latest",
        help="the conversation: its id from `history list` (or the start of it), or latest",
    )
    export.add_argument(
        "--format", choices=EXPORT_FORMATS, default="md", help="md, txt or json (default: md)"
    )


def list_lines(summaries: Sequence[SessionSummary], *, width: int = LINE_WIDTH) -> list[str]:
    """One line per session, at most ``width`` characters, in columns as wide as needed.

    The short id, the start, the length, the tokens and the tool calls, then the first
    thing said, cut with "…" to what is left of the line.
    """
    from sammy_desktop.archive.wording import count_words, cut_to, on_clock, short_duration

    rows = [
        [
            summary.short_id,
            on_clock(summary.started, None),
            short_duration(summary.duration),
            count_words(summary.tokens, "token"),
            count_words(summary.tool_calls, "tool call"),
        ]
        for summary in summaries
    ]
    widths = [max((len(row[column]) for row in rows), default=0) for column in range(5)]
    lines = []
    for summary, row in zip(summaries, rows, strict=True):
        cells = [
            row[0].ljust(widths[0]),
            row[1].ljust(widths[1]),
            *(cell.rjust(size) for cell, size in zip(row[2:], widths[2:], strict=True)),
        ]
        facts = "  ".join(cells)
        said = summary.first_said or "(nothing said)"
        lines.append(f"{facts}  {cut_to(said, width - len(facts) - 2)}".rstrip())
    return lines


def run_history_command(args: argparse.Namespace, paths: AppPaths) -> int:
    """Run ``sammy-desktop history ACTION`` as parsed; returns the exit code.

    Prints to stdout, and the problems and errors to stderr. A windowed Windows build has
    no console: the output then goes to ``history.txt`` in the log folder.
    """
    if sys.stdout is None:
        with (paths.log_dir / "history.txt").open("w", encoding="utf-8") as report:
            return _run(args, paths, report, report)
    return _run(args, paths, sys.stdout, sys.stderr or sys.stdout)


def _run(args: argparse.Namespace, paths: AppPaths, out: IO[str], err: IO[str]) -> int:
    from sammy_desktop.archive.store import HistoryArchive

    archive = HistoryArchive.for_paths(paths)
    buffer = io.StringIO()
    action = args.history_action
    if action == "list":
        code = _list(archive, buffer, err)
    elif action == "search":
        code = _search(archive, " ".join(args.text), args.format, args.limit, buffer, err)
    else:
        code = _export(archive, args.session, args.format, buffer, err)
    _write(out, buffer.getvalue())
    return code


def _write(out: IO[str], text: str) -> None:
    """Print ``text``; a reader that went away (``| head``) is not an error."""
    try:
        out.write(text)
        out.flush()
    except BrokenPipeError:
        # Python would complain again when it flushes stdout at exit: point it elsewhere.
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, out.fileno())


def _problems(problems: tuple[str, ...], err: IO[str]) -> None:
    for problem in problems:
        print(f"{_PROG}: note: {problem}", file=err)


def _list(archive: HistoryArchive, out: IO[str], err: IO[str]) -> int:
    listed = archive.sessions()
    _problems(listed.problems, err)
    if not listed.sessions:
        print("No conversations yet.", file=out)
        return 0
    for line in list_lines(listed.sessions):
        print(line, file=out)
    return 0


def _search(
    archive: HistoryArchive, text: str, fmt: str, limit: int, out: IO[str], err: IO[str]
) -> int:
    from sammy_desktop.archive.export import export_hits
    from sammy_desktop.archive.index import IndexUnavailable

    listed = archive.sessions()
    _problems(listed.problems, err)
    if not listed.sessions:
        print(f"{_PROG}: No conversations yet.", file=err)
        return 1
    try:
        hits = archive.search(text, limit=limit)
    except IndexUnavailable as error:
        print(f"{_PROG}: {error}", file=err)
        return 1
    out.write(export_hits(hits, text, _format(fmt)))
    return 0 if hits else 1


def _export(archive: HistoryArchive, reference: str, fmt: str, out: IO[str], err: IO[str]) -> int:
    from sammy_desktop.archive.export import export_session
    from sammy_desktop.archive.store import UnknownSession
    from sammy_desktop.os_errors import os_error_reason

    try:
        summary = archive.resolve(reference)
        session = archive.session(summary.id)
    except UnknownSession as unknown:
        _unknown(unknown, err)
        return 1
    except OSError as error:
        where = error.filename or reference
        print(f"{_PROG}: cannot read {where}: {os_error_reason(error)}", file=err)
        return 1
    _problems(session.problems, err)
    out.write(export_session(session, _format(fmt)))
    return 0


def _unknown(unknown: UnknownSession, err: IO[str]) -> None:
    print(f"{_PROG}: {unknown}", file=err)
    if not unknown.candidates:
        return
    print("It matches these:" if unknown.ambiguous else "The latest are:", file=err)
    for line in list_lines(unknown.candidates, width=LINE_WIDTH - 2):
        print(f"  {line}", file=err)
    print(f"Try: {_PROG} history export ID (an id above, or latest)", file=err)


def _format(fmt: str) -> ExportFormat:
    for known in EXPORT_FORMATS:
        if fmt == known:
            return known
    raise ValueError(f"unknown format {fmt!r}")  # argparse's choices keep it out
