"""The issue's "done means", compressed in time.

An hour-long session has a goAway about every ten minutes and, once, a connection dropped
in the middle of an answer. Here: twelve exchanges, a goAway after every second one (six
planned reconnections), and a TCP reset in the middle of the seventh answer. Its transcript
and its history file must read like one unbroken conversation.
"""

from __future__ import annotations

from sammy_desktop.core.events import (
    ConnectionLost,
    Reconnected,
    Speaker,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.core.history import read_history
from sammy_desktop.sim import (
    Action,
    Close,
    GoAway,
    InputTranscription,
    OnActivityEnd,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from tests.core.conftest import HarnessFactory
from tests.helpers.audio import speech

EXCHANGES = 12
DROPPED = 6  # the exchange whose answer is cut by a dropped connection


def _scenario() -> Scenario:
    turns: list[Turn] = []
    for number in range(EXCHANGES):
        question = InputTranscription(text=f"question {number}")
        if number == DROPPED:
            turns.append(
                Turn(
                    OnActivityEnd(),
                    [question, Tone(duration_s=0.05, transcript="Ans"), Close(code=None)],
                )
            )
        actions: list[Action] = [
            question,
            Tone(duration_s=0.05, transcript=f"Answer {number}."),
            TurnComplete(),
        ]
        if number % 2 == 1:
            actions.append(GoAway(time_left_s=50))
        turns.append(Turn(OnActivityEnd(), actions))
    return Scenario(turns=turns)


async def test_an_hour_of_go_aways_and_a_drop_reads_as_one_conversation(
    core_harness: HarnessFactory,
) -> None:
    async with core_harness(_scenario()) as h:
        await h.ready()
        for number in range(EXCHANGES):
            await h.say(speech(0.1))
            await h.events.wait_for(TurnStats, count=number + 1)
            if number % 2 == 1:
                # Let the planned reconnection happen before the next question.
                await h.events.wait_for(Reconnected, lambda r: r.planned, count=(number + 1) // 2)
        path = h.history.path
        assert path is not None
        await h.core.stop()

    expected = [
        line
        for number in range(EXCHANGES)
        for line in ((Speaker.USER, f"question {number}"), (Speaker.ASSISTANT, f"Answer {number}."))
    ]
    finals = [(e.speaker, e.text) for e in h.events.of(TranscriptUpdated) if e.final]
    assert finals == expected
    spoken = [
        (r["type"], r["text"]) for r in read_history(path) if r["type"] in ("user", "assistant")
    ]
    assert spoken == [(str(speaker), text) for speaker, text in expected]

    reconnections = h.events.of(Reconnected)
    assert len(reconnections) == EXCHANGES // 2 + 1
    assert sum(1 for r in reconnections if r.planned) == EXCHANGES // 2
    assert all(r.resumed for r in reconnections)
    assert len(h.events.of(ConnectionLost)) == 1
    assert len(h.sim.sessions) == 1
    assert h.sim.connection_count == EXCHANGES // 2 + 2
