"""The jitter buffer's depth on its own: what it has learnt can be put back.

The depth's rules as the person hears them (a gap, a step down after clean speech) are
tested through the jitter buffer in test_jitter.py; here only what the buffer does not show.
"""

from __future__ import annotations

import pytest

from sammy_desktop.audio.jitter_depth import AdaptiveDepth, Learnt


def test_what_the_depth_learnt_is_put_back_and_its_count_goes_on_from_there() -> None:
    depth = AdaptiveDepth(start_ms=10, step_ms=10, max_ms=40, lower_after_ms=1000)
    depth.answer_starts(0.0)
    depth.gap(0.25)
    depth.chunk_came(0.0625, 0.5)
    depth.ended(0.75, 1.0)
    kept = depth.learnt()
    assert kept == Learnt(depth_s=0.02, clean_s=0.5, least_slack_s=0.0625)

    # Other rounds deepen it to its ceiling and start the count again...
    depth.answer_starts(2.0)
    depth.gap(2.25)
    depth.gap(2.5)
    depth.gap(2.75)
    assert depth.seconds == pytest.approx(0.04)

    # ...and what was kept comes back: the depth, and the half second towards a step down.
    depth.restore(kept)
    assert depth.learnt() == kept
    depth.answer_starts(3.0)
    assert not depth.chunk_came(0.0625, 3.25)
    assert depth.chunk_came(0.0625, 3.5)
    assert depth.seconds == pytest.approx(0.01)


def test_a_depth_put_back_stays_within_the_limits() -> None:
    depth = AdaptiveDepth(start_ms=10, step_ms=10, max_ms=40, lower_after_ms=None)
    depth.restore(Learnt(depth_s=0.5, clean_s=0.0, least_slack_s=0.0))
    assert depth.seconds == pytest.approx(0.04)
    depth.restore(Learnt(depth_s=0.0, clean_s=0.0, least_slack_s=0.0))
    assert depth.seconds == pytest.approx(0.01)
