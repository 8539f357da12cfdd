"""The controls around the talk button: the text box, Connect and End session.

Typing is the other way to talk: Enter (or the send button) sends the text while the agent
takes it (connected, or reconnecting: it is kept and sent once the connection is back);
otherwise a banner says to connect first and the text stays in the box. Connect connects
or disconnects, End session ends the conversation for good. The buttons follow the agent's
state: Connect turns into Disconnect while a session runs, and End session is enabled only
then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.controls import can_talk

if TYPE_CHECKING:
    from PySide6.QtWidgets import QAbstractButton, QLineEdit

    from sammy_desktop.core.events import StateChanged
    from sammy_desktop.ui.controls import AgentControls, UiTasks
    from sammy_desktop.ui.notices import Notices

__all__ = ["SessionControls"]


class SessionControls(QObject):
    """What the text box and the Connect and End session buttons do.

    Args:
        message_input: the text box.
        connect_button: connects, or disconnects while a session runs.
        end_session_button: ends the conversation for good.
        notices: where "not connected" is said.
        tasks: runs the agent's coroutines.
        controls: the agent; without it the buttons are disabled and typing does nothing.
        parent: the Qt parent.
    """

    def __init__(
        self,
        message_input: QLineEdit,
        connect_button: QAbstractButton,
        end_session_button: QAbstractButton,
        *,
        notices: Notices,
        tasks: UiTasks,
        controls: AgentControls | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._message_input = message_input
        self._connect_button = connect_button
        self._end_session_button = end_session_button
        self._notices = notices
        self._tasks = tasks
        self._controls = controls
        self._show(controls.state if controls is not None else AgentState.DISCONNECTED)

    def on_send_text(self) -> None:
        """Send what is in the text box."""
        text = self._message_input.text().strip()
        if not text or self._controls is None:
            return
        if can_talk(self._controls.state):
            if self._controls.send_text(text):
                self._message_input.clear()
            return
        self._notices.show_not_connected()

    def on_connect_clicked(self) -> None:
        """Connect when disconnected, disconnect when connected."""
        controls = self._controls
        if controls is None:
            return
        if controls.state.is_running:
            self._tasks.run(controls.stop(), "ui-disconnect")
        else:
            self._notices.on_connecting()
            self._tasks.run(controls.start(), "ui-connect")

    def on_end_session_clicked(self) -> None:
        """End the conversation for good."""
        if self._controls is not None and self._controls.state.is_running:
            self._tasks.run(self._controls.end_session("ended by the person"), "ui-end-session")

    def on_state_changed(self, event: StateChanged) -> None:
        """The buttons follow the agent's state."""
        self._show(event.new)

    def _show(self, state: AgentState) -> None:
        running = state.is_running
        self._connect_button.setToolTip("Disconnect" if running else "Connect")
        self._connect_button.setAccessibleName("Disconnect" if running else "Connect")
        self._connect_button.setEnabled(self._controls is not None)
        self._end_session_button.setEnabled(running)
