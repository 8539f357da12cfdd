"""How a bare PortAudio output stream lives through a stalled machine: underflows, callback gaps.

    scripts/with-test-services.sh .venv/bin/python bench/stall_probe.py --steal \\
        --latency-ms 15 --latency-ms 35 [--keep-awake]

No app code: a callback that writes silence, on the default output device (the virtual
speaker under ``scripts/with-test-services.sh``), at 24 kHz in 5 ms blocks as the app's speaker
runs. ``--steal`` pauses this process and the sound server together (SIGSTOP, then SIGCONT)
for ``--pause-ms`` in every ``--every-ms``, a stand-in for a virtual machine's CPU steal.
``--keep-awake`` plays silence into the virtual sinks meanwhile, as the audio tests and the
benchmarks' rigs do (bench/pulse_rig.py).

What it showed here (2026-12-02, PulseAudio 16.1 through ALSA's pulse plugin), 12 s each,
40 ms paused in every 440 ms: on the idle null sink every underflow was followed by about
2 s without a single callback (at 15 ms of suggested latency 5 underflows and 24-285
callbacks of the 2400 due; at 35 ms 0-2 underflows, each with its 2 s gap), and stopping
and starting the stream did not bring them back sooner. With the sink kept awake: 19 and
46 underflows, no gap over 0.2 s, all callbacks. An idle null sink sleeps for its longest
latency (bench/pulse_rig.py's docstring); the stream that underflowed waits for its next
wake-up. That was the share bench's answer that never started (bench/in_process.py), which
now keeps the sinks awake like the other audio rows.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import sounddevice as sd

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # run as a script: bench/ is a package of the checkout

from bench.pulse_rig import sinks_kept_awake  # noqa: E402

RATE = 24000
BLOCK = RATE * 5 // 1000
GAP_S = 0.2
"""A pause between callbacks longer than this is reported (the period is 5 ms)."""


@dataclass
class Probe:
    """What one stream went through."""

    latency_ms: float
    seconds: float
    callbacks: int = 0
    underflows: int = 0
    gaps_s: list[float] = field(default_factory=list)

    @property
    def expected_callbacks(self) -> int:
        return round(self.seconds * RATE / BLOCK)


def probe(latency_ms: float, seconds: float) -> Probe:
    """Run one silent output stream for ``seconds`` and count what happened."""
    result = Probe(latency_ms, seconds)
    last = 0.0

    def callback(outdata: Any, frames: int, time_info: Any, status: Any) -> None:
        nonlocal last
        now = time.perf_counter()
        if last and now - last > GAP_S:
            result.gaps_s.append(round(now - last, 2))
        last = now
        result.callbacks += 1
        if status:
            result.underflows += 1
        outdata[:] = bytes(len(outdata))

    with sd.RawOutputStream(
        samplerate=RATE,
        channels=1,
        dtype="int16",
        blocksize=BLOCK,
        latency=latency_ms / 1000,
        callback=callback,
    ):
        time.sleep(seconds)
    return result


def _sound_server_pids() -> list[int]:
    found = subprocess.run(
        ["pgrep", "-x", "pulseaudio"], capture_output=True, text=True, check=False
    ).stdout.split()
    return [int(pid) for pid in found]


@contextlib.contextmanager
def steal(pause_ms: float, every_ms: float) -> Iterator[None]:
    """Pause this process and the sound server now and then, from a helper process.

    The helper is a shell loop: a thread of this process could not resume the process it
    belongs to.
    """
    pids = " ".join(str(pid) for pid in [os.getpid(), *_sound_server_pids()])
    script = (
        f"while :; do kill -STOP {pids}; sleep {pause_ms / 1000:.3f}; "
        f"kill -CONT {pids}; sleep {(every_ms - pause_ms) / 1000:.3f}; done"
    )
    helper = subprocess.Popen(["sh", "-c", script], start_new_session=True)
    try:
        yield
    finally:
        helper.terminate()
        helper.wait(timeout=10)
        for pid in pids.split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGCONT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--latency-ms", type=float, action="append", help="suggested latency (repeatable)"
    )
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--steal", action="store_true", help="pause the processes now and then")
    parser.add_argument("--pause-ms", type=float, default=40.0)
    parser.add_argument("--every-ms", type=float, default=440.0)
    parser.add_argument(
        "--keep-awake", action="store_true", help="play silence into the virtual sinks meanwhile"
    )
    args = parser.parse_args()
    latencies = args.latency_ms or [15.0]
    if args.pause_ms <= 0 or args.every_ms <= args.pause_ms:
        parser.error("--every-ms must be longer than --pause-ms, and both positive")
    results = []
    stealing = steal(args.pause_ms, args.every_ms) if args.steal else contextlib.nullcontext()
    awake = sinks_kept_awake() if args.keep_awake else contextlib.nullcontext()
    with awake, stealing:
        # The first stream opened waits for the idle sink's first block: not what is probed.
        probe(latencies[0], 0.5)
        for latency in latencies:
            result = probe(latency, args.seconds)
            results.append(result)
            print(
                f"latency {latency:g} ms: {result.callbacks} of {result.expected_callbacks} "
                f"callbacks, {result.underflows} underflows, gaps over {GAP_S:g} s: "
                f"{result.gaps_s}",
                file=sys.stderr,
            )
    print(json.dumps([asdict(result) for result in results]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
