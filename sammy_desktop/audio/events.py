"""Events the audio layer emits on the :class:`~sammy_desktop.eventbus.EventBus`.

The meters listen to :class:`AudioLevel`; the agent core listens to :class:`PlaybackStarted`
and :class:`PlaybackDrained` (AssistantSpeaking -> Ready); the status bar shows
:class:`DeviceFallback`, :class:`DeviceSwitched`, :class:`StreamError` and
:class:`StreamRecovered`. The talk control follows the microphone
(:class:`MicrophoneOpening`, :class:`MicrophoneListening`, :class:`MicrophoneUnavailable`),
the window's "mic on" mark :class:`MicrophoneInUse`, and a hint :class:`BluetoothMicrophone`.
The devices page lists the devices again on :class:`AudioDevicesChanged`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sammy_desktop.eventbus import Event

__all__ = [
    "AudioDevicesChanged",
    "AudioLevel",
    "BluetoothMicrophone",
    "DeviceFallback",
    "DeviceSwitched",
    "Direction",
    "MicrophoneInUse",
    "MicrophoneListening",
    "MicrophoneOpening",
    "MicrophoneUnavailable",
    "PlaybackDrained",
    "PlaybackStarted",
    "StreamError",
    "StreamRecovered",
]

Direction = Literal["input", "output"]


@dataclass(frozen=True, slots=True)
class AudioLevel(Event):
    """The RMS level of the microphone (about 30 times a second) or of what we play (20).

    Attributes:
        direction: ``"input"`` (microphone, after echo cancellation) or ``"output"``.
        dbfs: RMS level in dB relative to full scale; digital silence reads -100.
    """

    direction: Direction
    dbfs: float


@dataclass(frozen=True, slots=True)
class PlaybackStarted(Event):
    """The first sample of queued speech has been handed to the output device."""


@dataclass(frozen=True, slots=True)
class PlaybackDrained(Event):
    """Queued speech has stopped playing.

    Attributes:
        interrupted: ``True`` when :meth:`AudioPlayback.flush` cut it short (barge-in);
            ``False`` when everything queued was played to the end.
    """

    interrupted: bool = False


@dataclass(frozen=True, slots=True)
class DeviceFallback(Event):
    """The device named in the settings could not be used; another one is used instead.

    Attributes:
        requested: the device name as saved in the settings.
        used: the device actually opened, by the name the person knows it by (a sound
            server's description).
        reason: why the requested device was not used, for the person to read.
        direction: which stream this is about.
    """

    requested: str
    used: str
    reason: str
    direction: Direction


@dataclass(frozen=True, slots=True)
class AudioDevicesChanged(Event):
    """The sound server's devices changed: one was plugged in or went, or a default moved.

    The streams have been told already (one on a device that went falls back, with a
    :class:`DeviceFallback`); lists of devices shown to the person are stale.
    """


@dataclass(frozen=True, slots=True)
class DeviceSwitched(Event):
    """A stream moved to another device at run time (the settings changed) and runs there.

    Attributes:
        direction: which stream moved.
        requested: the device name as now saved in the settings (empty: the default).
        device: the name of the device it runs on now (the default when ``requested``
            was not found; a :class:`DeviceFallback` came before this then).
    """

    direction: Direction
    requested: str
    device: str


@dataclass(frozen=True, slots=True)
class StreamError(Event):
    """A stream failed (device unplugged, PortAudio error); it is being reopened.

    Attributes:
        direction: which stream failed.
        reason: what went wrong, for the person to read.
    """

    direction: Direction
    reason: str


@dataclass(frozen=True, slots=True)
class StreamRecovered(Event):
    """A stream that failed is running again.

    Attributes:
        direction: which stream recovered.
        device: the name of the device it runs on now.
    """

    direction: Direction
    device: str


@dataclass(frozen=True, slots=True)
class MicrophoneInUse(Event):
    """A capture stream was opened (``in_use``) or closed.

    While one is open the operating system shows its microphone indicator, so the window
    shows its own "mic on" mark too.

    Attributes:
        in_use: whether a capture stream is open now.
    """

    in_use: bool


@dataclass(frozen=True, slots=True)
class MicrophoneOpening(Event):
    """A talk press found the microphone closed: it is being opened for the turn.

    :class:`MicrophoneListening` follows once it hears, or :class:`MicrophoneUnavailable`.
    """


@dataclass(frozen=True, slots=True)
class MicrophoneListening(Event):
    """The talk press is heard: the first real input block arrived and the turn started.

    The "listening" cue (the word, the level ring, the start earcon) comes with this, not
    with the key.
    """


@dataclass(frozen=True, slots=True)
class MicrophoneUnavailable(Event):
    """The microphone could not be opened for a talk press; the turn was not started.

    Attributes:
        reason: what the audio system said, for the person to read.
    """

    reason: str


@dataclass(frozen=True, slots=True)
class BluetoothMicrophone(Event):
    """The microphone in use is a Bluetooth headset's (its sound drops while it records).

    Attributes:
        device: the name the sound server gives the input.
    """

    device: str
