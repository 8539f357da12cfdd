"""Drive the private PulseAudio of ``scripts/with-test-services.sh`` from tests.

* :func:`play_into_mic` plays PCM into the sink ``sammy_mic_feed``; the default source
  ``sammy_mic`` (what our capture opens) hears it.
* :class:`MonitorRecorder` records ``sammy_speaker.monitor``: what our playback played.
* :class:`SinkKeepAlive` plays silence into a sink at low latency, so the null sinks run with
  10 ms wakeups instead of idling with up to 2 s blocks (which would add seconds to the first
  callbacks of every stream this test opens).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import time
from pathlib import Path

import numpy as np

MIC_FEED = os.environ.get("SAMMY_TEST_MIC_FEED", "sammy_mic_feed")
MIC = os.environ.get("SAMMY_TEST_MIC", "sammy_mic")
SPEAKER = os.environ.get("SAMMY_TEST_SPEAKER", "sammy_speaker")
SPEAKER_MONITOR = os.environ.get("SAMMY_TEST_SPEAKER_MONITOR", "sammy_speaker.monitor")


def _pa_args(rate: int) -> list[str]:
    return [f"--rate={rate}", "--channels=1", "--format=s16le", "--raw"]


async def play_into_mic(samples: np.ndarray, rate: int) -> None:
    """Play int16 ``samples`` into the virtual microphone and wait until they have played."""
    proc = await asyncio.create_subprocess_exec(
        "pacat",
        "--playback",
        f"--device={MIC_FEED}",
        "--latency-msec=150",
        *_pa_args(rate),
        stdin=asyncio.subprocess.PIPE,
    )
    await asyncio.wait_for(proc.communicate(samples.astype(np.int16).tobytes()), 30)
    assert proc.returncode == 0, f"pacat failed with {proc.returncode}"


class MonitorRecorder:
    """Records a PulseAudio source (default: the virtual speaker's monitor) as int16.

    Args:
        rate: the rate to record at (PulseAudio resamples).
        device: the source to record.
    """

    def __init__(self, rate: int, device: str = SPEAKER_MONITOR) -> None:
        self.rate = rate
        self._device = device
        self._data = bytearray()
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._grown = asyncio.Event()

    @property
    def samples_so_far(self) -> int:
        """How many samples have arrived until now."""
        return len(self._data) // 2

    async def start(self) -> None:
        """Start recording; returns when the first audio has arrived."""
        self._proc = await asyncio.create_subprocess_exec(
            "parec",
            f"--device={self._device}",
            "--latency-msec=5",
            *_pa_args(self.rate),
            stdout=asyncio.subprocess.PIPE,
        )
        self._reader = asyncio.create_task(self._read(), name="monitor-recorder")
        await self.wait_for_samples(1, within=10)

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        while chunk := await self._proc.stdout.read(4096):
            self._data += chunk
            self._grown.set()

    async def wait_for_samples(self, count: int, *, within: float) -> None:
        """Wait until at least ``count`` samples have been recorded."""
        deadline = time.monotonic() + within
        while self.samples_so_far < count:
            self._grown.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"recorded {self.samples_so_far} of {count} samples")
            await asyncio.wait_for(self._grown.wait(), remaining)

    def samples(self) -> np.ndarray:
        """Everything recorded so far."""
        usable = len(self._data) - len(self._data) % 2
        return np.frombuffer(bytes(self._data[:usable]), dtype=np.int16)

    async def stop(self) -> np.ndarray:
        """Stop recording and return everything recorded."""
        if self._proc is not None and self._proc.returncode is None:
            self._proc.terminate()
            await asyncio.wait_for(self._proc.wait(), 10)
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(self._reader, 10)
        return self.samples()


class SinkKeepAlive:
    """Plays digital silence into sinks at 10 ms latency (see the module docstring)."""

    def __init__(self, *sinks: str) -> None:
        self._sinks = sinks
        self._procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> SinkKeepAlive:
        for sink in self._sinks:
            with Path("/dev/zero").open("rb") as zeros:
                self._procs.append(
                    subprocess.Popen(
                        [
                            "pacat",
                            "--playback",
                            f"--device={sink}",
                            "--latency-msec=10",
                            *_pa_args(48000),
                        ],
                        stdin=zeros,
                    )
                )
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self._procs:
            proc.terminate()
        for proc in self._procs:
            proc.wait(10)


def _pactl(*args: str) -> str:
    return subprocess.run(
        ["pactl", *args], check=True, capture_output=True, text=True, timeout=10
    ).stdout


def unload_virtual_devices() -> list[tuple[str, str]]:
    """Unload every sink and source module (as if the sound card vanished).

    Returns:
        (module name, arguments) of what was unloaded, in the order to load them back.
    """
    modules = []
    for line in _pactl("list", "short", "modules").splitlines():
        index, name, *rest = line.split("\t")
        if name in {"module-null-sink", "module-remap-source", "module-loopback"}:
            modules.append((index, name, rest[0] if rest else ""))
    # Dependents first: the remap source and loopbacks hang off the sinks.
    for index, _name, _args in sorted(modules, key=lambda m: m[1] == "module-null-sink"):
        _pactl("unload-module", index)
    return [(name, args) for _index, name, args in modules]


def load_virtual_devices(modules: list[tuple[str, str]]) -> None:
    """Load back what :func:`unload_virtual_devices` removed and restore the defaults."""
    for name, args in sorted(modules, key=lambda m: m[0] != "module-null-sink"):
        _pactl("load-module", name, *args.split())
    _pactl("set-default-sink", SPEAKER)
    _pactl("set-default-source", MIC)


async def pactl(*args: str) -> None:
    """Run ``pactl ARGS`` without blocking the loop; fail loudly when it fails."""
    proc = await asyncio.create_subprocess_exec("pactl", *args)
    returncode = await asyncio.wait_for(proc.wait(), 10)
    assert returncode == 0, f"pactl {' '.join(args)} failed with {returncode}"


async def capture_streams_of(pid: int) -> int:
    """How many recording streams (source-outputs) the process ``pid`` has on the server.

    The sound server's own answer: a stream PortAudio opened through ALSA's pulse plugin is
    a source-output whose ``application.process.id`` is the process that opened it.
    """
    proc = await asyncio.create_subprocess_exec(
        "pactl", "list", "source-outputs", stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 10)
    assert proc.returncode == 0, f"pactl list source-outputs failed with {proc.returncode}"
    return out.decode().count(f'application.process.id = "{pid}"')


async def wait_capture_streams(count: int, *, pid: int | None = None, within: float = 5.0) -> None:
    """Wait until the process has exactly ``count`` recording streams on the server.

    Raises:
        TimeoutError: it still had another number after ``within`` seconds (says which).
    """
    pid = os.getpid() if pid is None else pid
    deadline = time.monotonic() + within
    seen = await capture_streams_of(pid)
    while seen != count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"process {pid} has {seen} capture stream(s), not {count}")
        await asyncio.sleep(0.02)  # the server has no event for this: asked again
        seen = await capture_streams_of(pid)
