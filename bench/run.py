"""``make bench``: every benchmark of Sammy Desktop in one run, one table, one JSON file.

    scripts/with-test-services.sh .venv/bin/python bench/run.py            # the full run
    scripts/with-test-services.sh .venv/bin/python bench/run.py --smoke    # seconds, CI
    ... bench/run.py --only voice,tools      # a subset (names: see --help)
    ... bench/run.py --bundle                # also the PyInstaller bundle (builds if needed)

It needs the private services (PulseAudio with the virtual mic and speaker, Xvfb): run it
through ``scripts/with-test-services.sh`` (``make bench`` does). It prints a Markdown table
(median, p95, max, target, pass/MISS), writes ``build/bench/results.json`` with the machine
it ran on and every sample, and after a full run ``docs/latency.png`` and
``docs/performance.md`` (the README's performance section). ``--smoke`` runs a tiny
version of everything and only checks that each benchmark runs and produces numbers.

Exit status: 0 when every benchmark ran (targets missed or not: the table says which; add
``--strict`` to fail on a miss), 1 when one could not run, 2 without the services.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import (  # noqa: E402
    apm_delay,
    cpu_rows,
    in_process,
    jitter_drain,
    live_audio,
    speaker_start,
)
from bench.pulse_rig import StereoRig  # noqa: E402
from bench.report import Report, Row, Target, table  # noqa: E402

RESULTS = REPO / "build" / "bench" / "results.json"
PLOT = REPO / "docs" / "latency.png"
PERFORMANCE_MD = REPO / "docs" / "performance.md"
CLICK_INTERVAL_S = 0.3


@dataclass(frozen=True)
class Sizes:
    """How much of each benchmark to run."""

    voice_rounds: int
    clicks: int
    share_rounds: int
    tool_repeats: int
    overhead_calls: int
    idle_s: float
    streaming_rounds: int
    long_turns: int
    long_go_away_every: int
    long_drops: tuple[int, ...]
    audio_args: tuple[str, ...]
    mic_rounds: int
    start_trials: int
    speech_text: str
    """What the voice rounds and the app's turns say (and hear echoed)."""


FULL = Sizes(
    voice_rounds=12,
    clicks=40,
    share_rounds=20,
    tool_repeats=20,
    overhead_calls=500,
    idle_s=10.0,
    streaming_rounds=4,
    long_turns=60,
    long_go_away_every=10,
    long_drops=(23, 47),
    audio_args=(),
    mic_rounds=12,
    start_trials=30,
    speech_text=live_audio.SPEECH_TEXT,
)
SMOKE = Sizes(
    voice_rounds=1,
    # Enough that some reach the echo canceller's far side while it is still learning.
    clicks=10,
    share_rounds=2,
    tool_repeats=1,
    overhead_calls=10,
    idle_s=1.0,
    streaming_rounds=2,  # one with the lag probe, one without (the CPU rows)
    long_turns=8,
    long_go_away_every=4,
    long_drops=(5,),
    audio_args=("--seconds", "1", "--rounds", "2"),
    mic_rounds=2,
    start_trials=2,
    speech_text=live_audio.SMOKE_SPEECH_TEXT,
)


# ---------------------------------------------------------------------- the benchmarks


PACINGS = {"burst": "answer in bursts (as the service sends it)", "realtime": "answer paced"}


def _median_or_dash(values: list[float]) -> str:
    return f"{_median(values):.1f} ms" if values else "-"


def _ratio(reference: list[float], ours: list[float]) -> list[float]:
    if not reference or not ours:
        return []
    return [float(_median(reference) / _median(ours))]


def bench_voice(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    """Voice-to-voice, the app and the starter-style client, for each pacing of the answer."""
    runs: dict[str, live_audio.VoicePair] = {}
    with StereoRig() as rig:
        for pacing in PACINGS:
            run = live_audio.voice_to_voice_pair(
                rig, work, sizes.voice_rounds, pacing=pacing, speech_text=sizes.speech_text
            )
            runs[pacing] = run
            report.samples[f"voice_app_{pacing}"] = run.app.latencies_ms
            report.samples[f"voice_reference_{pacing}"] = run.reference.latencies_ms
        floor = speaker_start.start_floor(rig, sizes.start_trials)
    group = "latency"
    rows: list[Row] = []
    for pacing, words in PACINGS.items():
        app, ref = runs[pacing].app, runs[pacing].reference
        app_left_out, ref_left_out = app.left_out_line(), ref.left_out_line()
        rows += [
            Row(
                group,
                f"voice-to-voice, app, {words}",
                "ms",
                app.latencies_ms,
                note="end of speech -> first answer sample; push-to-talk in the real window",
                left_out=app_left_out,
            ),
            Row(
                group,
                f"voice-to-voice, starter-style client, {words}",
                "ms",
                ref.latencies_ms,
                left_out=ref_left_out,
            ),
            Row(
                group,
                f"voice-to-voice, starter-style / app (medians), {words}",
                "x",
                _ratio(ref.latencies_ms, app.latencies_ms),
                Target("value", ">=", 1.0, ">= 1 (app no slower)"),
                left_out=" / ".join(line for line in (app_left_out, ref_left_out) if line),
            ),
        ]
    for pacing, words in PACINGS.items():
        app, ref = runs[pacing].app, runs[pacing].reference
        rows += [
            Row(
                group,
                f"voice-to-voice less the service's own time, app, {words}",
                "ms",
                app.less_service_ms,
                note="per round, less activityEnd -> the answer's first message (its think "
                f"time, {live_audio.ECHO_THINK_MS} ms, and its work): the client and the release",
            ),
            Row(
                group,
                f"voice-to-voice less the service's own time, starter-style client, {words}",
                "ms",
                ref.less_service_ms,
                note="service's own time, medians: "
                f"app {_median_or_dash(app.service_ms)}, starter {_median_or_dash(ref.service_ms)}",
            ),
            Row(
                "app share",
                f"answer's first message sent -> its first sound at the speaker, app, {words}",
                "ms",
                app.answer_to_sound_ms,
                note="simulator's send stamp -> the dated recording's speaker channel",
            ),
            Row(
                "app share",
                f"answer's first message sent -> its first sound at the speaker, "
                f"starter-style client, {words}",
                "ms",
                ref.answer_to_sound_ms,
                note="the same measure: both clients' whole share of the answer's way",
            ),
        ]
    releases = [
        ms
        for run in runs.values()
        for _name, result in run.results()
        for ms in result.release_after_speech_ms
    ]
    rows.append(
        Row(
            "latency",
            "rig: the speech's end at the microphone -> the key's release, every voice run",
            "ms",
            releases,
            note=f"{live_audio.RELEASE_AFTER_SPEECH_S * 1000:.0f} ms by the dated recording "
            "(bench/dated_recording.py); its dates per run (both clients in one): "
            + "; ".join(run.app.dating for run in runs.values()),
        )
    )
    rows += _start_floor_rows(floor)
    rows += _paced_floor_rows(runs["realtime"])
    for pacing in PACINGS:
        rows += _gap_rows(runs[pacing], pacing)
    app, ref = runs["burst"].app, runs["burst"].reference
    rows += [
        Row(
            "app share",
            "key up -> activityEnd on the wire (real window, X key)",
            "ms",
            app.key_up_to_activity_end_ms,
            Target("p95", "<=", 5.0, "p95 <= 5"),
            note="XTest key release -> simulator's receive stamp (same monotonic clock)",
        ),
        Row(
            "app share",
            "key up -> activityEnd, reference client (stdin 'up')",
            "ms",
            ref.key_up_to_activity_end_ms,
        ),
    ]
    return rows


def _start_floor_rows(floor: speaker_start.StartFloor) -> list[Row]:
    """What the app's kind of speaker stream costs at an answer's start, on its own.

    Two minimal clients on the same rig (bench/speaker_start.py): a callback stream started
    from rest on a worker, as the app's answer in bursts starts its speaker, and a write into
    a blocking stream left running dry, as the starter-style client plays. Part of each
    client's answer's first message sent -> its first sound that no work in the client can
    take out while it keeps its kind of stream.
    """
    words = "sound given -> its first sound at the speaker, minimal client"
    difference = [float(_median(floor.from_rest_ms) - _median(floor.written_dry_ms))]
    return [
        Row(
            "app share",
            f"{words}, callback stream started from rest on a worker (the app's way)",
            "ms",
            floor.from_rest_ms,
            note="bench/speaker_start.py: 5 ms callbacks, 15 ms device buffer, the first fill "
            "waited for",
        ),
        Row(
            "app share",
            f"{words}, blocking write into a stream left running dry (the starter's way)",
            "ms",
            floor.written_dry_ms,
            note="the two take turns on the rig, nothing else in the process",
        ),
        Row(
            "latency",
            "floor: the speaker's start from rest less a write into a dry stream (medians)",
            "ms",
            difference,
            note="ALSA's pulse plugin makes a new PulseAudio stream at each start from rest",
        ),
    ]


def _paced_floor_rows(paced: live_audio.VoicePair) -> list[Row]:
    """The floor of the paced voice-to-voice row: the cushion a paced answer starts behind.

    An answer paced at real time plays from a running stream, behind its device buffer of
    silence (audio/standby.py: started from rest with the answer itself, the device buffer
    would take that much of the queue at once, and the next chunk would come late by as
    much), and the jitter buffer holds its start for its depth (``JitterBuffer.paced``: each
    chunk comes as the one before has played, so only that wait is a cushion against a
    late one). In the same paced run the app also answers rounds from a resting speaker, as
    it does bursts (``live_audio.SPEAKER_RESTING``): the cushion is what its own answers' way
    (sent -> first sound) takes longer as it is than from rest, and the app's voice-to-voice
    less it is what the starter-style client, which has no cushion (a gap at nearly every
    chunk: the gap rows), is compared with.
    """
    app, ref, resting = paced.app, paced.reference, paced.resting
    if resting is None or not (
        resting.answer_to_sound_ms and app.answer_to_sound_ms and app.latencies_ms
    ):
        return []
    cushion = _median(app.answer_to_sound_ms) - _median(resting.answer_to_sound_ms)
    less = [float(_median(app.latencies_ms) - cushion)]
    words = PACINGS["realtime"]
    return [
        Row(
            "app share",
            f"answer's first message sent -> its first sound at the speaker, app, {words}, "
            "speaker resting (bench only)",
            "ms",
            resting.answer_to_sound_ms,
            note="the app's rounds whose speaker was left resting, as for bursts, in the same "
            f"paced run; voice-to-voice in them: median {_median_or_dash(resting.latencies_ms)}",
            left_out=resting.left_out_line(),
        ),
        Row(
            "latency",
            f"floor: a paced answer's start cushion (device buffer, jitter wait), {words}",
            "ms",
            [float(cushion)],
            note="answer's first message sent -> its first sound, app, paced: speaker running - "
            "resting (medians)",
        ),
        Row("latency", f"voice-to-voice, app less that cushion, {words}", "ms", less),
        Row(
            "latency",
            f"voice-to-voice, starter-style / (app less the cushion), {words}",
            "x",
            _ratio(ref.latencies_ms, less),
            Target("value", ">=", 1.0, ">= 1 (app no slower)"),
        ),
    ]


def _gap_rows(run: live_audio.VoicePair, pacing: str) -> list[Row]:
    """Gaps in the answers of one pacing, each client's rounds of one run.

    In bursts, as the service sends answers, whether any client's speaker runs dry at all;
    paced, what the app's cushion is for (the starter-style client plays each chunk as it
    comes, and runs dry between them).
    """
    words = PACINGS[pacing]
    rows = []
    for name, result in run.results():
        if not result.gaps:
            continue
        with_gap = sum(count > 0 for count in result.gaps)
        rows.append(
            Row(
                "app share",
                f"gaps in an answer (the speaker ran dry after starting), {name}, {words}",
                "gaps",
                [float(count) for count in result.gaps],
                note=f"per round; rounds with a gap: {with_gap} of {len(result.gaps)}",
            )
        )
    return rows


CLICK_STAGES = {
    "adc -> callback": "microphone: sampled -> PortAudio callback (block, device buffer)",
    "callback -> loop": "callback -> the asyncio loop",
    "loop -> apm_out": "the echo canceller (its own delay, in whole 10 ms frames)",
    "apm_out -> sent": "the canceller -> on the wire (outbox, SDK, TLS)",
    "sent -> sim": "on the wire -> the simulator has it",
    "sim -> model_in": "the simulator's echo -> AudioPlayback.play (TLS, SDK)",
    "model_in -> fill": "play() -> the speaker's callback (jitter buffer)",
    "fill -> dac": "callback -> the speaker (device buffer, PortAudio's clock)",
    "adc -> dac": "the whole path in the app, converter to converter",
}


def bench_click(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    """Click-in -> echo-out: the app with echo cancellation on and off, the others, the floor."""
    with StereoRig() as rig:
        on = live_audio.click_to_echo_app(
            rig, work, sizes.clicks, CLICK_INTERVAL_S, label="app-aec", trace=True
        )
        off = live_audio.click_to_echo_app(
            rig,
            work,
            sizes.clicks,
            CLICK_INTERVAL_S,
            label="app-no-aec",
            trace=True,
            echo_cancellation=False,
        )
        ref_click = live_audio.click_to_echo_reference(rig, work, sizes.clicks, CLICK_INTERVAL_S)
        minimal_click = live_audio.click_to_echo_reference(
            rig, work, sizes.clicks, CLICK_INTERVAL_S, minimal=True
        )
        floor = live_audio.pulse_floor(rig, work, sizes.clicks, CLICK_INTERVAL_S)
    canceller = apm_delay.measure()
    report.samples["click_app"] = on.latencies_ms
    report.samples["click_app_no_aec"] = off.latencies_ms
    report.samples["click_reference"] = ref_click
    report.samples["click_minimal"] = minimal_click
    report.samples["click_pulse"] = floor
    report.outputs["click_breakdown"] = json.dumps({"on": on.breakdown_ms, "off": off.breakdown_ms})
    cost = (
        [_median(on.latencies_ms) - _median(off.latencies_ms)]
        if on.latencies_ms and off.latencies_ms
        else []
    )
    own = canceller["push_to_talk"]
    # The canceller's stage in the trace, on - off: the same clicks' path with nothing else
    # in it (the jitter buffer's depth moves the rig's medians by more than this).
    stage = "loop -> apm_out"
    stage_cost = (
        [_median(on.breakdown_ms[stage]) - _median(off.breakdown_ms[stage])]
        if on.breakdown_ms.get(stage) and off.breakdown_ms.get(stage)
        else []
    )
    group = "latency"
    rows = [
        Row(
            group,
            "click-in -> echo-out, app (echo cancellation on, the default)",
            "ms",
            on.latencies_ms,
            Target("median", "<=", 40.0, "<= 40 (3x ref)"),
            note="every chunk echoed at once; one stereo recording",
        ),
        Row(
            group,
            "click-in -> echo-out, app, echo cancellation off",
            "ms",
            off.latencies_ms,
        ),
        Row(
            group,
            "click-in -> echo-out, echo cancellation's cost (on - off, medians)",
            "ms",
            cost,
            Target("value", "<=", 5.0, "<= 5"),
            note="two runs of the app: their jitter buffers' depths differ by more than this",
        ),
        Row(
            group,
            "echo cancellation's cost on the click path (its stage, on - off, medians)",
            "ms",
            stage_cost,
            note="from the trace (the click path rows): into the canceller -> out of it",
        ),
        Row(
            group,
            "floor: the echo canceller's own delay (WebRTC AEC3, in process)",
            "ms",
            [own],
            note=f"a burst through the module; hands-free adds the noise suppressor: "
            f"{canceller['hands_free']:.0f} ms; idle (nothing left to cancel): "
            f"{canceller['push_to_talk_idle']:.0f} / {canceller['hands_free_idle']:.0f} ms",
        ),
        Row(
            group,
            "echo cancellation's cost beyond the canceller's own delay",
            "ms",
            [stage_cost[0] - own] if stage_cost else [],
            Target("value", "<=", 5.0, "<= 5"),
            note="its stage less the floor: what the app adds around the module",
        ),
        Row(
            group,
            "click-in -> echo-out, starter-style reference client",
            "ms",
            ref_click,
            note="issue: about 130 ms on these machines",
        ),
        Row(
            group,
            "click-in -> echo-out, reference / app (medians)",
            "x",
            _ratio(ref_click, on.latencies_ms),
            Target("value", ">=", 3.0, ">= 3x"),
        ),
        Row(
            group,
            "click-in -> echo-out, minimal low-latency client",
            "ms",
            minimal_click,
            note="10 ms callbacks both ways, no jitter buffer; issue: about 50 ms",
        ),
        Row(
            group,
            "click-in -> echo-out, PulseAudio's own loopback (floor)",
            "ms",
            floor,
            note="issue: about 7 ms",
        ),
    ]
    for stage, words in CLICK_STAGES.items():
        rows.append(
            Row(
                "click path",
                f"{stage}: {words}",
                "ms",
                on.breakdown_ms.get(stage, []),
                note=f"echo cancellation off: {_median(off.breakdown_ms[stage]):.1f} ms"
                if off.breakdown_ms.get(stage)
                else "",
            )
        )
    return rows


def _in_process(*args: str) -> dict[str, Any]:
    """Run ``bench/in_process.py ARGS`` in a fresh interpreter; its JSON result."""
    result = subprocess.run(
        [sys.executable, str(REPO / "bench/in_process.py"), *args],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"in_process.py {args[0]} failed: {result.stderr[-3000:]}")
    data: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return data


def bench_share(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    """The app's own share: the core and the real playback, in a process of their own."""
    result = in_process.ShareResult(**_in_process("share", "--rounds", str(sizes.share_rounds)))
    group = "app share"
    return [
        Row(
            group,
            "end_talk() -> activityEnd received (in process)",
            "ms",
            result.key_up_to_activity_end_ms,
            Target("p95", "<=", 5.0, "p95 <= 5"),
        ),
        Row(
            group,
            "model audio frame sent -> handed to the output device",
            "ms",
            result.frame_to_device_ms,
            note="first frame of an answer: includes the jitter buffer's start threshold",
        ),
        Row(
            group,
            "interrupted sent -> output silent (buffer dropped, else DAC by PortAudio)",
            "ms",
            result.interrupted_to_silence_ms,
            Target("max", "<=", 30.0, "max <= 30"),
        ),
        Row(
            group,
            "  of which interrupted sent -> flush() called",
            "ms",
            result.interrupted_to_flush_ms,
        ),
    ]


def bench_jitter(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    """The standing-queue drain (bench/jitter_drain.py): a stall early in a paced answer."""
    data = jitter_drain.measure()
    report.outputs["jitter"] = json.dumps(data)
    group = "jitter buffer"
    rows: list[Row] = []
    for signal, words in (("speech", "speech with pauses"), ("tone", "a tone without a pause")):
        rows += [
            Row(
                group,
                f"standing queue after a 60 ms stall, {words}: excess over the depth",
                "ms",
                [data[f"{signal}_excess_ms"]],
                note=f"without the drain it stays to the answer's end: "
                f"{data[f'{signal}_excess_without_drain_ms']:.0f} ms",
            ),
            Row(
                group,
                f"standing queue after a 60 ms stall, {words}: back to the depth after",
                "ms",
                [data[f"{signal}_recovery_ms"]],
                Target("value", "<=", 1000.0, "<= 1000"),
                note=f"{data[f'{signal}_drained_ms']:.0f} ms taken out, "
                f"{data[f'{signal}_cuts']:.0f} cuts of loud audio",
            ),
            Row(
                group,
                f"standing queue after a 60 ms stall, {words}: largest step / without the drain",
                "x",
                [data[f"{signal}_max_jump_ratio"]],
                Target("value", "<=", 1.1, "<= 1.1 (no click)"),
            ),
        ]
    return rows


def bench_screen(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    """Screen sharing (issue 20): grab + encode per frame, loop lag and CPU while sharing."""
    seconds = max(3.0, 2 * sizes.idle_s)
    rounds = max(3, sizes.clicks // 4)
    env = dict(os.environ, QT_QPA_PLATFORM="xcb")
    script = str(REPO / "bench/screen_share.py")
    result = subprocess.run(
        [sys.executable, script, "--seconds", str(seconds), "--rounds", str(rounds)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )
    report.outputs["screen"] = result.stderr[-3000:]
    if result.returncode != 0:
        raise RuntimeError(f"screen_share.py failed: {result.stderr[-3000:]}")
    data: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    group = "screen sharing"
    width, height = data["screen"]
    rows = [
        Row(
            group,
            f"grab + encode per frame, {size} px long edge ({width}x{height} screen)",
            "ms",
            times,
        )
        for size, times in data["grab_encode_ms"].items()
    ]
    extra = data["cpu_sharing"] - data["cpu_idle"]
    rows += [
        Row(
            group,
            "loop lag while sharing at 1 frame/s (10 ms probe)",
            "ms",
            data["lag_ms"],
            Target("p99", "<", 10.0, "p99 < 10"),
        ),
        Row(
            group,
            "CPU while sharing at 1 frame/s, over not sharing",
            "% of a core",
            [extra],
            Target("value", "<", 5.0, "< 5"),
            note=f"{data['frames']} frames sent; not sharing {data['cpu_idle']:.1f} %",
        ),
    ]
    return rows


def bench_tools(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    data = _in_process(
        "tools", "--repeats", str(sizes.tool_repeats), "--overhead-calls", str(sizes.overhead_calls)
    )
    data["parallel_ms"] = {int(k): v for k, v in data["parallel_ms"].items()}
    result = in_process.DispatchResult(**data)
    group = "tools"
    rows = [
        Row(group, "dispatch overhead per call (instant tool, answered)", "ms", result.overhead_ms)
    ]
    for count, values in result.parallel_ms.items():
        rows.append(
            Row(
                group,
                f"{count} parallel calls of a 50 ms tool",
                "ms",
                values,
                Target("median", "<", 75.0, "~50, < 75"),
            )
        )
    return rows


def bench_app(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    """The real app in its window: start-up, CPU, RSS, event-loop lag."""
    result = live_audio.app_resources(
        work,
        idle_s=sizes.idle_s,
        streaming_rounds=sizes.streaming_rounds,
        speech_text=sizes.speech_text,
    )
    reference_streaming = cpu_rows.streaming_cpu_reference(
        work, sizes.streaming_rounds, sizes.speech_text
    )
    hands_free = cpu_rows.hands_free_idle_cpu(work, sizes.idle_s)
    report.samples["loop_lag_streaming"] = result.lag_streaming_ms
    report.samples["loop_lag_slow_tool"] = result.lag_slow_tool_ms
    peak_rss = max(result.rss_mb.values()) if result.rss_mb else float("nan")
    return [
        Row(
            "loop",
            "event-loop lag, streaming an answer (window, meters)",
            "ms",
            result.lag_streaming_ms,
            Target("p99", "<", 10.0, "p99 < 10"),
            note=f"p99 {_p99(result.lag_streaming_ms):.2f} ms; 10 ms probe on the qasync loop",
        ),
        Row(
            "loop",
            "event-loop lag, streaming with a slow tool running",
            "ms",
            result.lag_slow_tool_ms,
            Target("p99", "<", 10.0, "p99 < 10"),
            note=f"p99 {_p99(result.lag_slow_tool_ms):.2f} ms; tool waits 2 s on a thread",
        ),
        Row(
            "loop",
            "a full garbage collection after the turns (long-lived objects frozen)",
            "ms",
            [result.gc_full_after_turns_ms],
            note=f"{result.gc_frozen_objects} objects frozen once the Live SDK is loaded; "
            "it holds the GIL (the speaker's device buffer: 15 ms)",
        ),
        Row(
            "loop",
            "a full garbage collection, nothing frozen",
            "ms",
            [result.gc_full_unfrozen_ms],
            note="just before the freeze, all loaded: what each full collection cost before",
        ),
        Row(
            "resources",
            "CPU idle, window shown, connected",
            "% core",
            result.cpu_idle_pct,
            Target("value", "<", 1.0, "< 1"),
        ),
        Row(
            "resources",
            "CPU listening (talk held, speech in)",
            "% core",
            [result.cpu_listening_pct],
        ),
        Row(
            "resources",
            "CPU streaming an answer",
            "% core",
            [result.cpu_streaming_pct],
            Target("value", "<=", 10.0, "<= 10"),
            note="echo cancellation on (the default); push-to-talk, the microphone closed",
        ),
        Row(
            "resources",
            "CPU streaming an answer, starter-style reference client",
            "% core",
            [reference_streaming],
            note="the same speech and answers, measured the same way",
        ),
        Row(
            "resources",
            "CPU hands-free listening, nobody speaking",
            "% core",
            hands_free,
            Target("median", "<=", 8.0, "<= 8"),
            note="the microphone streamed to the service, echo cancellation on; per second",
        ),
        Row(
            "resources",
            "CPU streaming with the slow tool",
            "% core",
            [result.cpu_slow_tool_pct],
            note="with the 10 ms lag probe running",
        ),
        Row(
            "resources",
            "RSS, peak of idle/listening/streaming",
            "MB",
            [peak_rss],
            Target("value", "<", 250.0, "< 250"),
            note=", ".join(f"{k} {v:.0f}" for k, v in result.rss_mb.items()),
        ),
        Row(
            "resources",
            "start-up to the window shown (from source)",
            "s",
            [result.startup_s],
            Target("value", "<", 1.5, "< 1.5"),
        ),
    ]


MIC_MODE_WORDS = {"close": "close at once", "always_ready": "always ready"}


def bench_mic(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    """The microphone opened on the press (issue 17), in the real app, both modes side by side."""
    result = live_audio.mic_start(work, rounds=sizes.mic_rounds, idle_s=sizes.idle_s)
    group = "microphone"
    rows: list[Row] = []
    for measure in ("first_block", "cue"):
        for mode, words in MIC_MODE_WORDS.items():
            values = result.modes[mode]
            if measure == "first_block":
                rows.append(
                    Row(
                        group,
                        f"key down -> first captured block, {words}",
                        "ms",
                        values.key_to_first_block_ms,
                        note="XTest key press -> the PortAudio callback of the first block",
                    )
                )
            else:
                rows.append(
                    Row(
                        group,
                        f"key down -> listening cue, {words}",
                        "ms",
                        values.key_to_cue_ms,
                        note="-> the talk control turns to Listening (earcon, ring)",
                    )
                )
    rows.insert(
        0,
        Row(
            "latency",
            "key down -> first captured sample (microphone opened on the press, the default)",
            "ms",
            result.modes["close"].key_to_first_sample_ms,
            note="XTest key press -> the first block's first sample, by PortAudio's ADC time",
        ),
    )
    # Always ready sends the 300 ms before the press first: where the tone begins after it
    # is the feeder's own latency, which the close-at-once loss does not count.
    onsets = [o - 300.0 for o in result.modes["always_ready"].onset_ms if o == o]
    feeder = f"{_median(onsets):.0f} ms" if onsets else "unknown"
    for mode, words in MIC_MODE_WORDS.items():
        rows.append(
            Row(
                group,
                f"speech lost at the start of a turn, {words}",
                "ms",
                result.modes[mode].lost_ms,
                note="a 0.5 s warble (never the answer before it) started at key down, "
                "what never reached the simulator; "
                f"the warble reached the mic {feeder} after the key",
            )
        )
    rows += [
        Row(
            group,
            "CPU idle, window shown, connected, close at once",
            "% core",
            result.modes["close"].cpu_idle_pct,
            Target("median", "<", 1.0, "< 1"),
            note="no capture stream between turns (the default)",
        ),
        Row(
            group,
            "CPU idle, window shown, connected, always ready",
            "% core",
            result.modes["always_ready"].cpu_idle_pct,
            note="the capture stream open, in standby, for the pre-roll",
        ),
        Row(
            group,
            "CPU idle while resting (connection closed after the quiet)",
            "% core",
            result.cpu_resting_pct,
            note=f"rest after {live_audio.REST_AFTER_S:g} s here instead of 15 min",
        ),
    ]
    return rows


def bench_long(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    result = in_process.LongSessionResult(
        **_in_process(
            "long",
            "--turns",
            str(sizes.long_turns),
            "--go-away-every",
            str(sizes.long_go_away_every),
            "--drops",
            ",".join(str(n) for n in sizes.long_drops),
        )
    )
    group = "long session"
    note = (
        f"{result.turns} turns, {result.go_aways} goAways, {result.drops} drops, "
        f"{result.wall_s:.1f} s wall"
    )
    return [
        Row(
            group,
            "turns lost",
            "turns",
            [float(result.turns_lost)],
            Target("value", "<=", 0.0, "0"),
            note=note,
        ),
        Row(
            group,
            "reconnects (planned + after drops)",
            "count",
            [float(result.reconnects)],
            note=f"{result.planned_reconnects} planned",
        ),
        Row(
            group,
            "memory growth over the session",
            "MB",
            [result.growth_mb],
            note=f"RSS {result.rss_start_mb:.0f} -> {result.rss_end_mb:.0f} MB",
        ),
    ]


_ROW_RE = re.compile(
    r"^\|\s*(?P<name>[^|]+?)\s*\|\s*(?P<result>[^|]+?)\s*\|\s*(?P<target>[^|]*?)\s*\|(?P<rest>.*)\|\s*$"
)
_NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")


def _script_rows(group: str, output: str) -> list[Row]:
    """Rows from a Markdown table another benchmark script printed (first number = value)."""
    rows = []
    for line in output.splitlines():
        match = _ROW_RE.match(line)
        if (
            not match
            or set(match["result"]) <= {"-"}
            or match["name"] in ("measurement", "measure")
        ):
            continue
        numbers = [float(n) for n in _NUMBER_RE.findall(match["result"])]
        if not numbers:
            continue
        # The unit is the word after the first number ("12.3 ms", "7.5 % of one core").
        after = match["result"].split(_NUMBER_RE.findall(match["result"])[0], 1)[1].split()
        unit = (
            "% core"
            if after[:1] == ["%"]
            else next(
                (word for word in after if not _NUMBER_RE.fullmatch(word) and word != "/"), ""
            )
        )
        target = match["target"].strip() if match["target"].strip() not in ("-", "") else ""
        note = match["rest"].strip(" |")
        status = ""
        if "MISSED" in note:
            status = "MISS"
        elif note.startswith("ok"):
            status = "pass"
        rows.append(
            Row(
                group,
                match["name"],
                unit,
                numbers[:1],
                note=" ".join(
                    x
                    for x in (
                        f"result: {match['result']}",
                        f"target {target}" if target else "",
                        f"script says {status}" if status else "",
                        "" if status else note,
                    )
                    if x
                ),
            )
        )
    return rows


def bench_audio_script(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    """bench/audio/bench_audio.py (the audio engineer's), run as is."""
    result = subprocess.run(
        [sys.executable, str(REPO / "bench/audio/bench_audio.py"), *sizes.audio_args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report.outputs["audio"] = result.stdout + result.stderr
    rows = _script_rows("audio engine", result.stdout)
    if not rows:
        raise RuntimeError(
            f"bench_audio.py printed no table (exit {result.returncode}): {result.stderr[-2000:]}"
        )
    return rows


def bench_bundle_script(sizes: Sizes, work: Path, report: Report) -> list[Row]:
    """bench/packaging/bench_bundle.py on dist/sammy-desktop (or a fresh build)."""
    dist = REPO / "dist" / "sammy-desktop"
    args = [sys.executable, str(REPO / "bench/packaging/bench_bundle.py")]
    if (dist / "sammy-desktop").exists():
        args += ["--app", str(dist)]
    if sizes is SMOKE:
        args += ["--runs", "1"]
    result = subprocess.run(args, capture_output=True, text=True, timeout=3600, check=False)
    report.outputs["bundle"] = result.stdout + result.stderr
    rows = _script_rows("bundle", result.stdout)
    if not rows:
        raise RuntimeError(
            f"bench_bundle.py printed no table (exit {result.returncode}): {result.stderr[-2000:]}"
        )
    return rows


Benchmark = Callable[[Sizes, Path, Report], list[Row]]
BENCHMARKS: dict[str, Benchmark] = {
    "voice": bench_voice,
    "click": bench_click,
    "share": bench_share,
    "jitter": bench_jitter,
    "screen": bench_screen,
    "tools": bench_tools,
    "app": bench_app,
    "mic": bench_mic,
    "long": bench_long,
    "audio": bench_audio_script,
    "bundle": bench_bundle_script,
}


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _p99(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


# ---------------------------------------------------------------------- outputs


def plot(report: Report, path: Path) -> str:
    """The latency distributions as a PNG; returns a note when matplotlib is missing."""
    try:
        import matplotlib as mpl

        mpl.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install -e '.[bench]'): no plot"
    series = [
        ("click -> echo\nPulseAudio loopback", report.samples.get("click_pulse", [])),
        ("click -> echo\nSammy", report.samples.get("click_app", [])),
        ("click -> echo\nminimal client", report.samples.get("click_minimal", [])),
        ("click -> echo\nstarter-style", report.samples.get("click_reference", [])),
        ("click -> echo\nSammy, no echo canceller", report.samples.get("click_app_no_aec", [])),
        ("voice-to-voice, bursts\nSammy", report.samples.get("voice_app_burst", [])),
        ("voice-to-voice, bursts\nstarter-style", report.samples.get("voice_reference_burst", [])),
        ("voice-to-voice, paced\nSammy", report.samples.get("voice_app_realtime", [])),
        (
            "voice-to-voice, paced\nstarter-style",
            report.samples.get("voice_reference_realtime", []),
        ),
    ]
    series = [(label, values) for label, values in series if values]
    if not series:
        return "no latency samples to plot"
    figure, axis = plt.subplots(figsize=(9, 4.5), dpi=110)
    axis.boxplot([v for _l, v in series], orientation="horizontal", showfliers=True, whis=(5, 95))
    for index, (_label, values) in enumerate(series, start=1):
        axis.scatter(values, [index] * len(values), s=8, alpha=0.5, color="tab:blue")
    axis.set_yticks(range(1, len(series) + 1), [label for label, _v in series], fontsize=8)
    axis.set_xlabel("milliseconds (box: quartiles, whiskers: p5-p95)")
    axis.set_title(f"Sammy Desktop latency on loopback, {report.started[:10]}", fontsize=10)
    axis.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
    return ""


def performance_markdown(report: Report) -> str:
    """The README's performance section, from this run."""
    return (
        "<!-- Written by `make bench` (bench/run.py) from its last full run: the README's\n"
        "     performance section. Paths are relative to the repository root. -->\n"
        "## Performance\n\n"
        f"Measured with `make bench` ({report.machine_line()}). Every number is from one run;\n"
        "latencies are on loopback against the bundled Live simulator, with the real audio\n"
        "devices of a private PulseAudio, the real window under Xvfb and the real SDK.\n"
        "See [docs/benchmarks.md](docs/benchmarks.md) for what each row measures.\n\n"
        f"{table(report.rows)}\n\n"
        "`pass`/`MISS`: the target (from the issues) on the statistic it names; `-`: no\n"
        "target, shown for comparison. Bigger is better only for the `x` ratios.\n\n"
        "![Latency distributions](docs/latency.png)\n"
    )


# ---------------------------------------------------------------------- main


def run_one(name: str, sizes: Sizes, work: Path, report: Report) -> list[Row]:
    """Run one benchmark; a failure becomes an error row (the others still run)."""
    try:
        return BENCHMARKS[name](sizes, work, report)
    except Exception as exc:
        detail = "".join(traceback.format_exception(exc))
        report.outputs[f"{name}.error"] = detail
        print(detail, file=sys.stderr)
        error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        return [Row(name, "(benchmark failed)", "", [], error=error)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a tiny run: does everything work?")
    parser.add_argument(
        "--only", default="", help=f"comma-separated subset of {', '.join(BENCHMARKS)}"
    )
    parser.add_argument(
        "--bundle", action="store_true", help="also benchmark the PyInstaller bundle"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--json", type=Path, default=RESULTS, help="where to write the results")
    parser.add_argument(
        "--render",
        type=Path,
        metavar="RESULTS_JSON",
        help="run nothing: print the table of a results file and write its plot and README section",
    )
    args = parser.parse_args()
    if args.render:
        report = Report.read_json(args.render)
        print(f"Sammy Desktop benchmarks ({report.mode}), {report.machine_line()}\n")
        print(table(report.rows))
        note = plot(report, PLOT)
        PERFORMANCE_MD.write_text(performance_markdown(report))
        print(
            note
            or f"plot: {PLOT.relative_to(REPO)}; README section: {PERFORMANCE_MD.relative_to(REPO)}"
        )
        return 0
    if (
        not os.environ.get("PULSE_SERVER")
        or not os.environ.get("DISPLAY")
        or shutil.which("pactl") is None
    ):
        print(
            "bench/run.py needs the private services: scripts/with-test-services.sh "
            ".venv/bin/python bench/run.py (or make bench)",
            file=sys.stderr,
        )
        return 2
    sizes = SMOKE if args.smoke else FULL
    names = [n.strip() for n in args.only.split(",") if n.strip()] or [
        n
        for n in BENCHMARKS
        if n != "bundle" or args.bundle or (REPO / "dist/sammy-desktop/sammy-desktop").exists()
    ]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {unknown}; choose from {list(BENCHMARKS)}")
    report = Report(mode="smoke" if args.smoke else "full")
    begin = time.monotonic()
    # Start-up is measured as installed: pip writes the bytecode at install time, an editable
    # checkout at its first run (unless PYTHONDONTWRITEBYTECODE is set, as on some CI
    # machines; then every start would compile the app's 90 modules again, ~0.1 s).
    compileall.compile_dir(REPO / "sammy_desktop", quiet=1)
    failed: list[str] = []
    # Recordings and logs are kept beside the results for a person to look at.
    scratch = args.json.parent / "work"
    shutil.rmtree(scratch, ignore_errors=True)
    for name in names:
        work = scratch / name
        work.mkdir(parents=True)
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        started = time.monotonic()
        rows = run_one(name, sizes, work, report)
        # A row whose every sample the machine spoiled says why; it is not a failure.
        if any(row.error or not (row.values or row.left_out) for row in rows):
            failed.append(name)
        report.rows.extend(rows)
        elapsed = time.monotonic() - started
        print(f"bench: {name} done in {elapsed:.0f} s", file=sys.stderr, flush=True)
    report.seconds = time.monotonic() - begin
    report.write_json(args.json)
    print(f"\nSammy Desktop benchmarks ({report.mode}), {report.machine_line()}\n")
    print(table(report.rows))
    print(
        f"\nresults: {args.json.relative_to(REPO) if args.json.is_relative_to(REPO) else args.json}"
    )
    if not args.smoke and not args.only:
        note = plot(report, PLOT)
        PERFORMANCE_MD.write_text(performance_markdown(report))
        print(
            note
            or f"plot: {PLOT.relative_to(REPO)}; README section: {PERFORMANCE_MD.relative_to(REPO)}"
        )
    if failed:
        print(
            f"\nbenchmarks that did not run or produced no numbers: {', '.join(failed)}",
            file=sys.stderr,
        )
        return 1
    missed = [row for row in report.rows if row.status == "MISS"]
    if missed:
        print(f"\n{len(missed)} target(s) missed (see MISS above)")
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
