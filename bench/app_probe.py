"""The real app (``sammy-desktop``) with two additions for the benchmarks, nothing changed.

    python bench/app_probe.py [sammy-desktop flags]

* An event-loop lag probe: a task on the app's qasync loop wakes every 10 ms and records
  how late it woke (``time.monotonic()`` stamp, lag in seconds). At exit the samples go to
  the JSON file named by ``SAMMY_BENCH_LAG_FILE``; the runner slices them by time. The
  probe only runs while the file ``SAMMY_BENCH_LAG_FILE`` + ``.on`` exists (it looks twice
  a second): a hundred wake-ups a second are the probe's own load, and would be counted
  as the app's when the runner measures the idle app's CPU.
* ``benchSlowTool``: a tool that takes two seconds waiting on something slow (a blocking
  call on a worker thread, like a slow lookup), registered beside the desktop pack; the
  ``probe`` simulator calls it during an answer to show it does not make the loop lag.
* With ``SAMMY_BENCH_MIC_MARKS`` set, a line on stderr for each step of a talk press, with
  its ``time.monotonic()`` (the clock of XTest's key press in the runner):
  ``bench-mark begin-talk T`` (the window asked the audio engine for a turn),
  ``bench-mark first-block T`` (the PortAudio callback of the first block after it),
  ``bench-mark first-sample T`` (when that block's first sample was taken, by PortAudio's
  clock) and
  ``bench-mark cue T`` (the talk control turned to Listening).
* ``SAMMY_BENCH_TRACE``: a stamp at each hand-off of the audio path for every loud onset
  (``bench/audio_trace.py``), written to that file at exit.
* ``SAMMY_BENCH_GC_MARKS``: when the app freezes its long-lived objects (once the Live SDK is
  loaded, ``ui/garbage.py``), a full collection is timed just before, and printed with how
  many were frozen: ``bench-mark gc-full-unfrozen-ms MS``, ``bench-mark gc-frozen-objects N``.
  And whenever the file ``SAMMY_BENCH_LAG_FILE`` + ``.gc`` appears (the lag probe looks for
  it with its own switch, twice a second), a full collection on the loop's thread, as the
  app's collector runs it: ``bench-mark gc-full-ms MS``; the file is removed.
* ``SAMMY_BENCH_REST_S``: the connection rests after that many seconds of quiet instead of
  the setting's minutes (the idle CPU while resting, without waiting fifteen minutes).
* ``SAMMY_BENCH_RESTING_START``: a "0" or "1" for each talk press, in order; after a "1"
  press the speaker treats the answers as bursts (``AnswerPace.bursts``), whatever it has
  learnt: it stays resting at the release and starts with the answer's first frame. The
  voice bench's paced rounds measure the cushion a paced answer starts behind this way
  (bench/live_audio.py ``SPEAKER_RESTING``). The jitter buffer's depth, and its count
  towards a step down, are put back after those presses as they were before them: their
  gaps must not deepen it for the app's own rounds, nor hold it deep.

Everything else is ``sammy_desktop.app.main``: the same window, audio engine, agent, tools.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import sammy_desktop.app as app_module
import sammy_desktop.desktop_app as desktop_module
import sammy_desktop.tools.desktop as desktop_tools_module
from sammy_desktop.tools import ToolCategory, ToolContext, ToolDefinition, tool

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
from bench import audio_trace  # noqa: E402

PROBE_PERIOD_S = 0.010
PROBE_IDLE_CHECK_S = 0.5
SLOW_TOOL_S = 2.0


class SlowInput(BaseModel):
    """No arguments."""


class SlowOutput(BaseModel):
    """What the slow tool found."""

    waited_s: float


@tool(name="benchSlowTool", category=ToolCategory.CONTEXT, timeout_s=30)
async def bench_slow_tool(args: SlowInput, context: ToolContext) -> SlowOutput:
    """Look something up slowly (a benchmark tool: waits on a worker thread)."""
    started = time.monotonic()
    await asyncio.to_thread(time.sleep, SLOW_TOOL_S)
    return SlowOutput(waited_s=time.monotonic() - started)


def _mark(what: str, stamp: float) -> None:
    # One write, the newline in it: print() writes the line and its newline apart, and a
    # log line from another thread could land between them (the bench then read the
    # stamp glued to the log line's date).
    sys.stderr.write(f"bench-mark {what} {stamp:.6f}\n")
    sys.stderr.flush()


def install_mic_marks() -> None:
    """Print the steps of each talk press (see the module docstring)."""
    from sammy_desktop.audio.capture import AudioCapture
    from sammy_desktop.audio.engine import AudioEngine
    from sammy_desktop.ui.talk_input import TalkInput

    armed = [False]
    sample_armed = [False]
    begin_talk = AudioEngine.begin_talk
    on_raw_block = AudioCapture._on_raw_block
    cue_listening = TalkInput._cue_listening
    make_callback = AudioCapture._make_callback

    def marked_begin_talk(self: AudioEngine, start_turn: Any) -> bool:
        _mark("begin-talk", time.monotonic())
        armed[0] = True
        sample_armed[0] = True
        return begin_talk(self, start_turn)

    def marked_make_callback(self: AudioCapture, loop: Any, generation: int) -> Any:
        inner = make_callback(self, loop, generation)

        def callback(indata: Any, frames: int, time_info: Any, status: Any) -> None:
            if sample_armed[0]:
                sample_armed[0] = False
                # When the block's first sample was taken: PortAudio's ALSA stamps are on
                # the wall clock, so only their difference is used, from the monotonic now.
                ago = float(time_info.currentTime) - float(time_info.inputBufferAdcTime)
                _mark("first-sample", time.monotonic() - (ago if 0.0 < ago < 1.0 else 0.0))
            inner(indata, frames, time_info, status)

        return callback

    def marked_on_raw_block(
        self: AudioCapture, generation: int, data: bytes, flagged: bool, stamp: float
    ) -> None:
        if armed[0]:
            armed[0] = False
            # The callback's perf_counter stamp: CLOCK_MONOTONIC, as time.monotonic on Linux.
            _mark("first-block", stamp)
        on_raw_block(self, generation, data, flagged, stamp)

    def marked_cue_listening(self: TalkInput) -> None:
        cued = self._cued
        cue_listening(self)
        if not cued:
            _mark("cue", time.monotonic())

    AudioEngine.begin_talk = marked_begin_talk  # type: ignore[method-assign]
    AudioCapture._on_raw_block = marked_on_raw_block  # type: ignore[method-assign]
    AudioCapture._make_callback = marked_make_callback  # type: ignore[method-assign]
    TalkInput._cue_listening = marked_cue_listening  # type: ignore[method-assign]


def _full_collection_ms() -> float:
    started = time.perf_counter()
    gc.collect()
    return (time.perf_counter() - started) * 1000


def install_gc_marks() -> None:
    """Time a full collection just before the app's freeze (see the module docstring)."""
    from sammy_desktop.ui.garbage import QtThreadGarbageCollector

    freeze = QtThreadGarbageCollector.freeze

    def timed_freeze(self: QtThreadGarbageCollector) -> None:
        _mark("gc-full-unfrozen-ms", _full_collection_ms())
        freeze(self)
        _mark("gc-frozen-objects", gc.get_freeze_count())

    QtThreadGarbageCollector.freeze = timed_freeze  # type: ignore[method-assign]


def install_rest_seconds(seconds: float) -> None:
    """Rest the connection after ``seconds`` of quiet instead of the setting's minutes."""
    from sammy_desktop.core.idle_rest import IdleRest

    def period(self: IdleRest) -> float | None:
        return seconds

    IdleRest._period = period  # type: ignore[method-assign]


def install_resting_start(presses: str) -> None:
    """After each press marked "1" in ``presses``, answers count as bursts (see the top)."""
    from sammy_desktop.audio.engine import AudioEngine
    from sammy_desktop.audio.jitter_depth import Learnt
    from sammy_desktop.audio.pace import AnswerPace

    count = [0]
    resting = [False]
    # The jitter buffer's depth and its count towards a step down, before the resting rounds.
    before: list[Learnt] = []
    begin_talk = AudioEngine.begin_talk
    learnt = AnswerPace.bursts

    def counted_begin_talk(self: AudioEngine, start_turn: Any) -> bool:
        index = count[0]
        count[0] += 1
        was_resting = resting[0]
        resting[0] = presses[index : index + 1] == "1"
        # The resting rounds' gaps must not deepen the jitter buffer for the app's own, nor
        # set back its count towards a step down.
        depth = self.playback.depth
        if resting[0] and not was_resting:
            before[:] = [depth.learnt()]
        elif was_resting and not resting[0] and before:
            depth.restore(before.pop())
        return begin_talk(self, start_turn)

    def bursts(self: AnswerPace) -> bool:
        return True if resting[0] else bool(learnt.fget(self))  # type: ignore[attr-defined]

    AudioEngine.begin_talk = counted_begin_talk  # type: ignore[method-assign]
    AnswerPace.bursts = property(bursts)  # type: ignore[method-assign,assignment]


def install() -> None:
    """Wrap run_app with the lag probe and desktop_tools with the slow tool."""
    resting_presses = os.environ.get("SAMMY_BENCH_RESTING_START")
    if resting_presses:
        install_resting_start(resting_presses)
    if os.environ.get("SAMMY_BENCH_MIC_MARKS"):
        install_mic_marks()
    if os.environ.get("SAMMY_BENCH_GC_MARKS"):
        install_gc_marks()
    rest_s = os.environ.get("SAMMY_BENCH_REST_S")
    if rest_s:
        install_rest_seconds(float(rest_s))
    trace = os.environ.get("SAMMY_BENCH_TRACE")
    write_trace = audio_trace.install(Path(trace)) if trace else None
    original_run_app = app_module.run_app
    original_tools = desktop_tools_module.desktop_tools
    samples: list[tuple[float, float]] = []

    out = os.environ.get("SAMMY_BENCH_LAG_FILE")
    switch = Path(out + ".on") if out else None
    gc_switch = Path(out + ".gc") if out else None

    async def probe() -> None:
        while True:
            if gc_switch is not None and gc_switch.exists():
                gc_switch.unlink()
                _mark("gc-full-ms", _full_collection_ms())
            if switch is None or not switch.exists():
                await asyncio.sleep(PROBE_IDLE_CHECK_S)
                continue
            for _ in range(50):  # then look at the switch again
                before = time.monotonic()
                await asyncio.sleep(PROBE_PERIOD_S)
                after = time.monotonic()
                samples.append((after, after - before - PROBE_PERIOD_S))

    async def run_app_with_probe(*args: Any, **kwargs: Any) -> int:
        task = asyncio.get_running_loop().create_task(probe(), name="bench-loop-lag-probe")
        try:
            return await original_run_app(*args, **kwargs)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            if write_trace is not None:
                write_trace()
            if out:
                # The app has shut down: nothing else waits on this loop any more.
                Path(out).write_text(json.dumps(samples))  # noqa: ASYNC240

    def tools_with_slow(**kwargs: Any) -> list[ToolDefinition[Any, Any]]:
        return [*original_tools(**kwargs), bench_slow_tool]

    app_module.run_app = run_app_with_probe
    # DesktopApp looks desktop_tools up in its module's namespace when it builds the tools.
    desktop_module.desktop_tools = tools_with_slow  # type: ignore[attr-defined]


if __name__ == "__main__":
    install()
    sys.exit(app_module.main(sys.argv[1:]))
