"""The header's state pill: a coloured dot and the state in words, never colour alone."""

from __future__ import annotations

from typing import Final

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QWidget

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.painted import StateDot

__all__ = ["STATE_TONES", "STATE_WORDS", "StatePill"]

STATE_WORDS: Final[dict[AgentState, str]] = {
    AgentState.DISCONNECTED: "Disconnected",
    AgentState.CONNECTING: "Connecting",
    AgentState.READY: "Ready",
    AgentState.USER_SPEAKING: "Listening",
    AgentState.THINKING: "Thinking",
    AgentState.ASSISTANT_SPEAKING: "Speaking",
    AgentState.RECONNECTING: "Reconnecting",
    AgentState.RESTING: "Resting",
    AgentState.ERROR: "Error",
    AgentState.ENDED: "Session ended",
}
"""What the pill says for each state."""

STATE_TONES: Final[dict[AgentState, str]] = {
    AgentState.DISCONNECTED: "idle",
    AgentState.CONNECTING: "thinking",
    AgentState.READY: "idle",
    AgentState.USER_SPEAKING: "accent",
    AgentState.THINKING: "thinking",
    AgentState.ASSISTANT_SPEAKING: "speaking",
    AgentState.RECONNECTING: "thinking",
    AgentState.RESTING: "idle",
    AgentState.ERROR: "error",
    AgentState.ENDED: "idle",
}
"""The dot's colour by meaning: idle grey, listening accent, amber, green, red."""


class StatePill(QFrame):
    """Shows one :class:`AgentState` as a dot and a word."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statePill")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 4, 12, 4)
        layout.setSpacing(8)
        self.dot = StateDot(self)
        self.label = QLabel(self)
        self.label.setObjectName("statePillLabel")
        layout.addWidget(self.dot)
        layout.addWidget(self.label)
        self._state = AgentState.DISCONNECTED
        self.set_state(AgentState.DISCONNECTED)

    @property
    def state(self) -> AgentState:
        """The state shown."""
        return self._state

    def set_state(self, state: AgentState, reason: str = "") -> None:
        """Show ``state``; ``reason`` becomes the tooltip."""
        self._state = state
        word = STATE_WORDS[state]
        self.label.setText(word)
        self.label.setAccessibleName(f"State: {word}")
        self.setAccessibleName(f"State: {word}")
        self.dot.set_tone(STATE_TONES[state])
        self.setToolTip(reason.capitalize() if reason else word)
