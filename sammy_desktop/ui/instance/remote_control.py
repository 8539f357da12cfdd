"""What each remote command does in the running app, and the answer it sends back.

``sammy-desktop --toggle-talk`` and the other flags (:mod:`.commands`) reach the running
app's :class:`~sammy_desktop.ui.instance.server.InstanceServer`, which hands each command
to :meth:`RemoteControl.handle`, on the Qt thread. Talking goes through the window's
:class:`~sammy_desktop.ui.talk_input.TalkInput` as the tray's Talk does, so a remote
command talks exactly as the talk button would, in every talk mode.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer

from sammy_desktop.ui.instance.commands import RemoteCommand, Reply
from sammy_desktop.ui.main_window import MainWindow

__all__ = ["RemoteControl"]


class RemoteControl:
    """The running app's answers to remote commands.

    Args:
        window: the main window (its talk input, show, stop speaking).
        on_quit: the app's quit (asked after the answer has gone).
        describe: the app's state in a few words (the tray's tooltip: state, mic on).
    """

    def __init__(
        self, window: MainWindow, on_quit: Callable[[], None], describe: Callable[[], str]
    ) -> None:
        self._window = window
        self._on_quit = on_quit
        self._describe = describe

    def handle(self, command: RemoteCommand) -> Reply:
        """Do ``command`` and say how it went."""
        window = self._window
        talk = window.talk_input
        match command:
            case RemoteCommand.ACTIVATE | RemoteCommand.SHOW:
                window.show_and_raise()
                return Reply(True, "Sammy's window is in front.")
            case RemoteCommand.TOGGLE_TALK:
                was_talking = talk.talking
                talk.toggle()
                return self._talk_reply(want=not was_talking)
            case RemoteCommand.TALK_START:
                talk.start()
                return self._talk_reply(want=True)
            case RemoteCommand.TALK_STOP:
                talk.stop()
                return self._talk_reply(want=False)
            case RemoteCommand.STOP_SPEAKING:
                window.stop_speaking()
                return Reply(True, "Sammy stopped speaking.")
            case RemoteCommand.QUIT:
                QTimer.singleShot(0, self._on_quit)  # the answer goes out first
                return Reply(True, "Sammy is quitting.")
            case RemoteCommand.STATUS:
                return Reply(True, self.status())

    def status(self) -> str:
        """One line: the state, talking, the microphone and the window."""
        parts = [self._describe()]
        if self._window.talking:
            parts.append("talking")
        if not self._window.isVisible() or self._window.isMinimized():
            parts.append("window hidden")
        return " · ".join(parts)

    def _talk_reply(self, *, want: bool) -> Reply:
        talking = self._window.talking
        if talking == want:
            return Reply(True, "Sammy is listening." if talking else "Sammy stopped listening.")
        hint = self._window.talk_hint.text()
        return Reply(False, f"Sammy cannot {'listen' if want else 'stop'} now ({hint}).")
