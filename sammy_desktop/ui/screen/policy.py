"""When a shared screen's next frame is due: the send policy, as plain arithmetic (no Qt).

:class:`FramePolicy` is told the talk presses, whether the person is talking or Sammy is
answering, and when each frame was taken; it answers when the next one is due. A press
wants a frame at once; while talking or answering (or always, with
:attr:`~sammy_desktop.config.ScreenSendPolicy.ALWAYS`) one a second; otherwise none. Frames
are never closer than the interval, a press included. Whether a frame taken is actually
sent (it may not have changed; the last may still be encoding) is the controller's business.
"""

from __future__ import annotations

from typing import Final

from sammy_desktop.config import ScreenSendPolicy

__all__ = ["MIN_INTERVAL_S", "FramePolicy"]

MIN_INTERVAL_S: Final = 1.0
"""At most one frame a second."""


class FramePolicy:
    """The send policy's state for one sharing.

    Args:
        mode: while talking, or always.
        continuous: False where only a frame at each press is possible (Wayland's portal).
        interval_s: the shortest time between two frames.
    """

    def __init__(
        self,
        mode: ScreenSendPolicy,
        *,
        continuous: bool = True,
        interval_s: float = MIN_INTERVAL_S,
    ) -> None:
        self.mode = mode
        self.continuous = continuous
        self._interval_s = interval_s
        self._active = False
        self._press_pending = False
        self._last: float | None = None

    @property
    def active(self) -> bool:
        """Whether the person is talking or Sammy is answering."""
        return self._active

    def set_active(self, active: bool) -> None:
        """The person started or stopped talking, or Sammy started or stopped answering."""
        self._active = active

    def press(self) -> None:
        """The talk key went down: a frame is wanted as soon as the interval allows."""
        self._press_pending = True

    def next_due(self, now: float) -> float | None:
        """When the next frame is due (``now`` or later), or None when none is wanted."""
        periodic = self.continuous and (self._active or self.mode is ScreenSendPolicy.ALWAYS)
        if not (self._press_pending or periodic):
            return None
        if self._last is None:
            return now
        return max(now, self._last + self._interval_s)

    def is_due(self, now: float) -> bool:
        """Whether a frame is due at ``now``."""
        due = self.next_due(now)
        return due is not None and due <= now

    def taken(self, now: float) -> None:
        """A frame was taken (or skipped) at ``now``: the next waits an interval."""
        self._last = now
        self._press_pending = False
