"""The earlier conversation, given to a fresh session as quoted turns, never as instructions.

When the service cannot resume a conversation (its resumption handle was refused, or none
had come yet) the supervisor opens a fresh session, and the model would start from nothing.
The app gives it the conversation so far as what it is: the person's words as ``user``
turns and the model's own earlier answers as ``model`` turns, sent as ``client_content``
right after setupComplete, before any realtime input (docs/live-service.md S7). Pasting them
into the system instruction instead, as the app once did, made whatever an earlier answer
said (a web page read aloud, a tool's text repeated) an instruction of the new session.

How a model family takes such history (tools/capabilities.py ``history_in_setup``):

* 3.x (and models the app does not know): ``historyConfig.initialHistoryInClientContent``
  in the setup, and the turns closed with ``turn_complete=True``. The field's doc: "This
  initial history will not trigger a model call and may end with model content. After
  `turn_complete` is `true`, the client can start the realtime conversation". 3.1 closes
  the connection (1007) on ``model`` turns sent any other way.
* 2.5: no declaration; the turns go with ``turn_complete=False`` (context only, as 2.5
  answers a closed seed) and end with a turn of the person's, which 2.5 requires.

:class:`EarlierConversation` keeps the session's final transcript lines, from the bus;
:meth:`EarlierConversation.replay` makes the :class:`HistoryReplay` for a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sammy_desktop.core.events import SessionStarted, Speaker, TranscriptUpdated
from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import types
from sammy_desktop.tools.capabilities import capabilities_for

__all__ = [
    "REPLAY_MAX_CHARS",
    "EarlierConversation",
    "HistoryReplay",
    "history_turns",
    "plan_replay",
]

REPLAY_MAX_CHARS = 8000
"""The newest this many characters of the conversation are replayed (older turns are left)."""

_ROLES = {Speaker.USER: "user", Speaker.ASSISTANT: "model"}

_CLOSING_USER_TURN = " "
"""The person's turn that ends a 2.5 replay whose last turn is the model's (pipecat sends it)."""


@dataclass(frozen=True, slots=True)
class HistoryReplay:
    """The earlier turns for one fresh session, and how this model family takes them.

    Attributes:
        turns: ``user`` and ``model`` turns with text parts, oldest first.
        declared: the setup says ``historyConfig.initialHistoryInClientContent``; the turns
            close the history with ``turn_complete=True`` (which triggers no answer).
            Otherwise they go with ``turn_complete=False``: context only.
    """

    turns: tuple[types.Content, ...]
    declared: bool

    @property
    def turn_complete(self) -> bool:
        """The ``turn_complete`` the turns are sent with."""
        return self.declared


def history_turns(
    lines: Sequence[tuple[Speaker, str]], *, max_chars: int = REPLAY_MAX_CHARS
) -> list[types.Content]:
    """Final transcript lines as ``user``/``model`` turns, the newest ``max_chars`` of them.

    Lines of one speaker in a row become one turn (the roles alternate); empty lines are left
    out. When the newest turns alone are longer than ``max_chars``, the oldest of them is cut
    at its start.
    """
    merged: list[tuple[str, str]] = []
    for speaker, text in lines:
        text = text.strip()
        if not text:
            continue
        role = _ROLES[speaker]
        if merged and merged[-1][0] == role:
            merged[-1] = (role, f"{merged[-1][1]}\n{text}")
        else:
            merged.append((role, text))
    kept: list[tuple[str, str]] = []
    budget = max_chars
    for role, text in reversed(merged):
        if budget <= 0:
            break
        if len(text) > budget:
            text = text[-budget:]
        kept.append((role, text))
        budget -= len(text)
    return [
        types.Content(role=role, parts=[types.Part(text=text)]) for role, text in reversed(kept)
    ]


def plan_replay(
    lines: Sequence[tuple[Speaker, str]], model: str, *, max_chars: int = REPLAY_MAX_CHARS
) -> HistoryReplay | None:
    """The replay of ``lines`` for ``model``'s family, or None when there is nothing to say."""
    turns = history_turns(lines, max_chars=max_chars)
    if not turns:
        return None
    declared = capabilities_for(model).history_in_setup
    if not declared and turns[-1].role != "user":
        # 2.5 "requires the seed's final turn to be a user turn" (pipecat).
        turns.append(types.Content(role="user", parts=[types.Part(text=_CLOSING_USER_TURN)]))
    return HistoryReplay(turns=tuple(turns), declared=declared)


class EarlierConversation:
    """The session's final transcript lines, kept from the bus for a fresh session's replay.

    Only what was said, by whom: the person's final lines and the assistant's (interrupted
    answers as far as they were heard). Tool results are not replayed: the model's answer
    already says what it made of them.

    Args:
        bus: where ``TranscriptUpdated`` comes from; a ``SessionStarted`` starts afresh.
        max_chars: roughly how much to keep (a little more than is replayed).
    """

    def __init__(self, bus: EventBus, *, max_chars: int = REPLAY_MAX_CHARS) -> None:
        self._lines: list[tuple[Speaker, str]] = []
        self._chars = 0
        self._max_chars = max_chars
        bus.subscribe(SessionStarted, self._session_started)
        bus.subscribe(TranscriptUpdated, self._transcript)

    @property
    def lines(self) -> tuple[tuple[Speaker, str], ...]:
        """The final lines kept, oldest first."""
        return tuple(self._lines)

    def replay(self, model: str) -> HistoryReplay | None:
        """What a fresh session on ``model`` is given, or None when nothing was said yet."""
        return plan_replay(self._lines, model, max_chars=self._max_chars)

    def seed(self, lines: Sequence[tuple[Speaker, str]]) -> None:
        """Start from an earlier conversation's lines (Continue this conversation).

        The new session's first connection gives them to the model as quoted turns, as a
        fresh session after a lost one does; the newest of them are kept.
        """
        for speaker, text in lines:
            self._transcript(TranscriptUpdated(speaker=speaker, text=text, final=True, turn_id=0))

    def _session_started(self, event: SessionStarted) -> None:
        self._lines.clear()
        self._chars = 0

    def _transcript(self, event: TranscriptUpdated) -> None:
        if not event.final or not event.text.strip():
            return
        self._lines.append((event.speaker, event.text))
        self._chars += len(event.text)
        # Keep about twice what is replayed; the oldest lines go first.
        while self._lines and self._chars - len(self._lines[0][1]) >= 2 * self._max_chars:
            self._chars -= len(self._lines.pop(0)[1])
