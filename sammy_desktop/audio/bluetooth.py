"""Whether the microphone is a Bluetooth headset's, so the window can advise against it.

A Bluetooth headset whose microphone is open drops into its call profile: music turns
muffled and media apps pause for as long as any app records from it (USERS.md 17). The
advice is the built-in microphone for input and the headset for sound.

PortAudio sees the sound server's inputs through ALSA's pulse plugin ("pulse", "default"),
which hides what the device is; the sound server (PulseAudio, or PipeWire's pulse server)
knows. :func:`bluetooth_input` asks it through pulsectl (libpulse) for the source's
properties (``device.bus = bluetooth``, ``api.bluez5.*``, a ``bluez_`` name) and falls back
to the names headsets go by ("AirPods", "Headset", "Hands-Free"). Without pulsectl, libpulse
or a sound server it only looks at the name: never an error. :class:`BluetoothCheck` asks
once per input device, off the loop, when the microphone opens.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from sammy_desktop.audio.events import BluetoothMicrophone, MicrophoneInUse
from sammy_desktop.audio.sound_server import connected_client

if TYPE_CHECKING:
    from sammy_desktop.audio.capture import AudioCapture
    from sammy_desktop.eventbus import EventBus, Subscription

__all__ = ["BluetoothCheck", "bluetooth_input", "looks_bluetooth", "source_is_bluetooth"]

_log = logging.getLogger(__name__)

_NAME_PATTERN: Final = re.compile(
    r"airpods|head\s*set|hands[\s-]*free|\bhfp\b|\bhsp\b|bluetooth|bluez|\bbuds\b", re.IGNORECASE
)
# PortAudio's names for "whatever the sound server's default input is".
_SERVER_DEFAULTS: Final = frozenset({"pulse", "default", "sysdefault", "pipewire"})
_CONNECT_TIMEOUT_S: Final = 1.0


def looks_bluetooth(name: str) -> bool:
    """Whether a device name is one headsets go by ("AirPods Pro", "WH-1000XM4 Hands-Free")."""
    return bool(_NAME_PATTERN.search(name))


def source_is_bluetooth(name: str, properties: Mapping[str, str]) -> bool:
    """Whether a sound server's source, by its name and properties, is a Bluetooth device."""
    if properties.get("device.bus") == "bluetooth" or properties.get("device.api") == "bluez5":
        return True
    if any(key.startswith("api.bluez5.") for key in properties):
        return True
    if name.startswith("bluez_"):
        return True
    return looks_bluetooth(properties.get("device.description", ""))


def bluetooth_input(device_name: str, label: str = "") -> str | None:
    """The name of the Bluetooth input ``device_name`` stands for, or None.

    Blocks for up to a second talking to the sound server: call it off the loop.

    Args:
        device_name: the device the microphone opened: a PortAudio device ("pulse" and
            "default" mean the sound server's default input) or a sound server's source.
        label: the name the person knows it by, when it has one (a source's description).
    """
    shown = label or device_name
    if looks_bluetooth(shown):
        return shown
    try:
        return _ask_sound_server(device_name)
    except Exception as exc:  # noqa: BLE001 - ctypes bindings: no server, no libpulse, ...
        _log.debug("the sound server could not say what the microphone is: %r", exc)
        return None


def _ask_sound_server(device_name: str) -> str | None:
    pulse = connected_client("sammy-desktop-device-check", _CONNECT_TIMEOUT_S)
    try:
        sources = list(pulse.source_list())
        wanted = device_name.strip()
        source = next((s for s in sources if wanted and wanted in (s.name, s.description)), None)
        if source is None and (not wanted or wanted.casefold() in _SERVER_DEFAULTS):
            default = pulse.server_info().default_source_name
            source = next((s for s in sources if s.name == default), None)
        if source is None:
            return None
        properties = {str(k): str(v) for k, v in dict(source.proplist).items()}
        if source_is_bluetooth(str(source.name), properties):
            return str(source.description or source.name)
        return None
    finally:
        pulse.close()


class BluetoothCheck:
    """Asks, the first time the microphone opens on each device, whether it is Bluetooth.

    Emits :class:`BluetoothMicrophone` when it is; the window says what that costs once.

    Args:
        capture: the microphone (its device is read when it opens).
        bus: where ``MicrophoneInUse`` comes from and ``BluetoothMicrophone`` goes.
    """

    def __init__(self, capture: AudioCapture, bus: EventBus) -> None:
        self._capture = capture
        self._bus = bus
        self._checked: set[str] = set()
        self._subscription: Subscription | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Listen for the microphone opening."""
        if self._subscription is None:
            self._subscription = self._bus.subscribe(MicrophoneInUse, self._on_in_use)

    async def stop(self) -> None:
        """Stop listening; a check under way is left to finish quietly."""
        if self._subscription is not None:
            self._subscription.cancel()
            self._subscription = None
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def _on_in_use(self, event: MicrophoneInUse) -> None:
        device = self._capture.device
        if not event.in_use or device is None or device.name in self._checked:
            return
        if self._task is not None and not self._task.done():
            return
        self._checked.add(device.name)
        self._task = asyncio.get_running_loop().create_task(
            self._check(device.name, device.description), name="audio-bluetooth-check"
        )

    async def _check(self, name: str, label: str) -> None:
        found = await asyncio.to_thread(bluetooth_input, name, label)
        if found is not None:
            _log.info("the microphone %r is a Bluetooth headset's (%s)", name, found)
            self._bus.emit(BluetoothMicrophone(found))
