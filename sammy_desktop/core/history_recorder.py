"""The conversation's history, written from the event bus: every fact recorded once.

:class:`HistoryRecorder` subscribes to the events the core and the tools emit and turns
each one into a record of the session's JSON-lines file
(:class:`~sammy_desktop.core.history.ConversationHistory`): the final transcript lines,
tool calls and their answers, reconnections, missing answers, turn statistics, errors. A
tool pack's own facts arrive as :class:`~sammy_desktop.tools.events.HistoryEvent`, which say
how they are recorded; the core knows no pack. Nothing is recorded while no session is
open. The session's opening and closing are the recorder's too, so the file starts and ends
with them.

A shared screen is recorded as one ``screen_shared`` record per sharing ("screen shared:
3 frames, 1024 x 640"), never its pictures.

A tool's arguments and answers are recorded as its definition allows
(:meth:`~sammy_desktop.tools.definition.ToolDefinition.recorded_output`): readClipboard's
answer is kept as the text's length, never the text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sammy_desktop.core.events import (
    END_SESSION_DEFAULT_REASON,
    AnnouncementsDelivered,
    AnswerInterrupted,
    CodeExecuted,
    ConnectionLost,
    ErrorRaised,
    GoAwayReceived,
    GroundingSourcesFound,
    NoResponse,
    Reconnected,
    ResumptionRefused,
    ScreenShared,
    SessionStarted,
    SettingsApplied,
    TalkModeChanged,
    ToolAnswersDropped,
    ToolAnswersSent,
    ToolCallsAbandoned,
    ToolCallsCancelled,
    ToolCallsReceived,
    ToolsChanged,
    TranscriptUpdated,
    TurnStats,
)
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.eventbus import Event, EventBus
from sammy_desktop.tools.events import EndSessionRequested, HistoryEvent

if TYPE_CHECKING:
    from collections.abc import Mapping

    from sammy_desktop.tools.definition import ToolDefinition

__all__ = ["HistoryRecorder"]


class HistoryRecorder:
    """Records the session's events into its history file.

    Args:
        bus: where the events come from.
        history: the file writer (and the in-memory transcript the tools read).
        tools: looks a tool up by name (``ToolManager.get``, raising LookupError for an
            unknown one), for what the history may keep of its calls; without it
            everything is kept as sent.
    """

    def __init__(
        self,
        bus: EventBus,
        history: ConversationHistory,
        *,
        tools: Callable[[str], ToolDefinition[Any, Any]] | None = None,
    ) -> None:
        self._history = history
        self._tools = tools
        self._handlers: dict[type[Event], Callable[[Any], None]] = {
            SessionStarted: self._session_started,
            TranscriptUpdated: self._transcript,
            ToolCallsReceived: self._tool_calls,
            ToolAnswersSent: self._tool_answers,
            ToolAnswersDropped: self._tool_answers_dropped,
            ToolCallsCancelled: self._ids_record("tool_calls_cancelled"),
            ToolCallsAbandoned: self._ids_record("tool_calls_abandoned"),
            GoAwayReceived: self._go_away,
            NoResponse: self._no_response,
            AnnouncementsDelivered: self._announcements,
            EndSessionRequested: self._end_session_requested,
            ErrorRaised: self._error,
            TalkModeChanged: self._talk_mode_changed,
            ToolsChanged: self._tools_changed,
            SettingsApplied: self._settings_applied,
            ConnectionLost: self._code_and_reason("connection_lost"),
            ResumptionRefused: self._code_and_reason("resumption_refused"),
            Reconnected: self._reconnected,
            AnswerInterrupted: self._interrupted,
            GroundingSourcesFound: self._grounding,
            TurnStats: self._turn_stats,
            CodeExecuted: self._code_executed,
            ScreenShared: self._screen_shared,
        }
        bus.subscribe(Event, self._on_event)

    @property
    def history(self) -> ConversationHistory:
        """The file writer."""
        return self._history

    async def open(self, session_id: str) -> Path:
        """Start the session's file; returns its path (for ``SessionStarted``)."""
        return await self._history.open(session_id)

    async def close(self, reason: str | None) -> None:
        """Record the session's end (when ``reason`` is given) and close the file."""
        if reason is not None:
            self._history.record("session_ended", reason=reason)
        await self._history.close()

    def _on_event(self, event: Event) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            handler(event)
        elif isinstance(event, HistoryEvent):
            kind, fields = event.history_record()
            self._history.record(kind, **fields)

    # ------------------------------------------------------------------ one per event

    def _session_started(self, event: SessionStarted) -> None:
        self._history.record(
            "session_started",
            session_id=event.session_id,
            model=event.model,
            talk_mode=event.talk_mode,
            voice=event.voice,
            language=event.language,
            **({"continues": event.continues} if event.continues else {}),
        )

    def _transcript(self, event: TranscriptUpdated) -> None:
        if not event.final:
            self._history.note_partial(event.speaker, event.text.strip(), event.turn_id)
            return
        extra = {"interrupted": True} if event.interrupted else {}
        self._history.add_line(event.speaker, event.text, event.turn_id, **extra)

    def _tool_calls(self, event: ToolCallsReceived) -> None:
        for call_id, name, arguments in event.calls:
            definition = self._definition(name)
            args = (
                dict(arguments) if definition is None else definition.recorded_arguments(arguments)
            )
            self._history.record(
                "tool_call", turn_id=event.turn_id, id=call_id, name=name, args=args
            )
            self._history.add_tool_line(f"{name} called")

    def _tool_answers(self, event: ToolAnswersSent) -> None:
        for answer in event.answers:
            definition = self._definition(answer.name)
            self._history.record(
                "tool_result",
                id=answer.call_id,
                name=answer.name,
                response=self._recorded_output(definition, answer.response),
                will_continue=answer.will_continue,
            )

    def _definition(self, name: str) -> ToolDefinition[Any, Any] | None:
        if self._tools is None:
            return None
        try:
            return self._tools(name)
        except LookupError:
            return None  # an unknown tool: its answer is the runner's refusal

    @staticmethod
    def _recorded_output(
        definition: ToolDefinition[Any, Any] | None, response: Mapping[str, Any]
    ) -> dict[str, Any]:
        return dict(response) if definition is None else definition.recorded_output(response)

    def _tool_answers_dropped(self, event: ToolAnswersDropped) -> None:
        self._history.record("tool_result_dropped", ids=list(event.ids), reason=event.reason)

    def _ids_record(self, kind: str) -> Callable[[ToolCallsCancelled | ToolCallsAbandoned], None]:
        def record(event: ToolCallsCancelled | ToolCallsAbandoned) -> None:
            self._history.record(kind, ids=list(event.ids))

        return record

    def _code_and_reason(self, kind: str) -> Callable[[ConnectionLost | ResumptionRefused], None]:
        def record(event: ConnectionLost | ResumptionRefused) -> None:
            self._history.record(kind, code=event.code, reason=event.reason)

        return record

    def _screen_shared(self, event: ScreenShared) -> None:
        # How much was shared, never a picture (frames are never written anywhere).
        frames = f"{event.frames} frame{'' if event.frames == 1 else 's'}"
        size = f", {event.width} x {event.height}" if event.frames else ""
        self._history.record(
            "screen_shared",
            text=f"screen shared: {frames}{size}",
            frames=event.frames,
            width=event.width,
            height=event.height,
            seconds=round(event.seconds, 1),
            source=event.source,
        )
        self._history.add_tool_line(f"screen shared: {frames}{size}")

    def _go_away(self, event: GoAwayReceived) -> None:
        self._history.record("go_away", time_left_s=event.time_left_s)

    def _no_response(self, event: NoResponse) -> None:
        if event.gave_up:
            self._history.record("no_response", turn_id=event.turn_id, gave_up=True)
        else:
            self._history.record("no_response", turn_id=event.turn_id, nudged=True)

    def _announcements(self, event: AnnouncementsDelivered) -> None:
        self._history.record("announcement", texts=list(event.texts), sources=list(event.sources))

    def _end_session_requested(self, event: EndSessionRequested) -> None:
        self._history.record(
            "end_session_requested", reason=event.reason or END_SESSION_DEFAULT_REASON
        )

    def _error(self, event: ErrorRaised) -> None:
        self._history.record("error", kind=str(event.kind), message=event.message)

    def _talk_mode_changed(self, event: TalkModeChanged) -> None:
        self._history.record("talk_mode_changed", talk_mode=event.talk_mode)

    def _tools_changed(self, event: ToolsChanged) -> None:
        if event.tool is not None:
            self._history.record(
                "tools_changed",
                tool=event.tool,
                enabled=event.tool_enabled,
                applied_live=event.applied_live,
            )

    def _settings_applied(self, event: SettingsApplied) -> None:
        self._history.record(
            "settings_changed", fields=list(event.fields), applied_live=event.applied_live
        )

    def _reconnected(self, event: Reconnected) -> None:
        self._history.record(
            "reconnected",
            resumed=event.resumed,
            planned=event.planned,
            replayed_messages=event.replayed_messages,
            dropped_audio_bytes=event.dropped_audio_bytes,
        )

    def _interrupted(self, event: AnswerInterrupted) -> None:
        self._history.record("interrupted", turn_id=event.turn_id)

    def _grounding(self, event: GroundingSourcesFound) -> None:
        self._history.record(
            "grounding_sources",
            turn_id=event.turn_id,
            sources=[{"title": s.title, "uri": s.uri, "domain": s.domain} for s in event.sources],
            queries=list(event.queries),
        )

    def _turn_stats(self, event: TurnStats) -> None:
        self._history.record(
            "turn_stats",
            turn_id=event.turn_id,
            first_audio_ms=event.first_audio_ms,
            tool_ms=event.tool_ms,
            tool_calls=event.tool_calls,
            reconnects=event.reconnects,
            total_tokens=event.total_tokens,
            prompt_tokens=event.prompt_tokens,
            response_tokens=event.response_tokens,
            prompt_by_modality=dict(event.prompt_by_modality),
            response_by_modality=dict(event.response_by_modality),
        )

    def _code_executed(self, event: CodeExecuted) -> None:
        self._history.record(
            "code_execution",
            turn_id=event.turn_id,
            code=event.code,
            language=event.language,
            outcome=event.outcome,
            output=event.output,
        )
