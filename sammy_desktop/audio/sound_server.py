"""The sound server's own devices (PulseAudio, or PipeWire's pulse server), through pulsectl.

On Linux PortAudio reaches sound through ALSA, whose plugins name only "pulse" and
"default": nobody could pick a real microphone or speaker from that. The sound server
knows every sink and source with its human name (``device.description``: "Built-in Audio
Analog Stereo", "Jabra Evolve 65"). This module asks it, through pulsectl (libpulse):

* :func:`server_devices` lists the sinks and the sources (not the monitors of sinks, which
  record what a sink plays) with their descriptions and which are the defaults;
* :func:`routed` routes the next stream opened through ALSA's pulse plugin to a chosen one:
  the plugin connects a new libpulse context for every stream it opens, and libpulse takes
  the device of a stream opened without one from ``PULSE_SINK`` / ``PULSE_SOURCE``. A
  stream opened without them follows the server's default, and the server moves it when
  the default changes (PulseAudio 14 and later, PipeWire);
* :class:`DeviceWatch` subscribes to the server's events on a thread of its own and calls
  back on the loop when a device appears or goes, or a default changes.

Without pulsectl, libpulse or a running server nothing here raises: :func:`server_devices`
returns None and the caller keeps PortAudio's own list.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from sammy_desktop.audio.events import Direction

__all__ = [
    "ROUTE_VARIABLES",
    "DeviceWatch",
    "ServerDevice",
    "ServerDevices",
    "connected_client",
    "remembered_description",
    "routed",
    "server_devices",
]

_log = logging.getLogger(__name__)

ROUTE_VARIABLES: Final[dict[Direction, str]] = {"input": "PULSE_SOURCE", "output": "PULSE_SINK"}
"""The variables libpulse reads a new stream's device from, per direction."""

_CONNECT_TIMEOUT_S: Final = 1.0
_INVALID_INDEX: Final = 0xFFFFFFFF  # PA_INVALID_INDEX: a source that monitors no sink
_COALESCE_S: Final = 0.15  # a device plugged in is several events; one callback for them
_RETRY_S: Final = 3.0  # between attempts to reach a server that went away

# Routing changes the process environment, which libpulse reads when the ALSA plugin
# makes its context; two opens at once must not see each other's variable half set.
_route_lock = threading.Lock()
# Every device's description as last seen, so a device that went can still be named.
_descriptions: dict[str, str] = {}


@dataclass(frozen=True, slots=True)
class ServerDevice:
    """One sink (a speaker) or source (a microphone) of the sound server.

    Attributes:
        name: the server's name for it (``alsa_output.pci-0000_00_1f.3.analog-stereo``);
            stable across restarts, so it is what the settings save.
        description: its human name, what the settings pane shows.
        direction: ``"output"`` for a sink, ``"input"`` for a source.
        channels: its channel count.
        samplerate: its own rate in Hz.
        is_default: whether it is the server's default for its direction.
    """

    name: str
    description: str
    direction: Direction
    channels: int
    samplerate: int
    is_default: bool


@dataclass(frozen=True, slots=True)
class ServerDevices:
    """What the sound server has.

    Attributes:
        server: the server's name and version ("pulseaudio 16.1", "PulseAudio (on
            PipeWire 1.0.5) 15.0.0").
        devices: the sinks, then the sources, each in the server's order.
    """

    server: str
    devices: tuple[ServerDevice, ...]


def remembered_description(name: str) -> str:
    """The human name a device had when last listed ("" if it was never seen)."""
    return _descriptions.get(name, "")


def server_devices(timeout_s: float = _CONNECT_TIMEOUT_S) -> ServerDevices | None:
    """The sound server's sinks and sources, or None when there is no server to ask.

    Blocks for up to ``timeout_s`` talking to the server: call it off the loop.
    """
    try:
        return _ask(timeout_s)
    except Exception as exc:  # noqa: BLE001 - ctypes bindings: no server, no libpulse, ...
        _log.debug("no sound server to list devices from: %r", exc)
        return None


def connected_client(name: str, timeout_s: float = _CONNECT_TIMEOUT_S) -> Any:
    """A pulsectl client connected to the sound server, as soon as it is (close it after).

    pulsectl 24's ``connect(timeout=...)`` always waits the whole timeout, even when the
    server answers at once (its state callback notes the connection but does not stop the
    poll), which made every listing take a second. The client here stops polling once the
    connection is ready or has failed.

    Raises:
        Exception: pulsectl's, or libpulse's loading error, when there is no server.
    """
    # Imported here: it loads libpulse, only when asked and never at start-up.
    import pulsectl

    class QuickPulse(pulsectl.Pulse):  # type: ignore[misc]
        def _pulse_state_cb(self, ctx: Any, userdata: Any) -> None:
            super()._pulse_state_cb(ctx, userdata)
            if self.connected is not None:
                self._loop_stop = True

    pulse = QuickPulse(name, connect=False)
    try:
        pulse.connect(timeout=timeout_s)
    except BaseException:
        pulse.close()
        raise
    return pulse


def _ask(timeout_s: float) -> ServerDevices:
    pulse = connected_client("sammy-desktop-devices", timeout_s)
    try:
        info = pulse.server_info()
        devices = [
            _device(sink, "output", info.default_sink_name) for sink in pulse.sink_list()
        ] + [
            _device(source, "input", info.default_source_name)
            for source in pulse.source_list()
            if getattr(source, "monitor_of_sink", _INVALID_INDEX) == _INVALID_INDEX
        ]
    finally:
        pulse.close()
    for device in devices:
        _descriptions[device.name] = device.description
    return ServerDevices(f"{info.server_name} {info.server_version}", tuple(devices))


def _device(raw: Any, direction: Direction, default_name: str) -> ServerDevice:
    name = str(raw.name)
    return ServerDevice(
        name=name,
        description=str(raw.description or name),
        direction=direction,
        channels=int(raw.channel_count),
        samplerate=int(raw.sample_spec.rate),
        is_default=name == default_name,
    )


@contextlib.contextmanager
def routed(direction: Direction, server_name: str) -> Iterator[None]:
    """Route the streams of ``direction`` opened meanwhile to ``server_name``.

    A stream opened through ALSA's pulse plugin inside this block goes to that sink or
    source; with ``""`` it follows the server's default (nothing is changed). The variable
    is put back as it was once the stream is open (the plugin has made its context by
    then), so nothing else the process starts inherits the choice.
    """
    if not server_name:
        yield
        return
    variable = ROUTE_VARIABLES[direction]
    with _route_lock:
        before = os.environ.get(variable)
        os.environ[variable] = server_name
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = before


class DeviceWatch:
    """Calls ``on_change`` on the loop when the server's devices or defaults change.

    A thread of its own subscribes to the server's sink, source and server events (the
    blocking libpulse loop cannot run on the asyncio loop) and hands each one to the loop,
    where those arriving within 150 ms become one call. A volume change is no change of
    devices and is ignored. When the server goes away that is a change too (the devices
    went with it), and the thread tries again every few seconds.

    Args:
        on_change: called on the loop, with no arguments.
    """

    def __init__(self, on_change: Callable[[], None]) -> None:
        self._on_change = on_change
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._pulse: Any = None
        # Held while the stopping thread wakes the client and while the watch thread lets go
        # of it: a wake-up of a client already closed is a use after free in libpulse (a
        # segfault, seen in CI).
        self._pulse_lock = threading.Lock()
        self._pending: asyncio.TimerHandle | None = None
        self._was_connected = False
        self.connected = threading.Event()
        """Set while the thread is subscribed to a server (tests wait on it)."""

    def start(self) -> None:
        """Start watching (on the loop); nothing if it runs already."""
        if self._thread is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="audio-device-watch", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        """Stop watching; returns once the thread has ended."""
        thread, self._thread = self._thread, None
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if thread is None:
            return
        self._stopping.set()
        await asyncio.to_thread(self._join, thread)

    def _join(self, thread: threading.Thread) -> None:
        # event_listen_stop() does nothing when it comes before the listen has begun, so it
        # is repeated until the thread ends (pulsectl's own advice).
        while thread.is_alive():
            with self._pulse_lock:
                pulse = self._pulse
                if pulse is not None:
                    with contextlib.suppress(Exception):
                        pulse.event_listen_stop()
            thread.join(0.05)

    def _run(self) -> None:
        try:
            import pulsectl  # noqa: F401 - loads libpulse: is there one?
        except Exception as exc:  # noqa: BLE001 - no pulsectl or no libpulse: no events
            _log.debug("no device events without pulsectl: %r", exc)
            return
        while not self._stopping.is_set():
            try:
                self._listen()
            except Exception as exc:  # noqa: BLE001 - a server that went away, or none
                _log.debug("sound server events stopped: %r", exc)
            if self.connected.is_set():
                self.connected.clear()
                self._notify()  # its devices went with it
            self._stopping.wait(_RETRY_S)

    def _listen(self) -> None:
        pulse = connected_client("sammy-desktop-device-watch")
        try:
            pulse.event_mask_set("sink", "source", "server")
            pulse.event_callback_set(self._on_event)
            with self._pulse_lock:
                self._pulse = pulse
            self.connected.set()
            if self._was_connected:
                self._notify()  # a server that came back brings its devices
            self._was_connected = True
            while not self._stopping.is_set():
                pulse.event_listen(timeout=5.0)
        finally:
            with self._pulse_lock:
                self._pulse = None
            pulse.close()  # nobody can wake it any more

    def _on_event(self, event: Any) -> None:
        # Runs on the watch thread inside libpulse's loop: no pulse calls here.
        # pulsectl's enum values compare equal to their names (str() is their repr).
        if event.facility == "server" or event.t in ("new", "remove"):
            self._notify()

    def _notify(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._schedule)

    def _schedule(self) -> None:
        if self._thread is None:
            return
        if self._pending is not None:
            self._pending.cancel()
        assert self._loop is not None
        self._pending = self._loop.call_later(_COALESCE_S, self._fire)

    def _fire(self) -> None:
        self._pending = None
        self._on_change()
