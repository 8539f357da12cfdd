"""Audio devices: listing them for the settings pane and resolving a saved name to a device.

A name saved in the settings may no longer exist (a headset unplugged since, another
computer). :func:`resolve_device` then picks the system default and says why, so the caller
can emit a :class:`~sammy_desktop.audio.events.DeviceFallback` instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sounddevice as sd

from sammy_desktop.audio.events import Direction

__all__ = ["AudioDevice", "DeviceChoice", "list_devices", "resolve_device"]


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
    """

    index: int
    name: str
    host_api: str
    default_samplerate: float
    max_input_channels: int
    max_output_channels: int
    is_default_input: bool
    is_default_output: bool

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
    """List every audio device PortAudio knows, inputs and outputs.

    This talks to the audio system and may take tens of milliseconds: call it from a worker
    thread (``asyncio.to_thread``) when on the event loop.

    Returns:
        The devices in PortAudio's order; an empty list when there are none.
    """
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


def resolve_device(name: str, direction: Direction) -> DeviceChoice:
    """Find the device called ``name`` for ``direction``, or fall back to the default.

    The match is exact first, then ignoring case and surrounding spaces. An empty name
    means the system default and is not a fallback.

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
    wanted = name.strip()
    if wanted:
        for candidate in devices:
            if candidate.name == name:
                return DeviceChoice(candidate)
        for candidate in devices:
            if candidate.name.strip().casefold() == wanted.casefold():
                return DeviceChoice(candidate)
    defaults = [
        d for d in devices if (d.is_default_input if direction == "input" else d.is_default_output)
    ]
    default = defaults[0] if defaults else devices[0]
    if not wanted:
        return DeviceChoice(default)
    kind = "microphone" if direction == "input" else "speaker"
    return DeviceChoice(
        default,
        f"the {kind} {name!r} was not found; using the system default {default.name!r}",
    )
