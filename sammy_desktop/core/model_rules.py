"""What the chosen model family needs of the realtime input, decided in one place.

* Typed text (the text box, the watchdog's nudge, announcements) goes as a ``client_content``
  turn where the service's activity detection is off, as the SDK's own real-backend tests
  send it; bare ``realtime_input.text`` counts as activity only while detection is on
  (docs/live-service.md S1, S2).
* On models that close the connection when realtime input arrives while a tool call is
  unanswered (3.1: T7), the input waits until the call is answered.

:class:`ModelRules` reads the model from the settings each time, so a model changed in
Settings applies at the next connection without rebuilding anything.
"""

from __future__ import annotations

from collections.abc import Callable

from sammy_desktop.config import Settings, TalkMode
from sammy_desktop.core.live import RealtimeKind
from sammy_desktop.tools.capabilities import capabilities_for

__all__ = ["ModelRules"]


class ModelRules:
    """The model family's rules for typed text and held-back input.

    Args:
        settings: the settings in use (the model).
        talk_mode: push-to-talk (detection off) or hands-free (detection on).
    """

    def __init__(self, settings: Callable[[], Settings], talk_mode: Callable[[], TalkMode]) -> None:
        self._settings = settings
        self._talk_mode = talk_mode

    def text_kind(self) -> RealtimeKind:
        """How typed text goes now: a ``client_content`` turn, or realtime text."""
        if (
            self._talk_mode() is TalkMode.PUSH_TO_TALK
            and capabilities_for(self._settings().model).client_content_turns
        ):
            return RealtimeKind.TEXT_TURN
        return RealtimeKind.TEXT

    def holds_input_during_tool_calls(self) -> bool:
        """Whether realtime input must wait while a tool call is unanswered."""
        return capabilities_for(self._settings().model).holds_input_during_tool_call
