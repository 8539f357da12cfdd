"""The real app, end to end, in a real X window with real audio devices.

``sammy-desktop --demo`` runs under Xvfb against the private PulseAudio, its embedded
simulator on the strict default profile: speech made with espeak-ng is played into the
virtual microphone while Space is held in the window (through xdotool, as a person's
keyboard would), the embedded simulator echoes it back, and the answer is recorded from the
virtual speaker's monitor and compared with what was said. Then a request is typed in the
text box and the real timer tool is called with the duration it names, its answer said in a
sentence. The window is captured as a screenshot for a person to look at.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import wave
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soxr

from sammy_desktop.core.history import read_history
from sammy_desktop.sim.profiles import PROFILE_ENV

pytestmark = [pytest.mark.xvfb, pytest.mark.audio]

ENTRY_POINT = Path(sys.executable).with_name("sammy-desktop")
RATE = 16_000


class AppProcess:
    """The app as a subprocess, its stderr read line by line on a thread."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [str(ENTRY_POINT), *args],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._queue.put(line)
        self._queue.put(None)

    def wait_for_line(self, needle: str, timeout: float = 20.0, *, count: int = 1) -> str:
        """Block until ``count`` stderr lines contain ``needle`` (lines seen earlier count)."""
        found = [seen for seen in self.lines if needle in seen]
        while len(found) < count:
            try:
                line = self._queue.get(timeout=timeout)
            except queue.Empty:
                pytest.fail(f"no {needle!r} within {timeout} s; the app said:\n{self.output}")
            if line is None:
                pytest.fail(f"the app ended before {needle!r}:\n{self.output}")
            self.lines.append(line)
            if needle in line:
                found.append(line)
        return found[count - 1]

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=30)
        self._reader.join(timeout=5)
        while True:
            try:
                rest = self._queue.get_nowait()
            except queue.Empty:
                break
            if rest is not None:
                self.lines.append(rest)
        assert self.proc.stderr is not None
        self.proc.stderr.close()
        return code


def _run(*args: str) -> str:
    return subprocess.run(list(args), check=True, capture_output=True, text=True, timeout=60).stdout


def _read_wav(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path), "rb") as wav:
        rate = wav.getframerate()
        channels = wav.getnchannels()
        frames = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    samples = frames.reshape(-1, channels)[:, 0].astype(np.float32) / 32768.0
    return samples, rate


def _best_correlation(needle: np.ndarray, haystack: np.ndarray) -> float:
    """The highest normalised cross-correlation of ``needle`` anywhere in ``haystack``."""
    n = len(needle)
    assert len(haystack) > n
    size = 1 << int(np.ceil(np.log2(len(haystack) + n)))
    spectrum = np.fft.rfft(haystack, size) * np.conj(np.fft.rfft(needle, size))
    corr = np.fft.irfft(spectrum, size)[: len(haystack) - n + 1]
    energy = np.sqrt(
        np.convolve(haystack**2, np.ones(n, dtype=np.float32), mode="valid").clip(min=1e-12)
    )
    return float(np.max(np.abs(corr) / (energy * np.linalg.norm(needle))))


@contextlib.contextmanager
def _recording(path: Path) -> Iterator[None]:
    recorder = subprocess.Popen(
        [
            "parecord",
            "--device=sammy_speaker.monitor",
            f"--rate={RATE}",
            "--channels=1",
            "--format=s16le",
            "--file-format=wav",
            str(path),
        ]
    )
    try:
        yield
    finally:
        recorder.send_signal(signal.SIGINT)
        recorder.wait(timeout=10)


def _screenshot(window_id: str, path: Path) -> None:
    """Capture the real X window with Qt's xcb backend in a helper process."""
    code = (
        "import sys\n"
        "from PySide6.QtGui import QGuiApplication\n"
        "app = QGuiApplication(sys.argv[:1])\n"
        "ok = app.primaryScreen().grabWindow(int(sys.argv[1])).save(sys.argv[2])\n"
        "sys.exit(0 if ok else 1)\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="xcb")
    subprocess.run(
        [sys.executable, "-c", code, window_id, str(path)], check=True, env=env, timeout=60
    )


def test_speak_and_hear_the_echo_then_type_a_timer(tmp_path: Path, test_output_dir: Path) -> None:
    speech_wav = tmp_path / "speech.wav"
    _run("espeak-ng", "-s", "150", "-w", str(speech_wav), "Hello Sammy, please repeat this.")
    speech, speech_rate = _read_wav(speech_wav)

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.pop("QT_QPA_PLATFORM", None)  # a real X window on the test's Xvfb
    env.pop(PROFILE_ENV, None)  # the demo as people get it: the strict default profile
    profile = tmp_path / "profile"
    app = AppProcess(["--demo", "--config-dir", str(profile), "--log-level", "DEBUG"], env)
    try:
        app.wait_for_line("window shown")
        app.wait_for_line("connecting -> ready")
        window_id = _run("xdotool", "search", "--onlyvisible", "--name", "^Sammy").split()[0]
        _run("xdotool", "windowfocus", "--sync", window_id)

        recording = tmp_path / "speaker.wav"
        with _recording(recording):
            _run("xdotool", "keydown", "space")
            app.wait_for_line("ready -> user_speaking (talk pressed)")
            _run("paplay", "--device=sammy_mic_feed", str(speech_wav))
            _run("xdotool", "keyup", "space")
            app.wait_for_line("user_speaking -> thinking (talk released)")
            app.wait_for_line("assistant_speaking -> ready (answer played)", timeout=30)

        # A typed request: the text box is two steps before the talk button in tab order.
        _run("xdotool", "key", "--window", window_id, "shift+Tab", "shift+Tab")
        _run("xdotool", "type", "--delay", "20", "Set a timer for two minutes")
        _run("xdotool", "key", "Return")
        app.wait_for_line("ready -> thinking (text sent)")
        app.wait_for_line("assistant_speaking -> ready (answer played)", timeout=30, count=2)
        _screenshot(window_id, test_output_dir / "e2e-demo-window.png")
    finally:
        code = app.stop()

    assert code == 128 + signal.SIGTERM, app.output
    assert "Traceback" not in app.output

    # What the virtual speaker played is the person's own voice, echoed back.
    heard, heard_rate = _read_wav(recording)
    assert heard_rate == RATE
    said = soxr.resample(speech, speech_rate, RATE).astype(np.float32)
    # The loudest second of speech must be found in the recording.
    window = RATE
    start = int(np.argmax(np.convolve(said**2, np.ones(window), mode="valid")))
    excerpt = said[start : start + window]
    # The echo went through the echo canceller's noise suppression and two resamplers, so
    # it is not sample-exact: a match well above chance (noise scores under 0.1) is proof.
    assert _best_correlation(excerpt, heard) > 0.4
    rng = np.random.default_rng(1)
    noise = rng.standard_normal(len(excerpt)).astype(np.float32)
    assert _best_correlation(noise, heard) < 0.2

    # The conversation, as the window showed it and the history file kept it.
    (history_file,) = (profile / "data" / "history").glob("*.jsonl")
    records = read_history(history_file)
    users = [r["text"] for r in records if r.get("type") == "user"]
    assistants = [r["text"] for r in records if r.get("type") == "assistant"]
    assert len(users) == 2
    assert users[0].startswith("[you spoke for ")
    assert users[1] == "Set a timer for two minutes"
    assert assistants[0] == (
        "That was your voice, played back: the offline demo cannot understand speech. "
        "Type a request, such as \u201cwhat time is it\u201d."
    )
    # The timer tool was called with the duration typed, and its own answer was said.
    (call,) = [r for r in records if r.get("type") == "tool_call"]
    assert (call["name"], call["args"]) == ("setTimer", {"duration": "2m"})
    (result,) = [r for r in records if r.get("type") == "tool_result"]
    assert result["response"]["output"]["ok"] is True
    ends_at = result["response"]["output"]["value"]["ends_at"]
    assert assistants[1] == f"Your timer for 2 minutes is running; it ends at {ends_at}."
    assert len(assistants) == 2
