"""The audio layer: microphone capture, speaker playback, echo cancellation, devices.

sounddevice (PortAudio) + numpy + soxr, and WebRTC's audio processing through ``livekit``.
No Qt here, and nothing from ``core``, ``tools`` or ``sim``: the core drives this layer and
listens to its events (:mod:`sammy_desktop.audio.events`).

Threading: PortAudio callbacks run on PortAudio's threads and only hand data to the asyncio
loop (``call_soon_threadsafe``); everything else, including every public method here, runs
on the loop.

The modules:

* ``engine``: :class:`AudioEngine`, the microphone, the speaker and the echo canceller wired
  together, with the talk-mode policy; ``duplex``: its half-duplex gate;
* ``capture``: :class:`AudioCapture`, the microphone as wire-rate blocks, pre-roll, standby;
* ``playback``: :class:`AudioPlayback`, the speaker's stream, composing ``jitter`` (the
  speech queue and its adaptive depth), ``effects`` (earcons mixed on top), ``played`` (the
  played blocks reported back to the loop) and ``standby`` (when the speaker rests);
* ``stream_owner``: the stream part the capture and the playback share, over ``supervisor``
  (a stream kept alive through failures and device switches) and ``devices`` (finding them;
  on Linux the sound server's own, from ``sound_server``, which also watches them change);
* ``echo``: the WebRTC echo canceller; ``levels``, ``preroll``, ``resampling``: small pure
  parts; the clock and timers every part takes are ``sammy_desktop.scheduling``'s;
* ``events``: what this layer tells the rest of the app.
"""

from sammy_desktop.audio.capture import AudioCapture
from sammy_desktop.audio.devices import AudioDevice, DeviceChoice, list_devices, resolve_device
from sammy_desktop.audio.echo import EchoCanceller
from sammy_desktop.audio.engine import AudioEngine
from sammy_desktop.audio.events import (
    AudioDevicesChanged,
    AudioLevel,
    DeviceFallback,
    DeviceSwitched,
    PlaybackDrained,
    PlaybackStarted,
    StreamError,
    StreamRecovered,
)
from sammy_desktop.audio.levels import SILENCE_DBFS, rms_dbfs
from sammy_desktop.audio.playback import AudioPlayback

__all__ = [
    "SILENCE_DBFS",
    "AudioCapture",
    "AudioDevice",
    "AudioDevicesChanged",
    "AudioEngine",
    "AudioLevel",
    "AudioPlayback",
    "DeviceChoice",
    "DeviceFallback",
    "DeviceSwitched",
    "EchoCanceller",
    "PlaybackDrained",
    "PlaybackStarted",
    "StreamError",
    "StreamRecovered",
    "list_devices",
    "resolve_device",
    "rms_dbfs",
]
