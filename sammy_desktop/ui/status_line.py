"""The quiet status line under the talk button: the last turn's latency and the reconnects.

It counts per conversation: a new session starts both figures again. The tokens the
conversation has used so far go in its tooltip, out of the way (UI.md: "a quiet status line
with latency and reconnects"), with their estimated cost when a price for the model is known
(:mod:`sammy_desktop.ui.usage`).

:class:`MicMark` is the small "mic on" mark beside the state: shown whenever a capture
stream is open, so the window always says what the operating system's microphone
indicator says (always in hands-free, where the stream stays open by design).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from sammy_desktop.audio.events import MicrophoneInUse
from sammy_desktop.config import Settings
from sammy_desktop.core.events import Reconnected, SessionStarted, TurnStats, UsageUpdated
from sammy_desktop.ui.usage import estimate

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
        settings: the settings in use, whose model and token prices price the tokens in
            the tooltip; without them the tooltip has the tokens only.
    """

    def __init__(
        self, parent: QWidget | None = None, *, settings: Callable[[], Settings] | None = None
    ) -> None:
        super().__init__("", parent)
        self.setObjectName("statusLine")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAccessibleName("Status")
        self._settings = settings
        self._reconnects = 0
        self._last_turn_ms: float | None = None
        self._session_total: int | None = None
        self._used = _Used()
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
        self._session_total = None
        self._used = _Used()
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
        """Token use goes in the tooltip, with its estimated cost.

        The bill is the sum of every usage report (docs/live-service.md R4), so their counts
        are added up, and priced with the rates in use when the tooltip is written.
        """
        self._session_total = event.session_total
        self._used.add(event)
        self.refresh_cost()

    def refresh_cost(self) -> None:
        """Write the tooltip again (the model or the person's rates changed)."""
        if self._session_total is None:
            return
        tip = f"{self._session_total} tokens used in this conversation"
        settings = self._settings() if self._settings is not None else None
        if settings is not None:
            used = self._used
            cost = estimate(
                settings.model,
                settings.token_prices,
                prompt_tokens=used.prompt,
                response_tokens=used.response,
                prompt_by_modality=used.prompt_by_modality,
                response_by_modality=used.response_by_modality,
            )
            if cost is not None:
                tip += f"\nEstimated cost {cost.words}. {cost.tooltip}"
            else:
                tip += f"\nNo cost estimate: no price known for {settings.model}."
        self.setToolTip(tip)

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


class _Used:
    """A conversation's usage reports added up."""

    def __init__(self) -> None:
        self.prompt = 0
        self.response = 0
        self.prompt_by_modality: dict[str, int] = {}
        self.response_by_modality: dict[str, int] = {}

    def add(self, event: UsageUpdated) -> None:
        self.prompt += event.prompt_tokens
        self.response += event.response_tokens
        _add(self.prompt_by_modality, event.prompt_by_modality)
        _add(self.response_by_modality, event.response_by_modality)


def _add(totals: dict[str, int], more: Mapping[str, int]) -> None:
    for name, count in more.items():
        totals[name] = totals.get(name, 0) + count
