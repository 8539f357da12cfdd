"""The measuring rig on the private PulseAudio: one stereo recording of mic-in and speaker-out.

Left channel: what is played into the virtual microphone (the monitor of ``sammy_mic_feed``).
Right channel: what the virtual speaker plays (the monitor of ``sammy_speaker``). Both get
into one stereo null sink through a mono remap sink per channel and a ``module-loopback``
from each monitor, loaded with ``pactl`` for the measurement and unloaded afterwards. One
recording of that sink's monitor needs no clock alignment: the distance between an onset
on the left and its echo on the right is the latency (both loopbacks add the same delay).

The rig also keeps the two virtual sinks awake with a stream of digital silence at 10 ms
latency, as the audio tests do (tests/audio/virtual_devices.py): a PulseAudio null sink with
no playing stream sleeps for its longest latency and applies a new stream's latency only at
its next scheduled wake-up, so a stream that starts on an idle null sink waits up to a
second before it is played. Hardware sinks (and PipeWire) start a new stream at once; the
app's speaker rests between answers (sammy_desktop/audio/playback.py), and without the
keep-alive the benchmark would measure the virtual sink's wake-up, not the app.

Also here: push-to-talk through the X server's XTest extension (a key press in the focused
window, as from a keyboard, without spawning a process per key), and onset detection.
"""

from __future__ import annotations

import array
import contextlib
import ctypes
import ctypes.util
import fcntl
import subprocess
import termios
import threading
import time
import wave
from collections.abc import Iterator
from pathlib import Path

import numpy as np

MIC_FEED = "sammy_mic_feed"
SPEAKER = "sammy_speaker"
RIG_RATE = 48_000
STEREO_SINK = "bench_stereo"
TAIL_S = 1.0


def pactl(*args: str) -> str:
    """Run pactl and return its output."""
    return subprocess.run(
        ["pactl", *args], check=True, capture_output=True, text=True, timeout=30
    ).stdout.strip()


class StereoRig:
    """Loads the remap sinks and loopbacks; unloads them on exit (also on failure)."""

    def __init__(self, loopback_latency_ms: int = 5) -> None:
        self._latency = loopback_latency_ms
        self._modules: list[str] = []
        self._keep_alive = contextlib.ExitStack()

    def __enter__(self) -> StereoRig:
        try:
            self._load(
                "module-null-sink",
                f"sink_name={STEREO_SINK}",
                "channels=2",
                "channel_map=front-left,front-right",
                f"rate={RIG_RATE}",
            )
            for side, position in (("left", "front-left"), ("right", "front-right")):
                self._load(
                    "module-remap-sink",
                    f"sink_name=bench_{side}",
                    f"master={STEREO_SINK}",
                    "channels=1",
                    "channel_map=mono",
                    f"master_channel_map={position}",
                    "remix=no",
                )
            for source, side in ((f"{MIC_FEED}.monitor", "left"), (f"{SPEAKER}.monitor", "right")):
                self._load(
                    "module-loopback",
                    f"source={source}",
                    f"sink=bench_{side}",
                    f"latency_msec={self._latency}",
                    "source_dont_move=true",
                    "sink_dont_move=true",
                    "adjust_time=0",
                )
            self._keep_alive.enter_context(sinks_kept_awake())
        except BaseException:
            self.close()
            raise
        return self

    @property
    def monitor(self) -> str:
        """The source to record the rig from (left: the microphone, right: the speaker)."""
        return f"{STEREO_SINK}.monitor"

    def _load(self, *args: str) -> None:
        self._modules.append(pactl("load-module", *args))

    def close(self) -> None:
        """Stop the keep-alive streams; unload every module this rig loaded, newest first."""
        self._keep_alive.close()
        while self._modules:
            module = self._modules.pop()
            with contextlib.suppress(subprocess.SubprocessError):
                pactl("unload-module", module)

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def recording(self, path: Path) -> Iterator[None]:
        """Record the stereo sink's monitor into ``path`` (WAV) while the block runs.

        The raw stream is read on a thread. PulseAudio delivers it late and in bursts at
        first, so at the end the recording goes on until it holds as much audio as wall
        time has passed since its first sample (plus a short tail): nothing is cut off.
        """
        recorder = subprocess.Popen(
            [
                "parec",
                f"--device={STEREO_SINK}.monitor",
                f"--rate={RIG_RATE}",
                "--channels=2",
                "--format=s16le",
                "--latency-msec=10",
            ],
            stdout=subprocess.PIPE,
        )
        chunks: list[bytes] = []
        received = [0]
        first_at: list[float] = []

        def read() -> None:
            assert recorder.stdout is not None
            while chunk := recorder.stdout.read1(4096):  # type: ignore[attr-defined]
                if not first_at:
                    first_at.append(time.monotonic())
                chunks.append(chunk)
                received[0] += len(chunk)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            deadline = time.monotonic() + 15
            while not first_at and time.monotonic() < deadline:
                time.sleep(0.01)
            if not first_at:
                raise RuntimeError("the stereo recording did not start within 15 s")
            yield
            stop_at = time.monotonic() + TAIL_S
            wanted = (stop_at - first_at[0]) * RIG_RATE * 4
            deadline = stop_at + 15
            while (received[0] < wanted or time.monotonic() < stop_at) and (
                time.monotonic() < deadline
            ):
                time.sleep(0.02)
        finally:
            recorder.terminate()
            recorder.wait(timeout=10)
            reader.join(timeout=5)
            with wave.open(str(path), "wb") as wav:
                wav.setnchannels(2)
                wav.setsampwidth(2)
                wav.setframerate(RIG_RATE)
                data = b"".join(chunks)
                wav.writeframes(data[: len(data) // 4 * 4])


@contextlib.contextmanager
def sinks_kept_awake() -> Iterator[None]:
    """Silence into both virtual sinks while the block runs (see the module docstring)."""
    processes = [silence_into(sink) for sink in (MIC_FEED, SPEAKER)]
    try:
        yield
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(10)


def silence_into(sink: str) -> subprocess.Popen[bytes]:
    """Play digital silence into ``sink`` at 10 ms latency until terminated (see the module doc)."""
    with Path("/dev/zero").open("rb") as zeros:
        return subprocess.Popen(
            [
                "pacat",
                "--playback",
                f"--device={sink}",
                "--latency-msec=10",
                f"--rate={RIG_RATE}",
                "--channels=2",
                "--format=s16le",
            ],
            stdin=zeros,
        )


@contextlib.contextmanager
def pulse_loopback(source: str, sink: str, latency_ms: int = 5) -> Iterator[None]:
    """PulseAudio's own loopback from ``source`` to ``sink`` (the floor of any path)."""
    module = pactl(
        "load-module",
        "module-loopback",
        f"source={source}",
        f"sink={sink}",
        f"latency_msec={latency_ms}",
        "adjust_time=0",
    )
    try:
        yield
    finally:
        pactl("unload-module", module)


def read_stereo(path: Path) -> tuple[np.ndarray, np.ndarray, int]:
    """Left and right channels as float32 in [-1, 1], and the sample rate."""
    with wave.open(str(path), "rb") as wav:
        rate = wav.getframerate()
        channels = wav.getnchannels()
        frames = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    samples = frames.reshape(-1, channels).astype(np.float32) / 32768.0
    return samples[:, 0], samples[:, min(1, channels - 1)], rate


def onsets(signal_: np.ndarray, rate: int, threshold: float, min_gap_s: float) -> list[int]:
    """Sample indices where ``|signal|`` first rises above ``threshold`` after a quiet gap."""
    loud = np.flatnonzero(np.abs(signal_) > threshold)
    if not len(loud):
        return []
    gap = int(min_gap_s * rate)
    # An onset is a loud sample whose previous loud sample is more than a gap earlier.
    starts = np.concatenate(([0], np.flatnonzero(np.diff(loud) > gap) + 1))
    return [int(loud[i]) for i in starts]


def last_loud(signal_: np.ndarray, threshold: float) -> int | None:
    """The index of the last sample above ``threshold`` (None when nothing is)."""
    loud = np.flatnonzero(np.abs(signal_) > threshold)
    return int(loud[-1]) if len(loud) else None


def click_train(count: int, interval_s: float, rate: int = RIG_RATE) -> np.ndarray:
    """``count`` short tone bursts (10 ms, Hann-shaped), PCM16 mono, about ``interval_s`` apart.

    Tone bursts, not one-sample clicks: the app's noise suppression keeps them, and a loud
    edge is easy to find in the echo. Each burst has its own pitch and the gaps vary by up
    to half an interval (a fixed seed): identical bursts at a fixed period would look like
    an echo of the previous burst's echo to the app's echo canceller, which then removes
    them from the microphone signal.
    """
    rng = np.random.default_rng(20261130)
    burst_n = rate // 100
    t = np.arange(burst_n) / rate
    gaps = (interval_s * rng.uniform(1.0, 1.5, count) * rate).astype(int)
    train = np.zeros(int(gaps.sum()) + rate // 2, dtype=np.int16)
    start = rate // 4
    for gap in gaps:
        pitch = rng.uniform(700.0, 3000.0)
        burst = 0.5 * np.sin(2 * np.pi * pitch * t) * np.hanning(burst_n) * 32767
        train[start : start + burst_n] = burst.astype(np.int16)
        start += int(gap)
    return train


def write_wav(path: Path, pcm: np.ndarray, rate: int) -> None:
    """Write PCM16 ``pcm`` as a WAV file: mono, or one column a channel."""
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1 if pcm.ndim == 1 else pcm.shape[1])
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm.astype(np.int16).tobytes())


def play_into_mic(path: Path) -> None:
    """Play a WAV into the virtual microphone and return when it has been played."""
    subprocess.run(
        ["paplay", f"--device={MIC_FEED}", "--latency-msec=10", str(path)],
        check=True,
        timeout=120,
    )


class XKeyboard:
    """Press and release keys in the focused X window through XTest (libXtst)."""

    def __init__(self) -> None:
        x11 = ctypes.util.find_library("X11")
        xtst = ctypes.util.find_library("Xtst")
        if x11 is None or xtst is None:
            raise RuntimeError("libX11 / libXtst not found (install libxtst6)")
        self._x = ctypes.CDLL(x11)
        self._t = ctypes.CDLL(xtst)
        self._x.XOpenDisplay.restype = ctypes.c_void_p
        self._x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self._x.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self._x.XStringToKeysym.restype = ctypes.c_ulong
        self._x.XStringToKeysym.argtypes = [ctypes.c_char_p]
        self._x.XFlush.argtypes = [ctypes.c_void_p]
        self._x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self._t.XTestFakeKeyEvent.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint,
            ctypes.c_int,
            ctypes.c_ulong,
        ]
        self._x.XAutoRepeatOff.argtypes = [ctypes.c_void_p]
        self._x.XAutoRepeatOn.argtypes = [ctypes.c_void_p]
        self._display = self._x.XOpenDisplay(None)
        if not self._display:
            raise RuntimeError("cannot open the X display (DISPLAY)")
        # A held key auto-repeats: the X server sends release+press pairs every 40 ms or
        # so. Qt folds them into one held key only when it sees both events together; on
        # a loaded machine it often does not, and each stray pair ended the talk turn and
        # barged in on the echo (52 talk presses in one 15 s hold). A person's held key
        # repeats too (see the report), but these benchmarks measure one press and one
        # release: repeat is off on the benchmark's own X server while this object lives.
        self._x.XAutoRepeatOff(self._display)
        self._x.XFlush(self._display)

    def _key(self, name: str, down: bool) -> float:
        keycode = self._x.XKeysymToKeycode(self._display, self._x.XStringToKeysym(name.encode()))
        self._t.XTestFakeKeyEvent(self._display, keycode, int(down), 0)
        self._x.XFlush(self._display)
        return time.monotonic()

    def press(self, name: str = "space") -> float:
        """Press ``name``; returns ``time.monotonic()`` right after the X server has it."""
        return self._key(name, True)

    def release(self, name: str = "space") -> float:
        """Release ``name``; returns ``time.monotonic()`` right after sending it."""
        return self._key(name, False)

    def close(self) -> None:
        """Turn key repeat back on and close the display connection."""
        if self._display:
            self._x.XAutoRepeatOn(self._display)
            self._x.XFlush(self._display)
            self._x.XCloseDisplay(self._display)
            self._display = None


class ToneFeeder:
    """A low-latency stream into the virtual microphone that plays a tone on demand.

    ``pacat`` plays what a thread writes, 10 ms at a time in real time: silence until
    :meth:`start` is called, then the tone, then silence again. So the tone starts the moment
    it is asked for (a key press), plus pacat's own 10 ms of latency, instead of after a new
    player process has started and filled its buffer.
    """

    CHUNK_S = 0.010

    def __init__(self, rate: int = RIG_RATE) -> None:
        self._rate = rate
        self._chunk = int(rate * self.CHUNK_S)
        self._tone = np.zeros(0, np.int16)
        self._position = 0
        self._written_at = 0.0
        self._written = threading.Event()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._proc = subprocess.Popen(
            [
                "pacat",
                "--playback",
                f"--device={MIC_FEED}",
                "--latency-msec=10",
                f"--rate={rate}",
                "--channels=1",
                "--format=s16le",
                "--raw",
            ],
            stdin=subprocess.PIPE,
        )
        # Feed only once pacat's stream is on the server: what is written before then
        # would wait in the pipe and delay the tone by as much from then on.
        deadline = time.monotonic() + 10
        while f'application.process.id = "{self._proc.pid}"' not in pactl("list", "sink-inputs"):
            if time.monotonic() > deadline:
                raise RuntimeError("the tone feeder's pacat never connected")
            time.sleep(0.01)
        self._thread = threading.Thread(target=self._feed, name="bench-tone-feeder", daemon=True)
        self._thread.start()

    def start(self, tone: np.ndarray) -> float:
        """Play ``tone`` (int16 at the feeder's rate) from the next 10 ms on; returns now."""
        with self._lock:
            self._tone = tone.astype(np.int16)
            self._position = 0
            self._written.clear()
        return time.monotonic()

    def wait_written(self, timeout: float = 60.0) -> float:
        """Wait until the tone's last chunk went to pacat; returns when that was.

        The tone ends at the microphone pacat's latency (10 ms, and at most the two chunks
        the feeder keeps ahead) after this: the moment to release a key after speaking
        at a fixed delay, which ``paplay`` returning after its drain is not (3-50 ms here).
        """
        if not self._written.wait(timeout):
            raise TimeoutError("the tone feeder never finished the tone")
        return self._written_at

    def _feed(self) -> None:
        assert self._proc.stdin is not None
        silence = np.zeros(self._chunk, np.int16)
        tick = time.monotonic()
        pending = array.array("i", [0])
        while not self._stop.is_set():
            with self._lock:
                part = self._tone[self._position : self._position + self._chunk]
                self._position += len(part)
                ends = len(part) > 0 and self._position >= len(self._tone)
            # Silence only while the pipe is empty: pacat and the null sink do not run on
            # exactly this clock, and a pipe that fills (64 KiB, 0.7 s here) would delay the
            # tone by as much.
            fcntl.ioctl(self._proc.stdin.fileno(), termios.FIONREAD, pending)
            if len(part) or pending[0] < self._chunk * 2:
                chunk = np.concatenate([part, silence[len(part) :]]) if len(part) else silence
                try:
                    self._proc.stdin.write(chunk.tobytes())
                    self._proc.stdin.flush()
                except (BrokenPipeError, ValueError):
                    return
                if ends:
                    self._written_at = time.monotonic()
                    self._written.set()
            tick += self.CHUNK_S
            time.sleep(max(0.0, tick - time.monotonic()))

    def close(self) -> None:
        """Stop feeding and end the player."""
        self._stop.set()
        self._thread.join(timeout=5)
        with contextlib.suppress(OSError):
            if self._proc.stdin is not None:
                self._proc.stdin.close()
        self._proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(10)

    def __enter__(self) -> ToneFeeder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
