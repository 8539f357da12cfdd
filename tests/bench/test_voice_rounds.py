"""The voice bench's bookkeeping: which client each round of one shared recording was."""

from __future__ import annotations

import logging

import pytest

from bench import reference_client
from bench.live_audio import (
    APP_GAP,
    REFERENCE_GAP,
    ROUND_ORDER,
    SPEAKER_RESTING,
    AnswerRounds,
    VoicePair,
    VoiceResult,
    resting_presses,
    round_order,
)
from sammy_desktop.audio.jitter import JitterBuffer
from tests.helpers.clock import ManualScheduler
from tests.helpers.jitter_device import Device, Listener, numbered_speech


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


def test_paced_runs_add_resting_rounds_that_fall_where_the_others_do() -> None:
    order = round_order(4, "realtime")

    assert [order.count(client) for client in ("app", "reference", SPEAKER_RESTING)] == [4, 4, 4]
    # The same mean place in the run for each: a steady drift of the rig falls on all alike.
    places = {
        client: sum(index for index, name in enumerate(order) if name == client) / 4
        for client in ("app", "reference", SPEAKER_RESTING)
    }
    assert len(set(places.values())) == 1
    # The app's own presses, in order: which of them answer from a resting speaker.
    assert resting_presses(order) == "0110" * 2


def test_bursts_runs_have_no_resting_rounds() -> None:
    order = round_order(3, "burst")

    assert order == ["app", "reference", "reference", "app", "app", "reference"]
    assert "1" not in resting_presses(order)


def test_a_runs_clients_are_listed_with_the_resting_rounds_only_where_there_are_some() -> None:
    app, reference, resting = (VoiceResult([float(ms)], []) for ms in (1, 2, 3))

    bursts = VoicePair(app, reference).results()
    paced = VoicePair(app, reference, resting).results()

    assert bursts == [("app", app), ("starter-style client", reference)]
    assert [name for name, _ in paced] == [
        "app",
        "app, speaker resting (bench only)",
        "starter-style client",
    ]
    assert [result for _, result in paced] == [app, resting, reference]


def test_the_gap_lines_counted_are_the_ones_each_client_prints(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The app's: a chunk that comes after the speaker ran dry mid-answer.
    scheduler = ManualScheduler(now=100.0)
    listener = Listener()
    buffer = JitterBuffer(
        on_started=listener.on_started,
        on_drained=listener.on_drained,
        scheduler=scheduler,
        drain_grace_ms=60_000,
    )
    device = Device(buffer, scheduler)
    with caplog.at_level(logging.DEBUG, logger="sammy_desktop.audio.jitter"):
        buffer.push(numbered_speech(30))
        device.run(40)
        assert not [record for record in caplog.records if APP_GAP in record.getMessage()]
        buffer.push(numbered_speech(30))
    assert buffer.underruns == 1
    assert [record for record in caplog.records if APP_GAP in record.getMessage()]
    # The starter-style client's.
    assert REFERENCE_GAP in reference_client.GAP_LINE
