"""RealtimeOutbox: order, the bound, and what is re-sent after a reconnection."""

from __future__ import annotations

import asyncio

import pytest

from sammy_desktop.core.live import RealtimeInput, RealtimeKind
from sammy_desktop.core.outbox import RealtimeOutbox

START = RealtimeInput(RealtimeKind.ACTIVITY_START)
END = RealtimeInput(RealtimeKind.ACTIVITY_END)


def audio(tag: int, size: int = 10) -> RealtimeInput:
    return RealtimeInput(RealtimeKind.AUDIO, audio=bytes([tag]) * size)


async def drain(outbox: RealtimeOutbox) -> list[RealtimeInput]:
    items = []
    while len(outbox):
        items.append(await outbox.get())
    return items


async def test_items_come_out_in_order_and_unget_goes_first() -> None:
    outbox = RealtimeOutbox(1000)
    for item in (START, audio(1), END):
        outbox.put(item)
    first = await outbox.get()
    assert first == START
    outbox.unget(first)
    assert await drain(outbox) == [START, audio(1), END]


async def test_get_waits_for_the_next_item() -> None:
    outbox = RealtimeOutbox(1000)
    waiting = asyncio.create_task(outbox.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    outbox.put(audio(7))
    assert await asyncio.wait_for(waiting, 1) == audio(7)


async def test_when_full_the_oldest_audio_goes_and_markers_stay() -> None:
    outbox = RealtimeOutbox(30)
    outbox.put(START)
    for tag in range(1, 6):
        outbox.put(audio(tag))
    outbox.put(END)
    assert await drain(outbox) == [START, audio(3), audio(4), audio(5), END]
    assert outbox.dropped_audio_bytes == 20


async def test_unconfirmed_items_are_resent_ahead_of_the_queue() -> None:
    outbox = RealtimeOutbox(1000)
    for item in (START, audio(1)):
        outbox.put(item)
        outbox.sent(await outbox.get())
    before = outbox.has_unconfirmed
    outbox.put(END)  # queued while disconnected
    assert outbox.requeue_unconfirmed() == 3
    after = outbox.has_unconfirmed
    assert (before, after) == (True, False)
    assert await drain(outbox) == [START, audio(1), END]


async def test_confirm_forgets_what_was_sent() -> None:
    outbox = RealtimeOutbox(1000)
    outbox.put(audio(1))
    outbox.sent(await outbox.get())
    outbox.confirm()
    assert outbox.requeue_unconfirmed() == 0


async def test_unconfirmed_is_bounded_too() -> None:
    outbox = RealtimeOutbox(20)
    for tag in range(1, 5):
        outbox.sent(audio(tag))
    outbox.requeue_unconfirmed()
    assert await drain(outbox) == [audio(3), audio(4)]


def test_the_bound_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        RealtimeOutbox(0)
