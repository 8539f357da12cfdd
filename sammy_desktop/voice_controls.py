"""What the window drives and hears of the voice, between it and the agent and audio engine.

:class:`VoiceControls` is the agent as the window drives it, with the microphone opened
(or its pre-roll taken) on every talk press; :class:`EarconPlayer` plays the interface
sounds through the audio engine's effects; :class:`SilentSink` stands in for the speaker
when there is no audio at all. Each works without audio (``audio`` None): the
conversation goes on as text. :class:`~sammy_desktop.desktop_app.DesktopApp` builds them
once and hands them on.
"""

from __future__ import annotations

import logging
import wave
from typing import TYPE_CHECKING

from sammy_desktop.config import TalkMode
from sammy_desktop.wire_audio import OUTPUT_RATE, SAMPLE_WIDTH

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from sammy_desktop.audio import AudioEngine
    from sammy_desktop.core import AgentCore, AgentState
    from sammy_desktop.core.events import Speaker
    from sammy_desktop.core.screen import VideoFrame
    from sammy_desktop.ui import Assets

__all__ = ["CONTINUED_ELSEWHERE", "EarconPlayer", "SilentSink", "VoiceControls"]

_log = logging.getLogger(__name__)

CONTINUED_ELSEWHERE = "you continued an earlier conversation"
"""Why a conversation ended when the person continued another one from the History window."""


class VoiceControls:
    """What the window drives: the agent, with the microphone opened for every press.

    The window knows nothing of audio; pressing talk here opens the microphone (or, where
    it is kept ready, takes the last few hundred milliseconds it kept, so the first syllable
    said as the key goes down is sent too) and starts the turn when it hears. Everything
    else is the agent's own API.
    """

    def __init__(self, agent: AgentCore, audio: AudioEngine | None) -> None:
        self._agent = agent
        self._audio = audio

    @property
    def state(self) -> AgentState:
        """The agent's state."""
        return self._agent.state

    async def start(self) -> None:
        """Open a conversation."""
        await self._agent.start()

    async def stop(self) -> None:
        """Close the conversation."""
        await self._agent.stop()

    async def continue_conversation(
        self, earlier: Sequence[tuple[Speaker, str]], *, continues: str
    ) -> None:
        """End the conversation running, if any, and start one that continues ``continues``.

        The model hears ``earlier`` (that conversation's final lines) as its history before
        anything new is said (``AgentCore.start``); the new session's history names the
        one it continues.
        """
        if self._agent.state.is_running:
            await self._agent.end_session(CONTINUED_ELSEWHERE)
        await self._agent.start(earlier=earlier, continues=continues)

    async def end_session(self, reason: str) -> None:
        """End the conversation for good."""
        await self._agent.end_session(reason)

    def begin_talk(self, pre_roll: bytes = b"") -> bool:
        """Talk pressed: the turn starts once the microphone hears (see ``audio.mic_policy``).

        An open microphone starts it now, with the pre-roll it kept; a closed one is opened
        and the turn starts at its first block (``MicrophoneListening``), or not at all
        (``MicrophoneUnavailable``). False when there is no conversation to talk to.
        """
        if self._audio is None or pre_roll:
            return self._agent.begin_talk(pre_roll)
        if not self._agent.state.is_running:
            return False
        return self._audio.begin_talk(self._agent.begin_talk)

    def end_talk(self) -> None:
        """Talk released: the turn's end goes out first, then the microphone may close."""
        self._agent.end_talk()
        if self._audio is not None:
            self._audio.end_talk()

    def send_text(self, text: str) -> bool:
        """A typed message."""
        return self._agent.send_text(text)

    def send_video(self, frame: VideoFrame) -> bool:
        """One picture of the shared screen."""
        return self._agent.send_video(frame)

    def set_screen_sharing(self, active: bool, source: str = "") -> None:
        """Sharing the screen started or stopped."""
        self._agent.set_screen_sharing(active, source)

    async def set_talk_mode(self, mode: TalkMode) -> None:
        """Switch push-to-talk / hands-free, for the agent and the audio policy."""
        await self._agent.set_talk_mode(mode)
        if self._audio is not None:
            self._audio.set_hands_free(mode is TalkMode.HANDS_FREE)

    async def set_tool_enabled(self, name: str, on: bool) -> bool:
        """Switch a tool, mid-session when possible."""
        return await self._agent.set_tool_enabled(name, on)


class EarconPlayer:
    """Short interface sounds, mixed into the speaker as effects of the audio engine.

    Effects, not speech: the agent does not count an earcon as the assistant speaking and a
    flush (barge-in) does not cut it, while the echo canceller knows it as far end, so the
    microphone does not hear it in hands-free mode (see :meth:`AudioEngine.play_effect`).
    """

    def __init__(self, assets: Assets, audio: AudioEngine | None) -> None:
        self._assets = assets
        self._audio = audio
        self._cache: dict[str, bytes] = {}

    def play(self, name: str) -> None:
        """Play the sound ``name`` from resources/sounds (no-op without a speaker)."""
        if self._audio is None:
            return
        pcm = self._cache.get(name)
        if pcm is None:
            try:
                pcm = _read_effect(self._assets.sound(name))
            except (OSError, wave.Error, LookupError, ValueError) as exc:
                _log.warning("sound %s cannot be played: %s", name, exc)
                return
            self._cache[name] = pcm
        try:
            self._audio.play_effect(pcm)
        except (TypeError, ValueError) as exc:
            _log.warning("sound %s cannot be played: %s", name, exc)


def _read_effect(path: Path) -> bytes:
    """The PCM of an earcon file, which must be what the engine takes: 24 kHz mono PCM16."""
    with wave.open(str(path), "rb") as wav:
        shape = (wav.getframerate(), wav.getnchannels(), wav.getsampwidth())
        if shape != (OUTPUT_RATE, 1, SAMPLE_WIDTH):
            rate, channels, width = shape
            raise ValueError(
                f"{path.name} is {rate} Hz, {channels} channel(s), {8 * width}-bit; "
                f"earcons must be {OUTPUT_RATE} Hz mono {8 * SAMPLE_WIDTH}-bit PCM"
            )
        return wav.readframes(wav.getnframes())


class SilentSink:
    """The speaker when there is no audio at all: the conversation still works as text."""

    def play(self, pcm24k: bytes) -> None:
        """Drop the audio."""

    def flush(self) -> None:
        """Nothing is queued."""

    @property
    def is_playing(self) -> bool:
        """Never playing."""
        return False
