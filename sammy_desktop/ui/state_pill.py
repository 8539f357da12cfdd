"""The header's state pill: a coloured dot and the state in words, never colour alone.

What it says comes from :mod:`sammy_desktop.ui.talk_view`, with the talk control's look and
hint, so the three never disagree (the window's talk input shows them together).

The pill keeps one width through a conversation: its word takes the room of the widest word
a turn goes through (Ready, Listening, Thinking, Speaking, Paused), so the header does not
shift at every press and answer; a rarer, longer word (Reconnecting) widens it while shown.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QWidget

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.painted import StateDot
from sammy_desktop.ui.talk_view import STATE_TONES, STATE_WORDS, TURN_WORDS

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
        self.label = _StateWord(self)
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
            needed = self.label.sizeHint()
            self.label.setText(word)
            if self.label.sizeHint() != needed:
                # The label tells only the pill's own layout, and the row it sits in would
                # hear of the new width after the next paint: a frame of the word clipped
                # to the old width, then a second layout and paint. Told now, the row's
                # layout request is posted ahead of the paint (a low-priority event);
                # nothing is laid out here, in the state change, which at the key's release
                # can go out ahead of activityEnd (docs/benchmarks.md).
                self.updateGeometry()
        self.label.setAccessibleName(f"State: {word}")
        self.setAccessibleName(f"State: {word}")
        self.dot.set_tone(tone)
        self.setToolTip(reason.capitalize() if reason else word)


class _StateWord(QLabel):
    """The pill's word, as wide as the widest of :data:`TURN_WORDS` in its font, or its own."""

    # (the font's key and the alignment it was measured in, the widest word's width)
    _widest: tuple[tuple[str, int], int] | None = None

    def sizeHint(self) -> QSize:
        """The label's own hint, widened to the widest word of a turn."""
        hint = super().sizeHint()
        return hint.expandedTo(QSize(hint.width() + self._room_for_turn_words(), 0))

    def minimumSizeHint(self) -> QSize:
        """As wide as the size hint: the word is never cut, and never moves the row."""
        hint = super().minimumSizeHint()
        return hint.expandedTo(QSize(self.sizeHint().width(), 0))

    def _room_for_turn_words(self) -> int:
        """How much wider than the word shown the widest word of a turn is (0 if none)."""
        # Measured as QLabel measures its own text (a bounding box laid out in the label's
        # alignment, not the advance alone), so every word gets the same width to the pixel.
        # Layouts ask for the hint often; the widest word is measured once per font.
        metrics = self.fontMetrics()
        flags = int(self.alignment().value)
        key = (self.font().key(), flags)
        if self._widest is None or self._widest[0] != key:
            self._widest = (key, max(_width(metrics, flags, word) for word in TURN_WORDS))
        return max(0, self._widest[1] - _width(metrics, flags, self.text()))


def _width(metrics: QFontMetrics, flags: int, text: str) -> int:
    return metrics.boundingRect(QRect(0, 0, 10_000, 1_000), flags, text).width()
