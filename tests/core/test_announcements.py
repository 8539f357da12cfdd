"""The announcer alone: notices wait for a quiet moment, are framed once, sent once."""

from __future__ import annotations

from sammy_desktop.core.announcements import Announcer, frame_notice
from sammy_desktop.core.events import AnnouncementsDelivered
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import AnnouncementPending
from tests.helpers.events import EventLog


def test_framing_names_the_source_once() -> None:
    assert frame_notice("Timer", " It rang. ") == "(Timer notice: It rang.)"
    assert frame_notice("", "Hello") == "(Notice: Hello)"


def test_a_notice_waits_for_a_quiet_moment_then_goes_once() -> None:
    bus = EventBus()
    events = EventLog(bus)
    quiet = False
    sent: list[str] = []
    announcer = Announcer(bus, may_deliver=lambda: quiet, send=sent.append)

    bus.emit(AnnouncementPending(text="The tea timer ended.", source="Timer"))
    bus.emit(AnnouncementPending(text="   "))  # nothing to say: ignored
    bus.emit(AnnouncementPending(text="Back in five.", source="Reminder"))
    assert sent == []
    assert announcer.pending == ("The tea timer ended.", "Back in five.")

    quiet = True
    announcer.deliver()
    assert sent == ["(Timer notice: The tea timer ended.) (Reminder notice: Back in five.)"]
    assert list(announcer.pending) == []
    assert events.one(AnnouncementsDelivered) == AnnouncementsDelivered(
        texts=("The tea timer ended.", "Back in five."), sources=("Timer", "Reminder")
    )
    announcer.deliver()
    assert len(sent) == 1  # delivered once


def test_a_notice_in_a_quiet_moment_goes_at_once() -> None:
    bus = EventBus()
    sent: list[str] = []
    Announcer(bus, may_deliver=lambda: True, send=sent.append)
    bus.emit(AnnouncementPending(text="Done.", source="Timer"))
    assert sent == ["(Timer notice: Done.)"]
