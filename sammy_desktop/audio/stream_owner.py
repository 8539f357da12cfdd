"""One direction's PortAudio stream, as the capture and the playback both hold it.

The microphone and the speaker own their stream the same way: a device name from the
settings, a :class:`~sammy_desktop.audio.supervisor.StreamSupervisor` that keeps a stream
open on it through failures and device switches, an opener that tries the rates the owner
prefers before the device's own (a device that refuses a rate, "Invalid sample rate", gets
the next one), and a callback made for each stream generation. :class:`StreamOwner` is that
shared part; the capture and the playback compose one and add what they do with the audio.
A sound server's device is opened through ALSA's pulse plugin and routed to its sink or
source as it opens (:func:`~sammy_desktop.audio.sound_server.routed`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sounddevice as sd

from sammy_desktop.audio.devices import AudioDevice
from sammy_desktop.audio.events import Direction
from sammy_desktop.audio.sound_server import routed
from sammy_desktop.audio.supervisor import PortAudioStream, StreamSupervisor
from sammy_desktop.eventbus import EventBus

__all__ = [
    "DeviceCallback",
    "OpenedStream",
    "StreamOwner",
    "open_at_first_rate",
    "open_started_stream",
]

_log = logging.getLogger(__name__)

DeviceCallback = Callable[[Any, int, Any, Any], None]
"""A PortAudio raw stream callback: ``(data, frames, time_info, status)``."""


@dataclass(frozen=True, slots=True)
class OpenedStream:
    """A stream that has just been opened and started.

    Attributes:
        device: the device it runs on.
        samplerate: the rate the device runs at.
        latency_s: the latency PortAudio reports for it, in seconds.
    """

    device: AudioDevice
    samplerate: int
    latency_s: float


class StreamOwner:
    """Keeps one raw mono PCM16 stream running for its owner, on the device the settings name.

    Args:
        bus: where the device and stream events go.
        direction: ``"input"`` or ``"output"``.
        device: the device name from the settings; empty for the system default.
        stream_class: ``sd.RawInputStream`` or ``sd.RawOutputStream``.
        what: what the device is to the person, for the log ("microphone", "speaker").
        preferred_rates: the rates to try first, best first; the device's own rate is
            tried after them.
        samplerate: force this one rate (testing the resamplers); ``None`` tries the
            preferred rates.
        block_ms: the callback period.
        make_callback: builds the device callback for a stream generation, given the loop
            the callback is to hand its data to.
        on_running: called on the loop after each successful open.
        latency: PortAudio's suggested latency, seconds or ``"low"``.
        on_failed: called on the loop when a running stream fails (before reopening).
        on_switching: called on the loop before the stream moves to another device.
        on_paused: called on the loop once a pause has stopped the stream (no callback runs
            until it starts again).
        stall_timeout_s: a stream that delivers no callback for this long counts as dead
            and is reopened.
    """

    def __init__(
        self,
        bus: EventBus,
        direction: Direction,
        device: str,
        *,
        stream_class: Any,
        what: str,
        preferred_rates: Sequence[int],
        samplerate: int | None,
        block_ms: int,
        make_callback: Callable[[asyncio.AbstractEventLoop, int], DeviceCallback],
        on_running: Callable[[OpenedStream], None],
        latency: float | str = "low",
        on_failed: Callable[[], None] | None = None,
        on_switching: Callable[[], None] | None = None,
        on_paused: Callable[[], None] | None = None,
        stall_timeout_s: float = 5.0,
    ) -> None:
        self._stream_class = stream_class
        self._direction: Direction = direction
        self._what = what
        self._preferred_rates = tuple(preferred_rates)
        self._forced_rate = samplerate
        self._block_ms = block_ms
        self._make_callback = make_callback
        self._on_running = on_running
        self._latency = latency
        self._samplerate = self._preferred_rates[0]
        self._loop: asyncio.AbstractEventLoop | None = None
        self.supervisor = StreamSupervisor(
            bus,
            direction,
            device,
            self._open,
            on_running=self._running,
            on_failed=on_failed,
            on_switching=on_switching,
            on_paused=on_paused,
            stall_timeout_s=stall_timeout_s,
        )

    @property
    def is_running(self) -> bool:
        """Whether the stream is open and healthy."""
        return self.supervisor.is_running

    @property
    def is_down(self) -> bool:
        """Whether it was started and has no working stream now (failed, reopening)."""
        return self.supervisor.is_down

    @property
    def is_paused(self) -> bool:
        """Whether the stream is open but resting (no callbacks)."""
        return self.supervisor.is_paused

    @property
    def device(self) -> AudioDevice | None:
        """The device the stream runs on now."""
        return self.supervisor.device

    @property
    def samplerate(self) -> int:
        """The rate of the latest stream opened (the first preferred rate before any)."""
        return self._samplerate

    @property
    def generation(self) -> int:
        """The number of the current stream; data from an older one is stale."""
        return self.supervisor.generation

    def is_current(self, generation: int) -> bool:
        """Whether ``generation`` is the current stream's, and if so note that it called back.

        Every hand-off from the callback comes through here on the loop: it feeds the
        stall watchdog, and the first one after a switch or a recovery announces it.
        """
        if generation != self.supervisor.generation:
            return False
        self.supervisor.alive(generation)
        return True

    @property
    def is_started(self) -> bool:
        """Whether the stream was started and not stopped since (running, or reopening)."""
        return self.supervisor.is_started

    @property
    def open_error(self) -> str:
        """Why the latest open failed ("" after a successful one)."""
        return self.supervisor.open_error

    async def start(self, *, retry: bool = True) -> bool:
        """Open the stream; see :meth:`StreamSupervisor.start` (``retry=False``: one try).

        Returns:
            Whether it opened (with ``retry``, a failure becomes events and retries).
        """
        self._loop = asyncio.get_running_loop()
        return await self.supervisor.start(retry=retry)

    async def stop(self) -> None:
        """Close the stream."""
        await self.supervisor.stop()

    def set_device(self, name: str) -> None:
        """Move the stream to the device called ``name`` (empty: the system default).

        The stream is reopened there in the background. Then :class:`DeviceSwitched`, or
        :class:`DeviceFallback` first when no device has that name. The current name again
        does nothing.
        """
        self.supervisor.switch_device(name)

    def pause(self) -> None:
        """Stop the callbacks, keeping the stream open (see :meth:`StreamSupervisor.pause`)."""
        self.supervisor.pause()

    def resume(self) -> bool:
        """Start a paused stream again; nothing if it runs.

        Returns:
            Whether a start was handed to a worker just now (see
            :meth:`StreamSupervisor.resume`).
        """
        return self.supervisor.resume()

    def drop_buffered(self, on_dropped: Callable[[], None] | None = None) -> bool:
        """Silence what the device holds now (see :meth:`StreamSupervisor.drop_buffered`)."""
        return self.supervisor.drop_buffered(on_dropped)

    def candidate_rates(self, device: AudioDevice) -> list[int]:
        """The rates to open ``device`` at, best first."""
        if self._forced_rate is not None:
            return [self._forced_rate]
        native = round(device.default_samplerate)
        preferred = self._preferred_rates
        return [*preferred, *([] if native in preferred else [native])]

    def _open(
        self, device: AudioDevice, generation: int, finished: Callable[[], None]
    ) -> PortAudioStream:
        """Open and start the stream at the first rate the device takes (worker thread)."""
        loop = self._loop
        assert loop is not None, "start() sets the loop before the first open"
        with routed(self._direction, device.server_name):
            return open_at_first_rate(
                self._stream_class,
                device,
                self.candidate_rates(device),
                block_ms=self._block_ms,
                what=self._what,
                latency=self._latency,
                callback=self._make_callback(loop, generation),
                finished_callback=finished,
            )

    def _running(self, stream: PortAudioStream, device: AudioDevice) -> None:
        raw: Any = stream
        opened = OpenedStream(device, round(raw.samplerate), float(raw.latency))
        self._samplerate = opened.samplerate
        self._on_running(opened)
        _log.info(
            "%s %r open at %d Hz, latency %.1f ms",
            self._what,
            device.name,
            opened.samplerate,
            opened.latency_s * 1000,
        )


def open_started_stream(
    stream_class: Any, *, latency: float | str = "low", **settings: Any
) -> PortAudioStream:
    """Open a mono PCM16 stream of ``stream_class`` and start it (worker thread).

    Args:
        stream_class: ``sd.RawInputStream`` or ``sd.RawOutputStream``.
        latency: PortAudio's suggested latency, seconds or ``"low"``.
        settings: the other stream arguments (device, rate, block size, callbacks).

    Raises:
        sounddevice.PortAudioError: the device refused (the stream is closed again).
    """
    stream = stream_class(channels=1, dtype="int16", latency=latency, **settings)
    try:
        stream.start()
    except sd.PortAudioError:
        stream.close()
        raise
    return stream  # type: ignore[no-any-return]


def open_at_first_rate(
    stream_class: Any,
    device: AudioDevice,
    rates: list[int],
    *,
    block_ms: int,
    what: str,
    latency: float | str = "low",
    **settings: Any,
) -> PortAudioStream:
    """Open and start a stream at the first of ``rates`` the device takes (worker thread).

    A device that refuses a rate ("Invalid sample rate") gets the next one; the refusal is
    logged, naming the device as ``what`` ("microphone", "speaker").

    Args:
        stream_class: ``sd.RawInputStream`` or ``sd.RawOutputStream``.
        device: the device to open.
        rates: the rates to try, best first.
        block_ms: the callback period, in milliseconds.
        what: what the device is to the person, for the log.
        latency: PortAudio's suggested latency, seconds or ``"low"``.
        settings: the other stream arguments (callbacks).

    Raises:
        sounddevice.PortAudioError: the device refused every rate (the last refusal).
    """
    for rate in rates:
        try:
            return open_started_stream(
                stream_class,
                latency=latency,
                device=device.index,
                samplerate=rate,
                blocksize=rate * block_ms // 1000,
                **settings,
            )
        except sd.PortAudioError as exc:
            if rate == rates[-1]:
                raise
            _log.info(
                "%s %r refused %d Hz (%s); trying the next rate", what, device.name, rate, exc
            )
    raise ValueError("no sample rate to try")
