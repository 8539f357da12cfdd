"""The jitter buffer's depth: how much speech it holds before letting it play, and how that adapts.

Whatever is buffered when output starts stays buffered for as long as the audio keeps
coming at the rate it is played (a continuous stream never gets ahead of the device), so
the depth is added to every sample's latency. It starts small (``start_ms``); an underrun in
the middle of speech raises it by ``step_ms`` up to ``max_ms`` (:meth:`AdaptiveDepth.gap`),
so a jittery connection costs one gap, not a stutter. It comes down a step, never below
``start_ms``, after ``lower_after_ms`` (8 s) of speech heard without an underrun, counted
across answers and in the middle of one (a stream that never ends, the benchmark's echo of
every microphone chunk), and only if every chunk in that time came at least a step before
the device needed it (its *slack*, from the play clock the release started: the lower depth
would have had no gap either). Otherwise the count starts again at the same depth.
Stepping back after every answer that happened to be clean, as the buffer did until
2026-12-07, made a link that is late now and then pay a gap in every other answer: the
depth went up after the gap and down after the next answer, whose luck the one after did
not share.

No clock of its own and no queue: :class:`~sammy_desktop.audio.jitter.JitterBuffer` tells
it when an answer starts, how early each chunk came, when speech was cut short or ended and
when a gap came, on the loop, with the time.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Final

__all__ = ["DEFAULT_MAX_DEPTH_MS", "AdaptiveDepth", "Learnt"]

_log = logging.getLogger(__name__)

DEFAULT_MAX_DEPTH_MS: Final = 120
"""The deepest the buffer grows unless told otherwise (or its start depth, when more)."""

_NO_SLACK_SEEN: Final = float("inf")
"""The least slack of the chunks while none has come with the queue playing."""


@dataclass(frozen=True)
class Learnt:
    """What an :class:`AdaptiveDepth` has learnt of a connection, to be put back later.

    Attributes:
        depth_s: the depth.
        clean_s: the speech heard without a gap towards the next step down (banked at the
            end of each answer, or when one was cut short).
        least_slack_s: the least slack a chunk came with in that speech.
    """

    depth_s: float
    clean_s: float
    least_slack_s: float


class AdaptiveDepth:
    """The depth and the count towards its next step down (module docstring).

    Args:
        start_ms: the smallest depth, and the first.
        step_ms: how much the depth grows after a gap (and shrinks once trusted again).
        max_ms: the deepest it grows; ``None``: :data:`DEFAULT_MAX_DEPTH_MS`, or
            ``start_ms`` when that is more.
        lower_after_ms: how long speech plays without a gap before the depth may come down
            a step; ``None``: it never comes down.

    The keyword names in the errors are the jitter buffer's, which passes them on.
    """

    def __init__(
        self, *, start_ms: int, step_ms: int, max_ms: int | None, lower_after_ms: int | None
    ) -> None:
        if lower_after_ms is not None and lower_after_ms <= 0:
            raise ValueError(f"lower_after_ms must be positive (got {lower_after_ms})")
        if max_ms is None:
            max_ms = max(DEFAULT_MAX_DEPTH_MS, start_ms)
        if max_ms < start_ms:
            raise ValueError(
                f"max_threshold_ms ({max_ms}) must not be below start_threshold_ms ({start_ms})"
            )
        self._min_s = start_ms / 1000
        self._depth_s = self._min_s
        self._step_s = step_ms / 1000
        self._max_s = max_ms / 1000
        self._lower_after_s = None if lower_after_ms is None else lower_after_ms / 1000
        self._steady_since = 0.0  # since when no gap (nor step) in this speech
        self._clean_s = 0.0  # speech heard before this stretch since the last gap or step
        self._least_slack_s = _NO_SLACK_SEEN  # the least slack a chunk came with since then

    @property
    def seconds(self) -> float:
        """The depth now."""
        return self._depth_s

    def learnt(self) -> Learnt:
        """The depth and the count towards a step down, as they stand."""
        return Learnt(self._depth_s, self._clean_s, self._least_slack_s)

    def restore(self, learnt: Learnt) -> None:
        """Put back what :meth:`learnt` gave (between answers: the next one starts the count)."""
        self._depth_s = min(self._max_s, max(self._min_s, learnt.depth_s))
        self._clean_s = learnt.clean_s
        self._least_slack_s = learnt.least_slack_s

    # -- what the jitter buffer tells it --------------------------------------------------

    def answer_starts(self, now: float) -> None:
        """The first chunk of speech came after a silence: its stretch is counted from ``now``."""
        self._steady_since = now

    def chunk_came(self, slack_s: float, now: float) -> bool:
        """A chunk came ``slack_s`` before the device needed it, with the speech playing.

        Returns:
            Whether the depth came down a step (the count towards one was complete).
        """
        self._least_slack_s = min(self._least_slack_s, slack_s)
        return self._lower_if_trusted(self._clean_until(now), now)

    def cut_short(self, now: float) -> None:
        """The speech was flushed while playing: cut short, not late, so it counts."""
        self._clean_s = self._clean_until(now)

    def ended(self, dry_at: float, now: float) -> None:
        """The speech played to its end (the queue ran dry at ``dry_at``); a step may follow."""
        self._clean_s = self._clean_until(dry_at)
        self._lower_if_trusted(self._clean_s, now)

    def gap(self, now: float) -> None:
        """The queue ran dry in the middle of speech: a step deeper, and the count starts again."""
        self._count_again_from(now)
        self._depth_s = min(self._max_s, self._depth_s + self._step_s)

    # -- the count ------------------------------------------------------------------------

    def _clean_until(self, moment: float) -> float:
        """Speech heard without a gap since the last gap or step, up to ``moment``."""
        return self._clean_s + max(0.0, moment - self._steady_since)

    def _lower_if_trusted(self, clean_s: float, now: float) -> bool:
        """After ``lower_after_ms`` of speech without a gap, step the depth down if it may.

        It may when every chunk in that time came at least a step before the device needed
        it: the lower depth would have played them all without a gap too. A connection whose
        chunks come late by more than the step now and then keeps the depth that covers
        them, instead of losing it after every clean answer and paying a gap in the next.
        Either way the count starts again.

        Returns:
            Whether the depth was lowered.
        """
        if self._lower_after_s is None or clean_s < self._lower_after_s:
            return False
        lowered = self._depth_s > self._min_s and self._least_slack_s >= self._step_s
        if lowered:
            self._depth_s = max(self._min_s, self._depth_s - self._step_s)
            _log.debug("jitter buffer depth lowered to %.0f ms", self._depth_s * 1000)
        self._count_again_from(now)
        return lowered

    def _count_again_from(self, now: float) -> None:
        """The count towards a step down starts again at ``now`` (a gap, or a step taken)."""
        self._steady_since = now
        self._clean_s = 0.0
        self._least_slack_s = _NO_SLACK_SEEN
