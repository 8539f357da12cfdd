"""StatusLine alone: latency and reconnects per conversation, tokens in the tooltip."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import Reconnected, SessionStarted, TurnStats, UsageUpdated
from sammy_desktop.ui.status_line import StatusLine


def _turn(first_audio_ms: float | None) -> TurnStats:
    return TurnStats(1, first_audio_ms, 0.0, 0, 0, 10, 10, 20)


def _counters(line: StatusLine) -> tuple[float | None, int]:
    return line.last_turn_ms, line.reconnects  # a call, so mypy does not narrow them


def test_the_line_counts_per_conversation(qtbot: QtBot, tmp_path: Path) -> None:
    line = StatusLine()
    qtbot.addWidget(line)
    assert line.text() == "reconnects 0"
    line.on_turn_stats(_turn(412.4))
    line.on_reconnected(Reconnected(resumed=True, attempts=1, replayed_messages=0, planned=True))
    assert line.text() == "answered in 412 ms   ·   reconnects 1"
    line.on_turn_stats(_turn(12957.0))
    assert line.text() == "answered in 13.0 s   ·   reconnects 1"  # seconds above one
    # A turn without speech (typed) or without audio has no figure, and shows none:
    # never another turn's number as the last one's.
    line.on_turn_stats(_turn(None))
    assert line.last_turn_ms is None
    assert line.text() == "reconnects 1"
    line.on_usage_updated(UsageUpdated(10, 10, 20, session_total=1234))
    assert line.toolTip() == "1234 tokens used in this conversation"
    line.on_session_started(SessionStarted("s2", tmp_path / "s2.jsonl"))
    assert _counters(line) == (None, 0)
    assert line.text() == "reconnects 0"
