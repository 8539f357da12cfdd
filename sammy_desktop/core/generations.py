"""Which answer a message belongs to, around a barge-in.

When the person cuts in (talk pressed or a typed message while the model speaks, or the
service's own voice detection in hands-free), the service sends ``interrupted`` and then a
``turnComplete`` **for the interrupted answer** (docs/live-service.md R1; sometimes the other
way round: turnComplete, then interrupted, when generation had already finished). That
turnComplete must not close the person's new turn, and whatever of the old answer was still
on its way must not be played into the new one.

:class:`AnswerGenerations` keeps the little state that tells them apart:

* an answer is *open* from its first audio or text to its turnComplete, and *generating*
  until its ``generationComplete`` (the service holds turnComplete back until playback could
  have finished, R5);
* cutting an open answer (:meth:`AnswerGenerations.supersede`) means its turnComplete is
  still owed; if it was still generating, its content is dropped until the service's
  ``interrupted`` (or that owed turnComplete) says it has stopped;
* a turnComplete while one is owed belongs to the cut answer;
* a tool call does not open an answer: the service waits for the tool, sends nothing else,
  and may not interrupt anything when the person speaks meanwhile.
"""

from __future__ import annotations

__all__ = ["AnswerGenerations"]


class AnswerGenerations:
    """Tells the current answer's messages from the leftovers of a cut one."""

    def __init__(self) -> None:
        self._open = False
        self._generating = False
        self._owed_turn_complete = False
        self._dropping = False

    @property
    def accepting(self) -> bool:
        """Whether what arrives now belongs to the current answer (nothing is being dropped)."""
        return not self._dropping

    def reset(self) -> None:
        """A new session, or a new connection that replays the question: nothing open."""
        self._open = self._generating = self._owed_turn_complete = self._dropping = False

    def supersede(self) -> bool:
        """The person cut in: an open answer is cut. True when one was open."""
        if not self._open:
            return False
        self._owed_turn_complete = True
        self._dropping = self._generating
        self._open = self._generating = False
        return True

    def interrupted(self) -> bool:
        """The service stopped an answer. True when it stopped one still open (hands-free).

        Nothing of the old answer follows an ``interrupted``; its turnComplete may.
        """
        self._dropping = False
        if self._open:
            self._open = self._generating = False
            self._owed_turn_complete = True
            return True
        return False

    def content(self) -> bool:
        """Answer audio or text arrived: True when it belongs to the current answer."""
        if self._dropping:
            return False
        self._open = self._generating = True
        return True

    def generation_complete(self) -> None:
        """The service generated the whole answer (its turnComplete follows playback)."""
        self._generating = False

    def turn_complete(self) -> bool:
        """A turnComplete: True when it completes the current turn, False for a cut answer's."""
        if self._owed_turn_complete:
            self._owed_turn_complete = False
            self._dropping = False
            return False
        self._open = self._generating = False
        return True
