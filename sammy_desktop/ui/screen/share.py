"""Sharing a screen or a window with the assistant: the controller the window drives.

:class:`ScreenShare` holds one sharing at a time. The window (its Share button, the chooser,
the tray, Ctrl+Shift+S) calls :meth:`~ScreenShare.start` with a :class:`~.sources.ShareSource`,
:meth:`~ScreenShare.stop` and :meth:`~ScreenShare.toggle`; the talk key's press and the
agent's state come from :meth:`~ScreenShare.on_talk_pressed` and
:meth:`~ScreenShare.on_state` (connected from the bridge when one is given). Each frame due
(:class:`~.policy.FramePolicy`: at a press, then at most one a second while talking and
answering, or all the time with the "always" setting) is grabbed on the Qt thread
(:mod:`.grab`), then compared, scaled and encoded on a worker thread (:mod:`.encode`); one
that looks like the last sent is dropped, and one due while the last is still encoding is
skipped, never queued. Frames go to ``controls.send_video``; they are never written to disk.

Sharing is off at every start of the app and stops when the conversation ends, when the
window shared closes, or when grabbing fails, each with a sentence (``stopped``). What a
platform cannot do (Wayland: frames only at a press, no portal; macOS: no permission) is a
``problem`` sentence, never an exception.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, Protocol

from PySide6.QtCore import QObject, QRect, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QImage

from sammy_desktop.core.events import AgentState, SessionEnded, StateChanged
from sammy_desktop.core.screen import VideoFrame, frame_tokens
from sammy_desktop.ui.screen.encode import Encoded, encode_frame
from sammy_desktop.ui.screen.grab import FrameUnavailable, Grabber, GrabFailed, QtGrabber
from sammy_desktop.ui.screen.policy import FramePolicy
from sammy_desktop.ui.screen.sources import ShareSource, list_sources

if TYPE_CHECKING:
    from sammy_desktop.ui.bridge import EventBridge
    from sammy_desktop.ui.controls import UiTasks
    from sammy_desktop.ui.settings_state import SettingsState

__all__ = [
    "NOT_RUNNING",
    "SESSION_ENDED",
    "FrameTimer",
    "QtFrameTimer",
    "ScreenShare",
    "ShareControls",
    "default_grabber",
]

_log = logging.getLogger(__name__)

SESSION_ENDED: Final = "Screen sharing stopped: the conversation ended."
NOT_RUNNING: Final = "Start a conversation first, then share your screen."
_ACTIVE_STATES: Final = frozenset(
    {AgentState.USER_SPEAKING, AgentState.THINKING, AgentState.ASSISTANT_SPEAKING}
)
_ENDING_STATES: Final = frozenset({AgentState.ENDED, AgentState.DISCONNECTED, AgentState.ERROR})

Encoder = Callable[[QImage, int, bytes | None], Encoded | None]


class ShareControls(Protocol):
    """What sharing needs of the agent (``AgentCore`` and ``AgentControls`` have it)."""

    @property
    def state(self) -> AgentState:
        """The agent's current state."""
        ...

    def send_video(self, frame: VideoFrame) -> bool:
        """Queue a frame for the service; False when it was dropped."""
        ...

    def set_screen_sharing(self, active: bool, source: str = "") -> None:
        """Sharing started (``source`` names it) or stopped."""
        ...


class FrameTimer(Protocol):
    """A single-shot timer: the next frame's moment (tests pass one they fire themselves)."""

    def start(self, delay_s: float) -> None:
        """Call back once, ``delay_s`` from now (replaces a pending start)."""
        ...

    def stop(self) -> None:
        """Call back no more."""
        ...


class QtFrameTimer:
    """:class:`FrameTimer` on a single-shot QTimer."""

    def __init__(self, callback: Callable[[], None], parent: QObject) -> None:
        self._timer = QTimer(parent)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(callback)

    def start(self, delay_s: float) -> None:
        """Fire in ``delay_s`` seconds (rounded up to the millisecond)."""
        self._timer.start(max(0, int(delay_s * 1000 + 0.999)))

    def stop(self) -> None:
        """Cancel the pending fire."""
        self._timer.stop()


def default_grabber(own_windows: Callable[[], Sequence[QRect]] = tuple) -> Grabber:
    """The platform's grabber: the desktop portal on Wayland, Qt's grab elsewhere.

    ``own_windows``: the areas of Sammy's own windows, blanked out of a screen's picture.
    """
    from sammy_desktop.ui.portal_shortcuts import wayland_session

    if QGuiApplication.platformName() == "wayland" or wayland_session(os.environ, sys.platform):
        from sammy_desktop.ui.screen.wayland import PortalGrabber

        return PortalGrabber()
    return QtGrabber(own_windows)


class ScreenShare(QObject):
    """One screen or window shared with the assistant, while the person wants it.

    Args:
        controls: the agent (``send_video``, ``set_screen_sharing``, ``state``).
        settings_state: the settings (the send policy, the image size, the resolution).
        tasks: runs each frame's grab and encoding.
        grabber: takes the frames (default: the platform's, :func:`default_grabber`).
        clock: seconds, monotonic (tests pass a fake one).
        timer: builds the frame timer from a callback (default: a QTimer's).
        encoder: scales, compares and encodes on the worker (default: :func:`encode_frame`).
        bridge: where the agent's state and the session's end come from (optional: the
            window may call :meth:`on_state` and :meth:`stop` itself).
        capture_allowed: whether the OS lets Sammy record the screen, with the sentence
            when not (default: macOS's Screen Recording permission; elsewhere allowed).
        parent: the Qt parent.
    """

    sharing_changed = Signal(bool)
    """Sharing started (True) or stopped (False)."""
    frame_sent = Signal(QImage, int, int)
    """A frame went to the service: a small copy of it, and its width and height."""
    stopped = Signal(str)
    """Sharing stopped: "" when the person stopped it, else the sentence saying why."""
    problem = Signal(str)
    """Something the platform cannot do, as a sentence for the person."""

    def __init__(
        self,
        controls: ShareControls,
        settings_state: SettingsState,
        tasks: UiTasks,
        *,
        grabber: Grabber | None = None,
        clock: Callable[[], float] = time.monotonic,
        timer: Callable[[Callable[[], None]], FrameTimer] | None = None,
        encoder: Encoder = encode_frame,
        bridge: EventBridge | None = None,
        capture_allowed: Callable[[], str] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._controls = controls
        self._settings_state = settings_state
        self._tasks = tasks
        self._grabber = grabber
        self._clock = clock
        self._timer: FrameTimer = (
            timer(self._on_timer) if timer is not None else QtFrameTimer(self._on_timer, self)
        )
        self._encoder = encoder
        self._capture_allowed = capture_allowed
        self._source: ShareSource | None = None
        self._last_source: ShareSource | None = None
        self._policy: FramePolicy | None = None
        self._generation = 0
        self._busy = False
        self._last_thumb: bytes | None = None
        self._started_at = 0.0
        self._frames_sent = 0
        self._frames_skipped = 0
        self._frames_unchanged = 0
        if bridge is not None:
            bridge.state_changed.connect(self._on_state_changed)
            bridge.session_ended.connect(self._on_session_ended)

    # ------------------------------------------------------------------ what the window reads

    @property
    def sharing(self) -> bool:
        """Whether a screen or window is being shared now."""
        return self._source is not None

    @property
    def source(self) -> ShareSource | None:
        """What is shared now (None when nothing is)."""
        return self._source

    @property
    def frames_sent(self) -> int:
        """Frames sent since this sharing started."""
        return self._frames_sent

    @property
    def frames_skipped(self) -> int:
        """Frames not taken because the last one was still being encoded."""
        return self._frames_skipped

    @property
    def frames_unchanged(self) -> int:
        """Frames taken but not sent because nothing had changed."""
        return self._frames_unchanged

    @property
    def tokens_per_minute(self) -> float:
        """An estimate of what sharing costs: frames sent x tokens per frame, per minute.

        Over the first minute, the tokens so far (a rate over seconds would overstate it).
        """
        if self._source is None:
            return 0.0
        minutes = max((self._clock() - self._started_at) / 60.0, 1.0)
        per_frame = frame_tokens(self._settings_state.settings.media_resolution)
        return self._frames_sent * per_frame / minutes

    # ------------------------------------------------------------------ what the window does

    def start(self, source: ShareSource) -> bool:
        """Share ``source`` (replacing what is shared); False, with a ``problem``, if not."""
        if self._source == source:
            return True
        if not self._controls.state.is_running:
            self.problem.emit(NOT_RUNNING)
            return False
        refusal = self._refusal()
        if refusal:
            self.problem.emit(refusal)
            return False
        if self._source is not None:
            self._end(notify=False)
        grabber = self._ensure_grabber()
        settings = self._settings_state.settings
        self._policy = FramePolicy(settings.screen_send_policy, continuous=grabber.continuous)
        self._policy.set_active(self._controls.state in _ACTIVE_STATES)
        self._source = self._last_source = source
        self._generation += 1
        self._last_thumb = None
        self._started_at = self._clock()
        self._frames_sent = self._frames_skipped = self._frames_unchanged = 0
        _log.info("screen sharing started: %s %s", source.kind, source.id)
        self._controls.set_screen_sharing(True, source.title)
        self.sharing_changed.emit(True)
        note = getattr(grabber, "limitation", "")
        if note:
            self.problem.emit(str(note))
        self._schedule()
        return True

    def stop(self, reason: str = "") -> None:
        """Stop sharing; ``reason`` is the sentence ``stopped`` carries ("": the person)."""
        if self._source is None:
            return
        self._end(notify=True, reason=reason)

    def toggle(self) -> bool:
        """Stop sharing, or share the last source shared (else the first screen).

        Returns whether sharing is on afterwards.
        """
        if self._source is not None:
            self.stop()
            return False
        source = self._last_source
        if source is None:
            sources = list_sources()
            if not sources:
                self.problem.emit("There is no screen to share.")
                return False
            source = sources[0]
        return self.start(source)

    def on_talk_pressed(self) -> None:
        """The talk key went down: a frame now (or as soon as a second has passed)."""
        if self._policy is None:
            return
        self._policy.press()
        self._schedule()

    def on_activity(self, talking_or_answering: bool) -> None:
        """The person is talking or Sammy is answering (True), or neither (False)."""
        if self._policy is None:
            return
        self._policy.set_active(talking_or_answering)
        self._schedule()

    def on_state(self, old: AgentState, new: AgentState) -> None:
        """The agent moved from ``old`` to ``new``: talking, answering, or ending."""
        if self._source is None:
            return
        if new in _ENDING_STATES:
            self.stop(SESSION_ENDED)
            return
        if new is AgentState.USER_SPEAKING and old is not AgentState.USER_SPEAKING:
            self.on_talk_pressed()
        self.on_activity(new in _ACTIVE_STATES)

    def close(self) -> None:
        """Stop sharing (silently) and release the grabber; at quit."""
        if self._source is not None:
            self._end(notify=False)
        if self._grabber is not None:
            self._grabber.close()

    # ------------------------------------------------------------------ the frames

    def _refusal(self) -> str:
        if self._capture_allowed is not None:
            return self._capture_allowed()
        if sys.platform == "darwin":
            from sammy_desktop.ui.screen.macos import capture_refusal

            return capture_refusal()
        return ""

    def _ensure_grabber(self) -> Grabber:
        if self._grabber is None:
            self._grabber = default_grabber()
        return self._grabber

    def _end(self, *, notify: bool, reason: str = "") -> None:
        source, self._source = self._source, None
        self._policy = None
        self._generation += 1
        self._last_thumb = None
        self._timer.stop()
        _log.info(
            "screen sharing stopped (%s): %d frames sent, %d unchanged, %d skipped",
            reason or "by the person",
            self._frames_sent,
            self._frames_unchanged,
            self._frames_skipped,
        )
        self._controls.set_screen_sharing(False, "")
        if source is not None and notify:
            self.sharing_changed.emit(False)
            self.stopped.emit(reason)
        elif source is not None:
            self.sharing_changed.emit(False)

    def _schedule(self) -> None:
        if self._policy is None:
            return
        now = self._clock()
        due = self._policy.next_due(now)
        if due is None:
            self._timer.stop()
        else:
            self._timer.start(due - now)

    def _on_timer(self) -> None:
        policy, source = self._policy, self._source
        if policy is None or source is None:
            return
        now = self._clock()
        if not policy.is_due(now):
            self._schedule()
            return
        policy.taken(now)
        if self._busy:
            self._frames_skipped += 1
            _log.debug("screen frame skipped: the last one is still being encoded")
        else:
            self._busy = True
            task = self._tasks.run(self._frame(source, self._generation), "ui-screen-frame")
            if task is None:
                self._busy = False
        self._schedule()

    async def _frame(self, source: ShareSource, generation: int) -> None:
        try:
            encoded = await self._take(source, generation)
        finally:
            self._busy = False
        if encoded is None or generation != self._generation:
            return
        frame = VideoFrame(jpeg=encoded.jpeg, width=encoded.width, height=encoded.height)
        if not self._controls.send_video(frame):
            _log.debug("screen frame dropped by the agent (not connected)")
            return
        self._last_thumb = encoded.thumbnail
        self._frames_sent += 1
        self.frame_sent.emit(encoded.preview, encoded.width, encoded.height)

    async def _take(self, source: ShareSource, generation: int) -> Encoded | None:
        grabber = self._ensure_grabber()
        try:
            image = await grabber.grab(source)
        except GrabFailed as exc:
            if generation == self._generation:
                _log.info("screen sharing cannot go on: %s", exc)
                self.stop(f"Screen sharing stopped: {exc}")
            return None
        except FrameUnavailable as exc:
            _log.debug("no screen frame this time: %s", exc)
            return None
        if generation != self._generation:
            return None
        long_edge = self._settings_state.settings.screen_image_size.pixels
        try:
            encoded = await asyncio.to_thread(self._encoder, image, long_edge, self._last_thumb)
        except ValueError as exc:
            _log.warning("a screen frame could not be encoded: %s", exc)
            return None
        if encoded is None:
            self._frames_unchanged += 1
            _log.debug("screen frame unchanged: not sent")
        return encoded

    def _on_state_changed(self, event: StateChanged) -> None:
        self.on_state(event.old, event.new)

    def _on_session_ended(self, _event: SessionEnded) -> None:
        self.stop(SESSION_ENDED)
