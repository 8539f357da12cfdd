"""The half-duplex gate: the microphone is closed while the assistant's speech is heard.

Without echo cancellation, a hands-free microphone hears the speaker: the service would take
the assistant's own voice for the person and interrupt itself. So while speech plays, the
capture is gated (it delivers silence of the same length, so a listener's timing stays
intact). This layer owns that rule because it knows when sound really comes out: the gate
closes when the first sample reaches the device (:class:`~.events.PlaybackStarted`, before
its echo can reach the microphone) and opens a moment after the last one has played, when
the room's echo has died down; a barge-in (a flush) opens it at once.

Effects (earcons) are not gated: they are short, and the "listening" one comes exactly when
the person is about to speak.

Whether the policy is half-duplex at all (hands-free without echo cancellation, or forced)
is the engine's to say; :class:`HalfDuplexGate` asks it each time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

from sammy_desktop.scheduling import Cancellable, LoopScheduler, Scheduler

__all__ = ["GATE_HANGOVER_S", "GatedMicrophone", "HalfDuplexGate"]

GATE_HANGOVER_S: Final = 0.15
"""How long the gate stays closed after speech has played: the room still rings that long."""


class GatedMicrophone(Protocol):
    """What the gate closes (:class:`~sammy_desktop.audio.capture.AudioCapture` is one)."""

    @property
    def is_muted(self) -> bool:
        """Whether the gate is closed now."""

    def gate(self, muted: bool) -> None:
        """Close (``True``) or open the gate."""


class HalfDuplexGate:
    """Closes the microphone while speech plays, when the policy is half-duplex.

    Args:
        microphone: the capture to gate.
        wanted: whether the policy is half-duplex now (asked at every change).
        playing: whether speech is queued or sounding now.
        hangover_s: how long to stay closed after speech has played to its end.
        scheduler: the clock and timers (the running loop's by default).
    """

    def __init__(
        self,
        microphone: GatedMicrophone,
        *,
        wanted: Callable[[], bool],
        playing: Callable[[], bool],
        hangover_s: float = GATE_HANGOVER_S,
        scheduler: Scheduler | None = None,
    ) -> None:
        self._microphone = microphone
        self._wanted = wanted
        self._playing = playing
        self._hangover_s = hangover_s
        self._scheduler: Scheduler = scheduler if scheduler is not None else LoopScheduler()
        self._ungate: Cancellable | None = None

    @property
    def is_closed(self) -> bool:
        """Whether the microphone is gated now."""
        return self._microphone.is_muted

    def update(self) -> None:
        """The policy changed (echo cancellation, talk mode): apply it at once."""
        self._cancel_ungate()
        self._microphone.gate(self._wanted() and self._playing())

    def speech_started(self) -> None:
        """The first sample of speech reached the device (:class:`PlaybackStarted`)."""
        self._cancel_ungate()
        if self._wanted():
            self._microphone.gate(True)

    def speech_drained(self, *, interrupted: bool) -> None:
        """Speech stopped playing (:class:`PlaybackDrained`).

        Args:
            interrupted: a flush cut it short (barge-in): open at once, the person is
                talking. Otherwise open after the hangover.
        """
        if not self._microphone.is_muted:
            return
        if interrupted:
            self._microphone.gate(False)
            return
        self._cancel_ungate()
        self._ungate = self._scheduler.call_later(self._hangover_s, self._open)

    def release(self) -> None:
        """Open now and forget the hangover (the engine stops)."""
        self._cancel_ungate()
        self._microphone.gate(False)

    def _open(self) -> None:
        self._ungate = None
        self._microphone.gate(False)

    def _cancel_ungate(self) -> None:
        if self._ungate is not None:
            self._ungate.cancel()
            self._ungate = None
