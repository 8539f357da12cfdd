"""Events the audio layer emits on the :class:`~sammy_desktop.eventbus.EventBus`.

The meters listen to :class:`AudioLevel`; the agent core listens to :class:`PlaybackStarted`
and :class:`PlaybackDrained` (AssistantSpeaking -> Ready); the status bar shows
:class:`DeviceFallback`, :class:`DeviceSwitched`, :class:`StreamError` and
:class:`StreamRecovered`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sammy_desktop.eventbus import Event

__all__ = [
    "AudioLevel",
    "DeviceFallback",
    "DeviceSwitched",
    "Direction",
    "PlaybackDrained",
    "PlaybackStarted",
    "StreamError",
    "StreamRecovered",
]

Direction = Literal["input", "output"]


@dataclass(frozen=True, slots=True)
class AudioLevel(Event):
    """The RMS level of the microphone or of what we play, about 30 times a second.

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
        used: the name of the device actually opened.
        reason: why the requested device was not used, for the person to read.
        direction: which stream this is about.
    """

    requested: str
    used: str
    reason: str
    direction: Direction


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
