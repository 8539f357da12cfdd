"""The composition root: flags, folders, logging, settings, secrets, Qt on qasync, shutdown.

Command-line flags, the app's folders, logging, settings, the secret store, the Qt
application on a qasync event loop, and an orderly shutdown.

Everything the app is made of is built here and handed to its users through constructors;
nothing else in the package builds its own collaborators from globals.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shlex
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sammy_desktop import __version__
from sammy_desktop.app_logging import RedactingFilter, configure_logging
from sammy_desktop.archive.cli import COMMAND as HISTORY_COMMAND
from sammy_desktop.archive.cli import add_history_command, run_history_command
from sammy_desktop.config.paths import AppPaths
from sammy_desktop.ui.instance.commands import REMOTE_FLAGS, RemoteCommand

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from sammy_desktop.config import Settings
    from sammy_desktop.config.secrets import SecretStore
    from sammy_desktop.config.store import SettingsStore
    from sammy_desktop.desktop_app import LaunchOptions
    from sammy_desktop.ui.instance.address import InstanceAddress
    from sammy_desktop.ui.instance.server import InstanceLock
    from sammy_desktop.ui.main_window import MainWindow

__all__ = ["AppContext", "build_parser", "display_problem", "main"]

_log = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT_S = 5.0
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``sammy-desktop``."""
    parser = argparse.ArgumentParser(
        prog="sammy-desktop",
        description="Sammy Desktop: hold to talk; Gemini Live answers in voice and can use "
        "tools on your desktop.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--log-level",
        default="WARNING",
        type=str.upper,
        choices=LOG_LEVELS,
        help="how much to log to stderr (the log file always gets everything); "
        "default: %(default)s",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="start the offline demo: a simulator on this computer answers instead of "
        "Gemini (no API key or network needed)",
    )
    parser.add_argument(
        "--api-base-url",
        metavar="URL",
        default=None,
        help="connect to this Live API endpoint (a proxy or gateway) instead of Google's; "
        "also settable as SAMMY_API_BASE_URL or in Settings",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="check that this install works without opening a window (CA bundle, keyring, "
        "audio library, echo canceller, Qt plugins, a spoken turn and a tool call against "
        "the built-in Live simulator); print a report and exit non-zero if a step fails",
    )
    parser.add_argument(
        "--check-live",
        action="store_true",
        help="with your API key, try against the real Gemini Live service what the app "
        "relies on (connect on v1beta, setup, a typed turn answered in voice, a tool call "
        "with its argument, a resumption handle, the models list), without opening a "
        "window; print one line per behaviour and exit 1 if one failed, 2 if it could not "
        "start",
    )
    parser.add_argument(
        "--model",
        metavar="MODEL",
        default=None,
        help="with --check-live: check this Live model instead of the one in Settings",
    )
    parser.add_argument(
        "--config-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep settings, data and logs in DIR (a profile folder) instead of the "
        "platform's standard folders",
    )
    parser.add_argument(
        "--start-hidden",
        action="store_true",
        help="start with only the tray icon, the window hidden (how Start at login starts "
        "Sammy); where there is no system tray the window shows anyway",
    )
    remote = parser.add_argument_group(
        "the running Sammy",
        "act on the Sammy already running with the same settings folder (--config-dir) "
        "and exit: 0 when done, 1 with a reason when none runs or it could not",
    ).add_mutually_exclusive_group()
    for command, help_text in REMOTE_FLAGS.items():
        remote.add_argument(
            command.flag,
            dest="remote",
            action="store_const",
            const=command,
            default=None,
            help=help_text,
        )
    # Optional: without a command the app starts, and every flag above works as before.
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", help="instead of opening the window: history"
    )
    add_history_command(commands)
    return parser


def display_problem(environ: os._Environ[str] | dict[str, str] | None = None) -> str | None:
    """Explain in one line why no window can be opened, or return None if one can.

    Only Linux and the BSDs need a display server; Qt's own message for a missing one is an
    abort with a core dump, so we check first.
    """
    env = os.environ if environ is None else environ
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith(("xcb", "wayland")):
        return None  # offscreen, vnc, eglfs...: Qt needs no display server
    if env.get("WAYLAND_DISPLAY"):
        return None
    display = env.get("DISPLAY", "")
    hint = "Run it from a desktop session, or without a screen under Xvfb: xvfb-run sammy-desktop"
    if not display:
        return (
            f"sammy-desktop: there is no display to open a window on (DISPLAY is not set). {hint}"
        )
    if display.startswith(":"):
        number = display[1:].split(".", 1)[0]
        if number.isdigit() and not _x_socket_reachable(int(number)):
            return (
                f"sammy-desktop: the display {display} is not reachable (no X server "
                f"answers on it). {hint}"
            )
    return None


def _x_socket_reachable(number: int) -> bool:
    path = f"/tmp/.X11-unix/X{number}"  # noqa: S108 - the X11 socket's fixed location
    if not Path(path).exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        try:
            sock.connect(path)
        except OSError:
            return False
    return True


@dataclass
class AppContext:
    """What the app is made of, built once by :func:`main` (tests build their own)."""

    paths: AppPaths
    settings_store: SettingsStore
    settings: Settings
    secrets: SecretStore
    redactor: RedactingFilter
    notices: list[str] = field(default_factory=list)

    @classmethod
    def create(cls, paths: AppPaths, redactor: RedactingFilter | None = None) -> AppContext:
        """Load the settings and open the secret store for ``paths``."""
        from sammy_desktop.config.secrets import SecretStore
        from sammy_desktop.config.store import SettingsStore

        paths.ensure()
        store = SettingsStore(paths.settings_file)
        loaded = store.load()
        redactor = redactor or RedactingFilter()
        secrets = SecretStore(on_key_saved=redactor.add_secret)
        key = secrets.get_api_key()
        if key is not None:
            redactor.add_secret(key.reveal())
        return cls(
            paths=paths,
            settings_store=store,
            settings=loaded.settings,
            secrets=secrets,
            redactor=redactor,
            notices=list(loaded.notices),
        )


class QuitSignal:
    """One place every way of quitting goes through (window, Ctrl+Q, tray, SIGINT/SIGTERM)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self.exit_code = 0

    def request(self, exit_code: int = 0) -> None:
        """Ask the app to shut down."""
        if not self._event.is_set():
            self.exit_code = exit_code
        self._event.set()

    def requested(self) -> bool:
        """Whether a quit was asked for."""
        return self._event.is_set()

    async def wait(self) -> None:
        """Return once a quit was asked for."""
        await self._event.wait()


def install_signal_handlers(
    app: QApplication, on_signal: Callable[[int], None]
) -> Callable[[], None]:
    """Turn SIGINT and SIGTERM into ``on_signal(signum)`` calls on the Qt thread.

    Qt's event loop sleeps in C, where Python signal handlers cannot run. The interpreter's
    wakeup fd writes the signal number to a socket pair when a signal arrives; a
    QSocketNotifier on the other end wakes the loop, and ``on_signal`` runs from there, as
    an ordinary event. The Python-level handler itself does nothing: code that runs inside
    a signal handler can interrupt a half-done write (a log line, for one).

    Returns:
        A function that restores the previous handlers.
    """
    from PySide6.QtCore import QSocketNotifier

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, app)

    def drain() -> None:
        try:
            data = reader.recv(64)
        except OSError:
            return
        for signum in data:
            on_signal(signum)

    notifier.activated.connect(drain)
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, lambda _num, _frame: None)

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(old_fd)
        notifier.setEnabled(False)
        notifier.deleteLater()
        reader.close()
        writer.close()

    return restore


async def run_app(
    app: QApplication,
    context: AppContext,
    quit_signal: QuitSignal,
    options: LaunchOptions | None = None,
    on_window_shown: Callable[[MainWindow], None] | None = None,
) -> int:
    """Build the app, show the window and run until a quit is asked for; then shut down.

    Args:
        app: the running QApplication.
        context: what the app is made of.
        quit_signal: set by every way of quitting.
        options: what the command line asked for.
        on_window_shown: called with the window once it is on screen (tests use it).
    """
    from sammy_desktop.desktop_app import DesktopApp, LaunchOptions
    from sammy_desktop.ui.garbage import QtThreadGarbageCollector

    collector = QtThreadGarbageCollector(parent=app)
    collector.start()
    # Every way of quitting goes through quit_signal, so shutdown can run on the loop;
    # Qt's own quit-on-last-window would stop the loop under our feet.
    app.setQuitOnLastWindowClosed(False)
    app.aboutToQuit.connect(quit_signal.request)
    desktop = DesktopApp(app, context, quit_signal, options or LaunchOptions(), collector)
    try:
        return await desktop.run(on_window_shown)
    finally:
        await desktop.shutdown()
        await shutdown_tasks(SHUTDOWN_TIMEOUT_S)
        collector.stop()
        collector.deleteLater()  # the application may outlive the app (the tests)


async def shutdown_tasks(grace_s: float) -> None:
    """Cancel every other task on the loop and wait for them, at most ``grace_s`` seconds."""
    current = asyncio.current_task()
    tasks = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    for task in tasks:
        task.cancel()
    if not tasks:
        return
    done, pending = await asyncio.wait(tasks, timeout=grace_s)
    for task in pending:
        _log.warning("task %s did not stop within %.1f s", task.get_name(), grace_s)
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            _log.error("task %s ended with %r", task.get_name(), task.exception())


def _check_live(args: argparse.Namespace, paths: AppPaths, redactor: RedactingFilter) -> int:
    """``--check-live``: the check against the real service; no Qt, no window."""
    from sammy_desktop.check_live import CheckOptions, run_check_live
    from sammy_desktop.config.secrets import SecretStore

    options = CheckOptions(
        paths=paths,
        secrets=SecretStore(on_key_saved=redactor.add_secret),
        api_base_url=args.api_base_url,
        model=args.model,
        redactor=redactor,
    )
    if sys.stdout is not None:
        return run_check_live(options, sys.stdout, sys.stderr)
    # A windowed Windows build started without redirection has no console.
    with (paths.log_dir / "check-live.txt").open("w", encoding="utf-8") as report:
        return run_check_live(options, report, report)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the app. Returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.model is not None and not args.check_live:
        parser.error("--model is only used with --check-live")
    remote: RemoteCommand | None = args.remote
    if remote is not None and (args.self_test or args.check_live or args.command):
        parser.error(f"{remote.flag} acts on the running Sammy: it goes without other actions")
    paths = AppPaths.profile(args.config_dir) if args.config_dir else AppPaths.default()
    if remote is not None:
        # Before the log and the folders: they are the running app's.
        code = _send_remote(remote, paths)
        if code is not None:
            return code
        # --show with no Sammy running: start one, as a plain launch.
    try:
        paths.ensure()
    except OSError as exc:
        print(f"sammy-desktop: cannot create {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    redactor = configure_logging(args.log_level, paths.log_file)
    _log.info("Sammy Desktop %s starting; files in %s", __version__, paths.config_dir)

    if args.command == HISTORY_COMMAND:
        return run_history_command(args, paths)  # no window, no audio, no keyring

    if args.self_test:
        from sammy_desktop.selftest import run_self_test
        from sammy_desktop.tools.mcp import CONFIG_FILE_NAME

        mcp_config = paths.config_dir / CONFIG_FILE_NAME
        if sys.stdout is not None:
            return run_self_test(sys.stdout, mcp_config=mcp_config)
        # A windowed Windows build started without redirection has no console.
        with (paths.log_dir / "self-test.txt").open("w", encoding="utf-8") as report:
            return run_self_test(report, mcp_config=mcp_config)

    if args.check_live:
        return _check_live(args, paths, redactor)

    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2

    instance = _take_instance(paths, start_hidden=args.start_hidden)
    if isinstance(instance, int):
        return instance  # handed over to the running Sammy (or it could not be)
    try:
        return _run_window(args, paths, redactor, instance)
    finally:
        if instance is not None:
            instance[0].release()


def _send_remote(command: RemoteCommand, paths: AppPaths) -> int | None:
    """A remote flag: the running app's answer as an exit code (None: start one for --show)."""
    from sammy_desktop.ui.instance.address import InstanceAddress, InstanceAddressError
    from sammy_desktop.ui.instance.client import NotRunningError, send_command

    try:
        reply = send_command(InstanceAddress.for_config_dir(paths.config_dir), command)
    except InstanceAddressError as exc:
        print(f"sammy-desktop: {exc}", file=sys.stderr)
        return 1
    except NotRunningError as exc:
        if command is RemoteCommand.SHOW:
            return None
        folder = f" --config-dir {shlex.quote(str(paths.config_dir))}" if paths.is_profile else ""
        print(
            f"sammy-desktop: {exc}, so {command.flag} did nothing. Start it with: "
            f"sammy-desktop{folder}",
            file=sys.stderr,
        )
        return 1
    if not reply.ok:
        print(f"sammy-desktop: {reply.message}", file=sys.stderr)
        return 1
    if command is RemoteCommand.STATUS and sys.stdout is not None:
        print(reply.message)
    return 0


_Instance = tuple["InstanceLock", "InstanceAddress"]


def _take_instance(paths: AppPaths, *, start_hidden: bool) -> _Instance | int | None:
    """Become the settings folder's one app, or hand over to the one that runs.

    Returns:
        The lock held and the address to take commands on; an exit code when another app
        runs (0: it came to the front, or stays hidden for ``--start-hidden``; 1: it does
        not answer); None when this app cannot tell (no lock file can be written there):
        it runs without remote commands rather than not at all.
    """
    from sammy_desktop.ui.instance.address import InstanceAddress
    from sammy_desktop.ui.instance.client import NotRunningError, send_command
    from sammy_desktop.ui.instance.server import InstanceLock

    try:
        address = InstanceAddress.for_config_dir(paths.config_dir)
        lock = InstanceLock(address)
        if lock.acquire():
            return lock, address
    except OSError as exc:
        _log.warning("running without remote commands or a single-instance check: %s", exc)
        return None
    if start_hidden:  # a login start with Sammy already up: leave it as it is
        _log.info("Sammy already runs with %s; --start-hidden leaves it be", paths.config_dir)
        return 0
    try:
        send_command(address, RemoteCommand.ACTIVATE)
    except NotRunningError as exc:
        print(f"sammy-desktop: {exc}", file=sys.stderr)
        return 1
    _log.info("Sammy already runs with %s: brought its window to the front", paths.config_dir)
    print("sammy-desktop: Sammy is already running; its window is in front.", file=sys.stderr)
    return 0


def _run_window(
    args: argparse.Namespace,
    paths: AppPaths,
    redactor: RedactingFilter,
    instance: _Instance | None,
) -> int:
    """The app with its window, on a qasync loop, until it quits."""
    context = AppContext.create(paths, redactor)

    import qasync
    from PySide6.QtWidgets import QApplication

    from sammy_desktop.ui.qt_messages import install_qt_message_handler

    install_qt_message_handler()  # Qt's warnings into the log file, redacted, from the start
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    app.setApplicationName("Sammy Desktop")
    app.setApplicationVersion(__version__)
    app.setOrganizationName("Sammy")
    app.setDesktopFileName("sammy-desktop")

    quit_signal_holder: list[QuitSignal] = []

    def on_signal(signum: int) -> None:
        _log.info("received %s; quitting", signal.Signals(signum).name)
        if quit_signal_holder:
            quit_signal_holder[0].request(128 + signum if signum != signal.SIGINT else 0)

    restore_signals = install_signal_handlers(app, on_signal)

    from sammy_desktop.desktop_app import LaunchOptions

    options = LaunchOptions(
        demo=args.demo,
        api_base_url=args.api_base_url,
        start_hidden=args.start_hidden,
        instance_address=instance[1] if instance is not None else None,
    )

    async def run() -> int:
        quit_signal = QuitSignal()
        quit_signal_holder.append(quit_signal)
        return await run_app(app, context, quit_signal, options)

    try:
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            return runner.run(run())
    except RuntimeError as exc:
        # Qt quit the loop from outside (the session manager at logout): the runner has
        # still cancelled our main task, so its shutdown code ran.
        if "Event loop stopped before Future completed" in str(exc):
            _log.info("the Qt event loop was ended from outside; exited")
            return 0
        raise
    finally:
        restore_signals()
        _log.info("Sammy Desktop exited")
