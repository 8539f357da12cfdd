"""AnswerPace: bursts ahead of real time told apart from audio paced at real time."""

from __future__ import annotations

from sammy_desktop.audio.pace import AnswerPace


def feed(pace: AnswerPace, chunks: list[tuple[float, float]]) -> None:
    """``chunks``: (arrival time, seconds of audio); the first starts an answer."""
    for index, (at, seconds) in enumerate(chunks):
        pace.arrived(seconds, at, new_answer=index == 0)


def paced(chunk_s: float, count: int, start: float = 0.0) -> list[tuple[float, float]]:
    return [(start + index * chunk_s, chunk_s) for index in range(count)]


def test_arrivals_count_as_bursts_as_the_service_sends_them_until_an_answer_shows_paced() -> None:
    pace = AnswerPace()
    assert pace.bursts
    feed(pace, paced(0.1, 10))
    pace.answer_ended()
    assert not pace.bursts


def test_an_answer_delivered_three_times_faster_than_it_plays_is_bursts() -> None:
    pace = AnswerPace()
    # The simulator's burst pacing: 0.5 s at once, then the rest at three times real time.
    chunks = [(0.0, 0.1)] * 5 + [(0.5 + index * 0.1 / 3, 0.1) for index in range(15)]
    feed(pace, chunks)
    assert pace.bursts
    pace.answer_ended()
    assert pace.bursts


def test_audio_at_real_time_is_paced_whatever_its_chunk_size() -> None:
    for chunk_s in (0.02, 0.1, 0.5):
        pace = AnswerPace()
        feed(pace, paced(chunk_s, 10))
        pace.answer_ended()
        assert not pace.bursts, chunk_s


def test_network_jitter_on_paced_audio_is_not_bursts() -> None:
    pace = AnswerPace()
    # Chunks of 100 ms, each up to 60 ms late or early (two arriving almost together).
    times = [0.0, 0.16, 0.2, 0.36, 0.4, 0.5, 0.66, 0.7]
    feed(pace, [(at, 0.1) for at in times])
    pace.answer_ended()
    assert not pace.bursts


def test_a_paced_answer_after_bursts_says_the_connection_slowed_down() -> None:
    pace = AnswerPace()
    feed(pace, [(0.0, 0.5), (0.01, 0.5), (0.02, 0.5)])
    pace.answer_ended()
    assert pace.bursts
    feed(pace, paced(0.1, 10, start=5.0))
    pace.answer_ended()
    assert not pace.bursts


def test_an_answer_of_one_chunk_shows_nothing_and_changes_nothing() -> None:
    pace = AnswerPace()
    feed(pace, [(0.0, 0.5), (0.01, 0.5)])
    pace.answer_ended()
    feed(pace, [(3.0, 0.3)])
    pace.answer_ended()
    assert pace.bursts
