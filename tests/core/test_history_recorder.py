"""The history recorder alone: events in, one record per fact out, nothing while closed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sammy_desktop.core.events import (
    AnswerInterrupted,
    NoResponse,
    SentToolAnswer,
    SessionStarted,
    Speaker,
    ToolAnswersSent,
    ToolCallsReceived,
    TranscriptUpdated,
)
from sammy_desktop.core.history import ConversationHistory, read_history
from sammy_desktop.core.history_recorder import HistoryRecorder
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.desktop.events import TimerInfo, TimersRunningAtQuit, TimerStatus

AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _records(path: Path) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "at"} for r in read_history(path)]


async def test_each_fact_is_recorded_once_in_order(tmp_path: Path) -> None:
    bus = EventBus()
    history = ConversationHistory(tmp_path, clock=lambda: AT)
    recorder = HistoryRecorder(bus, history)
    bus.emit(TranscriptUpdated(Speaker.USER, "before the session", final=True, turn_id=1))

    path = await recorder.open("s1")
    bus.emit(SessionStarted("s1", path, model="m", talk_mode="push_to_talk", voice="Puck"))
    bus.emit(TranscriptUpdated(Speaker.USER, "what's the", final=False, turn_id=1))
    bus.emit(TranscriptUpdated(Speaker.USER, "what's the time", final=True, turn_id=1))
    bus.emit(ToolCallsReceived(turn_id=1, calls=(("c1", "getTime", {"zone": "UTC"}),)))
    bus.emit(ToolAnswersSent(answers=(SentToolAnswer("c1", "getTime", {"output": 1}, False),)))
    bus.emit(AnswerInterrupted(turn_id=1))
    bus.emit(TranscriptUpdated(Speaker.ASSISTANT, "It is", final=True, turn_id=1, interrupted=True))
    bus.emit(NoResponse(turn_id=2, waited_s=10, nudged=True, gave_up=False))
    timer = TimerInfo("1", "tea", 60.0, AT, AT, TimerStatus.STOPPED)
    bus.emit(TimersRunningAtQuit(timers=(timer,)))
    await recorder.close("done")
    bus.emit(TranscriptUpdated(Speaker.USER, "after the session", final=True, turn_id=3))

    assert _records(path) == [
        {
            "type": "session_started",
            "session_id": "s1",
            "model": "m",
            "talk_mode": "push_to_talk",
            "voice": "Puck",
            "language": "",
        },
        {"type": "user", "text": "what's the time", "turn_id": 1},
        {"type": "tool_call", "turn_id": 1, "id": "c1", "name": "getTime", "args": {"zone": "UTC"}},
        {
            "type": "tool_result",
            "id": "c1",
            "name": "getTime",
            "response": {"output": 1},
            "will_continue": False,
        },
        {"type": "interrupted", "turn_id": 1},
        {"type": "assistant", "text": "It is", "turn_id": 1, "interrupted": True},
        {"type": "no_response", "turn_id": 2, "nudged": True},
        {"type": "timers_running_at_quit", "timers": [timer.as_record()]},
        {"type": "session_ended", "reason": "done"},
    ]
    # The in-memory transcript the tools read: the final lines and a note of the call.
    assert [(line.role, line.text) for line in history.transcript()] == [
        ("user", "what's the time"),
        ("tool", "getTime called"),
        ("assistant", "It is"),
    ]
