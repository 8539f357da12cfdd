"""The effects mixer: interface sounds (earcons) added on top of whatever the speaker plays.

Effects take a queue of their own beside the speech. They are part of what the device plays,
so the echo canceller gets them in its far-end reference, but they are not the assistant
speaking: the speech's flush (barge-in) leaves them alone, since the "listening" earcon comes
exactly at barge-in and must not be cut by it. Only a device change drops them (they would
come out late, at the wrong rate).

The loop queues whole sounds (:meth:`EffectsMixer.add`); the device callback adds them to
its block (:meth:`EffectsMixer.mix_into`), clipping the sum to 16 bits, never wrapping it
around (a wrap is a loud click). At most ``max_effects_ms`` may wait: a burst of earcons
must not queue up sounds that play seconds late.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from sammy_desktop.audio.resampling import StreamResampler
from sammy_desktop.wire_audio import OUTPUT_RATE, SAMPLE_WIDTH

__all__ = ["EffectsMixer"]


class EffectsMixer:
    """Effect sounds waiting to be mixed into the device's blocks.

    Threading: :meth:`mix_into` runs on the device callback's thread, everything else on
    the loop. The count of queued effect bytes has one writer per side (queued: the loop,
    played: the callback), and the loop drops the queue by bumping an epoch the callback
    checks, so no lock is needed.

    Args:
        max_effects_ms: the most effect audio that may wait to be played.
    """

    def __init__(self, *, max_effects_ms: int = 3000) -> None:
        self._max_effects_s = max_effects_ms / 1000
        self._rate = OUTPUT_RATE
        self._effects: collections.deque[memoryview] = collections.deque()
        self._bytes_queued = 0  # written by the loop
        self._bytes_played = 0  # written by the callback
        self._epoch = 0  # bumped by the loop to drop queued effects
        # The callback's place in the queue; written by the callback only.
        self._effect: memoryview | None = None
        self._effect_offset = 0
        self._epoch_seen = 0

    # -- the loop's side ----------------------------------------------------------------

    @property
    def buffered_ms(self) -> float:
        """Effect audio queued but not yet handed to the device, in milliseconds."""
        waiting = max(0, self._bytes_queued - self._bytes_played)
        return waiting / SAMPLE_WIDTH / self._rate * 1000

    @property
    def is_idle(self) -> bool:
        """Whether every queued effect has been handed to the device."""
        return self._bytes_queued <= self._bytes_played

    def set_rate(self, rate: int) -> None:
        """Mix at the device rate ``rate`` from now on; effects queued at another are dropped."""
        if rate != self._rate:
            self.drop()
            self._rate = rate

    def add(self, samples: np.ndarray) -> bool:
        """Queue one whole sound, int16 samples at the wire's output rate.

        Returns:
            ``False`` when it was dropped: more than ``max_effects_ms`` would be waiting.
        """
        if self._rate != OUTPUT_RATE:
            # One whole sound: resample it in one go, filter tail included.
            resampler = StreamResampler(OUTPUT_RATE, self._rate)
            samples = np.concatenate([resampler.process(samples), resampler.drain()])
        out = samples.astype(np.int16, copy=False).tobytes()
        waiting = self._bytes_queued - self._bytes_played
        if waiting + len(out) > self._max_effects_s * self._rate * SAMPLE_WIDTH:
            return False
        self._bytes_queued += len(out)
        self._effects.append(memoryview(out))
        return True

    def drop(self) -> None:
        """Forget every queued effect, also the one the callback is in the middle of."""
        self._effects.clear()
        self._epoch += 1
        self._bytes_queued = self._bytes_played

    # -- the device callback's side -----------------------------------------------------

    def mix_into(self, outdata: Any, needed: int) -> bool:
        """Add queued effects to ``outdata[:needed]`` (device thread).

        Args:
            outdata: the device's buffer, already holding the block's speech or silence.
            needed: its length in bytes.

        Returns:
            Whether any effect was mixed in.
        """
        if not self._effects and self._effect is None:
            return False
        if self._epoch != self._epoch_seen:
            # The loop dropped the effects (device switch): forget the one half played.
            self._epoch_seen = self._epoch
            self._effect = None
        mixed = 0
        block: np.ndarray | None = None
        while mixed < needed:
            effect = self._effect
            if effect is None:
                try:
                    effect = self._effects.popleft()
                except IndexError:
                    break
                self._effect = effect
                self._effect_offset = 0
            offset = self._effect_offset
            take = min(needed - mixed, len(effect) - offset)
            if block is None:
                block = np.frombuffer(outdata, dtype=np.int16, count=needed // 2).astype(np.int32)
            part = np.frombuffer(effect[offset : offset + take], dtype=np.int16)
            block[mixed // 2 : (mixed + take) // 2] += part
            mixed += take
            offset += take
            self._bytes_played += take
            if offset >= len(effect):
                self._effect = None
            else:
                self._effect_offset = offset
        if block is None:
            return False
        # Speech plus an earcon may exceed 16 bits: clip, never wrap (a wrap is a loud click).
        np.clip(block, -32768, 32767, out=block)
        outdata[:needed] = block.astype(np.int16).tobytes()
        return True
