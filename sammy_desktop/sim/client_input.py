"""The first look at each client message: what the recorder keeps, and what the service ignores.

:func:`record_of` is what the :class:`~sammy_desktop.sim.recorder.Recorder` keeps of a
message (audio as its size, with the bytes beside it). :func:`ignored_input` says which
activity signals and text the profile takes without acting on them, depending on the
setup's automatic activity detection (docs/live-service.md S2, S3); the connection records
them as ``Received.IGNORED`` with that reason and goes no further.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sammy_desktop.sim.jpeg import jpeg_size
from sammy_desktop.sim.recorder import Received
from sammy_desktop.sim.wire import (
    ActivityEnd,
    ActivityStart,
    AudioStreamEnd,
    ClientContent,
    RealtimeAudio,
    RealtimeText,
    RealtimeVideo,
    ToolResponse,
)

if TYPE_CHECKING:
    from sammy_desktop.sim.profiles import ServiceProfile
    from sammy_desktop.sim.wire import ClientMessage

__all__ = ["REALTIME_INPUT", "ignored_input", "record_of"]

REALTIME_INPUT = (
    RealtimeAudio | RealtimeVideo | ActivityStart | ActivityEnd | AudioStreamEnd | RealtimeText
)
"""The messages of ``realtimeInput``, which a pending blocking call may stand in the way of."""


def record_of(message: ClientMessage) -> tuple[Received, Mapping[str, Any] | None, bytes]:
    """The recorder's kind, data and raw bytes (the audio's PCM, the video's JPEG)."""
    if isinstance(message, RealtimeAudio):
        data = {"mime_type": message.mime_type, "byte_count": len(message.pcm)}
        return Received.AUDIO, data, message.pcm
    if isinstance(message, RealtimeVideo):
        # S6: the frame's size and the picture's dimensions from its JPEG header; the
        # picture itself only for a recorder without a limit (a demo runs for hours).
        size = jpeg_size(message.data)
        return (
            Received.VIDEO,
            {
                "mime_type": message.mime_type,
                "byte_count": len(message.data),
                "jpeg": size is not None,
                "width": size.width if size is not None else 0,
                "height": size.height if size is not None else 0,
                "progressive": size is not None and size.progressive,
            },
            message.data,
        )
    if isinstance(message, ActivityStart):
        return Received.ACTIVITY_START, None, b""
    if isinstance(message, ActivityEnd):
        return Received.ACTIVITY_END, None, b""
    if isinstance(message, AudioStreamEnd):
        return Received.AUDIO_STREAM_END, None, b""
    if isinstance(message, RealtimeText):
        return Received.TEXT, {"text": message.text}, b""
    if isinstance(message, ClientContent):
        data = {
            "turns": list(message.turns),
            "turn_complete": message.turn_complete,
            "text": message.text,
        }
        return Received.CLIENT_CONTENT, data, b""
    if isinstance(message, ToolResponse):
        responses = [
            {
                "id": r.id,
                "name": r.name,
                "response": dict(r.response),
                "scheduling": r.scheduling,
                "will_continue": r.will_continue,
            }
            for r in message.responses
        ]
        return Received.TOOL_RESPONSE, {"function_responses": responses}, b""
    return Received.CONTEXT_UPDATE, dict(message.raw), b""


def ignored_input(
    message: ClientMessage, profile: ServiceProfile, *, automatic_activity_detection: bool
) -> tuple[str, str] | None:
    """What the service ignores of ``message``, and why (None: it acts on the message)."""
    aad = automatic_activity_detection
    if isinstance(message, ActivityStart | ActivityEnd):
        if profile.activity_signals_need_aad_off and aad:
            # S3: activity signals are for clients that turned detection off.
            what = "activity_start" if isinstance(message, ActivityStart) else "activity_end"
            return what, "automatic activity detection is on"
    elif isinstance(message, AudioStreamEnd):
        if profile.activity_signals_need_aad_off and not aad:
            # S3: audioStreamEnd is for clients whose detection is on.
            return "audio_stream_end", "automatic activity detection is off"
    elif isinstance(message, RealtimeText) and profile.realtime_text_needs_aad and not aad:
        # S2: "If disabled, the client must send activity signals."
        return "text", "automatic activity detection is off"
    return None
