"""The floor under an answer's first sound: how each kind of speaker stream starts.

The app and the starter-style client reach the speaker in different ways. The app plays
from a PortAudio callback stream that rests between answers (its device buffer can be
dropped at a barge-in, the echo canceller sees each block, and a resting stream costs no
CPU), and the answer's first frame starts it on a worker thread while the loop waits for
the device to take it (sammy_desktop/audio/playback.py, audio/standby.py). The starter
writes into a blocking stream that runs dry between answers (bench/reference_client.py).
Through ALSA's pulse plugin a start from rest re-creates the PulseAudio stream
(alsa-plugins ``pulse_prepare``), where a write into a dry stream only resumes it.

Two minimal clients on the rig measure what that costs on its own, with nothing else in
the process: the same tone, from the moment the client is given it to its first sound on
the rig's speaker channel, taking turns. The difference of their medians is the part of
the app's sent -> sound that no work in the app can take out while it keeps its stream.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import sounddevice as sd

from bench.dated_recording import DatedRecorder
from bench.pulse_rig import SPEAKER, StereoRig
from sammy_desktop.audio.sound_server import routed

RATE = 48_000
"""The app's speaker rate on the rig's sinks."""
BLOCK = RATE // 200
"""5 ms callbacks, as the app's."""
DEVICE_LATENCY_S = 0.015
"""The app's device buffer (AudioPlayback's ``device_latency_ms``)."""
PRIMING_BLOCKS = 4
"""A started stream's first blocks, which PortAudio fills before the device plays any."""
TONE_S = 0.2
PAUSE_S = 0.4
"""Between trials: time for the tone to have played and a dry stream to have run dry."""
ONSET_THRESHOLD = 0.05
RIGHT = 1
"""The rig's speaker channel."""


def _tone() -> bytes:
    samples = np.arange(int(RATE * TONE_S))
    return (np.sin(samples * 2 * np.pi * 440 / RATE) * 12000).astype(np.int16).tobytes()


class _StartedFromRest:
    """A callback stream at rest, started on a worker when a sound is given (the app's way)."""

    def __init__(self) -> None:
        self._sound = b""
        self._at = 0
        self._filled = threading.Event()
        self._start = threading.Condition()
        self._wanted = False
        self._closing = False
        with routed("output", SPEAKER):
            self._stream = sd.RawOutputStream(
                samplerate=RATE,
                channels=1,
                dtype="int16",
                blocksize=BLOCK,
                latency=DEVICE_LATENCY_S,
                callback=self._callback,
            )
        self._worker = threading.Thread(target=self._starts, name="start-floor", daemon=True)
        self._worker.start()

    def _callback(self, outdata: Any, frames: int, time_info: Any, status: Any) -> None:
        size = frames * 2
        chunk = self._sound[self._at : self._at + size]
        outdata[: len(chunk)] = chunk
        outdata[len(chunk) :] = bytes(size - len(chunk))
        self._at += size
        if self._at >= PRIMING_BLOCKS * size:
            self._filled.set()

    def _starts(self) -> None:
        while True:
            with self._start:
                self._start.wait_for(lambda: self._wanted or self._closing)
                if self._closing:
                    return
                self._wanted = False
            self._stream.start()

    def play(self, sound: bytes) -> float:
        """Give it ``sound``; returns the moment it was given."""
        self._filled.clear()
        given = time.monotonic()
        with self._start:
            self._wanted = True
            self._start.notify()
        self._sound, self._at = sound, 0
        self._filled.wait(0.01)  # the app's FirstFill wait, with the GIL released
        return given

    def rest(self) -> None:
        self._stream.stop()

    def close(self) -> None:
        with self._start:
            self._closing = True
            self._start.notify()
        self._worker.join(5)
        self._stream.close()


class _WrittenWhenDry:
    """A blocking stream left running dry, written to when a sound is given (the starter's)."""

    def __init__(self) -> None:
        with routed("output", SPEAKER):
            self._stream = sd.RawOutputStream(
                samplerate=RATE, channels=1, dtype="int16", latency="low"
            )
        self._stream.start()

    def play(self, sound: bytes) -> float:
        given = time.monotonic()
        self._stream.write(sound)
        return given

    def rest(self) -> None:
        """It stays running, dry."""

    def close(self) -> None:
        self._stream.close()


@dataclass(frozen=True)
class StartFloor:
    """Sound given -> its first sound on the rig's speaker channel, per trial, in ms."""

    from_rest_ms: list[float]
    """A callback stream started from rest on a worker (the app's way)."""
    written_dry_ms: list[float]
    """A write into a blocking stream left running dry (the starter's way)."""


@contextlib.contextmanager
def _clients() -> Iterator[tuple[_StartedFromRest, _WrittenWhenDry]]:
    from_rest = _StartedFromRest()
    try:
        written = _WrittenWhenDry()
        try:
            yield from_rest, written
        finally:
            written.close()
    finally:
        from_rest.close()


def start_floor(rig: StereoRig, trials: int) -> StartFloor:
    """``trials`` sounds from each minimal client on ``rig``, taking turns."""
    sound = _tone()
    results: dict[str, list[float]] = {"rest": [], "dry": []}
    with DatedRecorder(rig.monitor) as recorder, _clients() as (from_rest, written):
        for trial in range(trials):
            turns: list[tuple[str, _StartedFromRest | _WrittenWhenDry]] = [
                ("rest", from_rest),
                ("dry", written),
            ]
            for name, client in turns if trial % 2 == 0 else turns[::-1]:
                time.sleep(PAUSE_S)
                given = client.play(sound)
                onset = recorder.wait_onset(given, RIGHT, ONSET_THRESHOLD, timeout=5.0)
                results[name].append((onset - given) * 1000)
                time.sleep(TONE_S + 0.05)
                client.rest()
    return StartFloor(results["rest"], results["dry"])
