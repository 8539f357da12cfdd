"""What each remote command does in the running app, and the answer it sends back.

``sammy-desktop --toggle-talk`` and the other flags (:mod:`.commands`) reach the running
app's :class:`~sammy_desktop.ui.instance.server.InstanceServer`, which hands each command
to :meth:`RemoteControl.handle`, on the Qt thread. Talking goes through the window's
:class:`~sammy_desktop.ui.talk_input.TalkInput` as the tray's Talk does, so a remote
command talks exactly as the talk button would, in every talk mode. ``--toggle-share``
toggles the :class:`~sammy_desktop.ui.screen.share.ScreenShare` (no chooser: nobody may be
at the window), and the window's banner and the tray follow its signals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer

from sammy_desktop.ui.instance.commands import RemoteCommand, Reply
from sammy_desktop.ui.main_window import MainWindow

if TYPE_CHECKING:
    from sammy_desktop.ui.screen.share import ScreenShare

__all__ = ["RemoteControl"]


class RemoteControl:
    """The running app's answers to remote commands.

    Args:
        window: the main window (its talk input, show, stop speaking).
        on_quit: the app's quit (asked after the answer has gone).
        describe: the app's state in a few words (the tray's tooltip: state, mic on).
        screen_share: shares the screen (``--toggle-share``); None where there is none.
    """

    def __init__(
        self,
        window: MainWindow,
        on_quit: Callable[[], None],
        describe: Callable[[], str],
        *,
        screen_share: ScreenShare | None = None,
    ) -> None:
        self._window = window
        self._on_quit = on_quit
        self._describe = describe
        self._screen_share = screen_share

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
            case RemoteCommand.TOGGLE_SHARE:
                return self._toggle_share()
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

    def _toggle_share(self) -> Reply:
        """Share the screen, or stop; the reason it cannot, in the engine's own words."""
        share = self._screen_share
        if share is None:
            return Reply(False, "Sammy cannot share your screen: this Sammy has no screen sharing.")
        problems: list[str] = []

        def note(text: str) -> None:
            problems.append(text.strip())

        share.problem.connect(note)
        try:
            was_sharing = bool(share.sharing)
            share.toggle()
        finally:
            share.problem.disconnect(note)
        sharing = bool(share.sharing)
        if was_sharing and not sharing:
            return Reply(True, "Sammy stopped sharing your screen.")
        if sharing and not was_sharing:
            return Reply(True, "Sammy is sharing your screen.")
        reason = " ".join(problems) or "it did not start"
        verb = "stop sharing" if was_sharing else "share"
        return Reply(False, f"Sammy cannot {verb} your screen now: {reason}")

    def _talk_reply(self, *, want: bool) -> Reply:
        talking = self._window.talking
        if talking == want:
            return Reply(True, "Sammy is listening." if talking else "Sammy stopped listening.")
        hint = self._window.talk_hint.text()
        return Reply(False, f"Sammy cannot {'listen' if want else 'stop'} now ({hint}).")
