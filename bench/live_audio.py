"""Benchmarks through the real devices: the real app in an X window, and the reference client.

Each measurement starts its own simulator process (``bench/echo_sim.py``), runs the client
against it, and reads the timings from ONE stereo recording (``bench/pulse_rig.py``): mic-in
on the left, speaker-out on the right.

* :func:`voice_to_voice_pair`: push-to-talk turns of espeak speech, the app's and the
  starter-style client's taking turns in one run; from the end of the speech (the key is
  released 50 ms after it reached the microphone) to the first answer sample, read from
  a recording of the same stereo sink dated on ``time.monotonic()``
  (``bench/dated_recording.py``), so that each round's release, the simulator's stamps
  and the answer's sound are set side by side.
* :func:`click_to_echo`: with every audio chunk echoed at once, a train of short tone bursts
  played into the microphone while talk is held, and their echoes.
* :func:`pulse_floor`: the same bursts through PulseAudio's own loopback (the floor).
* :func:`app_resources`: the real app's start-up, CPU, RSS and event-loop lag (idle with the
  window shown, listening, streaming an answer, and with a slow tool running).
* :func:`mic_start`: the microphone opened on the press (issue 17): key down to the first
  captured block and to the listening cue, the speech lost at the start of a turn, and the
  idle CPU, with the microphone closed between turns and always ready; and while resting.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import soxr

from bench import audio_trace
from bench.dated_recording import DatedAudio, DatedRecorder, save_wav
from bench.echo_sim import SERVICE_NICENESS
from bench.pulse_rig import (
    MIC_FEED,
    RIG_RATE,
    SPEAKER,
    StereoRig,
    ToneFeeder,
    XKeyboard,
    click_train,
    last_loud,
    onsets,
    play_into_mic,
    pulse_loopback,
    read_stereo,
    sinks_kept_awake,
    write_wav,
)
from sammy_desktop.config import AppPaths, Settings
from tests.audio.signals import warble

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
SPEECH_TEXT = "Hello Sammy, what is the weather like in Paris today?"
SMOKE_SPEECH_TEXT = "Hello Sammy."
"""The smoke run's sentence: every round speaks it and hears it echoed, so a short one
keeps ``make test`` quick (about 50 s less than :data:`SPEECH_TEXT` over the smoke run)."""
SPEECH_THRESHOLD = 0.02
LEFT = 0
"""The rig's microphone channel (the speaker's is the right)."""
CLICK_THRESHOLD = 0.05
TALK_PRESSED = "(talk pressed)"
ANSWER_PLAYED = "assistant_speaking -> ready (answer played)"
READY = "connecting -> ready"
WINDOW_SHOWN = "window shown"


class BenchError(RuntimeError):
    """A benchmark could not run (says which step and what the process printed)."""


# ---------------------------------------------------------------------- processes


class LineProcess:
    """A subprocess whose stderr (or stdout) lines are read on a thread, with arrival times."""

    def __init__(
        self,
        args: list[str],
        env: dict[str, str],
        *,
        read_stdout: bool = False,
        stdin: bool = False,
    ) -> None:
        self.started_at = time.monotonic()
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE if read_stdout else subprocess.DEVNULL,
            stderr=subprocess.STDOUT if read_stdout else subprocess.PIPE,
            text=True,
            env=env,
        )
        self.lines: list[tuple[float, str]] = []
        self._queue: queue.Queue[tuple[float, str] | None] = queue.Queue()
        stream = self.proc.stdout if read_stdout else self.proc.stderr
        assert stream is not None
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self._queue.put((time.monotonic(), line))
        self._queue.put(None)

    def wait_for(self, needle: str, timeout: float = 30.0, *, after: int = 0) -> float:
        """Arrival time of the first line containing ``needle`` among lines ``after``..."""
        for stamp, seen in self.lines[after:]:
            if needle in seen:
                return stamp
        deadline = time.monotonic() + timeout
        while True:
            try:
                item = self._queue.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise BenchError(
                    f"no {needle!r} within {timeout} s:\n{self.output[-3000:]}"
                ) from None
            if item is None:
                raise BenchError(f"process ended before {needle!r}:\n{self.output[-3000:]}")
            self.lines.append(item)
            if needle in item[1] and len(self.lines) > after:
                return item[0]

    def count(self) -> int:
        """Lines read so far (drains what has arrived)."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return len(self.lines)
            if item is None:
                return len(self.lines)
            self.lines.append(item)

    @property
    def output(self) -> str:
        return "".join(line for _stamp, line in self.lines)

    def send(self, command: str) -> float:
        """Write a line to stdin; returns the time it was written."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return time.monotonic()

    def cpu_seconds(self) -> float:
        """User + system CPU time of the process so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def rss_mb(self) -> float:
        """Resident set size in MB (10^6 bytes)."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / 1e6
        return float("nan")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(timeout=10)
        self._reader.join(timeout=5)
        self.count()
        return code


@dataclass
class SimProcess:
    """``bench/echo_sim.py`` in its own process."""

    mode: str
    workdir: Path
    plain_turns: int = 0
    label: str = ""
    pacing: str = "realtime"
    think_ms: int = 0
    base_url: str = ""
    ca_file: str = ""
    events: list[dict[str, object]] = field(default_factory=list)
    _process: LineProcess | None = None

    def __enter__(self) -> SimProcess:
        events_out = self.workdir / f"sim-{self.mode}-{self.label or 'any'}-events.json"
        args = [PYTHON, str(REPO / "bench/echo_sim.py"), "--mode", self.mode]
        args += ["--events-out", str(events_out), "--plain-turns", str(self.plain_turns)]
        args += ["--pacing", self.pacing, "--think-ms", str(self.think_ms)]
        self._process = LineProcess(args, dict(os.environ), read_stdout=True)
        self._process.wait_for("ca_file=", timeout=60)
        for _stamp, line in self._process.lines:
            key, _, value = line.strip().partition("=")
            if key == "base_url":
                self.base_url = value
            elif key == "ca_file":
                self.ca_file = value
            elif key == "priority" and value != str(SERVICE_NICENESS):
                # The rows still measure, but the simulator's answers may wait for the
                # client's CPU (bench/echo_sim.py SERVICE_NICENESS).
                print(f"bench: the simulator's priority is {value}", file=sys.stderr)
        self._events_out = events_out
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._process is not None
        self._process.stop()
        if self._events_out.exists():
            self.events = json.loads(self._events_out.read_text())

    def times(self, kind: str) -> list[float]:
        return [float(e["t"]) for e in self.events if e["kind"] == kind]  # type: ignore[arg-type]


def client_env(sim: SimProcess) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.pop("QT_QPA_PLATFORM", None)  # a real X window on the Xvfb of the test services
    env["SSL_CERT_FILE"] = sim.ca_file
    env["GEMINI_API_KEY"] = "bench-key"
    return env


@contextlib.contextmanager
def running_app(
    sim: SimProcess,
    workdir: Path,
    lag_file: Path | None = None,
    *,
    env_extra: dict[str, str] | None = None,
    **settings: object,
) -> Iterator[LineProcess]:
    """The real app (bench/app_probe.py) against ``sim``, window shown and connected.

    ``settings`` are saved in the app's fresh profile (earcons are always off);
    ``env_extra`` goes into its environment (bench/app_probe.py's switches).
    """
    profile = workdir / f"profile-{sim.mode}-{time.monotonic_ns()}"
    paths = AppPaths.profile(profile)
    paths.ensure()
    # No earcons: their chimes would be heard on the speaker channel as "answers".
    profile_settings = Settings.model_validate({**settings, "earcons": False})
    paths.settings_file.write_text(profile_settings.model_dump_json())
    env = client_env(sim)
    if lag_file is not None:
        env["SAMMY_BENCH_LAG_FILE"] = str(lag_file)
    env.update(env_extra or {})
    args = [PYTHON, str(REPO / "bench/app_probe.py"), "--api-base-url", sim.base_url]
    args += ["--config-dir", str(profile), "--log-level", "DEBUG"]
    app = LineProcess(args, env)
    try:
        app.wait_for(WINDOW_SHOWN, timeout=60)
        app.wait_for(READY, timeout=60)
        focus_window()
        yield app
    finally:
        app.stop()


def focus_window() -> None:
    found = subprocess.run(
        ["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Sammy"],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout.split()
    subprocess.run(["xdotool", "windowfocus", "--sync", found[0]], check=True, timeout=30)


@contextlib.contextmanager
def running_reference(sim: SimProcess, *, minimal: bool = False) -> Iterator[LineProcess]:
    """The starter-style reference client against ``sim``, connected.

    ``minimal``: the minimal low-latency client instead (see bench/reference_client.py).
    """
    args = [PYTHON, str(REPO / "bench/reference_client.py"), "--base-url", sim.base_url]
    if minimal:
        args.append("--minimal")
    env = client_env(sim)
    client = LineProcess(args, env, read_stdout=True, stdin=True)
    try:
        client.wait_for("connected", timeout=60)
        yield client
    finally:
        with contextlib.suppress(OSError):
            client.send("quit")
        client.stop()


# ---------------------------------------------------------------------- signals


def make_speech(workdir: Path, text: str = SPEECH_TEXT) -> tuple[Path, float]:
    """espeak-ng speech of ``text`` at 48 kHz, its trailing silence cut; returns the file and
    its length."""
    raw = workdir / "speech-raw.wav"
    subprocess.run(["espeak-ng", "-s", "160", "-w", str(raw), text], check=True, timeout=60)
    left, _right, rate = read_stereo(raw)
    end = last_loud(left, SPEECH_THRESHOLD)
    assert end is not None
    speech = soxr.resample(left[: end + 1], rate, RIG_RATE)
    path = workdir / "speech.wav"
    write_wav(path, (speech * 32767 * 0.9).astype(np.int16), RIG_RATE)
    return path, len(speech) / RIG_RATE


@dataclass(frozen=True)
class AnswerRounds:
    """What a dated voice recording says, round by round."""

    latencies_ms: list[float]
    """From each speech's end (left) to the first answer sample after it (right)."""
    left_out: list[str]
    """One reason per round left out."""
    speech_ends: list[float]
    """When each measured round's speech ended on the microphone's channel (monotonic)."""
    answer_sounds: list[float]
    """When its answer's first loud sample was on the speaker's channel (monotonic)."""
    rounds: list[int] = field(default_factory=list)
    """Which round (counted from 0 in the recording) each measured latency is; and for each
    reason left out, which round it was, in :attr:`left_out_rounds`."""
    left_out_rounds: list[int] = field(default_factory=list)

    def of(self, order: list[str], client: str) -> AnswerRounds:
        """The rounds that were ``client``'s, where ``order`` says whose each round was."""
        mine = [index for index, name in enumerate(order) if name == client]
        kept = [at for at, index in enumerate(self.rounds) if index in mine]
        left = [at for at, index in enumerate(self.left_out_rounds) if index in mine]
        return AnswerRounds(
            [self.latencies_ms[at] for at in kept],
            [self.left_out[at] for at in left],
            [self.speech_ends[at] for at in kept],
            [self.answer_sounds[at] for at in kept],
            [self.rounds[at] for at in kept],
            [self.left_out_rounds[at] for at in left],
        )


def answer_latencies(audio: DatedAudio, rounds: int, speech_s: float, name: str) -> AnswerRounds:
    """Each round's voice-to-voice latency, and the dates it is measured between.

    A round is left out, with the reason returned, when its recording cannot hold a true
    latency: the speech on the left lasting longer than the ``speech_s`` fed (something
    else reached the microphone's channel), or the speaker channel already sounding when
    the speech ended. The second is what a stalled machine does: the answer (the speech
    echoed) starts while the server is still playing the speech's tail.
    """
    left, right, rate = audio.left, audio.right, audio.rate
    starts = onsets(left, rate, SPEECH_THRESHOLD, min_gap_s=1.0)
    result = AnswerRounds([], [], [], [])
    for index, start in enumerate(starts[:rounds]):
        stop = starts[index + 1] if index + 1 < len(starts) else len(left)
        end = last_loud(left[start:stop], SPEECH_THRESHOLD)
        if end is None:
            continue
        heard_s = end / rate
        end += start
        if heard_s > speech_s + 0.5:
            reason = f"{heard_s:.2f} s of sound on the mic's channel for {speech_s:.2f} s"
            result.left_out.append(reason)
            result.left_out_rounds.append(index)
        elif abs(right[end]) > SPEECH_THRESHOLD:
            result.left_out.append("the answer began before the speech had played out")
            result.left_out_rounds.append(index)
        else:
            answer = np.flatnonzero(np.abs(right[end:stop]) > SPEECH_THRESHOLD)
            if len(answer):
                result.rounds.append(index)
                result.latencies_ms.append(float(answer[0]) / rate * 1000)
                result.speech_ends.append(audio.time_of(end))
                result.answer_sounds.append(audio.time_of(end + int(answer[0])))
    for reason in result.left_out:
        print(f"{name}: a round left out: {reason}", file=sys.stderr)
    return result


def echo_latencies_ms(recording: Path, interval_s: float) -> list[float]:
    """From each burst on the left to its echo on the right."""
    left, right, rate = read_stereo(recording)
    clicks = onsets(left, rate, CLICK_THRESHOLD, min_gap_s=interval_s / 2)
    latencies = []
    window = int(interval_s * rate * 0.9)
    for start in clicks:
        echo = np.flatnonzero(np.abs(right[start : start + window]) > CLICK_THRESHOLD)
        if len(echo):
            latencies.append(float(echo[0]) / rate * 1000)
    return latencies


# ---------------------------------------------------------------------- measurements


@dataclass
class VoiceResult:
    """Voice-to-voice for one client."""

    latencies_ms: list[float]
    left_out: list[str]
    """Why each round the recording could not measure was left out."""
    key_up_to_activity_end_ms: list[float] = field(default_factory=list)
    release_after_speech_ms: list[float] = field(default_factory=list)
    """The speech's end on the microphone's channel -> the key's release (the rig's own
    constant: RELEASE_AFTER_SPEECH_S; it says the rounds were released alike)."""
    service_ms: list[float] = field(default_factory=list)
    """activityEnd received -> the answer's first message sent, by the simulator's stamps:
    the service's own time (its think time, ECHO_THINK_MS, and its own work)."""
    dating: str = ""
    """How well the recording's dates held: the blocks' median distance from them, and the
    jumps in them (bench/dated_recording.py DatedAudio)."""
    less_service_ms: list[float] = field(default_factory=list)
    """Each round's voice-to-voice less its service time: what the client and the release
    take, with the service's think time out of it."""
    answer_to_sound_ms: list[float] = field(default_factory=list)
    """The answer's first message leaving the simulator -> its first loud sample on the
    speaker's channel, both dated on the monotonic clock: the client's whole share of the
    answer's way, the same measure for both clients."""
    gaps: list[int] = field(default_factory=list)
    """Each round's gaps in the answer: the speaker ran dry after it had started (the app's
    jitter buffer underruns; the starter's writes that found the stream underflowed)."""

    def left_out_line(self) -> str:
        """The rounds left out, for the table ("" when none was)."""
        if not self.left_out:
            return ""
        reasons = sorted(set(self.left_out))
        return f"{len(self.left_out)} round(s) left out: {'; '.join(reasons)}"


def _pairs_after(marks: list[float], events: list[float]) -> list[float]:
    """For each mark, ms to the first event after it and before the next mark.

    A mark with no event in its round is left out (not paired with a later round's).
    """
    out = []
    for index, mark in enumerate(marks):
        until = marks[index + 1] if index + 1 < len(marks) else float("inf")
        later = [t for t in events if mark <= t < until]
        if later:
            out.append((later[0] - mark) * 1000)
    return out


RELEASE_AFTER_SPEECH_S = 0.05
"""Voice-to-voice: the talk key goes up this long after the speech's end reached the mic."""
ECHO_THINK_MS = 300
"""Voice-to-voice: the simulator's model thinks this long after activityEnd before its first
audio, as the service's does (docs/live-service.md R13). At once, the answer met the app still
reacting to the key's release (its window, 3-7 ms of the Qt thread after the release,
docs/benchmarks.md), a collision the service's hundreds of milliseconds never cause."""
END_MARGIN_S = 0.01
"""How far past its expected end the speech's last loud sample is looked for (see _speak)."""


@dataclass(frozen=True)
class Speech:
    """The benchmark's sentence, and how long it sounds from its first loud sample to its last."""

    samples: np.ndarray
    loud_span_s: float

    @classmethod
    def load(cls, workdir: Path, text: str = SPEECH_TEXT) -> Speech:
        """The sentence of :func:`make_speech` as int16 samples at the rig's rate."""
        path, _seconds = make_speech(workdir, text)
        left, _right, _rate = read_stereo(path)
        loud = np.flatnonzero(np.abs(left) > SPEECH_THRESHOLD)
        return cls((left * 32767).astype(np.int16), float(loud[-1] - loud[0]) / RIG_RATE)

    @property
    def seconds(self) -> float:
        return len(self.samples) / RIG_RATE


def _speak(feeder: ToneFeeder, speech: Speech, recorder: DatedRecorder) -> None:
    """Say ``speech`` into the microphone; return RELEASE_AFTER_SPEECH_S after it has ended.

    The end is the speech's last loud sample on the microphone's channel of the dated
    recording, so the release comes the same time after the speech for every client and
    round, whatever the feeder's own latency into the virtual microphone is this run
    (bench/dated_recording.py: it moved 10 ms between runs). The recording is looked at
    :data:`END_MARGIN_S` past where the speech should end (its onset there plus the
    sentence's loud span), which is time enough for the recording to bring it and for the
    speech to have come out a little stretched.
    """
    began = feeder.start(speech.samples)
    onset = recorder.wait_onset(began, LEFT, SPEECH_THRESHOLD, timeout=10 + speech.seconds)
    expected = onset + speech.loud_span_s
    feeder.wait_written()
    # A recording that lags (a loaded machine) must not make the release late: then the
    # expected end is taken instead.
    latest = expected + RELEASE_AFTER_SPEECH_S - END_MARGIN_S - time.monotonic()
    try:
        end = recorder.wait_last_loud(
            onset, expected + END_MARGIN_S, LEFT, SPEECH_THRESHOLD, timeout=max(0.0, latest)
        )
    except TimeoutError:
        end = None
    time.sleep(max(0.0, (end or expected) + RELEASE_AFTER_SPEECH_S - time.monotonic()))


SPEAKER_RESTING = "app, speaker resting"
"""A voice round of the app whose speaker answers from rest even when the answers come paced
(bench/app_probe.py ``SAMMY_BENCH_RESTING_START``), not from the running stream the app keeps
for them: what the app's paced answer would take without its cushion of silence."""
ANSWER_MARGIN_S = 1.2
"""After the speech's length, how long the reference's answer may still be playing (it has no
"answer played" signal)."""
ROUND_ORDER = ("app", "reference", "reference", "app")
"""Voice-to-voice: whose round comes when, repeated. Both clients run side by side and take
turns in one recording, so that whatever the rig's own latency does meanwhile (the dates of
its recording, its loopbacks: they wander by 2-4 ms over tens of seconds, measured with one
client's clicks, docs/benchmarks.md) falls on both alike; in this order a steady drift does
too."""
PACED_ROUND_ORDER = ("app", "reference", SPEAKER_RESTING, SPEAKER_RESTING, "reference", "app")
"""Voice-to-voice paced at real time: the app also takes rounds with its speaker left resting
(:data:`SPEAKER_RESTING`), for the paced row's floor; each of the three comes at the same places on
average, so a steady drift falls on all alike."""


@dataclass
class VoicePair:
    """One voice run: the app's rounds, the starter's, and the app's resting-speaker rounds."""

    app: VoiceResult
    reference: VoiceResult
    resting: VoiceResult | None = None
    """The app answering paced answers from a resting speaker (None in bursts)."""

    def results(self) -> list[tuple[str, VoiceResult]]:
        """Each client's rounds with the client's name, the app's resting rounds if any."""
        named = [("app", self.app)]
        if self.resting is not None:
            named.append(("app, speaker resting (bench only)", self.resting))
        return [*named, ("starter-style client", self.reference)]


def round_order(rounds: int, pacing: str) -> list[str]:
    """Whose each round of a voice run is: ``rounds`` each for the app and the starter, and
    for paced answers as many with the app's speaker resting."""
    pattern = PACED_ROUND_ORDER if pacing == "realtime" else ROUND_ORDER
    clients = len(set(pattern))
    return [pattern[index % len(pattern)] for index in range(clients * rounds)]


def resting_presses(order: list[str]) -> str:
    """The app's presses of ``order``, "1" where its speaker is to answer from rest
    (bench/app_probe.py ``SAMMY_BENCH_RESTING_START``)."""
    app_rounds = [client for client in order if client != "reference"]
    return "".join("1" if client == SPEAKER_RESTING else "0" for client in app_rounds)


APP_GAP = "playback underrun"
"""The app's log line for a gap in an answer (audio/jitter.py, at DEBUG)."""
REFERENCE_GAP = "gap in the answer"
"""The starter-style client's line for one (bench/reference_client.py GAP_LINE)."""


def _lines_with(process: LineProcess, needle: str, *, after: int) -> int:
    """How many of ``process``'s lines since line ``after`` hold ``needle``."""
    process.count()
    return sum(needle in line for _stamp, line in process.lines[after:])


def _resting_env(order: list[str]) -> dict[str, str]:
    return {"SAMMY_BENCH_RESTING_START": resting_presses(order)} if SPEAKER_RESTING in order else {}


def voice_to_voice_pair(
    rig: StereoRig,
    workdir: Path,
    rounds: int,
    *,
    pacing: str = "realtime",
    speech_text: str = SPEECH_TEXT,
) -> VoicePair:
    """Voice-to-voice through the real app and the starter-style client, taking turns.

    Each client has its own simulator, the answer paced ``pacing`` (see echo_sim); the
    speech, the microphone and the speaker are the same for both. Returns ``rounds`` rounds
    of each; paced, also ``rounds`` of the app answering from a resting speaker, as it does
    bursts (the paced answer's cushion, measured: :func:`round_order`).
    """
    speech = Speech.load(workdir, speech_text)
    keyboard = XKeyboard()
    order = round_order(rounds, pacing)
    key_ups: dict[str, list[float]] = {client: [] for client in order}
    gaps: dict[str, list[int]] = {client: [] for client in order}
    try:
        with (
            SimProcess(
                "turn", workdir, label=f"app-{pacing}", pacing=pacing, think_ms=ECHO_THINK_MS
            ) as app_sim,
            SimProcess(
                "turn",
                workdir,
                label=f"reference-{pacing}",
                pacing=pacing,
                think_ms=ECHO_THINK_MS,
            ) as reference_sim,
            running_app(app_sim, workdir, env_extra=_resting_env(order)) as app,
            running_reference(reference_sim) as reference,
            ToneFeeder() as feeder,
            DatedRecorder(rig.monitor) as recorder,
        ):
            for client in order:
                if client == "reference":
                    mark = reference.count()
                    reference.send("down")
                    _speak(feeder, speech, recorder)
                    key_ups[client].append(reference.send("up"))
                    # The starter has no "answer played" signal: give the echo its length
                    # and a margin.
                    time.sleep(speech.seconds + ANSWER_MARGIN_S)
                    gaps[client].append(_lines_with(reference, REFERENCE_GAP, after=mark))
                else:
                    mark = app.count()
                    keyboard.press()
                    app.wait_for(TALK_PRESSED, after=mark)
                    _speak(feeder, speech, recorder)
                    key_ups[client].append(keyboard.release())
                    app.wait_for(ANSWER_PLAYED, after=mark)
                    gaps[client].append(_lines_with(app, APP_GAP, after=mark))
                    time.sleep(0.3)
    finally:
        keyboard.close()
    audio = recorder.result()
    recording = workdir / f"v2v-{pacing}.wav"
    save_wav(audio, recording)
    measured = answer_latencies(audio, len(order), speech.seconds, recording.name)
    dating = f"{audio.residual_ms:.1f} ms, {audio.jumps} jumps"

    def result(client: str, sim: SimProcess) -> VoiceResult:
        return _voice_result(
            measured.of(order, client), key_ups[client], sim, dating, gaps=gaps[client]
        )

    return VoicePair(
        result("app", app_sim),
        result("reference", reference_sim),
        result(SPEAKER_RESTING, app_sim) if SPEAKER_RESTING in order else None,
    )


def _answers_sent(events: list[dict[str, object]]) -> list[float]:
    """When each turn's first message with model audio left the simulator."""
    firsts: list[float] = []
    waiting = False
    for event in events:
        if event["kind"] == "activity_end":
            waiting = True
        elif waiting and event["kind"] == "sent.serverContent" and event.get("audio"):
            firsts.append(float(cast("float", event["t"])))
            waiting = False
    return firsts


def _voice_result(
    measured: AnswerRounds,
    key_ups: list[float],
    sim: SimProcess,
    dating: str,
    *,
    gaps: list[int],
) -> VoiceResult:
    """A client's voice-to-voice rounds, and where each round's time went.

    Every date is on ``time.monotonic()``: the dated recording's speech ends and answer
    sounds, the key's releases, the simulator's receive and send stamps.

    Args:
        measured: the client's own rounds of the recording.
        key_ups: when its key went up, round by round.
        sim: its simulator (only its rounds reach it).
        dating: how well the recording's dates held.
        gaps: the gaps in each of its answers (:attr:`VoiceResult.gaps`).
    """
    activity_ends = sim.times("activity_end")
    sent = _answers_sent(sim.events)
    service: list[float] = []
    less_service: list[float] = []
    rounds_measured = zip(
        measured.speech_ends, measured.answer_sounds, measured.latencies_ms, strict=True
    )
    for end, sound, latency in rounds_measured:
        # This round's activityEnd and its answer's first message: both between its
        # speech's end and its answer's sound.
        ends = [t for t in activity_ends if end <= t <= sound]
        firsts = [t for t in sent if ends and ends[0] <= t <= sound]
        if firsts:
            service.append((firsts[0] - ends[0]) * 1000)
            less_service.append(latency - service[-1])
    return VoiceResult(
        measured.latencies_ms,
        measured.left_out,
        _pairs_after(key_ups, activity_ends),
        release_after_speech_ms=_pairs_after(measured.speech_ends, key_ups),
        service_ms=service,
        less_service_ms=less_service,
        answer_to_sound_ms=_pairs_after(sent, measured.answer_sounds),
        dating=dating,
        gaps=gaps,
    )


def _clicks_file(workdir: Path, count: int, interval_s: float) -> Path:
    path = workdir / f"clicks-{count}.wav"
    write_wav(path, click_train(count, interval_s), RIG_RATE)
    return path


@dataclass
class ClickResult:
    """Click-in -> echo-out through the app, and where each click's time went."""

    latencies_ms: list[float]
    breakdown_ms: dict[str, list[float]] = field(default_factory=dict)


def _loud_onsets(events: list[dict[str, object]]) -> list[float]:
    """The simulator's receive stamps of audio chunks that start a burst (bench/audio_trace)."""
    stamps: list[float] = []
    last = -1e9
    for event in events:
        if event["kind"] != "audio" or int(event.get("first_loud", -1)) < 0:  # type: ignore[call-overload]
            continue
        stamp = float(event["t"])  # type: ignore[arg-type]
        if stamp - last >= audio_trace.QUIET_S:
            stamps.append(stamp)
        last = stamp
    return stamps


def click_to_echo_app(
    rig: StereoRig,
    workdir: Path,
    count: int,
    interval_s: float,
    *,
    label: str = "app",
    trace: bool = False,
    **settings: object,
) -> ClickResult:
    """Click-in -> echo-out through the real app; ``settings`` go into its profile.

    ``trace``: also stamp each click at every hand-off inside the app (bench/audio_trace.py)
    and return the breakdown.
    """
    clicks = _clicks_file(workdir, count, interval_s)
    trace_file = workdir / f"trace-{label}.json"
    env_extra = {"SAMMY_BENCH_TRACE": str(trace_file)} if trace else {}
    keyboard = XKeyboard()
    try:
        with (
            SimProcess("chunk", workdir, label=label) as sim,
            # No pre-roll: the 300 ms it sends at once on the key press would come back at
            # once and sit in the jitter buffer for the whole test (the real model never
            # answers the pre-roll instantly); this measures the audio path alone.
            running_app(
                sim,
                workdir,
                env_extra=env_extra,
                **{"pre_roll_ms": 0, **cast("dict[str, Any]", settings)},
            ) as app,
            rig.recording(workdir / f"click-{label}.wav"),
        ):
            mark = app.count()
            keyboard.press()
            app.wait_for(TALK_PRESSED, after=mark)
            play_into_mic(clicks)
            time.sleep(0.5)
            keyboard.release()
    finally:
        keyboard.close()
    result = ClickResult(echo_latencies_ms(workdir / f"click-{label}.wav", interval_s))
    if trace and trace_file.exists():
        result.breakdown_ms = audio_trace.breakdown(
            json.loads(trace_file.read_text()), _loud_onsets(sim.events)
        )
    return result


def click_to_echo_reference(
    rig: StereoRig, workdir: Path, count: int, interval_s: float, *, minimal: bool = False
) -> list[float]:
    clicks = _clicks_file(workdir, count, interval_s)
    label = "minimal" if minimal else "reference"
    with (
        SimProcess("chunk", workdir, label=label) as sim,
        running_reference(sim, minimal=minimal) as client,
        rig.recording(workdir / f"click-{label}.wav"),
    ):
        client.send("down")
        play_into_mic(clicks)
        time.sleep(0.5)
        client.send("up")
    return echo_latencies_ms(workdir / f"click-{label}.wav", interval_s)


def pulse_floor(rig: StereoRig, workdir: Path, count: int, interval_s: float) -> list[float]:
    clicks = _clicks_file(workdir, count, interval_s)
    with (
        pulse_loopback(f"{MIC_FEED}.monitor", SPEAKER),
        rig.recording(workdir / "click-pulse.wav"),
    ):
        time.sleep(0.3)
        play_into_mic(clicks)
    return echo_latencies_ms(workdir / "click-pulse.wav", interval_s)


@dataclass
class ResourceResult:
    """The real app's footprint and responsiveness."""

    startup_s: float
    cpu_idle_pct: list[float]  # one per second
    cpu_listening_pct: float
    cpu_streaming_pct: float
    rss_mb: dict[str, float]
    lag_streaming_ms: list[float]
    lag_slow_tool_ms: list[float]
    cpu_slow_tool_pct: float
    gc_full_unfrozen_ms: float  # a full collection once the Live SDK is loaded, before the freeze
    gc_full_after_turns_ms: float  # one after the streaming turns, long-lived objects frozen
    gc_frozen_objects: int


PROBE_SWITCH_S = 0.6
GC_MARKS = ("full-unfrozen-ms", "frozen-objects")
STARTUP_SETTLE_S = 3.0


def _cpu_pct(app: LineProcess, seconds: float) -> float:
    cpu0, wall0 = app.cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    return (app.cpu_seconds() - cpu0) / (time.monotonic() - wall0) * 100


def app_resources(
    workdir: Path, *, idle_s: float, streaming_rounds: int, speech_text: str = SPEECH_TEXT
) -> ResourceResult:
    """Start-up, CPU and RSS in three states, and event-loop lag while answering."""
    speech, _seconds = make_speech(workdir, speech_text)
    lag_file = workdir / "loop-lag.json"
    keyboard = XKeyboard()
    windows: dict[str, list[tuple[float, float]]] = {"streaming": [], "slow": []}
    cpu: dict[str, list[float]] = {"listening": [], "streaming": [], "slow": []}
    rss: dict[str, float] = {}
    try:
        with (
            # The speaker as a hardware sink behaves (see bench/pulse_rig.py's docstring).
            sinks_kept_awake(),
            SimProcess("probe", workdir, plain_turns=streaming_rounds, label="app") as sim,
            running_app(sim, workdir, lag_file, env_extra={"SAMMY_BENCH_GC_MARKS": "1"}) as app,
        ):
            startup = app.wait_for(WINDOW_SHOWN) - app.started_at
            # The freeze comes before the first connection, so before running_app's READY.
            gc_marks = {what: _mark_time(app, f"bench-mark gc-{what}", 0) for what in GC_MARKS}
            rss["startup"] = app.rss_mb()
            # Let start-up settle: first paint, the connection, and the sound server starting
            # the new streams (PortAudio's ALSA capture busy-waits, a core at 100 %, until
            # PulseAudio delivers its first fragment: up to a second and a half here).
            time.sleep(STARTUP_SETTLE_S)
            # Second by second, without the lag probe (see bench/app_probe.py): the median
            # is the app at rest, the max shows what a stray wake-up costs.
            idle = [_cpu_pct(app, 1.0) for _ in range(max(1, round(idle_s)))]
            rss["idle"] = app.rss_mb()
            probe_switch = Path(f"{lag_file}.on")
            for turn in range(streaming_rounds + 1):
                kind = "slow" if turn == streaming_rounds else "streaming"
                # The lag probe's 100 wake-ups a second are the benchmark's load: it runs in
                # every other plain turn (and the slow one) for the lag rows; the CPU rows
                # come from the turns without it.
                probing = kind == "slow" or turn % 2 == 0
                if probing != probe_switch.exists():
                    if probing:
                        probe_switch.touch()
                    else:
                        probe_switch.unlink()
                    time.sleep(PROBE_SWITCH_S)  # the probe looks at its switch twice a second
                mark = app.count()
                keyboard.press()
                app.wait_for(TALK_PRESSED, after=mark)
                cpu0, wall0 = app.cpu_seconds(), time.monotonic()
                play_into_mic(speech)
                if not probing:
                    cpu["listening"].append(
                        (app.cpu_seconds() - cpu0) / (time.monotonic() - wall0) * 100
                    )
                rss["listening"] = app.rss_mb()
                keyboard.release()
                cpu0, wall0 = app.cpu_seconds(), time.monotonic()
                end = app.wait_for(ANSWER_PLAYED, after=mark)
                if not probing or kind == "slow":
                    cpu[kind].append((app.cpu_seconds() - cpu0) / (time.monotonic() - wall0) * 100)
                if probing:
                    windows[kind].append((wall0, end))
                rss["streaming"] = app.rss_mb()
                time.sleep(0.3)
            mark = app.count()
            Path(f"{lag_file}.gc").touch()  # bench/app_probe.py collects once, timed
            gc_marks["full-after-turns-ms"] = _mark_time(app, "bench-mark gc-full-ms", mark)
    finally:
        keyboard.close()
    samples: list[tuple[float, float]] = (
        json.loads(lag_file.read_text()) if lag_file.exists() else []
    )

    def lags(kind: str) -> list[float]:
        return [
            lag * 1000
            for stamp, lag in samples
            if any(start <= stamp <= end for start, end in windows[kind])
        ]

    def mean(values: list[float]) -> float:
        return float(np.mean(values)) if values else float("nan")

    return ResourceResult(
        startup_s=startup,
        cpu_idle_pct=idle,
        cpu_listening_pct=mean(cpu["listening"]),
        cpu_streaming_pct=mean(cpu["streaming"]),
        rss_mb=rss,
        lag_streaming_ms=lags("streaming"),
        lag_slow_tool_ms=lags("slow"),
        cpu_slow_tool_pct=mean(cpu["slow"]),
        gc_full_unfrozen_ms=gc_marks["full-unfrozen-ms"],
        gc_full_after_turns_ms=gc_marks["full-after-turns-ms"],
        gc_frozen_objects=round(gc_marks["frozen-objects"]),
    )


# ---------------------------------------------------------------------- the microphone

MIC_TONE_S = 0.5
MIC_MODES = ("close", "always_ready")
BEGIN_TALK_MARK = "bench-mark begin-talk"
FIRST_BLOCK_MARK = "bench-mark first-block"
FIRST_SAMPLE_MARK = "bench-mark first-sample"
CUE_MARK = "bench-mark cue"
RESTING = "-> resting"
REST_AFTER_S = 3.0


@dataclass
class MicModeResult:
    """One "Microphone between turns" mode of the real app."""

    key_to_first_block_ms: list[float] = field(default_factory=list)
    key_to_first_sample_ms: list[float] = field(default_factory=list)
    """To when the first block's first sample was taken (PortAudio's ADC time)."""
    key_to_cue_ms: list[float] = field(default_factory=list)
    lost_ms: list[float] = field(default_factory=list)
    onset_ms: list[float] = field(default_factory=list)
    """Where the tone began in each turn's audio (always ready: after the 300 ms pre-roll,
    plus the feeder's own latency)."""
    cpu_idle_pct: list[float] = field(default_factory=list)


@dataclass
class MicResult:
    """The microphone's start in both modes, and the idle app's CPU in each, and resting."""

    modes: dict[str, MicModeResult]
    cpu_resting_pct: list[float]


WARBLE_VARIANTS = 3
"""Different warbles, one per round in turn: no round's speech is the answer before it."""


def _mark_time(app: LineProcess, mark: str, after: int) -> float:
    app.wait_for(mark, after=after)
    for _stamp, line in app.lines[after:]:
        if mark in line:
            return float(line.split(mark, 1)[1].split()[0])
    raise BenchError(f"no {mark!r} line")


def _received_tone_ms(events: list[dict[str, object]]) -> list[tuple[float, float]]:
    """Per turn, how much of the test tone the simulator received (first to last loud
    sample) and where in the turn's audio it began, both in ms."""
    spans: list[tuple[float, float]] = []
    position = 0
    first = last = -1
    in_turn = False
    for event in events:
        kind = event["kind"]
        if kind == "activity_start":
            in_turn, position, first, last = True, 0, -1, -1
        elif kind == "audio" and in_turn:
            if int(event.get("first_loud", -1)) >= 0:  # type: ignore[call-overload]
                if first < 0:
                    first = position + int(event["first_loud"])  # type: ignore[call-overload]
                last = position + int(event["last_loud"])  # type: ignore[call-overload]
            position += int(event.get("samples", 0))  # type: ignore[call-overload]
        elif kind == "activity_end" and in_turn:
            in_turn = False
            if first >= 0:
                spans.append(((last - first) / 16, first / 16))
            else:
                spans.append((0.0, float("nan")))
    return spans


def mic_start(workdir: Path, *, rounds: int, idle_s: float) -> MicResult:
    """Key down -> first block and -> the listening cue, speech lost, idle CPU; both modes.

    The virtual microphone is kept running (``sinks_kept_awake``) as a sound card is: an
    idle null sink starts its monitor in 2 s blocks, which would measure PulseAudio's null
    sink, not the app (see docs/benchmarks.md). A 0.5 s warble starts at key down (through
    a 10 ms-latency feeder; each round's differs from the one before, which the answer
    echoed: see :func:`warble`); the key goes up once it has played. What the simulator received
    of it, first loud sample to last, against its length, is the speech lost.
    """
    keyboard = XKeyboard()
    results: dict[str, MicModeResult] = {}
    resting: list[float] = []
    tones = [warble(MIC_TONE_S, rate=RIG_RATE, variant=v) for v in range(WARBLE_VARIANTS)]
    try:
        with sinks_kept_awake(), ToneFeeder() as feeder:
            for mode in MIC_MODES:
                result = results[mode] = MicModeResult()
                with SimProcess("turn", workdir, label=f"mic-{mode}") as sim:
                    env_extra = {"SAMMY_BENCH_MIC_MARKS": "1"}
                    if mode == "close":
                        env_extra["SAMMY_BENCH_REST_S"] = str(REST_AFTER_S)
                    with running_app(
                        sim, workdir, env_extra=env_extra, mic_between_turns=mode
                    ) as app:
                        time.sleep(STARTUP_SETTLE_S)
                        # Before any turn: no resumption handle yet, so no rest either.
                        result.cpu_idle_pct = [
                            _cpu_pct(app, 1.0) for _ in range(max(1, round(idle_s)))
                        ]
                        for index in range(rounds):
                            mark = app.count()
                            down = keyboard.press()
                            feeder.start(tones[index % WARBLE_VARIANTS])
                            first = _mark_time(app, FIRST_BLOCK_MARK, mark)
                            sample = _mark_time(app, FIRST_SAMPLE_MARK, mark)
                            result.key_to_first_sample_ms.append((sample - down) * 1000)
                            cue = _mark_time(app, CUE_MARK, mark)
                            result.key_to_first_block_ms.append((first - down) * 1000)
                            result.key_to_cue_ms.append((cue - down) * 1000)
                            time.sleep(MIC_TONE_S + 0.3)
                            keyboard.release()
                            app.wait_for(ANSWER_PLAYED, after=mark)
                            time.sleep(0.3)
                        if mode == "close":
                            app.wait_for(RESTING, timeout=REST_AFTER_S + 30)
                            time.sleep(1.0)
                            resting = [_cpu_pct(app, 1.0) for _ in range(max(1, round(idle_s)))]
                received = _received_tone_ms(sim.events)
                result.lost_ms = [max(0.0, MIC_TONE_S * 1000 - span) for span, _ in received]
                result.onset_ms = [onset for _, onset in received]
    finally:
        keyboard.close()
    return MicResult(results, resting)
