"""Earlier turns sent as ``client_content``: history the model keeps, and does not answer.

A client that starts a fresh session in the middle of a conversation (its resumption handle
was lost) sends the turns so far as ``client_content`` after setupComplete. What the service
does with them depends on the model family (docs/live-service.md S7), as the connection's
:class:`~sammy_desktop.sim.profiles.ServiceProfile` says:

* With ``historyConfig.initialHistoryInClientContent`` in the setup, on a family that honours
  it, every ``client_content`` until the first one with ``turn_complete`` is history: kept,
  never answered, and realtime input sent before that ``turn_complete`` is ignored ("After
  `turn_complete` is `true`, the client can start the realtime conversation"). A declaration
  with no history after it changes nothing (livekit-js: "it only permits a prefill, it does
  not wait for one").
* Without it, ``client_content`` without ``turn_complete`` that holds a ``model`` turn, or
  comes before any other input, is context only; 3.1 closes the connection with 1007 on any
  ``model`` turn, and 2.5 wants the last turn to be the person's.

:class:`InitialHistory` makes that call for one connection; the connection records history
as ``Received.HISTORY`` (each turn's role and text) and adds it to the session transcript.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sammy_desktop.sim.profiles import ServiceProfile
    from sammy_desktop.sim.wire import ClientContent, Setup

__all__ = ["HISTORY_NOT_CLOSED", "ContentVerdict", "InitialHistory"]

HISTORY_NOT_CLOSED = "the initial history is not closed: no client_content with turn_complete"
"""Why realtime input is ignored while declared history is still open (S7)."""


class ContentVerdict(StrEnum):
    """What the service makes of one ``client_content``."""

    HISTORY = "history"  # earlier turns: kept, not answered
    TURN = "turn"  # the person's turn (answered once it is complete)
    REFUSED = "refused"  # closes the connection with 1007


class InitialHistory:
    """The history rules of one connection.

    Args:
        setup: The connection's setup (does it declare history in client_content?).
        profile: The model family's rules.
    """

    def __init__(self, setup: Setup, profile: ServiceProfile) -> None:
        self._profile = profile
        self.declared = (
            setup.initial_history_in_client_content and profile.history_config == "honoured"
        )
        self._open = self.declared
        self._received = False
        self._before_input = True

    @property
    def open(self) -> bool:
        """True while declared history is still being taken (no ``turn_complete`` yet)."""
        return self._open

    def judge(self, message: ClientContent) -> ContentVerdict:
        """What ``message`` is; declared history ends at its ``turn_complete``."""
        if self._open:
            self._received = True
            if message.turn_complete:
                # "This initial history will not trigger a model call."
                self._open = False
            return ContentVerdict.HISTORY
        if message.has_model_turn:
            rule = self._profile.client_content_model_turns
            if rule == "history_config":
                return ContentVerdict.REFUSED  # 3.1: model turns only as declared history
            if rule == "ends_with_user" and message.entries[-1][0] != "user":
                return ContentVerdict.REFUSED  # 2.5: the seed must end with a user turn
        if not message.turn_complete and (message.has_model_turn or self._before_input):
            # Context only: earlier turns, and nothing asks for an answer.
            return ContentVerdict.HISTORY
        self._before_input = False
        return ContentVerdict.TURN

    def holds_realtime_input(self) -> bool:
        """Whether realtime input is ignored now (history declared, sent, not closed).

        Realtime input before any history closes an empty declaration: there was nothing
        to wait for.
        """
        self._before_input = False
        if self._open and not self._received:
            self._open = False
        return self._open
