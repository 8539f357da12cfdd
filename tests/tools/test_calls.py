"""The call ledger alone: the one record of calls in flight."""

from __future__ import annotations

import asyncio

from sammy_desktop.tools.calls import CallPhase, ToolCallLedger


def test_a_call_is_awaited_until_answered() -> None:
    ledger = ToolCallLedger()
    answered: list[str] = []
    ledger.add_answer_listener(answered.append)
    assert ledger.arrive("a", "getTime")
    assert ledger.awaiting_answer() and ledger.is_live("a")
    assert ledger.phase("a") is CallPhase.RUNNING
    ledger.answered("a", will_continue=False)
    assert not ledger.awaiting_answer()
    assert ledger.ids() == [] and answered == ["a"]


def test_a_stream_stays_open_without_being_waited_for() -> None:
    ledger = ToolCallLedger()
    ledger.arrive("t", "setTimer")
    ledger.answered("t", will_continue=True)
    assert ledger.phase("t") is CallPhase.STREAMING
    assert not ledger.awaiting_answer()
    assert ledger.is_live("t")
    ledger.answered("t", will_continue=False)
    assert "t" not in ledger


def test_a_duplicate_id_is_refused_and_owes_its_own_answer() -> None:
    ledger = ToolCallLedger()
    assert ledger.arrive("x", "openUrl")
    assert not ledger.arrive("x", "readClipboard")
    ledger.answered("x", will_continue=False)  # the refusal of the duplicate
    assert ledger.is_live("x") and ledger.awaiting_answer()  # the first still runs
    ledger.answered("x", will_continue=False)
    assert "x" not in ledger


async def test_cancelling_stops_the_task_and_remembers_early_ids() -> None:
    ledger = ToolCallLedger()
    ledger.arrive("a", "slow")
    task = asyncio.create_task(asyncio.sleep(3600))
    ledger.started("a", task)
    ledger.cancel(["a", "not-yet"])
    assert not ledger.is_live("a") and not ledger.awaiting_answer()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()
    assert ledger.finished("a") is True  # it was cancelled: nothing is sent
    assert "a" not in ledger
    assert ledger.take_early_cancel("not-yet") is True
    assert ledger.take_early_cancel("not-yet") is False


def test_cancelling_an_answer_on_its_way_drops_it_at_once() -> None:
    ledger = ToolCallLedger()
    ledger.arrive("a", "quick")
    ledger.cancel(["a"])  # no task: its handler is done, the answer not yet sent
    assert "a" not in ledger and not ledger.is_live("a")
