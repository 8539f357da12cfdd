"""The voice bench's bookkeeping: which client each round of one shared recording was."""

from __future__ import annotations

from bench.live_audio import ROUND_ORDER, AnswerRounds


def test_each_client_gets_its_own_rounds_measured_and_left_out() -> None:
    order = [ROUND_ORDER[index % len(ROUND_ORDER)] for index in range(6)]
    assert order == ["app", "reference", "reference", "app", "app", "reference"]
    # Round 2 (the reference's) was left out; round 5 had no answer at all.
    measured = AnswerRounds(
        latencies_ms=[10.0, 20.0, 40.0, 50.0],
        left_out=["stalled"],
        speech_ends=[1.0, 2.0, 4.0, 5.0],
        answer_sounds=[1.1, 2.1, 4.1, 5.1],
        rounds=[0, 1, 3, 4],
        left_out_rounds=[2],
    )

    app = measured.of(order, "app")
    reference = measured.of(order, "reference")

    assert app.latencies_ms == [10.0, 40.0, 50.0]
    assert app.speech_ends == [1.0, 4.0, 5.0]
    assert app.answer_sounds == [1.1, 4.1, 5.1]
    assert app.left_out == []
    assert reference.latencies_ms == [20.0]
    assert reference.answer_sounds == [2.1]
    assert reference.left_out == ["stalled"]
