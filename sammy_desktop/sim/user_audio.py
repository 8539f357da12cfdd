"""What the person said since the last turn fired: the microphone audio, and its end.

:class:`UserAudio` keeps the microphone audio a turn may echo (at most 120 s, since a
hands-free stream never stops; a new sample rate starts it afresh) and feeds the energy VAD
(:class:`~sammy_desktop.sim.pcm.EnergyVad`) that hears the end of an utterance when the
client leaves activity detection to the service.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sammy_desktop.sim.pcm import EnergyVad, trim_silence
from sammy_desktop.wire_audio import INPUT_RATE

if TYPE_CHECKING:
    from sammy_desktop.sim.pcm import VadSettings

__all__ = ["UserAudio"]

# Keep at most this much microphone audio for echo (hands-free streams never stop).
_MAX_USER_AUDIO_SECONDS = 120


class UserAudio:
    """The person's audio on one connection.

    Args:
        vad: The scenario's VAD settings (its threshold also trims the speech).

    Attributes:
        sample_rate: The rate of the audio kept.
    """

    def __init__(self, vad: VadSettings) -> None:
        self._settings = vad
        self._vad = EnergyVad(vad)
        self._audio = bytearray()
        self.sample_rate = INPUT_RATE

    def add(self, pcm: bytes, sample_rate: int) -> None:
        """Keep a chunk of microphone audio."""
        if sample_rate != self.sample_rate:
            self._audio.clear()
            self.sample_rate = sample_rate
        self._audio += pcm
        limit = _MAX_USER_AUDIO_SECONDS * self.sample_rate * 2
        if len(self._audio) > limit:
            del self._audio[: len(self._audio) - limit]

    def speech_ended(self, pcm: bytes, sample_rate: int) -> bool:
        """Feed the VAD a chunk; True when it hears the end of an utterance."""
        return self._vad.feed(pcm, sample_rate)

    def stream_ended(self) -> bool:
        """The microphone paused (audioStreamEnd); True when that ends an utterance."""
        return self._vad.end_of_stream()

    def restart(self) -> None:
        """Forget the audio so far and the VAD's state (the person starts a new turn)."""
        self._audio.clear()
        self._vad.reset()

    def take(self, *, consume: bool) -> tuple[bytes, bytes]:
        """The audio kept and its speech (the silence around it cut, or all of it).

        Args:
            consume: Start afresh after this (a turn fired), or keep it (an injected action).
        """
        audio = bytes(self._audio)
        if consume:
            self._audio.clear()
        speech = trim_silence(
            audio, sample_rate=self.sample_rate, threshold_rms=self._settings.threshold_rms
        )
        return audio, speech
