"""The half-duplex gate's rules, with a hand-moved clock and a stand-in microphone.

The same gate on the real devices, inside the engine: test_engine.py.
"""

from __future__ import annotations

import pytest

from sammy_desktop.audio.duplex import GATE_HANGOVER_S, HalfDuplexGate
from tests.helpers.clock import ManualScheduler


class Microphone:
    """Records every gate call, as the capture would apply it."""

    def __init__(self) -> None:
        self.is_muted = False
        self.calls: list[bool] = []

    def gate(self, muted: bool) -> None:
        self.is_muted = muted
        self.calls.append(muted)


class Policy:
    """The engine's side: whether half-duplex is wanted and whether speech plays."""

    def __init__(self, *, half_duplex: bool = True) -> None:
        self.half_duplex = half_duplex
        self.playing = False


def closed(gate: HalfDuplexGate) -> bool:
    # A call, so mypy does not carry a narrowed property value across statements.
    return gate.is_closed


@pytest.fixture
def mic() -> Microphone:
    return Microphone()


def make(mic: Microphone, policy: Policy, scheduler: ManualScheduler) -> HalfDuplexGate:
    return HalfDuplexGate(
        mic,
        wanted=lambda: policy.half_duplex,
        playing=lambda: policy.playing,
        scheduler=scheduler,
    )


def test_the_gate_closes_when_speech_sounds_and_opens_after_the_hangover(
    mic: Microphone, scheduler: ManualScheduler
) -> None:
    policy = Policy()
    gate = make(mic, policy, scheduler)
    policy.playing = True  # queued: nothing audible yet, so nothing to gate
    assert not closed(gate)
    gate.speech_started()
    assert closed(gate)
    policy.playing = False
    gate.speech_drained(interrupted=False)
    assert closed(gate)  # the room still rings
    assert scheduler.pending == [pytest.approx(GATE_HANGOVER_S)]
    scheduler.advance(GATE_HANGOVER_S - 0.001)
    assert closed(gate)
    scheduler.advance(0.001)
    assert not closed(gate)
    assert mic.calls == [True, False]


def test_a_barge_in_opens_the_gate_at_once(mic: Microphone, scheduler: ManualScheduler) -> None:
    gate = make(mic, Policy(), scheduler)
    gate.speech_started()
    gate.speech_drained(interrupted=True)
    assert not closed(gate)
    assert scheduler.pending == []


def test_the_next_answer_within_the_hangover_keeps_the_gate_closed(
    mic: Microphone, scheduler: ManualScheduler
) -> None:
    gate = make(mic, Policy(), scheduler)
    gate.speech_started()
    gate.speech_drained(interrupted=False)
    scheduler.advance(GATE_HANGOVER_S / 2)
    gate.speech_started()  # more speech before the gate opened
    scheduler.advance(GATE_HANGOVER_S)
    assert closed(gate)  # the first hangover does not open it under the second answer
    assert scheduler.pending == []


def test_full_duplex_never_gates(mic: Microphone, scheduler: ManualScheduler) -> None:
    gate = make(mic, Policy(half_duplex=False), scheduler)
    gate.speech_started()
    gate.speech_drained(interrupted=False)
    assert mic.calls == []
    assert scheduler.pending == []


def test_a_policy_change_applies_at_once_also_mid_speech(
    mic: Microphone, scheduler: ManualScheduler
) -> None:
    policy = Policy(half_duplex=False)
    gate = make(mic, policy, scheduler)
    policy.playing = True
    gate.speech_started()
    assert not closed(gate)
    policy.half_duplex = True  # echo cancellation switched off while the assistant speaks
    gate.update()
    assert closed(gate)
    policy.half_duplex = False  # ...and on again
    gate.update()
    assert not closed(gate)
    policy.playing = False
    policy.half_duplex = True
    gate.update()  # nothing plays: nothing to gate
    assert not closed(gate)


def test_a_policy_change_in_the_hangover_settles_it_now(
    mic: Microphone, scheduler: ManualScheduler
) -> None:
    policy = Policy()
    gate = make(mic, policy, scheduler)
    gate.speech_started()
    gate.speech_drained(interrupted=False)
    gate.update()  # speech is over: open now, and no stale timer opens it later
    assert not closed(gate)
    assert scheduler.pending == []


def test_release_opens_the_gate_and_forgets_the_hangover(
    mic: Microphone, scheduler: ManualScheduler
) -> None:
    gate = make(mic, Policy(), scheduler)
    gate.speech_started()
    gate.speech_drained(interrupted=False)
    gate.release()
    assert not closed(gate)
    assert scheduler.pending == []
