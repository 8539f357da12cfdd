"""The controls around the talk button: the text box, and End conversation / New conversation.

Typing is the other way to talk: Enter (or the send button) sends the text while the agent
takes it (connected, or reconnecting: it is kept and sent once the connection is back);
otherwise a banner says to connect first and the text stays in the box.

One labelled button ends the conversation, and afterwards starts a new one: "End
conversation" while one runs (connecting, talking, reconnecting, resting), "New
conversation" when none does. It replaces two unlabelled icons, Disconnect and End
session, which read alike and, for the person, did the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QObject

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.controls import can_talk

if TYPE_CHECKING:
    from PySide6.QtWidgets import QAbstractButton, QLineEdit

    from sammy_desktop.core.events import StateChanged
    from sammy_desktop.ui.controls import AgentControls, UiTasks
    from sammy_desktop.ui.notices import Notices

__all__ = ["END_CONVERSATION", "NEW_CONVERSATION", "SessionControls"]

END_CONVERSATION: Final = "End conversation"
"""The conversation button while a conversation runs."""

NEW_CONVERSATION: Final = "New conversation"
"""The conversation button when none runs (before the first, after one ended)."""

_DESCRIPTIONS: Final = {
    END_CONVERSATION: "Ends this conversation with Sammy; what was said stays in the history.",
    NEW_CONVERSATION: "Starts a new conversation with Sammy.",
}


class SessionControls(QObject):
    """What the text box and the conversation button do.

    Args:
        message_input: the text box.
        conversation_button: ends the conversation while one runs, else starts a new one.
        notices: where "not connected" is said.
        tasks: runs the agent's coroutines.
        controls: the agent; without it the button is disabled and typing does nothing.
        parent: the Qt parent.
    """

    def __init__(
        self,
        message_input: QLineEdit,
        conversation_button: QAbstractButton,
        *,
        notices: Notices,
        tasks: UiTasks,
        controls: AgentControls | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._message_input = message_input
        self._conversation_button = conversation_button
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

    def on_conversation_clicked(self) -> None:
        """End the conversation that runs, or start a new one."""
        controls = self._controls
        if controls is None:
            return
        if controls.state.is_running:
            self._tasks.run(controls.end_session("ended by the person"), "ui-end-conversation")
        else:
            self.on_connect_clicked()

    def on_connect_clicked(self) -> None:
        """Connect, when no conversation runs (a banner's "Connect", "Connect again")."""
        controls = self._controls
        if controls is None or controls.state.is_running:
            return
        self._notices.on_connecting()
        self._tasks.run(controls.start(), "ui-connect")

    def on_state_changed(self, event: StateChanged) -> None:
        """The button follows the agent's state."""
        self._show(event.new)

    def _show(self, state: AgentState) -> None:
        text = END_CONVERSATION if state.is_running else NEW_CONVERSATION
        button = self._conversation_button
        button.setText(text)
        button.setToolTip(_DESCRIPTIONS[text])
        button.setAccessibleName(text)
        button.setAccessibleDescription(_DESCRIPTIONS[text])
        button.setEnabled(self._controls is not None)
