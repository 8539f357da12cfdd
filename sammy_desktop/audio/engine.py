"""The audio engine: capture, playback and echo cancellation wired together, plus the policy.

The policy: with echo cancellation on, the microphone stays open while the assistant speaks,
so a person can talk over it (barge-in). With it off, in hands-free mode the microphone is
gated while speech plays (half-duplex, :mod:`sammy_desktop.audio.duplex`) so the assistant
never hears and interrupts itself. In push-to-talk mode no gate is needed: the person decides
when the microphone counts. This is the one place that gate lives: the engine knows when
speech really sounds and whether the echo canceller really runs.

Push-to-talk also lets the microphone rest: by default its stream is open only while the
person talks (:mod:`sammy_desktop.audio.mic_policy` decides when it opens and closes, from
the setting "Microphone between turns"); where it is kept open between turns, the capture is
in standby (see :mod:`sammy_desktop.audio.capture`) and only keeps the pre-roll. The talk key
(:meth:`AudioEngine.begin_talk` / :meth:`AudioEngine.end_talk`), hands-free mode and audible
playback (through the echo canceller) bring it back. The speaker's stream rests
whenever nothing plays (see :mod:`sammy_desktop.audio.playback`); playing wakes it, and so
does the talk key going up (the answer then finds it running).

Hands-free also lets the quiet microphone reach the loop a few blocks at a time while nobody
has spoken for the service's silence duration and a margin (see ``capture``): the saving of
the core's larger quiet chunks, one layer down.

Noise suppression runs in hands-free mode only. There the service's voice detection hears
the room all the time, and a steady noise (a fan, traffic) must not count as the person
speaking (false barge-ins). In push-to-talk the person says when the microphone counts, and
the suppressor's 6 ms are latency for nothing (the echo canceller's own 8 ms stay: it is
what lets the person talk over the answer). See docs/benchmarks.md for the breakdown.

On Linux the engine also watches the sound server (:class:`~.sound_server.DeviceWatch`):
when a device comes or goes, or a default moves, both streams look their device up again
and :class:`~.events.AudioDevicesChanged` tells the rest of the app.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Final

from sammy_desktop.audio.bluetooth import BluetoothCheck
from sammy_desktop.audio.capture import AudioCapture
from sammy_desktop.audio.duplex import HalfDuplexGate
from sammy_desktop.audio.echo import EchoCanceller
from sammy_desktop.audio.events import AudioDevicesChanged, PlaybackDrained, PlaybackStarted
from sammy_desktop.audio.mic_policy import MicrophonePolicy, StartTurn
from sammy_desktop.audio.playback import AudioPlayback
from sammy_desktop.audio.sound_server import DeviceWatch
from sammy_desktop.config.settings import MicBetweenTurns, Settings, TalkMode
from sammy_desktop.eventbus import EventBus, Subscription
from sammy_desktop.scheduling import Scheduler
from sammy_desktop.wire_audio import SPEECH_HANGOVER_MARGIN_MS

__all__ = ["AudioEngine"]

# After this long with nothing to play, the speaker's stream rests (see AudioPlayback). Short:
# a resting stream costs nothing and starts again in milliseconds, into an empty device buffer.
_OUTPUT_STANDBY_MS: Final = 50
# After the talk key goes up, the speaker stays ready this long for the answer.
_ANSWER_EXPECTED_S: Final = 3.0


class AudioEngine:
    """Owns the microphone, the speaker, the echo canceller and the half-duplex policy.

    Args:
        bus: where every audio event goes.
        settings: take devices, pre-roll, echo cancellation and talk mode from here;
            explicit keyword arguments below override it.
        input_device: the microphone name; empty for the system default.
        output_device: the speaker name; empty for the system default.
        echo_cancellation: start with echo cancellation on.
        hands_free: whether the talk mode is hands-free (decides the half-duplex fallback).
        pre_roll_ms: the push-to-talk pre-roll.
        mic_between_turns: what the microphone does between push-to-talk turns.
        block_ms: the capture block size.
        scheduler: the clock and timers of the half-duplex gate and of the microphone's
            *keep ready* (the running loop's by default).
    """

    def __init__(
        self,
        bus: EventBus,
        settings: Settings | None = None,
        *,
        input_device: str | None = None,
        output_device: str | None = None,
        echo_cancellation: bool | None = None,
        hands_free: bool | None = None,
        pre_roll_ms: int | None = None,
        mic_between_turns: MicBetweenTurns | None = None,
        block_ms: int = 10,
        scheduler: Scheduler | None = None,
    ) -> None:
        base = settings if settings is not None else Settings()
        self._bus = bus
        self._hands_free = (
            base.talk_mode is TalkMode.HANDS_FREE if hands_free is None else hands_free
        )
        self.echo_canceller = EchoCanceller(
            enabled=base.echo_cancellation if echo_cancellation is None else echo_cancellation,
            noise_suppression=self._hands_free,
            push_to_talk=not self._hands_free,
        )
        self.playback = AudioPlayback(
            bus,
            device=base.output_device if output_device is None else output_device,
            echo_canceller=self.echo_canceller,
            standby_after_ms=_OUTPUT_STANDBY_MS,
        )
        self.capture = AudioCapture(
            bus,
            device=base.input_device if input_device is None else input_device,
            block_ms=block_ms,
            pre_roll_ms=base.pre_roll_ms if pre_roll_ms is None else pre_roll_ms,
            echo_canceller=self.echo_canceller,
            standby_when_idle=True,
            # The played blocks' reports ride along with the microphone's hand-offs.
            before_block=self.playback.pump,
        )
        self.capture.keep_live(self._hands_free)
        self._silence_ms = base.silence_duration_ms
        self._apply_quiet_holding()
        self.microphone = MicrophonePolicy(
            self.capture,
            bus,
            mode=base.mic_between_turns if mic_between_turns is None else mic_between_turns,
            hands_free=self._hands_free,
            scheduler=scheduler,
        )
        self._bluetooth = BluetoothCheck(self.capture, bus)
        self.device_watch = DeviceWatch(self._on_devices_changed)
        """The sound server's device events (nothing happens without a sound server)."""
        self._forced_half_duplex: bool | None = None
        self._subscriptions: list[Subscription] = []
        self._gate = HalfDuplexGate(
            self.capture,
            wanted=lambda: self.half_duplex,
            playing=lambda: self.playback.is_playing,
            scheduler=scheduler,
        )

    @property
    def half_duplex(self) -> bool:
        """Whether the microphone is gated while speech plays."""
        if self._forced_half_duplex is not None:
            return self._forced_half_duplex
        return self._hands_free and not self.echo_canceller.enabled

    async def start(self) -> None:
        """Open the speaker, and the microphone where it stays open (see ``mic_policy``)."""
        self._subscriptions = [
            self._bus.subscribe(PlaybackStarted, self._on_playback_started),
            self._bus.subscribe(PlaybackDrained, self._on_playback_drained),
        ]
        await self.playback.start()
        self._bluetooth.start()
        await self.microphone.start()
        if sys.platform.startswith("linux"):
            self.device_watch.start()

    async def stop(self) -> None:
        """Close both streams (the microphone's gate opens: a new start begins ungated)."""
        for subscription in self._subscriptions:
            subscription.cancel()
        self._subscriptions = []
        self._gate.release()
        await self.device_watch.stop()
        await self.microphone.stop()
        await self._bluetooth.stop()
        await self.playback.stop()

    # -- shortcuts to the parts, for callers that only need the engine -------------------

    @property
    def is_playing(self) -> bool:
        """Whether speech is queued or sounding."""
        return self.playback.is_playing

    def play(self, pcm24k: bytes) -> None:
        """Queue the model's PCM16 mono 24 kHz speech (see :meth:`AudioPlayback.play`)."""
        self.playback.play(pcm24k)

    def end_of_turn(self) -> None:
        """No more speech follows for now (see :meth:`AudioPlayback.end_of_turn`)."""
        self.playback.end_of_turn()

    def flush(self) -> None:
        """Barge-in: silence the speaker now (see :meth:`AudioPlayback.flush`)."""
        self.playback.flush()

    def set_consumer(self, callback: Callable[[bytes], None] | None) -> None:
        """Receive the microphone's 16 kHz PCM16 blocks (see :meth:`AudioCapture.set_consumer`)."""
        self.capture.set_consumer(callback)

    def begin_talk(self, start_turn: StartTurn) -> bool:
        """Talk pressed: ``start_turn(pre_roll)`` once the microphone hears; blocks flow.

        With the stream open that is now, with the pre-roll from just before the press;
        with it closed, the stream opens and the turn starts at its first block (see
        :meth:`MicrophonePolicy.begin_talk`).

        Returns:
            What ``start_turn`` returned when it ran now; True while the microphone opens.
        """
        return self.microphone.begin_talk(start_turn)

    def end_talk(self) -> None:
        """The talk key is up: the microphone may close, the speaker gets ready to answer."""
        self.microphone.end_talk()
        self.playback.expect_speech(_ANSWER_EXPECTED_S)

    # -- policy ---------------------------------------------------------------------------

    def set_echo_cancellation(self, on: bool) -> None:
        """Switch echo cancellation (the settings toggle); applies at once."""
        self.echo_canceller.enabled = on
        self._apply_gate()

    def set_half_duplex(self, on: bool | None) -> None:
        """Force half-duplex on or off; ``None`` goes back to the automatic policy."""
        self._forced_half_duplex = on
        self._apply_gate()

    def set_hands_free(self, on: bool) -> None:
        """Tell the engine the talk mode (hands-free: half-duplex fallback, mic always live)."""
        self._hands_free = on
        self._tune_canceller()
        self.capture.keep_live(on)
        self._apply_quiet_holding()
        self.microphone.set_hands_free(on)
        self._apply_gate()

    def set_mic_between_turns(self, mode: MicBetweenTurns) -> None:
        """What the microphone does between push-to-talk turns; applies at once."""
        self.microphone.set_mode(mode)

    def play_effect(self, pcm24k: bytes) -> None:
        """Mix an interface sound into the output (see :meth:`AudioPlayback.play_effect`)."""
        self.playback.play_effect(pcm24k)

    def apply_settings(self, settings: Settings) -> None:
        """Apply the settings that can change while running.

        Echo cancellation, talk mode and the microphone between turns apply at once; a
        changed input or output device reopens that stream on the new device in the
        background (the capture and playback objects stay the same; see
        :meth:`AudioPlayback.set_device`). The pre-roll length needs a restart.
        """
        self._hands_free = settings.talk_mode is TalkMode.HANDS_FREE
        self._tune_canceller()
        self.capture.keep_live(self._hands_free)
        self._silence_ms = settings.silence_duration_ms
        self._apply_quiet_holding()
        self.microphone.set_hands_free(self._hands_free)
        self.microphone.set_mode(settings.mic_between_turns)
        self.set_echo_cancellation(settings.echo_cancellation)
        self.capture.set_device(settings.input_device)
        self.playback.set_device(settings.output_device)

    def _tune_canceller(self) -> None:
        """The canceller's clean-up for the talk mode.

        Hands-free: the noise suppressor, and the canceller on for its whole idle delay (the
        service's voice detection hears the microphone); push-to-talk: neither.
        """
        self.echo_canceller.noise_suppression = self._hands_free
        self.echo_canceller.push_to_talk = not self._hands_free

    def _on_devices_changed(self) -> None:
        self.capture.devices_changed()
        self.playback.devices_changed()
        self._bus.emit(AudioDevicesChanged())

    def _apply_quiet_holding(self) -> None:
        """Hands-free: quiet blocks reach the loop a few at a time (see ``capture``)."""
        self.capture.hold_quiet(
            self._silence_ms + SPEECH_HANGOVER_MARGIN_MS if self._hands_free else None
        )

    def _apply_gate(self) -> None:
        self._gate.update()

    def _on_playback_started(self, _event: PlaybackStarted) -> None:
        self._gate.speech_started()

    def _on_playback_drained(self, event: PlaybackDrained) -> None:
        self._gate.speech_drained(interrupted=event.interrupted)
