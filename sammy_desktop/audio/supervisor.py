"""Keeps one PortAudio stream alive: opens it, notices when it dies, reopens it.

A desktop's devices come and go (headsets unplugged, Bluetooth switching profile, the sound
server restarting). The capture and the playback each hold one, through their
:class:`~sammy_desktop.audio.stream_owner.StreamOwner`; a :class:`StreamSupervisor`

* resolves the device name from the settings, falling back to the system default with a
  :class:`~sammy_desktop.audio.events.DeviceFallback` event;
* opens and starts the stream in a worker thread (PortAudio calls can block for a while),
  remembering the device a name resolved to until an open fails (PortAudio's device list
  does not change until it is initialised again), so opening again skips the lookup;
* treats an unexpected end of the stream (PortAudio's finished callback) or a stream that
  stops delivering callbacks as a failure: emits :class:`~.events.StreamError`, closes it and
  reopens it with backoff until it runs, then emits :class:`~.events.StreamRecovered`;
* moves the stream to another device when the settings change (:meth:`switch_device`):
  closes it and opens it on the new one, then emits :class:`~.events.DeviceSwitched`;
* looks the name up again when the sound server's devices change (:meth:`devices_changed`):
  a stream whose device went moves to the default with a :class:`~.events.DeviceFallback`
  (the server keeps it playing on another device, so nothing else would say so), and one
  running on the default because its device was missing moves back once it is there;
* pauses the stream when its owner has nothing for it to do (:meth:`pause`, :meth:`resume`):
  the stream stays open on its device but PortAudio stops calling back, which costs nothing,
  and starting it again takes a few milliseconds. A paused stream is not watched for stalls;
* drops what a running output stream holds ahead of the speaker (:meth:`drop_buffered`):
  it is stopped and started again at once, so a barge-in is silent within a millisecond or
  two instead of once the device buffer has played out.

Nothing here raises into the app: a device that cannot be opened is an event and a retry,
or, for a stream opened on demand (``start(retry=False)``), a ``False`` and the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Final, Protocol

import sounddevice as sd

from sammy_desktop.audio.devices import AudioDevice, DeviceChoice, resolve_device
from sammy_desktop.audio.events import (
    DeviceFallback,
    DeviceSwitched,
    Direction,
    StreamError,
    StreamRecovered,
)
from sammy_desktop.eventbus import EventBus
from sammy_desktop.scheduling import LoopScheduler, Scheduler, sleep, wait_for_event

__all__ = [
    "PortAudioStream",
    "StreamOpener",
    "StreamSupervisor",
]

_log = logging.getLogger(__name__)

_CLOSE_TIMEOUT_S = 2.0
RECOVERY_PROOF_S: Final = 0.1
"""A reopened stream has recovered once its callbacks have come for this long. Its first
ones come at once, PortAudio filling the device buffer, even from a device that then
delivers nothing: a PulseAudio sink just resumed did that (the devices test's second stall
right after a "recovered"), and the person was told twice of one outage."""
_RETRY_DELAYS_S = (0.2, 0.5, 1.0, 2.0)


class PortAudioStream(Protocol):
    """The part of a sounddevice stream the supervisor uses."""

    @property
    def active(self) -> bool:
        """Whether the stream is running."""

    def abort(self) -> None:
        """Stop at once, dropping pending buffers."""

    def start(self) -> None:
        """Start (again) calling back."""

    def close(self) -> None:
        """Release the stream."""


StreamOpener = Callable[[AudioDevice, int, Callable[[], None]], PortAudioStream]
"""Opens and starts a stream on a device, in a worker thread.

Called with the device, the stream's generation number (blocks from an older generation are
stale), and the finished callback to pass to PortAudio. Returns the running stream.
"""


class StreamSupervisor:
    """Owns one stream through failures and reopenings.

    Args:
        bus: where the device and stream events go.
        direction: ``"input"`` or ``"output"``.
        device_name: the device name from the settings; empty for the default.
        opener: opens and starts the stream (runs in a worker thread).
        on_running: called on the loop after each successful open, with the stream and
            the device, so the owner can read the stream's rate and latency.
        on_failed: called on the loop when a running stream fails (before reopening).
        on_switching: called on the loop before the stream moves to another device.
        on_paused: called on the loop once :meth:`pause` has stopped a stream: no callback
            runs from then until it starts again.
        stall_timeout_s: a running stream that delivers no callback for this long is
            treated as dead. Generous, because some servers take seconds to start a stream.
        scheduler: the clock and timers of the stall watchdog and the reopening backoff
            (the running loop's by default; the tests drive a hand-moved one).
    """

    def __init__(
        self,
        bus: EventBus,
        direction: Direction,
        device_name: str,
        opener: StreamOpener,
        *,
        on_running: Callable[[PortAudioStream, AudioDevice], None] | None = None,
        on_failed: Callable[[], None] | None = None,
        on_switching: Callable[[], None] | None = None,
        on_paused: Callable[[], None] | None = None,
        stall_timeout_s: float = 5.0,
        scheduler: Scheduler | None = None,
    ) -> None:
        self._bus = bus
        self._scheduler: Scheduler = scheduler if scheduler is not None else LoopScheduler()
        self._direction: Direction = direction
        self._device_name = device_name
        self._opener = opener
        self._on_running = on_running
        self._on_failed = on_failed
        self._on_switching = on_switching
        self._on_paused = on_paused
        self._opened_name = device_name
        self._switch_requested = False
        self._announce_switch = False
        self._stall_timeout_s = stall_timeout_s
        # Look four times per stall timeout, at most once a second: each look wakes the loop.
        self._watch_interval_s = min(1.0, stall_timeout_s / 4)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stream: PortAudioStream | None = None
        self._device: AudioDevice | None = None
        self._generation = 0
        self._last_alive = 0.0
        self._alive_since: float | None = None  # the current stream's first callback
        self._failure = asyncio.Event()
        self._failure_reason = ""
        # Set by anything the supervising task must act on: a failure, a switch, a pause or
        # resume request. Kept apart from _failure, which also means "not running".
        self._wake = asyncio.Event()
        self._pause_wanted = False
        self._paused = False
        self._stopping_for_pause = False
        self._pausing: asyncio.Future[None] | None = None
        # A start or stop under way whose outcome the task has not applied yet (begun by
        # resume(), or by the task itself); resume() starts nothing while it is.
        self._unapplied = False
        self._recovering = False
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._last_fallback_reason = ""
        self._resolved: dict[str, DeviceChoice] = {}
        self._recheck_wanted = False
        self._open_error = ""
        self.failures = 0

    @property
    def generation(self) -> int:
        """The number of the current stream; bumped on every (re)open."""
        return self._generation

    @property
    def device(self) -> AudioDevice | None:
        """The device the current stream runs on, if one is open."""
        return self._device

    @property
    def device_name(self) -> str:
        """The device name asked for (as in the settings; empty for the default)."""
        return self._device_name

    @property
    def stream(self) -> PortAudioStream | None:
        """The current stream, if one is open."""
        return self._stream

    @property
    def is_running(self) -> bool:
        """Whether a stream is open and no failure is pending."""
        return self._stream is not None and not self._failure.is_set()

    @property
    def is_paused(self) -> bool:
        """Whether the stream is open but stopped (see :meth:`pause`) and not resuming."""
        return self._paused and self._pause_wanted

    @property
    def is_down(self) -> bool:
        """Whether it was started and has no working stream now (failed, reopening)."""
        return self._task is not None and not self.is_running

    @property
    def is_started(self) -> bool:
        """Whether it was started and not stopped since (a stream running, or reopening)."""
        return self._task is not None

    @property
    def open_error(self) -> str:
        """Why the latest open failed ("" after a successful one)."""
        return self._open_error

    async def start(self, *, retry: bool = True) -> bool:
        """Open the stream. Never raises for device trouble: that becomes events and retries.

        Args:
            retry: a device that cannot be opened is an event and a retry with backoff.
                ``False`` (a microphone opened for a talk press): one try; a failure is no
                event and no retry, the supervisor stays stopped and :attr:`open_error`
                says why.

        Returns:
            Whether the first open succeeded (or the supervisor was already running).
        """
        if self._task is not None:
            return True
        self._loop = asyncio.get_running_loop()
        self._stopping = False
        self._failure = asyncio.Event()
        self._wake = asyncio.Event()
        opened = await self._open(report=retry)
        if not opened and not retry:
            return False
        self._task = asyncio.create_task(self._supervise(opened), name=f"audio-{self._direction}")
        if opened and self._opened_name != self._device_name:
            self._request_switch()  # the name changed while the first open was under way
        return opened

    def switch_device(self, name: str) -> None:
        """Move the stream to the device called ``name`` (empty: the system default).

        Returns at once; the supervising task closes the stream and opens it on the new
        device (with :class:`DeviceFallback` when the name is missing), then emits
        :class:`DeviceSwitched` at its first callback. The same name again does nothing.
        Before :meth:`start`, or while the stream is down, the next open uses the name.
        """
        if name == self._device_name:
            return
        self._device_name = name
        self._last_fallback_reason = ""  # a fallback for the new name is news
        if self._task is not None and self.is_running:
            self._request_switch()

    def devices_changed(self) -> None:
        """The audio devices changed (one came or went, a default moved).

        Returns at once. Names are looked up afresh from now on; a running stream is moved
        when its name now resolves to another device than the one it runs on.
        """
        self._resolved.clear()
        if self._task is not None and self.is_running:
            self._recheck_wanted = True
            self._wake.set()

    async def _recheck_device(self) -> None:
        self._recheck_wanted = False
        current = self._device
        if current is None:
            return
        try:
            choice = await asyncio.to_thread(resolve_device, self._device_name, self._direction)
        except (sd.PortAudioError, LookupError, OSError, ValueError) as exc:
            _log.info("%s devices changed; none to move to: %s", self._direction, exc)
            return
        wanted = choice.device
        if (wanted.index, wanted.server_name) == (current.index, current.server_name):
            return
        if self._switch_requested or self._failure.is_set() or self._stopping:
            return
        _log.info(
            "%s devices changed: moving from %r to %r", self._direction, current.name, wanted.name
        )
        self._resolved[self._device_name] = choice
        self._request_switch()

    def _request_switch(self) -> None:
        self._switch_requested = True
        self._failure.set()
        self._wake.set()

    def pause(self) -> None:
        """Stop the stream's callbacks, keeping it open; :meth:`resume` starts it again.

        Returns at once; the supervising task stops the stream in a worker thread. While
        paused the stall watchdog rests and PortAudio's finished callback is expected, not a
        failure. A stream reopened meanwhile (a failure, a device switch) starts running,
        and pauses once its callbacks have proven it (see :attr:`_proving`).
        """
        if not self._pause_wanted:
            self._pause_wanted = True
            self._wake.set()

    def resume(self) -> bool:
        """Start a paused stream again (a few milliseconds); nothing if it runs.

        The start is handed to a worker thread here and now, not when the supervising task
        next runs: whoever resumes may keep the loop busy for a while (a burst of the
        model's audio is parsed in one go, 7-10 ms in bench/audio_trace.py's trace), and the
        speaker's first sample waits for the start. The task then only awaits it.

        Returns:
            Whether a start was handed to a worker just now (``False``: the stream runs,
            or the supervising task starts it in turn, once a stop or a switch is done).
        """
        if not self._pause_wanted:
            return False
        self._pause_wanted = False
        started = self._start_at_once()
        self._wake.set()
        return started

    def drop_buffered(self, on_dropped: Callable[[], None] | None = None) -> bool:
        """Silence what the device holds now: stop the stream and start it again at once.

        PortAudio's abort drops the device buffer (with ALSA, PulseAudio flushes what it
        holds too: measured on its monitor, silent 0.3-3 ms after the call, where playing
        out the buffer took 16-21 ms). The stream then runs as before, its buffer refilled
        from the callback. Handed to a worker thread here and now, as :meth:`resume` is.

        Args:
            on_dropped: called on the loop once the buffer is dropped (before the start).

        Returns:
            Whether the drop is under way; ``False`` when there is nothing to drop (no
            stream, paused or pausing: a pause drops it anyway) or another start or stop
            is under way (then what is buffered plays out as it would).
        """
        stream = self._free_stream()
        if stream is None or self._paused or self._pause_wanted:
            return False
        loop = asyncio.get_running_loop()

        def abort_and_start() -> None:
            stream.abort()
            if on_dropped is not None:
                with contextlib.suppress(RuntimeError):  # the loop closed: shutting down
                    loop.call_soon_threadsafe(on_dropped)
            stream.start()

        # PortAudio's finished callback for the abort is expected (see _on_finished).
        self._stopping_for_pause = True
        self._pausing = loop.run_in_executor(None, abort_and_start)
        self._unapplied = True
        self._wake.set()  # the task applies the outcome (a start that failed is a failure)
        return True

    def _free_stream(self) -> PortAudioStream | None:
        """The stream, if a worker may start or stop it now; else ``None``.

        Not while another start or stop is under way or unapplied (paused and resumed
        again before the task applied the last start: it runs already), nor while the task
        has a stop, a switch, a device recheck or a failure to see to first.
        """
        busy = self._unapplied or (self._pausing is not None and not self._pausing.done())
        if (
            busy
            or self._stopping
            or self._switch_requested
            or self._recheck_wanted
            or self._failure.is_set()
        ):
            return None
        return self._stream

    def _start_at_once(self) -> bool:
        stream = self._free_stream()
        if stream is None or not self._paused:
            return False  # the supervising task starts it, in turn, once it is free
        self._pausing = asyncio.get_running_loop().run_in_executor(None, stream.start)
        self._unapplied = True
        return True

    async def stop(self) -> None:
        """Stop supervising and close the stream."""
        self._stopping = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, _CLOSE_TIMEOUT_S)
        await self._close()

    def alive(self, generation: int) -> None:
        """Note, on the loop, that a callback of stream ``generation`` arrived."""
        if generation != self._generation:
            return
        now = self._last_alive = self._scheduler.time()
        if self._alive_since is None:
            self._alive_since = now
        proving = self._proving
        if self._announce_switch and self._device is not None:
            self._announce_switch = False
            _log.info("%s stream switched to %r", self._direction, self._device.name)
            self._bus.emit(DeviceSwitched(self._direction, self._device_name, self._device.name))
        proven = now - self._alive_since >= RECOVERY_PROOF_S
        if self._recovering and self._device is not None and proven:
            self._recovering = False
            _log.info("%s stream recovered on %r", self._direction, self._device.name)
            self._bus.emit(StreamRecovered(self._direction, self._device.name))
        if proving and not self._proving and self._pause_wanted:
            self._wake.set()  # proven just now: the pause held back meanwhile

    @property
    def _proving(self) -> bool:
        """Whether a stream opened for a switch or after a failure has yet to prove itself.

        It runs until then, paused or not: its callbacks are what announce the switch
        (:class:`DeviceSwitched`) and the recovery (:class:`StreamRecovered`), and what the
        stall watchdog watches. Paused at once, a resting speaker moved to a device that
        came back said so only at the next answer, and one reopened on a dead device was
        not found dead until then.
        """
        return not self._paused and (self._announce_switch or self._recovering)

    def finished_callback(self, generation: int) -> Callable[[], None]:
        """A PortAudio finished callback for stream ``generation`` (runs on PortAudio's thread)."""
        loop = self._loop

        def finished() -> None:
            if loop is None or loop.is_closed():
                return
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._on_finished, generation)

        return finished

    def report_failure(self, reason: str) -> None:
        """Treat the current stream as dead (called on the loop by the owner)."""
        if self._stopping or self._failure.is_set() or self._switch_requested:
            return
        self._failure_reason = reason
        self._failure.set()
        self._wake.set()

    def _on_finished(self, generation: int) -> None:
        # Stopping a stream for a pause ends it too. PortAudio calls back before abort()
        # returns, so this runs on the loop while _stopping_for_pause is still set.
        if generation != self._generation or self._stopping or self._stopping_for_pause:
            return
        if self._paused:
            return
        self.report_failure("the audio device stopped the stream")

    async def _open(self, *, report: bool = True) -> bool:
        generation = self._generation + 1
        name = self._opened_name = self._device_name
        try:
            choice = self._resolved.get(name)
            if choice is None:
                choice = await asyncio.to_thread(resolve_device, name, self._direction)
            self._generation = generation
            finished = self.finished_callback(generation)
            stream = await self._open_in_thread(choice.device, generation, finished)
        except (sd.PortAudioError, LookupError, OSError, ValueError) as exc:
            self._generation = generation
            # The device may have gone: look it up afresh next time.
            self._resolved.pop(name, None)
            self._open_error = str(exc) or type(exc).__name__
            if report:
                self._fail_open(self._open_error)
            else:
                _log.warning("%s stream could not be opened: %s", self._direction, exc)
            return False
        self._open_error = ""
        # PortAudio's device list is fixed until it is initialised again, so the name
        # resolves to the same device until an open fails: no lookup on the next press.
        self._resolved[name] = choice
        if self._stopping:
            await asyncio.to_thread(_close_quietly, stream)
            return False
        if choice.fallback_reason and choice.fallback_reason != self._last_fallback_reason:
            _log.warning("%s", choice.fallback_reason)
            self._bus.emit(
                DeviceFallback(name, choice.device.label, choice.fallback_reason, self._direction)
            )
        self._last_fallback_reason = choice.fallback_reason
        self._stream = stream
        self._device = choice.device
        self._paused = False  # the opener starts the stream
        self._last_alive = self._scheduler.time()
        self._alive_since = None
        self._failure = asyncio.Event()
        if self._on_running is not None:
            self._on_running(stream, choice.device)
        return True

    async def _open_in_thread(
        self, device: AudioDevice, generation: int, finished: Callable[[], None]
    ) -> PortAudioStream:
        opening = asyncio.ensure_future(
            asyncio.to_thread(self._opener, device, generation, finished)
        )
        try:
            return await asyncio.shield(opening)
        except asyncio.CancelledError:
            # Stopped while PortAudio was still opening: the thread cannot be interrupted,
            # so close the stream it opens once it is done, instead of leaking it running.
            opening.add_done_callback(_close_when_opened)
            raise

    def _fail_open(self, reason: str) -> None:
        if not self._recovering:
            self._recovering = True
            self.failures += 1
            _log.warning("%s stream could not be opened: %s", self._direction, reason)
            self._bus.emit(StreamError(self._direction, f"could not open the device: {reason}"))

    async def _close(self) -> None:
        stream, self._stream = self._stream, None
        self._device = None
        if stream is None:
            return
        pausing, self._pausing = self._pausing, None
        self._unapplied = False
        if pausing is not None and not pausing.done():
            with contextlib.suppress(sd.PortAudioError, TimeoutError):
                await asyncio.wait_for(asyncio.shield(pausing), _CLOSE_TIMEOUT_S)
        self._stopping_for_pause = False  # a drop's or pause's abort is over: the next ends
        try:
            await asyncio.wait_for(asyncio.to_thread(_close_quietly, stream), _CLOSE_TIMEOUT_S)
        except TimeoutError:
            # A wedged driver: leave the thread to it rather than hang the app.
            _log.warning("closing the %s stream timed out; abandoning it", self._direction)

    async def _supervise(self, opened: bool) -> None:
        attempt = 0
        while not self._stopping:
            if not opened:
                await sleep(
                    self._scheduler, _RETRY_DELAYS_S[min(attempt, len(_RETRY_DELAYS_S) - 1)]
                )
                attempt += 1
                opened = await self._open()
                continue
            attempt = 0
            if not self._failure.is_set():
                if self._recheck_wanted:
                    await self._recheck_device()
                    continue
                if self._unapplied or (self._pause_wanted != self._paused and not self._proving):
                    await self._apply_pause()
                    continue
                # A paused stream has nothing to watch: sleep until asked for something.
                timeout = None if self._paused else self._watch_interval_s
                try:
                    woken = await wait_for_event(self._scheduler, self._wake, timeout)
                finally:
                    self._wake.clear()
                if not woken:
                    self._watch()
                    continue
                if not self._failure.is_set():
                    continue  # a pause or resume request: applied at the top
            if self._switch_requested:
                opened = await self._switch()
                continue
            reason = self._failure_reason
            self.failures += 1
            _log.warning("%s stream failed: %s; reopening", self._direction, reason)
            if not self._recovering:
                # One event per outage, not one per failed attempt to get out of it.
                self._recovering = True
                self._bus.emit(StreamError(self._direction, reason))
            if self._on_failed is not None:
                self._on_failed()
            # Blocks still queued on the loop from the dead stream are stale from now on.
            self._generation += 1
            await self._close()
            opened = False

    def _watch(self) -> None:
        """The stall watchdog: a running stream must be active and calling back."""
        stream = self._stream
        if stream is None or self._paused:
            return
        if not stream.active:
            self.report_failure("the audio stream is no longer active")
        elif self._scheduler.time() - self._last_alive > self._stall_timeout_s:
            self.report_failure(f"no audio from the device for {self._stall_timeout_s:g} s")

    async def _apply_pause(self) -> None:
        """Stop or start the stream as :meth:`pause` / :meth:`resume` asked."""
        stream = self._stream
        pause = self._pause_wanted
        if self._unapplied and self._pausing is not None:
            # resume() started it already: see that through first (a pause asked since
            # comes on the next turn of the task's loop).
            pause = False
        elif stream is None:
            self._paused = pause  # nothing open; the next open starts running anyway
            return
        else:
            self._stopping_for_pause = pause
            # Not cancelled with the task: stop() waits for it before it closes the stream,
            # so two PortAudio calls never run on one stream at once.
            self._pausing = asyncio.ensure_future(
                asyncio.to_thread(stream.abort if pause else stream.start)
            )
            self._unapplied = True
        try:
            await asyncio.shield(self._pausing)
        except sd.PortAudioError as exc:
            if pause:
                _log.debug("ignoring %s while pausing the %s stream", exc, self._direction)
            else:
                self.report_failure(f"the audio stream would not start again: {exc}")
                return
        finally:
            self._stopping_for_pause = False
            self._unapplied = False  # only now: until here resume() must not start it again
        self._paused = pause
        self._last_alive = self._scheduler.time()
        _log.debug("%s stream %s", self._direction, "paused" if pause else "resumed")
        if pause and self._on_paused is not None:
            self._on_paused()

    async def _switch(self) -> bool:
        self._switch_requested = False
        _log.info("%s stream moving to %r", self._direction, self._device_name)
        if self._on_switching is not None:
            self._on_switching()
        # Blocks still queued on the loop from the old stream are stale from now on.
        self._generation += 1
        await self._close()
        self._announce_switch = True
        return await self._open()


def _close_when_opened(opening: asyncio.Future[PortAudioStream]) -> None:
    if opening.cancelled() or opening.exception() is not None:
        return
    stream = opening.result()
    asyncio.get_running_loop().run_in_executor(None, _close_quietly, stream)


def _close_quietly(stream: PortAudioStream) -> None:
    for step in (stream.abort, stream.close):
        try:
            step()
        except sd.PortAudioError as exc:
            _log.debug("ignoring %s while closing a stream: %s", step.__name__, exc)
