"""Where a click's milliseconds go inside the app: a stamp at each hand-off of the audio path.

Installed by ``bench/app_probe.py`` when ``SAMMY_BENCH_TRACE`` names a file; at exit the
stamps go there as JSON. Nothing in the app changes: the hand-offs are wrapped, and each
wrapper notes when a loud onset (a test tone burst after at least ``QUIET_S`` of quiet at
that stage) passes it, on ``time.monotonic()`` (the simulator's recorder's clock too):

* ``adc``: when the onset's first loud sample was sampled: the capture callback's time
  less PortAudio's ``currentTime - inputBufferAdcTime``, plus its offset in the block
  (PortAudio's ALSA stamps are on the wall clock, so only their difference is used);
* ``callback``: when the capture callback that held it ran;
* ``loop``: when that block was handled on the asyncio loop (before the echo canceller);
* ``apm_out``: when the onset came out of the echo canceller (the same moment as ``loop``
  plus the blocks the canceller's own delay holds it back);
* ``sent``: when the SDK's send of the chunk holding it returned (on the wire);
* ``model_in``: when the simulator's echo of it reached :meth:`AudioPlayback.play`;
* ``fill``: when the speaker's callback copied it into the device buffer;
* ``dac``: when that sample reaches the speaker: the callback's time plus PortAudio's
  ``outputBufferDacTime - currentTime``, plus its offset in the block.

The voice-to-voice rows need no trace: the dated recording (bench/dated_recording.py) sets
each answer's sound beside the simulator's stamps for both clients alike.

The runner pairs each ``adc`` onset with the first onset after it at every later stage
(and with the simulator's receive stamps), so the stages' differences add up to the
click's path from the microphone's converter to the speaker's.
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

LOUD = 2000
"""A sample louder than this is the test tone (the virtual microphone is otherwise silent)."""
QUIET_S = 0.1
"""An onset is loud audio after at least this long without any at the same stage."""

STAGES = ("adc", "callback", "loop", "apm_out", "sent", "model_in", "fill", "dac")


class _Onsets:
    """The onsets seen at one stage."""

    def __init__(self) -> None:
        self.stamps: list[float] = []
        self._last_loud = -1e9

    def offer(self, samples: np.ndarray, rate: int, stamp_of: Any) -> float | None:
        """Note an onset in ``samples`` (mono int16); ``stamp_of(index)`` dates a sample."""
        loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > LOUD)
        if not len(loud):
            return None
        first = int(loud[0])
        stamp = float(stamp_of(first))
        onset = stamp - self._last_loud >= QUIET_S
        # The last loud sample's time, so a long burst is one onset.
        self._last_loud = float(stamp_of(int(loud[-1])))
        if onset:
            self.stamps.append(stamp)
            return stamp
        return None


def install(out: Path) -> Any:
    """Wrap the audio path's hand-offs; returns a function that writes the stamps to ``out``."""
    from sammy_desktop.audio.capture import AudioCapture
    from sammy_desktop.audio.echo import EchoCanceller
    from sammy_desktop.audio.playback import AudioPlayback
    from sammy_desktop.core.live import LiveConnection, RealtimeKind
    from sammy_desktop.wire_audio import INPUT_RATE

    stages = {name: _Onsets() for name in STAGES}
    pending_callback: list[float] = []

    capture_make = AudioCapture._make_callback

    def traced_capture_make(self: AudioCapture, loop: Any, generation: int) -> Any:
        inner = capture_make(self, loop, generation)
        rate = self.device_samplerate or INPUT_RATE

        def callback(indata: Any, frames: int, time_info: Any, status: Any) -> None:
            now = time.monotonic()
            samples = np.frombuffer(bytes(indata), np.int16)
            # PortAudio's ALSA stamps are on the wall clock: keep only their difference.
            ago = float(time_info.currentTime) - float(time_info.inputBufferAdcTime)
            adc = now - (ago if 0.0 < ago < 1.0 else frames / rate)
            if stages["adc"].offer(samples, rate, lambda i: adc + i / rate) is not None:
                stages["callback"].stamps.append(now)
                pending_callback.append(now)
            inner(indata, frames, time_info, status)

        return callback

    on_raw_block = AudioCapture._on_raw_block

    def traced_on_raw_block(
        self: AudioCapture, generation: int, data: bytes, flagged: bool, stamp: float
    ) -> None:
        if pending_callback and stamp >= pending_callback[0]:
            pending_callback.pop(0)
            stages["loop"].stamps.append(time.monotonic())
        on_raw_block(self, generation, data, flagged, stamp)

    process_capture = EchoCanceller.process_capture

    def traced_process_capture(self: EchoCanceller, pcm16k: bytes) -> bytes:
        out = process_capture(self, pcm16k)
        now = time.monotonic()
        stages["apm_out"].offer(np.frombuffer(out, np.int16), INPUT_RATE, lambda _i: now)
        return out

    send_realtime = LiveConnection.send_realtime

    async def traced_send_realtime(self: LiveConnection, item: Any) -> None:
        await send_realtime(self, item)
        if item.kind is RealtimeKind.AUDIO:
            now = time.monotonic()
            stages["sent"].offer(np.frombuffer(item.audio, np.int16), INPUT_RATE, lambda _i: now)

    play = AudioPlayback.play

    def traced_play(self: AudioPlayback, pcm24k: bytes) -> None:
        now = time.monotonic()
        samples = np.frombuffer(bytes(pcm24k), np.int16)
        stages["model_in"].offer(samples, 24_000, lambda _i: now)
        play(self, pcm24k)

    playback_make = AudioPlayback._make_callback

    def traced_playback_make(self: AudioPlayback, loop: Any, generation: int) -> Any:
        inner = playback_make(self, loop, generation)
        rate = self.device_samplerate

        def callback(outdata: Any, frames: int, time_info: Any, status: Any) -> None:
            inner(outdata, frames, time_info, status)
            now = time.monotonic()
            samples = np.frombuffer(bytes(outdata), np.int16)
            ahead = float(time_info.outputBufferDacTime) - float(time_info.currentTime)
            dac = now + (ahead if 0.0 < ahead < 1.0 else 0.0)
            if stages["dac"].offer(samples, rate, lambda i: dac + i / rate) is not None:
                stages["fill"].stamps.append(now)

        return callback

    AudioCapture._make_callback = traced_capture_make  # type: ignore[method-assign]
    AudioCapture._on_raw_block = traced_on_raw_block  # type: ignore[method-assign]
    EchoCanceller.process_capture = traced_process_capture  # type: ignore[method-assign]
    LiveConnection.send_realtime = traced_send_realtime  # type: ignore[method-assign]
    AudioPlayback.play = traced_play  # type: ignore[method-assign]
    AudioPlayback._make_callback = traced_playback_make  # type: ignore[method-assign]

    def write() -> None:
        out.write_text(json.dumps({name: stage.stamps for name, stage in stages.items()}))

    return write


def breakdown(trace: dict[str, list[float]], sim_received: list[float]) -> dict[str, list[float]]:
    """Per click, the milliseconds between consecutive stages (and the whole path).

    ``sim_received``: the simulator's receive stamps of loud onsets, which sit between
    ``sent`` and ``model_in``. A click that did not reach every stage is left out.
    """
    order = [*STAGES[:5], "sim", *STAGES[5:]]
    stamps = {**trace, "sim": sim_received}
    pairs = list(itertools.pairwise(order))
    parts: dict[str, list[float]] = {f"{a} -> {b}": [] for a, b in pairs}
    parts["adc -> dac"] = []
    for start in stamps.get("adc", []):
        path = [start]
        for stage in order[1:]:
            later = [t for t in stamps.get(stage, []) if path[-1] - 0.002 <= t < path[-1] + 0.25]
            if not later:
                break
            path.append(later[0])
        if len(path) != len(order):
            continue
        for (a, b), t0, t1 in zip(pairs, path, path[1:], strict=False):
            parts[f"{a} -> {b}"].append((t1 - t0) * 1000)
        parts["adc -> dac"].append((path[-1] - path[0]) * 1000)
    return parts
