"""Audio devices: listing them for the settings pane and resolving a saved name to a device.

Off Linux the devices are PortAudio's. On Linux PortAudio goes through ALSA, whose plugins
show a sound server as two devices, "pulse" and "default"; when a sound server answers
(PulseAudio, or PipeWire's pulse server: :mod:`sammy_desktop.audio.sound_server`) the list
is its own sinks and sources instead, each with its human name, all opened through the
"pulse" device and routed to the chosen one as the stream opens. The system default is the
server's default, which the stream then follows when it changes. Without a server (or
without a "pulse" device) the PortAudio list stays.

A name saved in the settings may no longer exist (a headset unplugged since, another
computer). :func:`resolve_device` then picks the system default and says why, so the caller
can emit a :class:`~sammy_desktop.audio.events.DeviceFallback` instead of failing.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from typing import Any, Final

import sounddevice as sd

from sammy_desktop.audio import sound_server
from sammy_desktop.audio.events import Direction

__all__ = ["AudioDevice", "DeviceChoice", "list_devices", "portaudio_devices", "resolve_device"]


@dataclass(frozen=True, slots=True)
class AudioDevice:
    """One PortAudio device as the settings pane shows it.

    Attributes:
        index: PortAudio's device index (valid until PortAudio is reinitialised).
        name: the device name; this is what the settings save.
        host_api: the host API's name (ALSA, PulseAudio, WASAPI, Core Audio, ...).
        default_samplerate: the device's own sample rate in Hz.
        max_input_channels: 0 for an output-only device.
        max_output_channels: 0 for an input-only device.
        is_default_input: whether this is the system's default microphone.
        is_default_output: whether this is the system's default speaker.
        description: the device's human name where the sound server gives one.
        server_name: the sound server's sink or source a stream opened on this device is
            routed to; empty for a PortAudio device, and for the server's default (which
            the stream then follows).
    """

    index: int
    name: str
    host_api: str
    default_samplerate: float
    max_input_channels: int
    max_output_channels: int
    is_default_input: bool
    is_default_output: bool
    description: str = ""
    server_name: str = ""

    @property
    def label(self) -> str:
        """What the person knows the device by: its description, else its name."""
        return self.description or self.name

    def supports(self, direction: Direction) -> bool:
        """Whether the device has channels for ``direction``."""
        channels = self.max_input_channels if direction == "input" else self.max_output_channels
        return channels > 0


@dataclass(frozen=True, slots=True)
class DeviceChoice:
    """The outcome of :func:`resolve_device`.

    Attributes:
        device: the device to open.
        fallback_reason: empty when the requested device was found (or none was requested);
            otherwise why the default is used instead.
    """

    device: AudioDevice
    fallback_reason: str = ""


def _default_index(direction: Direction) -> int:
    pair: Any = sd.default.device
    index = int(pair[0] if direction == "input" else pair[1])
    if index < 0:
        # sounddevice reports -1 when no default is set; ask PortAudio's own default.
        info: Any = sd.query_devices(kind="input" if direction == "input" else "output")
        index = int(info["index"])
    return index


def list_devices() -> list[AudioDevice]:
    """List the audio devices to choose from, inputs and outputs.

    The sound server's own devices on Linux when one answers (see the module docstring),
    PortAudio's otherwise. This talks to the audio system and may take tens of
    milliseconds: call it from a worker thread (``asyncio.to_thread``) when on the loop.

    Returns:
        The devices (sinks before sources for a sound server); an empty list when there
        are none.
    """
    devices = portaudio_devices()
    if sys.platform.startswith("linux"):
        pulse = next((d for d in devices if d.name == _PULSE_DEVICE), None)
        if pulse is not None:
            served = sound_server.server_devices()
            if served is not None:
                return [_served(device, pulse, served.server) for device in served.devices]
    return devices


def portaudio_devices() -> list[AudioDevice]:
    """Every device PortAudio knows, inputs and outputs, in PortAudio's order."""
    raw: Any = sd.query_devices()
    host_apis: Any = sd.query_hostapis()
    try:
        default_in = _default_index("input")
    except (sd.PortAudioError, ValueError):
        default_in = -1
    try:
        default_out = _default_index("output")
    except (sd.PortAudioError, ValueError):
        default_out = -1
    devices = []
    for info in raw:
        index = int(info["index"])
        devices.append(
            AudioDevice(
                index=index,
                name=str(info["name"]),
                host_api=str(host_apis[int(info["hostapi"])]["name"]),
                default_samplerate=float(info["default_samplerate"]),
                max_input_channels=int(info["max_input_channels"]),
                max_output_channels=int(info["max_output_channels"]),
                is_default_input=index == default_in,
                is_default_output=index == default_out,
            )
        )
    return devices


# ALSA's device of the pulse plugin, through which a sound server's devices are opened.
_PULSE_DEVICE: Final = "pulse"
# PortAudio's names for "whatever the sound server's default is": saved by the old device
# list, they mean the system default once the server's own devices are listed.
_SERVER_DEFAULT_NAMES: Final = frozenset({"pulse", "default", "sysdefault", "pipewire"})


def _served(device: sound_server.ServerDevice, pulse: AudioDevice, server: str) -> AudioDevice:
    is_input = device.direction == "input"
    return AudioDevice(
        index=pulse.index,
        name=device.name,
        host_api=server,
        default_samplerate=float(device.samplerate or pulse.default_samplerate),
        max_input_channels=device.channels if is_input else 0,
        max_output_channels=0 if is_input else device.channels,
        is_default_input=is_input and device.is_default,
        is_default_output=not is_input and device.is_default,
        description=device.description,
        server_name=device.name,
    )


def resolve_device(name: str, direction: Direction) -> DeviceChoice:
    """Find the device called ``name`` for ``direction``, or fall back to the default.

    The match is exact first, then ignoring case and surrounding spaces, then (a sound
    server's device) by its human name. An empty name means the system default and is not
    a fallback; with a sound server's devices, PortAudio's names for its default ("pulse",
    "default") mean it too. The system default of a sound server is returned unrouted, so
    the stream follows the server's default when that changes.

    Args:
        name: the device name as saved in the settings; empty for the default.
        direction: ``"input"`` for a microphone, ``"output"`` for a speaker.

    Returns:
        The device to open and, when it is not the one asked for, the reason.

    Raises:
        LookupError: there is no usable device for ``direction`` at all.
    """
    devices = [d for d in list_devices() if d.supports(direction)]
    if not devices:
        raise LookupError(f"no audio {direction} device is available")
    served = any(d.server_name for d in devices)
    wanted = name.strip()
    if served and wanted.casefold() in _SERVER_DEFAULT_NAMES:
        wanted = ""
    if wanted:
        found = _find(devices, name, wanted)
        if found is not None:
            return DeviceChoice(found)
    defaults = [
        d for d in devices if (d.is_default_input if direction == "input" else d.is_default_output)
    ]
    default = defaults[0] if defaults else devices[0]
    if served:
        default = dataclasses.replace(default, server_name="")
    if not wanted:
        return DeviceChoice(default)
    kind = "microphone" if direction == "input" else "speaker"
    known_as = sound_server.remembered_description(wanted) or name
    return DeviceChoice(
        default,
        f"the {kind} “{known_as}” was not found; using the system default, “{default.label}”",
    )


def _find(devices: list[AudioDevice], name: str, wanted: str) -> AudioDevice | None:
    for candidate in devices:
        if candidate.name == name:
            return candidate
    folded = wanted.casefold()
    for candidate in devices:
        if candidate.name.strip().casefold() == folded:
            return candidate
    for candidate in devices:
        if candidate.description and candidate.description.strip().casefold() == folded:
            return candidate
    return None
