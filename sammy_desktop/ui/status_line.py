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

__all__ = ["MicMark", "StatusLine", "format_latency"]


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
    """``answered in 410 ms · reconnects 1``, following the core's events.

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
        """Show how long the last answer took to start after the person stopped speaking.

        A turn without a figure (typed, or answered without audio) shows none: the line
        never shows another turn's number as the last one's.
        """
        self._last_turn_ms = event.first_audio_ms
        self._show()

    def on_usage_updated(self, event: UsageUpdated) -> None:
        """Token use goes in the tooltip."""
        self.setToolTip(f"{event.session_total} tokens used in this conversation")

    def _show(self) -> None:
        parts = []
        if self._last_turn_ms is not None:
            parts.append(f"answered in {format_latency(self._last_turn_ms)}")
        parts.append(f"reconnects {self._reconnects}")
        self.setText("   ·   ".join(parts))


def format_latency(milliseconds: float) -> str:
    """``410 ms`` below a second, ``1.4 s`` from one second on."""
    if milliseconds < 1000:
        return f"{milliseconds:.0f} ms"
    return f"{milliseconds / 1000:.1f} s"
