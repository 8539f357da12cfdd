"""The desktop parts the tool pack needs and the UI provides: clipboard, notifications, apps.

Each is a :class:`typing.Protocol`, so this layer never imports Qt: the UI implements
:class:`ClipboardPort` with ``QClipboard``, :class:`DesktopNotifier` with the tray icon's
``showMessage`` and a ``QSoundEffect``, and may implement :class:`ApplicationLauncher` with
``QProcess.startDetached``. URLs open through the tool system's own
:class:`~sammy_desktop.tools.context.UrlOpener` (``ToolServices.url_opener``). Tests use
hand-written fakes that implement the same protocols.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["ApplicationLauncher", "ClipboardPort", "DesktopNotifier", "Earcon"]


@runtime_checkable
class ClipboardPort(Protocol):
    """The system clipboard, text only."""

    async def read_text(self) -> str | None:
        """The clipboard's text; "" when it is empty, None when it holds no text (an image)."""
        ...

    async def write_text(self, text: str) -> None:
        """Replace the clipboard's content with ``text``."""
        ...


class Earcon(enum.StrEnum):
    """The short sounds the tool pack asks the UI to play."""

    TIMER_DONE = "timer_done"
    """A timer has ended."""


@runtime_checkable
class DesktopNotifier(Protocol):
    """Desktop notifications and earcons. Both must return at once (no blocking I/O)."""

    def notify(self, title: str, body: str) -> None:
        """Show a desktop notification (a tray balloon or the platform's own)."""
        ...

    def play_earcon(self, earcon: Earcon) -> None:
        """Play a short sound, unless the person switched sounds off."""
        ...


@runtime_checkable
class ApplicationLauncher(Protocol):
    """Starts a desktop application from an argument list (never through a shell)."""

    async def launch(self, argv: Sequence[str]) -> None:
        """Start ``argv[0]`` with the other items as its arguments, detached from this app.

        Raises:
            OSError: the program could not be started (not found, not executable).
        """
        ...
