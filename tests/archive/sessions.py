"""History files for the archive's tests, written by the app's own writer.

Each session is played as events on a bus into the real :class:`HistoryRecorder` and
:class:`ConversationHistory`, with a clock that moves one second per record, so the
files have exactly the shape the app writes and the times are known.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sammy_desktop.core.events import (
    SentToolAnswer,
    SessionStarted,
    Speaker,
    ToolAnswersSent,
    ToolCallsReceived,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.core.history_recorder import HistoryRecorder
from sammy_desktop.eventbus import Event, EventBus

__all__ = [
    "MODEL",
    "WEATHER_EVENTS",
    "WEATHER_LINES",
    "WEATHER_START",
    "Ticking",
    "Writer",
    "answer",
    "assistant",
    "call",
    "open_session",
    "stats",
    "user",
    "weather_session",
    "write_session",
]

MODEL = "gemini-2.5-flash-native-audio-latest"
WEATHER_START = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)


class Ticking:
    """A wall clock that moves one second each time it is read."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def __call__(self) -> datetime:
        self._now += timedelta(seconds=1)
        return self._now


def user(text: str, turn: int) -> TranscriptUpdated:
    return TranscriptUpdated(Speaker.USER, text, final=True, turn_id=turn)


def assistant(text: str, turn: int, *, interrupted: bool = False) -> TranscriptUpdated:
    return TranscriptUpdated(
        Speaker.ASSISTANT, text, final=True, turn_id=turn, interrupted=interrupted
    )


def call(turn: int, call_id: str, name: str, args: dict[str, Any]) -> ToolCallsReceived:
    return ToolCallsReceived(turn_id=turn, calls=((call_id, name, args),))


def answer(call_id: str, name: str, response: dict[str, Any]) -> ToolAnswersSent:
    return ToolAnswersSent(answers=(SentToolAnswer(call_id, name, response, False),))


def stats(turn: int, prompt: int, response: int) -> TurnStats:
    """A turn's statistics; of its input, 20 tokens are text and the rest audio."""
    return TurnStats(
        turn,
        250.0,
        10.0,
        1,
        0,
        prompt,
        response,
        prompt + response,
        prompt_by_modality={"AUDIO": prompt - 20, "TEXT": 20},
        response_by_modality={"AUDIO": response},
    )


@dataclass
class Writer:
    """An open session: the recorder the app uses, fed events one at a time."""

    bus: EventBus
    history: ConversationHistory
    recorder: HistoryRecorder
    path: Path

    async def play(self, events: Sequence[Event]) -> None:
        """Emit ``events`` and wait until their records are on disk."""
        for event in events:
            self.bus.emit(event)
        await self.history.flush()

    async def end(self, reason: str | None = "the person said goodbye") -> None:
        await self.recorder.close(reason)


async def open_session(
    history_dir: Path, session_id: str, start: datetime, *, continues: str | None = None
) -> Writer:
    """Start a session's file as the app does (``SessionStarted`` first)."""
    bus = EventBus()
    history = ConversationHistory(history_dir, clock=Ticking(start))
    recorder = HistoryRecorder(bus, history)
    path = await recorder.open(session_id)
    writer = Writer(bus, history, recorder, path)
    started = SessionStarted(
        session_id, path, model=MODEL, talk_mode="push_to_talk", continues=continues
    )
    await writer.play([started])
    return writer


async def write_session(
    history_dir: Path,
    session_id: str,
    start: datetime,
    events: Sequence[Event],
    *,
    end_reason: str | None = "the person said goodbye",
) -> Path:
    """A whole session's file, from its start to its end; returns its path."""
    writer = await open_session(history_dir, session_id, start)
    await writer.play(events)
    await writer.end(end_reason)
    return writer.path


WEATHER_EVENTS: tuple[Event, ...] = (
    user("Will I need an umbrella in Lisbon tomorrow?", 1),
    call(1, "c1", "getWeather", {"city": "Lisbon", "day": "tomorrow"}),
    answer("c1", "getWeather", {"output": {"ok": True, "value": {"forecast": "clear skies"}}}),
    assistant("Tomorrow brings sunny spells over Lisbon, about 21 degrees.", 1),
    stats(1, 120, 80),
    user("Start a timer for my tea", 2),
    call(2, "c2", "startTimer", {"minutes": 4, "label": "oolong"}),
    answer("c2", "startTimer", {"error": {"ok": False, "problems": ["The clock is asleep"]}}),
    assistant("Sorry, the timer did not start.", 2),
    stats(2, 60, 40),
)

# Every spoken line of the weather session, in order. Each of "umbrella" (the person),
# "spells" (the assistant), "oolong" (a tool's argument) and "asleep" (a tool's answer) is
# said once, in one place.
WEATHER_LINES = [
    "Will I need an umbrella in Lisbon tomorrow?",
    "Tomorrow brings sunny spells over Lisbon, about 21 degrees.",
    "Start a timer for my tea",
    "Sorry, the timer did not start.",
]


async def weather_session(history_dir: Path, session_id: str = "weather0001") -> Path:
    """The session most tests read: two turns, two tool calls (one fails), 300 tokens."""
    return await write_session(history_dir, session_id, WEATHER_START, WEATHER_EVENTS)
