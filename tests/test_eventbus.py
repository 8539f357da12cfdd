"""The typed event bus: delivery by class, base-class subscriptions, failing listeners."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pytest

from sammy_desktop.eventbus import Event, EventBus, Subscription


@dataclass(frozen=True, slots=True)
class Ping(Event):
    n: int


@dataclass(frozen=True, slots=True)
class LoudPing(Ping):
    volume: int


@dataclass(frozen=True, slots=True)
class Pong(Event):
    text: str


def test_handlers_get_their_class_and_subclasses_only() -> None:
    bus = EventBus()
    pings: list[Ping] = []
    pongs: list[Pong] = []
    everything: list[Event] = []
    bus.subscribe(Ping, pings.append)
    bus.subscribe(Pong, pongs.append)
    bus.subscribe(Event, everything.append)
    bus.emit(Ping(1))
    bus.emit(LoudPing(2, volume=11))
    bus.emit(Pong("x"))
    assert pings == [Ping(1), LoudPing(2, volume=11)]
    assert pongs == [Pong("x")]
    assert everything == [Ping(1), LoudPing(2, volume=11), Pong("x")]


@pytest.mark.logs_errors("event listener .* failed")
def test_a_failing_listener_is_logged_and_the_others_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = EventBus()
    seen: list[int] = []

    def broken(event: Ping) -> None:
        raise ValueError("listener bug")

    bus.subscribe(Ping, broken)
    bus.subscribe(Ping, lambda e: seen.append(e.n))
    with caplog.at_level(logging.ERROR, logger="sammy_desktop.eventbus"):
        bus.emit(Ping(5))
    assert seen == [5]
    assert "event listener" in caplog.text
    assert "listener bug" in caplog.text


def test_cancel_stops_delivery_and_is_idempotent() -> None:
    bus = EventBus()
    seen: list[Ping] = []
    subscription = bus.subscribe(Ping, seen.append)
    bus.emit(Ping(1))
    subscription.cancel()
    subscription.cancel()
    bus.emit(Ping(2))
    assert seen == [Ping(1)]


def test_a_listener_may_unsubscribe_while_being_called() -> None:
    bus = EventBus()
    seen: list[str] = []
    holder: list[Subscription] = []

    def once(event: Pong) -> None:
        seen.append("once")
        holder[0].cancel()

    holder.append(bus.subscribe(Pong, once))
    bus.subscribe(Pong, lambda e: seen.append("always"))
    bus.emit(Pong("a"))
    bus.emit(Pong("b"))
    assert seen == ["once", "always", "always"]
