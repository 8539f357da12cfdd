"""The desktop tool pack's ports, done with Qt: clipboard, notifications, launching apps.

* :class:`QtClipboard` reads and writes the system clipboard's text.
* :class:`QtDesktopNotifier` turns notifications into a Qt signal (the tray shows them as
  balloons) and plays the pack's earcons through the app's sound player, unless the
  person switched sounds off.
* :class:`QtApplicationLauncher` starts a program detached, from an argument list, never
  through a shell.

They need no window, so the app can build them before the tool manager.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, Signal
from PySide6.QtGui import QClipboard, QGuiApplication

from sammy_desktop.config import Settings
from sammy_desktop.config.secrets import child_environment

__all__ = ["QtApplicationLauncher", "QtClipboard", "QtDesktopNotifier"]

_log = logging.getLogger(__name__)


class QtClipboard:
    """The system clipboard (text only), for ``readClipboard`` and ``writeClipboard``.

    Args:
        clipboard: the clipboard to use; the application's by default.
    """

    def __init__(self, clipboard: QClipboard | None = None) -> None:
        self._clipboard = clipboard

    def _board(self) -> QClipboard:
        return self._clipboard if self._clipboard is not None else QGuiApplication.clipboard()

    async def read_text(self) -> str | None:
        """The clipboard's text; "" when empty; None when it holds something else."""
        data = self._board().mimeData()
        if data is None or not data.formats():
            return ""
        if not data.hasText():
            return None
        return data.text()

    async def write_text(self, text: str) -> None:
        """Replace the clipboard's content with ``text``."""
        self._board().setText(text)


class QtDesktopNotifier(QObject):
    """Notifications as a signal, earcons through the app's player.

    Args:
        settings: returns the current settings (the "Listening sounds" switch also
            silences the pack's earcons).
        play_sound: plays a sound from ``resources/sounds`` by name; None for silence.
        parent: the Qt parent.
    """

    notification = Signal(str, str)
    """``(title, body)``; the tray icon shows it (see :meth:`TrayIcon.attach_notifier`)."""

    def __init__(
        self,
        settings: Callable[[], Settings],
        play_sound: Callable[[str], None] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._settings = settings
        self._play_sound = play_sound

    def notify(self, title: str, body: str) -> None:
        """Show a desktop notification (returns at once)."""
        _log.info("notification: %s", title)
        self.notification.emit(title, body)

    def play_earcon(self, earcon: str) -> None:
        """Play ``earcon`` (a sound's name) unless sounds are off.

        The pack names its earcons with a string enum (``Earcon.TIMER_DONE`` is
        ``"timer_done"``), the name of a file in ``resources/sounds``; taking the plain
        name keeps the UI free of the pack's modules other than its events.
        """
        if self._play_sound is None or not self._settings().earcons:
            return
        name = str(earcon)
        try:
            self._play_sound(name)
        except Exception:  # noqa: BLE001 - a sound must never break a tool
            _log.exception("could not play the earcon %s", name)


class QtApplicationLauncher:
    """Starts applications with ``QProcess.startDetached`` (no shell, no waiting).

    The application gets the app's environment without any API key in it
    (:func:`~sammy_desktop.config.secrets.child_environment`).
    """

    async def launch(self, argv: Sequence[str]) -> None:
        """Start ``argv[0]`` with the rest as arguments.

        Raises:
            OSError: the program could not be started.
        """
        if not argv or not argv[0]:
            raise OSError("no program to start")
        process = QProcess()
        process.setProgram(argv[0])
        process.setArguments(list(argv[1:]))
        environment = QProcessEnvironment()
        for name, value in child_environment().items():
            environment.insert(name, value)
        process.setProcessEnvironment(environment)
        if not process.startDetached():
            raise OSError(f"could not start {argv[0]!r} (not found or not executable)")
