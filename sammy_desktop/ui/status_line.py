"""The quiet status line under the talk button: the last turn's latency and the reconnects.

It counts per conversation: a new session starts both figures again. The tokens the
conversation has used so far go in its tooltip, out of the way (UI.md: "a quiet status line
with latency and reconnects").

:class:`MicMark` is the small "mic on" mark beside the state: shown whenever a capture
stream is open, so the window always says what the operating system's microphone
indicator says (always in hands-free, where the stream stays open by design).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from sammy_desktop.audio.events import MicrophoneInUse
from sammy_desktop.core.events import Reconnected, SessionStarted, TurnStats, UsageUpdated

__all__ = ["MicMark", "StatusLine"]


class MicMark(QLabel):
    """``● mic on`` while a capture stream is open; hidden otherwise.

    Args:
        parent: the Qt parent.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("● mic on", parent)
        self.setObjectName("micMark")
        self.setAccessibleName("Microphone on")
        self.setToolTip(
            "The microphone is open: your system's microphone indicator is on. In push to "
            "talk it closes after your turn, unless Settings > Talking keeps it ready."
        )
        self.hide()

    @property
    def in_use(self) -> bool:
        """Whether the mark is shown (a capture stream is open)."""
        return not self.isHidden()

    def on_microphone_in_use(self, event: MicrophoneInUse) -> None:
        """A capture stream opened or closed."""
        self.setVisible(event.in_use)


class StatusLine(QLabel):
    """``last turn 410 ms · reconnects 1``, following the core's events.

    Args:
        parent: the Qt parent.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("statusLine")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAccessibleName("Status")
        self._reconnects = 0
        self._last_turn_ms: float | None = None
        self._show()

    @property
    def reconnects(self) -> int:
        """Reconnections in this conversation."""
        return self._reconnects

    @property
    def last_turn_ms(self) -> float | None:
        """How long the last answer took to start, or None before the first one."""
        return self._last_turn_ms

    def on_session_started(self, _event: SessionStarted) -> None:
        """A new conversation: the counters start again."""
        self._reconnects = 0
        self._last_turn_ms = None
        self._show()

    def on_reconnected(self, _event: Reconnected) -> None:
        """One more reconnection (planned ones count too)."""
        self._reconnects += 1
        self._show()

    def on_turn_stats(self, event: TurnStats) -> None:
        """Show how long the last answer took to start (an answer without audio keeps it)."""
        if event.first_audio_ms is not None:
            self._last_turn_ms = event.first_audio_ms
        self._show()

    def on_usage_updated(self, event: UsageUpdated) -> None:
        """Token use goes in the tooltip."""
        self.setToolTip(f"{event.session_total} tokens used in this conversation")

    def _show(self) -> None:
        latency = "—" if self._last_turn_ms is None else f"{self._last_turn_ms:.0f} ms"
        self.setText(f"last turn {latency}   ·   reconnects {self._reconnects}")
