"""When the microphone's stream is open: only while the person talks, unless they chose more.

An open capture stream keeps the operating system's microphone indicator lit, stops laptops
from sleeping and switches a Bluetooth headset into its low-quality call profile, for as long
as it is open (USERS.md 16, 17). So in push-to-talk the stream opens on the talk press and
closes again once the turn has been handed over (its last block and activityEnd queued in
order), unless the person chose otherwise in Settings > Talking (``mic_between_turns``):

* *close at once* (the default): opened on the press, closed after the turn;
* *keep ready*: closed :data:`~sammy_desktop.config.settings.KEEP_READY_S` after a turn (a
  press meanwhile starts at once, with the pre-roll);
* *always ready*: open from start to quit (an instant start, with the pre-roll; between turns
  the capture rests in standby, see :mod:`sammy_desktop.audio.capture`).

Hands-free keeps it open by design, as before.

A press that finds the stream closed opens it off the loop (:class:`MicrophoneOpening`) and
starts the turn only when the first real block arrives (:class:`MicrophoneListening`): the
turn's activityStart goes first, then every block captured from then on, so nothing the
person says after the first captured block is lost. A stream opened afresh has no pre-roll:
the pre-roll applies only where the microphone was kept ready. A device that cannot be
opened is no turn at all: :class:`MicrophoneUnavailable` with the reason; so is a stream
kept open that is down (failed, being reopened), which would hear nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from sammy_desktop.audio.events import (
    MicrophoneListening,
    MicrophoneOpening,
    MicrophoneUnavailable,
)
from sammy_desktop.config.settings import KEEP_READY_S, MicBetweenTurns
from sammy_desktop.scheduling import Cancellable, LoopScheduler, Scheduler

if TYPE_CHECKING:
    from sammy_desktop.audio.capture import AudioCapture
    from sammy_desktop.eventbus import EventBus

__all__ = ["MicrophonePolicy", "StartTurn"]

_log = logging.getLogger(__name__)

StartTurn = Callable[[bytes], bool]
"""Starts the person's turn with the pre-roll (maybe empty); False when it was not taken."""


class MicrophonePolicy:
    """Opens and closes the capture stream around the person's turns.

    Args:
        capture: the microphone.
        bus: where the microphone's cue events go.
        mode: what the microphone does between push-to-talk turns.
        hands_free: whether the talk mode is hands-free (the stream always open).
        keep_ready_s: how long *keep ready* keeps it open after a turn.
        scheduler: the clock and timers of *keep ready* (the running loop's by default).
    """

    def __init__(
        self,
        capture: AudioCapture,
        bus: EventBus,
        *,
        mode: MicBetweenTurns = MicBetweenTurns.CLOSE,
        hands_free: bool = False,
        keep_ready_s: float = KEEP_READY_S,
        scheduler: Scheduler | None = None,
    ) -> None:
        self._capture = capture
        self._bus = bus
        self._mode = mode
        self._hands_free = hands_free
        self._keep_ready_s = keep_ready_s
        self._scheduler: Scheduler = scheduler if scheduler is not None else LoopScheduler()
        self._started = False
        # A press waiting for the stream's first block, and whether a turn is in progress.
        self._waiting: StartTurn | None = None
        self._talking = False
        self._close_timer: Cancellable | None = None
        self._close_deadline = 0.0
        # One change of the stream at a time: an open waits for a close under way.
        self._change: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # -- reading ----------------------------------------------------------------------

    @property
    def mode(self) -> MicBetweenTurns:
        """What the microphone does between push-to-talk turns."""
        return self._mode

    @property
    def is_open(self) -> bool:
        """Whether a capture stream is open (or being reopened after a failure)."""
        return self._capture.is_open

    @property
    def kept_open(self) -> bool:
        """Whether the stream stays open between turns now (hands-free, always ready)."""
        return self._hands_free or self._mode is MicBetweenTurns.ALWAYS_READY

    @property
    def idle(self) -> bool:
        """Whether no open or close of the stream is under way."""
        return not self._tasks

    @property
    def closes_at(self) -> float | None:
        """When *keep ready* will close the stream, on the scheduler's clock; None if not."""
        return self._close_deadline if self._close_timer is not None else None

    # -- the engine's life ------------------------------------------------------------

    async def start(self) -> None:
        """The engine starts: open the stream now if it stays open (hands-free, always ready)."""
        self._started = True
        if self.kept_open:
            await self._capture.start()

    async def stop(self) -> None:
        """The engine stops: close the stream, forget any press and timer."""
        self._started = False
        self._waiting = None
        self._talking = False
        self._cancel_close_timer()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._capture.stop()

    # -- the person -------------------------------------------------------------------

    def begin_talk(self, start_turn: StartTurn) -> bool:
        """Talk pressed: start the turn now if the stream hears, or open it and start then.

        Args:
            start_turn: called with the pre-roll when the turn can start: at once when the
                stream is open, else when its first block arrives (on the loop).

        Returns:
            What ``start_turn`` returned, when it ran now; True while the stream opens, and
            when it is down (:class:`MicrophoneUnavailable` said so: there is no turn).
        """
        self._cancel_close_timer()
        if self._hands_free:
            return start_turn(self._capture.begin_talk())
        if self._talking or self._waiting is not None:
            return True
        if self._capture.is_open and self._change is None and not self._capture.is_running:
            # Kept open but down (unplugged, failed; being reopened): nothing would be
            # heard, and a turn of silence would be sent. No turn, and why.
            reason = self._capture.open_error or "it stopped working and is being reopened"
            _log.info("talk pressed while the microphone is down: %s", reason)
            self._bus.emit(MicrophoneUnavailable(reason))
            return True
        if self._capture.is_open and self._change is None:
            pre_roll = self._capture.begin_talk()
            if self._mode is MicBetweenTurns.CLOSE:
                # Still open from the turn before (its close not run yet): that is no
                # pre-roll, the person chose a microphone that is closed between turns.
                pre_roll = b""
            if not start_turn(pre_roll):
                self._capture.end_talk()
                self._after_turn()
                return False
            self._talking = True
            self._bus.emit(MicrophoneListening())
            return True
        self._waiting = start_turn
        self._capture.begin_talk()  # no standby: every block goes to the consumer
        self._capture.on_next_block(self._first_block)
        self._bus.emit(MicrophoneOpening())
        self._change_stream(self._open_for_talk)
        return True

    def end_talk(self) -> None:
        """Talk released, after the turn's last block and activityEnd were handed over."""
        self._capture.end_talk()
        if self._hands_free:
            return
        if self._waiting is not None:
            # Let go before the microphone heard anything: there was no turn.
            self._waiting = None
            self._capture.cancel_next_block(self._first_block)
        self._talking = False
        self._after_turn()

    async def settled(self) -> None:
        """Wait until every open and close asked for so far has run."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- the settings -----------------------------------------------------------------

    def set_mode(self, mode: MicBetweenTurns) -> None:
        """Use ``mode`` from now on; it takes effect at once (opening or closing the stream)."""
        if mode is self._mode:
            return
        self._mode = mode
        _log.info("microphone between turns: %s", mode)
        self._apply()

    def set_hands_free(self, on: bool) -> None:
        """Hands-free keeps the stream open; push-to-talk follows the mode again."""
        if on is self._hands_free:
            return
        self._hands_free = on
        self._apply()

    # -- inside -----------------------------------------------------------------------

    def _apply(self) -> None:
        """Bring the stream in line with the mode, unless a turn is in progress."""
        if not self._started or self._talking or self._waiting is not None:
            return
        self._cancel_close_timer()
        if self.kept_open:
            if not self._capture.is_open or self._change is not None:
                self._change_stream(self._open_kept)
        elif self._capture.is_open or self._change is not None:
            # An open still under way counts: the close runs after it, or it would stay open.
            if self._mode is MicBetweenTurns.KEEP_READY:
                self._close_later()
            else:
                self._change_stream(self._close)

    def _after_turn(self) -> None:
        if not self._started or self.kept_open:
            return
        if self._mode is MicBetweenTurns.KEEP_READY:
            self._close_later()
        else:
            # After the loop's queued work: the sender puts activityEnd on the wire first.
            self._change_stream(self._close)

    def _first_block(self) -> None:
        start_turn, self._waiting = self._waiting, None
        if start_turn is None:
            return
        if not start_turn(b""):
            _log.info("the turn was not taken when the microphone opened")
            self._capture.end_talk()
            self._after_turn()
            return
        self._talking = True
        self._bus.emit(MicrophoneListening())

    async def _open_for_talk(self) -> None:
        if self._capture.is_open:
            return
        if await self._capture.start(retry=False):
            if self._waiting is None and not self._talking:
                self._after_turn()  # let go while it opened
            return
        reason = self._capture.open_error or "the audio system gave no reason"
        self._capture.cancel_next_block(self._first_block)
        self._capture.end_talk()
        self._waiting = None
        self._bus.emit(MicrophoneUnavailable(reason))

    async def _open_kept(self) -> None:
        if not self._capture.is_open:
            await self._capture.start()

    async def _close(self) -> None:
        if self._talking or self._waiting is not None or self.kept_open:
            return  # pressed again, or the mode changed, before the close ran
        await self._capture.stop()
        _log.debug("microphone closed between turns")

    def _close_later(self) -> None:
        self._cancel_close_timer()
        self._close_deadline = self._scheduler.time() + self._keep_ready_s
        self._close_timer = self._scheduler.call_later(self._keep_ready_s, self._kept_long_enough)

    def _kept_long_enough(self) -> None:
        self._close_timer = None
        if not self._talking and self._waiting is None:
            self._change_stream(self._close)

    def _cancel_close_timer(self) -> None:
        if self._close_timer is not None:
            self._close_timer.cancel()
            self._close_timer = None

    def _change_stream(self, step: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run an open or a close after the one under way, as an owned task."""
        previous = self._change

        async def run() -> None:
            if previous is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(previous)
            await step()

        task = asyncio.get_running_loop().create_task(run(), name="audio-mic-change")
        self._change = task
        self._tasks.add(task)
        task.add_done_callback(self._changed)

    def _changed(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if self._change is task:
            self._change = None
        if not task.cancelled() and task.exception() is not None:
            _log.error("changing the microphone's stream failed", exc_info=task.exception())
