"""Sharing the screen with the model: the frames, their budget, what they cost, the tally.

The window grabs the screen and encodes each picture as JPEG on its side; the core gets a
finished :class:`VideoFrame` through :meth:`AgentCore.send_video
<sammy_desktop.core.agent.AgentCore.send_video>` and sends it as
``realtimeInput.video`` (``image/jpeg``) through the same outbox as the microphone's audio
(docs/live-service.md S6). A frame is a picture of now: it is never kept for a later
connection, never re-sent after a reconnect, and never written anywhere. What the history
keeps of a sharing is one line, :class:`~sammy_desktop.core.events.ScreenShared` ("screen
shared: N frames, W x H"), which :class:`ScreenSharing` tallies from the frames that went out.

:func:`frame_tokens` is the estimate of what one frame costs at each ``media_resolution``,
for the window's tokens-per-minute where the service's usage gives no IMAGE or VIDEO
breakdown (S6).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from sammy_desktop.config import MediaResolution
from sammy_desktop.core.events import ScreenShared, ScreenSharingChanged
from sammy_desktop.core.live import VIDEO_MIME
from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import types
from sammy_desktop.tools.runner import DEFAULT_FRAME_BUDGET_BYTES

__all__ = [
    "FRAME_MIME",
    "MAX_FRAME_JPEG_BYTES",
    "ScreenSharing",
    "VideoFrame",
    "frame_tokens",
    "live_media_resolution",
]

_log = logging.getLogger(__name__)

FRAME_MIME: Final = VIDEO_MIME
"""The MIME type of every frame on the wire (S6)."""

_ENVELOPE_BYTES: Final = 128
"""``{"realtimeInput": {"video": {"data": "...", "mimeType": "image/jpeg"}}}`` around it."""

MAX_FRAME_JPEG_BYTES: Final = (DEFAULT_FRAME_BUDGET_BYTES - _ENVELOPE_BYTES) * 3 // 4
"""The largest JPEG sent: base64 makes it 4/3 larger, and the message must stay within the
frame budget the tool answers keep (900,000 bytes of JSON, under the 1 MiB a websockets
peer takes by default; docs/live-service.md L1). About 675 KB: a 1536 px screenshot at the
window's quality is a tenth of that."""

_FRAME_TOKENS: Final = {
    MediaResolution.LOW: 66,
    MediaResolution.MEDIUM: 258,
    MediaResolution.HIGH: 258,
}


def frame_tokens(resolution: MediaResolution) -> int:
    """The input tokens one frame is estimated to cost at ``resolution``.

    Google's figures (docs/live-service.md S6): 258 tokens a picture at the default
    resolution and 66 at LOW (the SDK's enum: "low (64 tokens)", "medium (256 tokens)",
    "high (zoomed reframing with 256 tokens)", plus the two of the picture's framing). HIGH
    spends its tokens on a zoomed crop, not on more of them. An estimate: where the
    service's usage breaks the prompt down by modality (IMAGE or VIDEO), that is the count.
    """
    return _FRAME_TOKENS[resolution]


def live_media_resolution(resolution: MediaResolution) -> types.MediaResolution:
    """The setting as the Live setup's ``generationConfig.mediaResolution`` enum.

    ``MEDIA_RESOLUTION_LOW``, ``_MEDIUM``, ``_HIGH`` (``types.MediaResolution``, S6).
    """
    return types.MediaResolution(f"MEDIA_RESOLUTION_{resolution.name}")


@dataclass(frozen=True, slots=True)
class VideoFrame:
    """One picture of the shared screen, already encoded by the window.

    Attributes:
        jpeg: the JPEG file's bytes (baseline or progressive).
        width: its width in pixels.
        height: its height in pixels.
    """

    jpeg: bytes
    width: int
    height: int

    def __repr__(self) -> str:  # never the bytes: a frame may end up in a log line
        return f"VideoFrame({len(self.jpeg)} bytes, {self.width}x{self.height})"


class ScreenSharing:
    """Whether the screen is shared, and what was sent of it since the sharing began.

    The window says when sharing starts and stops (:meth:`set`); each frame that went to
    the service is counted (:meth:`frame_sent`). When a sharing ends, or the session ends
    while one goes on, :class:`ScreenShared` tells the history how much was shared; a
    sharing that goes on into the next session is counted afresh there.

    Args:
        bus: where ``ScreenSharingChanged`` and ``ScreenShared`` go.
        clock: monotonic seconds.
        session_open: whether a session (its history file) is open now.
    """

    def __init__(
        self, bus: EventBus, clock: Callable[[], float], session_open: Callable[[], bool]
    ) -> None:
        self._bus = bus
        self._clock = clock
        self._session_open = session_open
        self._active = False
        self._source = ""
        self._began_at = 0.0
        self._frames = 0
        self._width = 0
        self._height = 0

    @property
    def active(self) -> bool:
        """Whether the window shares the screen now."""
        return self._active

    @property
    def frames(self) -> int:
        """Frames sent since the sharing began (or since this session began)."""
        return self._frames

    def set(self, active: bool, source: str) -> None:
        """The window started (``active``) or stopped sharing ``source``."""
        if active:
            if self._active and source == self._source:
                return
            if self._active:
                self._report()  # another screen or window: a sharing of its own
            self._active, self._source = True, source
            self._restart()
            _log.info("screen sharing started: %s", source or "(unnamed)")
            self._bus.emit(ScreenSharingChanged(active=True, source=source))
            return
        if not self._active:
            return
        self._report()
        self._active = False
        _log.info("screen sharing stopped after %d frames", self._frames)
        self._bus.emit(ScreenSharingChanged(active=False, source=self._source))

    def frame_sent(self, frame: VideoFrame) -> None:
        """``frame`` went to the service's queue."""
        self._frames += 1
        self._width, self._height = frame.width, frame.height

    def session_started(self) -> None:
        """A new session: a sharing that goes on is counted from now."""
        self._restart()

    def session_ending(self) -> None:
        """The session ends (its history still open): report a sharing that goes on."""
        if self._active:
            self._report()
            self._restart()

    def _restart(self) -> None:
        self._began_at = self._clock()
        self._frames = 0
        self._width = self._height = 0

    def _report(self) -> None:
        if not self._session_open() and self._frames == 0:
            return
        self._bus.emit(
            ScreenShared(
                frames=self._frames,
                width=self._width,
                height=self._height,
                seconds=max(0.0, self._clock() - self._began_at),
                source=self._source,
            )
        )
