"""Notices the model must say out loud, delivered at the next quiet moment.

A tool that needs the model to tell the person something later (a timer ended while no
call was open to carry it) emits ``AnnouncementPending``. :class:`Announcer` keeps those
notices, across sessions if need be, and hands them to the conversation as soon as it may
(Ready, nobody talking, not ending): framed once as ``(Timer notice: ...)`` so the model
knows it is not the person speaking, sent through the same ordered outbox as typed text.
Each notice is delivered once; ``AnnouncementsDelivered`` says which.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sammy_desktop.core.events import AnnouncementsDelivered
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.events import AnnouncementPending

__all__ = ["Announcer", "frame_notice"]

_log = logging.getLogger(__name__)


def frame_notice(source: str, text: str) -> str:
    """``(Timer notice: ...)``: a notice the model can tell from the person's words."""
    label = f"{source.strip()} notice" if source.strip() else "Notice"
    return f"({label}: {text.strip()})"


class Announcer:
    """Keeps pending notices and delivers them when the conversation allows.

    Args:
        bus: where ``AnnouncementPending`` comes from and ``AnnouncementsDelivered`` goes.
        may_deliver: whether now is a quiet moment to tell the model.
        send: sends one framed notice to the model (in order with everything else).
    """

    def __init__(
        self,
        bus: EventBus,
        *,
        may_deliver: Callable[[], bool],
        send: Callable[[str], None],
    ) -> None:
        self._bus = bus
        self._may_deliver = may_deliver
        self._send = send
        self._pending: list[AnnouncementPending] = []
        bus.subscribe(AnnouncementPending, self._on_pending)

    @property
    def pending(self) -> tuple[str, ...]:
        """The texts still waiting for a quiet moment, oldest first."""
        return tuple(notice.text for notice in self._pending)

    def _on_pending(self, event: AnnouncementPending) -> None:
        if event.text.strip():
            self._pending.append(event)
        self.deliver()

    def deliver(self) -> None:
        """Send everything pending now, if this is a quiet moment; else keep it."""
        if not self._pending or not self._may_deliver():
            return
        notices, self._pending = self._pending, []
        self._send(" ".join(frame_notice(n.source, n.text) for n in notices))
        self._bus.emit(
            AnnouncementsDelivered(
                texts=tuple(n.text.strip() for n in notices),
                sources=tuple(n.source for n in notices),
            )
        )
