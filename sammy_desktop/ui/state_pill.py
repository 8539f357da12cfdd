"""The header's state pill: a coloured dot and the state in words, never colour alone.

What it says comes from :mod:`sammy_desktop.ui.talk_view`, with the talk control's look and
hint, so the three never disagree (the window's talk input shows them together).
"""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QWidget

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.painted import StateDot
from sammy_desktop.ui.talk_view import STATE_TONES, STATE_WORDS

__all__ = ["STATE_TONES", "STATE_WORDS", "StatePill"]


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
        """Show ``state`` in its own words; ``reason`` becomes the tooltip."""
        self.show_word(state, STATE_WORDS[state], STATE_TONES[state], reason)

    def show_word(self, state: AgentState, word: str, tone: str, reason: str = "") -> None:
        """Show ``word`` with the dot's ``tone`` for ``state`` (see ``talk_view``)."""
        self._state = state
        if word != self.label.text():
            self.label.setText(word)
            # The label tells only the pill's own layout, and the row it sits in would hear
            # of the new width after the next paint: a frame of the word clipped to the old
            # width, then a second layout and paint. Told now, the row's layout request is
            # posted ahead of the paint (a low-priority event); nothing is laid out here, in
            # the state change, which at the key's release can go out ahead of activityEnd
            # (docs/benchmarks.md).
            self.updateGeometry()
        self.label.setAccessibleName(f"State: {word}")
        self.setAccessibleName(f"State: {word}")
        self.dot.set_tone(tone)
        self.setToolTip(reason.capitalize() if reason else word)
