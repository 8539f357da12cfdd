"""How the model's answers arrive: in bursts ahead of real time, or paced at real time.

The speaker starts differently for each (see :class:`~.playback.AudioPlayback`):

* **Paced** (a slow connection, a simulator at real time): each chunk comes about when the
  one before has played. A stream started for the answer must be primed with a device
  buffer of silence (:mod:`~.standby`): if the device took its first buffer from the
  speech, the queue would run dry that much before the next chunk came, a gap. And since
  the silence comes first anyway, the stream is best started ahead, at the talk key's
  release, so the answer finds it running.
* **Bursts** (the Live API: "content is generated as quickly as possible, and not in real
  time", docs/live-service.md R6; half a second of audio at once, then faster than it
  plays): the first frame alone fills the device buffer with time to spare, and the next
  comes long before it is needed. Then silence ahead of the answer is latency for nothing:
  the stream rests until the answer's first frame starts it, and the device's first buffer
  is the answer itself. Measured (docs/benchmarks.md): about 15 ms sooner to the first
  sample than behind a running stream's buffer of silence.

Which one it is, is learnt from the answers themselves: an answer whose audio ran ahead of
real time by more than its first chunk plus :data:`BURST_MARGIN_S` came in bursts, and one
that was long enough to show it and did not came paced. Until an answer has shown either,
arrivals count as bursts, as the service documents them: counted as paced, every session's
first answer started behind a device buffer of silence that the service's bursts never
needed (sent -> first sound 30 ms against 6-8 in the app's later answers, bench of
2026-12-07). The cost falls on a connection that delivers no faster than real time: its
first answer starts without the silence's cushion and may have a gap (which deepens the
jitter buffer), and the answers after it are learnt as paced.
"""

from __future__ import annotations

from typing import Final

__all__ = ["BURST_MARGIN_S", "AnswerPace"]

BURST_MARGIN_S: Final = 0.1
"""How far beyond its first chunk an answer must run ahead of real time to count as bursts.

A paced answer runs ahead by its first chunk (and a little network jitter); bursts at the
service's three times real time run ahead by seconds.
"""


class AnswerPace:
    """Watches the answers' audio arrive and says whether they come in bursts (loop only)."""

    def __init__(self) -> None:
        self._first_at = 0.0
        self._first_s = 0.0
        self._received_s = 0.0
        self._in_answer = False
        self._bursts = True  # as the service sends them (docs/live-service.md R6)
        self._seen = False

    @property
    def bursts(self) -> bool:
        """Whether the latest answer that said so came in bursts ahead of real time.

        True until an answer has shown otherwise (the service's own way, R6).
        """
        return self._bursts

    def arrived(self, seconds: float, now: float, *, new_answer: bool) -> None:
        """A chunk of ``seconds`` of speech arrived at ``now``.

        Args:
            seconds: the chunk's duration.
            now: when it arrived (the loop's clock).
            new_answer: it is the first chunk of an answer (nothing was playing).
        """
        if new_answer or not self._in_answer:
            self._in_answer = True
            self._seen = False
            self._first_at = now
            self._first_s = seconds
            self._received_s = seconds
            return
        self._received_s += seconds
        ahead = self._received_s - (now - self._first_at)
        if ahead > self._first_s + BURST_MARGIN_S:
            self._bursts = True
            self._seen = True

    def answer_ended(self) -> None:
        """The answer has played (or was cut short): what it showed is the verdict.

        An answer that never ran ahead of real time, though it was long enough to show it,
        says arrivals are paced now (the connection slowed down).
        """
        if self._in_answer and not self._seen and self._received_s > self._first_s:
            self._bursts = False
        self._in_answer = False
