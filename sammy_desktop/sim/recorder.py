"""A queryable record of everything the simulator received and sent.

Tests assert on it ("the client sent 3 s of audio, then activityEnd, then a tool response
for fc-1") and wait on it without sleeping: :meth:`Recorder.wait_for` resolves as soon as
the n-th matching event is recorded, or fails after a timeout.

Inbound event kinds are the values of :class:`Received`. Every frame the simulator sends is
recorded too, with the kind ``"sent.<topLevelKey>"`` (e.g. ``"sent.toolCall"``), so a test can
also wait until the simulator has said something.

A test's recorder keeps everything. A simulator that runs for hours (the app's offline demo)
bounds it with a :class:`RecordLimit`: the oldest events go first, so about 115 MB an hour of
microphone audio never piles up.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Received", "RecordLimit", "RecordedEvent", "Recorder"]


class Received(StrEnum):
    """Kinds of inbound events the recorder keeps."""

    CONNECT = "connect"  # a websocket connection was accepted (before authentication)
    SETUP = "setup"
    AUDIO = "audio"
    VIDEO = "video"
    ACTIVITY_START = "activity_start"
    ACTIVITY_END = "activity_end"
    AUDIO_STREAM_END = "audio_stream_end"
    TEXT = "text"  # realtimeInput.text
    CLIENT_CONTENT = "client_content"
    HISTORY = "history"  # client_content the service keeps as earlier turns only (S7)
    TOOL_RESPONSE = "tool_response"
    CONTEXT_UPDATE = "context_update"
    REFUSED = "refused"  # the simulator closed the connection because of the client
    IGNORED = "ignored"  # input the service would not act on (the data says why)
    HTTP = "http"  # a plain HTTPS request, such as the models list
    DISCONNECT = "disconnect"


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """One thing the simulator received or sent.

    Attributes:
        kind: A :class:`Received` value, or ``"sent.<key>"`` for outbound frames.
        connection_id: 1 for the first websocket connection, 2 for the next, ...
        session_id: The Live session (shared by resumed connections); empty before setup.
        monotonic_time: The simulator clock's time at arrival (``time.monotonic()`` unless
            the simulator runs on a virtual clock).
        data: For inbound events the message body (for audio: mime type and byte count,
            the bytes are in ``audio``); for ``sent.<key>`` events the whole frame as sent,
            ``{"<key>": {...}}``, with audio data replaced by its base64 length.
        audio: The raw PCM for ``audio`` events, else empty.
        picture: A ``video`` event's JPEG, kept only by a recorder without a limit (the
            tests'); a demo's bounded recorder never keeps a picture.
    """

    kind: str
    connection_id: int
    session_id: str
    monotonic_time: float
    data: Mapping[str, Any] = field(default_factory=dict)
    audio: bytes = b""
    picture: bytes = b""

    @property
    def byte_count(self) -> int:
        """Number of audio bytes carried (0 for non-audio events)."""
        return len(self.audio)


_Predicate = Callable[[RecordedEvent], bool]


@dataclass(frozen=True, slots=True)
class RecordLimit:
    """How much a long-running simulator's recorder keeps; the oldest events go first.

    Attributes:
        max_events: Events kept at most (of every kind).
        max_audio_bytes: Microphone audio kept at most, in bytes (16 kHz PCM16: 32,000 a
            second).
    """

    max_events: int
    max_audio_bytes: int

    def __post_init__(self) -> None:
        if self.max_events < 1 or self.max_audio_bytes < 0:
            raise ValueError("a record limit keeps at least one event and no negative audio")


@dataclass(slots=True)
class _Waiter:
    kind: str | None
    count: int
    predicate: _Predicate | None
    future: asyncio.Future[list[RecordedEvent]]


class Recorder:
    """Keeps every :class:`RecordedEvent` in arrival order; all methods run on the loop.

    Args:
        clock: Stamps ``monotonic_time`` (``time.monotonic`` by default; the simulator passes
            its clock, so a virtual clock's times are recorded).
        limit: Keep at most this much, dropping the oldest events; None keeps everything
            (tests).

    Attributes:
        dropped: How many events the limit has dropped so far.
    """

    def __init__(
        self, clock: Callable[[], float] | None = None, *, limit: RecordLimit | None = None
    ) -> None:
        self._events: deque[RecordedEvent] = deque()
        self._waiters: list[_Waiter] = []
        self._clock = clock or time.monotonic
        self._limit = limit
        self._audio_bytes = 0
        self.dropped = 0

    @property
    def limit(self) -> RecordLimit | None:
        """The bound on what is kept, or None when everything is."""
        return self._limit

    def record(
        self,
        kind: str,
        *,
        connection_id: int,
        session_id: str = "",
        data: Mapping[str, Any] | None = None,
        audio: bytes = b"",
        picture: bytes = b"",
    ) -> RecordedEvent:
        """Append one event and wake the waiters it satisfies."""
        event = RecordedEvent(
            kind=str(kind),
            connection_id=connection_id,
            session_id=session_id,
            monotonic_time=self._clock(),
            data=data or {},
            audio=audio,
            picture=picture if self._limit is None else b"",
        )
        self._events.append(event)
        self._audio_bytes += len(audio)
        self._drop_oldest()
        for waiter in list(self._waiters):
            if waiter.future.done():
                self._waiters.remove(waiter)
                continue
            matches = self.events(waiter.kind, waiter.predicate)
            if len(matches) >= waiter.count:
                waiter.future.set_result(matches[: waiter.count])
                self._waiters.remove(waiter)
        return event

    def _drop_oldest(self) -> None:
        limit = self._limit
        if limit is None:
            return
        while len(self._events) > limit.max_events or (
            self._audio_bytes > limit.max_audio_bytes and self._events
        ):
            oldest = self._events.popleft()
            self._audio_bytes -= len(oldest.audio)
            self.dropped += 1

    def events(
        self, kind: str | None = None, predicate: _Predicate | None = None
    ) -> list[RecordedEvent]:
        """Return the events of one kind (all when ``kind`` is None), optionally filtered."""
        return [
            event
            for event in self._events
            if (kind is None or event.kind == kind) and (predicate is None or predicate(event))
        ]

    def count(self, kind: str) -> int:
        """Return how many events of ``kind`` were recorded."""
        return len(self.events(kind))

    async def wait_for(
        self,
        kind: str | None,
        count: int = 1,
        timeout: float = 5.0,  # noqa: ASYNC109 - tests read best with the deadline inline
        predicate: _Predicate | None = None,
    ) -> list[RecordedEvent]:
        """Wait until ``count`` events of ``kind`` (matching ``predicate``) are recorded.

        Returns:
            The first ``count`` matching events.

        Raises:
            TimeoutError: When they do not arrive in time; the message says what was seen.
        """
        matches = self.events(kind, predicate)
        if len(matches) >= count:
            return matches[:count]
        future: asyncio.Future[list[RecordedEvent]] = asyncio.get_running_loop().create_future()
        waiter = _Waiter(kind=kind, count=count, predicate=predicate, future=future)
        self._waiters.append(waiter)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            seen = len(self.events(kind, predicate))
            kinds = [event.kind for event in list(self._events)[-20:]]
            raise TimeoutError(
                f"waited {timeout} s for {count} {kind!r} event(s), saw {seen}; "
                f"last events: {kinds}"
            ) from None
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def audio_bytes(self, connection_id: int | None = None) -> bytes:
        """Return all received microphone audio concatenated (optionally for one connection)."""
        return b"".join(
            event.audio
            for event in self.events(Received.AUDIO)
            if connection_id is None or event.connection_id == connection_id
        )

    def video_frames(self, connection_id: int | None = None) -> list[RecordedEvent]:
        """The video frames received (optionally on one connection), oldest first.

        Each one's ``data`` has ``byte_count``, ``mime_type``, ``jpeg`` (whether it is one),
        ``width`` and ``height`` (from the JPEG header; 0 when it is not a JPEG) and
        ``progressive``; ``monotonic_time`` is when it arrived (S6).
        """
        return [
            event
            for event in self.events(Received.VIDEO)
            if connection_id is None or event.connection_id == connection_id
        ]

    def video_rate(self, window_s: float | None = None, *, end: float | None = None) -> float:
        """Video frames per second: the frames' own rate, over the last ``window_s`` seconds.

        The frames that arrived in ``(end - window_s, end]`` (``end``: now by the recorder's
        clock; no window: every frame), as ``(n - 1) / (last - first)``: 1.0 for a frame a
        second, whatever the window. 0.0 with fewer than two frames (or all at one instant).
        """
        until = self._clock() if end is None else end
        times = [
            event.monotonic_time
            for event in self.video_frames()
            if event.monotonic_time <= until
            and (window_s is None or event.monotonic_time > until - window_s)
        ]
        if len(times) < 2 or times[-1] <= times[0]:
            return 0.0
        return (len(times) - 1) / (times[-1] - times[0])

    def sent(self, key: str | None = None) -> list[RecordedEvent]:
        """Return the frames the simulator sent, optionally only those with top-level ``key``."""
        if key is not None:
            return self.events(f"sent.{key}")
        return [event for event in self._events if event.kind.startswith("sent.")]

    def clear(self) -> None:
        """Forget everything recorded so far (waiters stay)."""
        self._events.clear()
        self._audio_bytes = 0
