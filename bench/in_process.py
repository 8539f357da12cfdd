"""Benchmarks of the app's own parts, in this process, on one asyncio loop.

* :func:`app_share`: the real AgentCore (real google-genai client over TLS to the
  simulator) feeding the real AudioPlayback on the private PulseAudio. Model audio frame
  sent by the simulator -> handed to the output device (the callback that plays it, plus
  PortAudio's reported output latency is not added: "handed to"); interrupted sent ->
  output silent at the DAC (PortAudio's clock). The virtual sinks are kept awake, as in
  the other audio rows (bench/pulse_rig.py): on an idle null sink a device underflow
  stops the speaker's callbacks for ~2 s (bench/stall_probe.py), a hardware sink's do not.
* :func:`tool_dispatch`: the real ToolManager: overhead per call of an instant tool, and
  1, 8, 64 parallel calls of a 50 ms tool in one toolCall message.
* :func:`long_session`: an hour of turns compressed: a turn a "minute", a goAway every
  ten, two connections dropped mid-answer; memory growth, reconnects, turns lost.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.genai import types
from pydantic import BaseModel

from sammy_desktop.audio import AudioPlayback, PlaybackDrained, PlaybackStarted
from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.core import AgentCore, AgentState, ConversationHistory
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.endpoint import make_client_factory
from sammy_desktop.core.events import Reconnected, StateChanged, TranscriptUpdated, TurnStats
from sammy_desktop.eventbus import Event, EventBus
from sammy_desktop.sim import (
    Action,
    Close,
    Delay,
    GoAway,
    InputTranscription,
    Interrupted,
    LiveSimulator,
    OnActivityEnd,
    Scenario,
    Tone,
    Turn,
    TurnComplete,
)
from sammy_desktop.tools import ToolCategory, ToolContext, ToolManager, ToolServices, tool
from sammy_desktop.wire_audio import INPUT_RATE

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # run as a script: bench/ is a package of the checkout

from bench.pulse_rig import sinks_kept_awake  # noqa: E402

API_KEY = "bench-key"
WARM_UP_ROUNDS = 2


class EventWaiter:
    """Futures for the next event of a type on a bus."""

    def __init__(self, bus: EventBus) -> None:
        self.events: list[Event] = []
        self._waiting: list[tuple[type[Event], asyncio.Future[Event]]] = []
        bus.subscribe(Event, self._on_event)

    def _on_event(self, event: Event) -> None:
        self.events.append(event)
        for kind, future in list(self._waiting):
            if isinstance(event, kind) and not future.done():
                future.set_result(event)
                self._waiting.remove((kind, future))

    def next(self, kind: type[Event]) -> asyncio.Future[Event]:
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        self._waiting.append((kind, future))
        return future

    def count(self, kind: type[Event]) -> int:
        return sum(1 for e in self.events if isinstance(e, kind))


class TimedSink:
    """The real playback, with the time of the first play() and of each flush() kept."""

    def __init__(self, playback: AudioPlayback) -> None:
        self.playback = playback
        self.first_play_at: float | None = None
        self.flushed_at: float | None = None
        self.played_bytes = 0

    def reset_first_play(self) -> None:
        self.first_play_at = None

    def reset_flushed(self) -> None:
        self.flushed_at = None

    def play(self, pcm24k: bytes) -> None:
        if self.first_play_at is None:
            self.first_play_at = time.monotonic()
        self.played_bytes += len(pcm24k)
        self.playback.play(pcm24k)

    def flush(self) -> None:
        if self.flushed_at is None:
            self.flushed_at = time.monotonic()
        self.playback.flush()

    @property
    def is_playing(self) -> bool:
        return self.playback.is_playing


class CountingSink:
    """A speaker that only counts (the long session needs no device)."""

    def __init__(self) -> None:
        self.played_bytes = 0

    def play(self, pcm24k: bytes) -> None:
        self.played_bytes += len(pcm24k)

    def flush(self) -> None:
        pass

    @property
    def is_playing(self) -> bool:
        return False


def speech(seconds: float, level: int = 3000) -> bytes:
    """A loud square wave at 16 kHz (speech for the simulator's purposes)."""
    period = [level] * 20 + [-level] * 20
    count = int(INPUT_RATE * seconds)
    samples = (period * (count // len(period) + 1))[:count]
    return b"".join(s.to_bytes(2, "little", signed=True) for s in samples)


def _core(
    bus: EventBus,
    sim: LiveSimulator,
    sink: Any,
    folder: Path,
    reconnect: ReconnectPolicy | None = None,
) -> tuple[AgentCore, ToolManager]:
    settings = Settings(earcons=False)
    paths = AppPaths.profile(folder)
    paths.ensure()
    history = ConversationHistory(paths.history_dir)
    services = ToolServices(paths=paths, settings=lambda: settings, transcript=history.transcript)
    tools = ToolManager(bus, services, load_entry_points=False)
    core = AgentCore(
        bus=bus,
        settings=settings,
        tools=tools,
        sink=sink,
        client_factory=make_client_factory(
            lambda: API_KEY, base_url=sim.base_url, ssl_context=sim.ssl_context
        ),
        history=history,
        reconnect=reconnect,
        rng=random.Random(7),
    )
    return core, tools


def _flush_measured(playback: AudioPlayback, flush: int) -> Callable[[], bool]:
    """Whether the silence after flush number ``flush`` has been measured."""
    return lambda: playback.measured_flush >= flush


async def _until(condition: Callable[[], bool], *, within_s: float) -> None:
    """Wait until ``condition()`` holds (looked at every millisecond), at most ``within_s``."""
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"not within {within_s} s: {condition}")
        await asyncio.sleep(0.001)


async def _wait_state(waiter: EventWaiter, core: AgentCore, state: AgentState) -> None:
    while core.state is not state:
        await asyncio.wait_for(waiter.next(StateChanged), 10)


@dataclass
class ShareResult:
    """The app's own share of the latency (milliseconds)."""

    key_up_to_activity_end_ms: list[float] = field(default_factory=list)
    frame_to_device_ms: list[float] = field(default_factory=list)
    interrupted_to_silence_ms: list[float] = field(default_factory=list)
    interrupted_to_flush_ms: list[float] = field(default_factory=list)


async def app_share(rounds: int) -> ShareResult:
    """Key up -> activityEnd; model frame -> output device; interrupted -> silence."""
    result = ShareResult()
    # A long tone sent at once (so the jitter buffer holds seconds of it), then
    # interrupted while it plays, as the service does when the person barges in.
    answer: list[Action] = [
        Tone(duration_s=3.0, amplitude=0.3, realtime=False),
        Delay(seconds=0.6),
        Interrupted(),
        TurnComplete(),
    ]
    scenario = Scenario(turns=[Turn(OnActivityEnd(), answer)], repeat=True, name="bench-share")
    bus = EventBus()
    waiter = EventWaiter(bus)
    playback = AudioPlayback(bus)
    sink = TimedSink(playback)
    with sinks_kept_awake(), tempfile.TemporaryDirectory(prefix="sammy-bench-share-") as folder:
        # The scenario times the answer itself (sent at once, then interrupted by the
        # service): the strict profiles' pacing and playback waits (live-service.md R5, R6)
        # move the interruption it measures from, so this row uses the lenient simulator.
        async with LiveSimulator(
            scenario, api_keys=(API_KEY,), realtime=True, profile="lenient"
        ) as sim:
            core, tools = _core(bus, sim, sink, Path(folder))
            await playback.start()
            try:
                # start() opens the device in the background: measure from a running stream.
                for _ in range(500):
                    if playback.is_running:
                        break
                    await asyncio.sleep(0.01)
                else:
                    raise RuntimeError("the speaker did not open within 5 s")
                await core.start()
                await _wait_state(waiter, core, AgentState.READY)
                pcm = speech(0.3)
                # Warm-up rounds (stream start, first TLS frames, first flush), not counted.
                for round_number in range(rounds + WARM_UP_ROUNDS):
                    counted = round_number >= WARM_UP_ROUNDS
                    sink.reset_first_play()
                    started = waiter.next(PlaybackStarted)
                    audio_before = sim.recorder.count("audio")
                    assert core.begin_talk()
                    for offset in range(0, len(pcm), 640):
                        core.send_audio(pcm[offset : offset + 640])
                    # The speech is on the wire before the key goes up, as when it is
                    # captured in real time: activityEnd waits behind no backlog.
                    chunks = len(range(0, len(pcm), 640))
                    await sim.recorder.wait_for("audio", count=audio_before + chunks)
                    ends_before = sim.recorder.count("activity_end")
                    key_up = time.monotonic()
                    core.end_talk()
                    sink.reset_flushed()  # begin_talk flushed (a local barge-in); not ours
                    (end,) = (await sim.recorder.wait_for("activity_end", count=ends_before + 1))[
                        -1:
                    ]
                    if counted:
                        result.key_up_to_activity_end_ms.append(
                            (end.monotonic_time - key_up) * 1000
                        )
                    if not counted:
                        # The warm-up's answer may be flushed before the fresh stream
                        # has played a block: no PlaybackStarted to wait for.
                        await _wait_state(waiter, core, AgentState.READY)
                        await asyncio.sleep(0.5)
                        continue
                    try:
                        await asyncio.wait_for(started, 10)
                    except TimeoutError:
                        raise RuntimeError(
                            f"round {round_number}: no PlaybackStarted within 10 s "
                            f"(played {sink.played_bytes} bytes, state {core.state}; speaker "
                            f"running {playback.is_running}, resting {playback.is_standby}, "
                            f"blocks {playback.blocks}, queued {playback.buffered_ms:.0f} ms, "
                            f"dropped while down {playback.dropped_while_down}, device "
                            f"underflows {playback.device_underflows})"
                        ) from None
                    frames = [
                        e
                        for e in sim.recorder.sent("serverContent")
                        if e.monotonic_time >= key_up and e.data["serverContent"].get("modelTurn")
                    ]
                    assert sink.first_play_at is not None
                    if counted:
                        result.frame_to_device_ms.append(
                            (
                                sink.first_play_at
                                - frames[0].monotonic_time
                                + playback.last_start_latency_s
                            )
                            * 1000
                        )
                    drained = waiter.next(PlaybackDrained)
                    await asyncio.wait_for(drained, 10)
                    # The flush's silence is measured a few milliseconds after it (the
                    # device buffer dropped, or the first silent callback): wait for it.
                    await _until(_flush_measured(playback, playback.flushes), within_s=2)
                    interrupts = [
                        e
                        for e in sim.recorder.sent("serverContent")
                        if e.monotonic_time >= key_up and e.data["serverContent"].get("interrupted")
                    ]
                    if counted and sink.flushed_at is not None and interrupts:
                        result.interrupted_to_flush_ms.append(
                            (sink.flushed_at - interrupts[0].monotonic_time) * 1000
                        )
                        result.interrupted_to_silence_ms.append(
                            (
                                sink.flushed_at
                                - interrupts[0].monotonic_time
                                + playback.last_flush_to_dac_silence_s
                            )
                            * 1000
                        )
                    await _wait_state(waiter, core, AgentState.READY)
            finally:
                await core.stop()
                await tools.aclose()
                await playback.stop()
    return result


# ---------------------------------------------------------------------- tool dispatch


class NoInput(BaseModel):
    """No arguments."""


class Done(BaseModel):
    """A result."""

    ok: bool


@tool(name="instantTool", category=ToolCategory.CONTEXT)
async def instant_tool(args: NoInput, context: ToolContext) -> Done:
    """Answer at once."""
    return Done(ok=True)


@tool(name="fiftyMsTool", category=ToolCategory.CONTEXT)
async def fifty_ms_tool(args: NoInput, context: ToolContext) -> Done:
    """Answer after 50 ms of waiting (on I/O, say)."""
    await asyncio.sleep(0.050)
    return Done(ok=True)


@dataclass
class DispatchResult:
    """Tool dispatch timings (milliseconds)."""

    overhead_ms: list[float]
    parallel_ms: dict[int, list[float]]


async def tool_dispatch(repeats: int, overhead_calls: int) -> DispatchResult:
    """Per-call overhead, and wall time of N parallel 50 ms calls."""
    with tempfile.TemporaryDirectory(prefix="sammy-bench-tools-") as folder:
        paths = AppPaths.profile(Path(folder))
        paths.ensure()
        settings = Settings()
        history = ConversationHistory(paths.history_dir)
        services = ToolServices(
            paths=paths, settings=lambda: settings, transcript=history.transcript
        )
        manager = ToolManager(
            EventBus(), services, tools=(instant_tool, fifty_ms_tool), load_entry_points=False
        )
        answered: list[int] = []

        async def respond(responses: Any) -> None:
            answered.append(len(responses))

        def call(name: str, count: int) -> types.LiveServerToolCall:
            return types.LiveServerToolCall(
                function_calls=[
                    types.FunctionCall(id=f"c{index}", name=name, args={}) for index in range(count)
                ]
            )

        overhead = []
        for _ in range(overhead_calls):
            message = call("instantTool", 1)
            begin = time.perf_counter()
            await manager.handle(message, respond)
            overhead.append((time.perf_counter() - begin) * 1000)
        parallel: dict[int, list[float]] = {}
        for count in (1, 8, 64):
            parallel[count] = []
            for _ in range(repeats):
                message = call("fiftyMsTool", count)
                begin = time.perf_counter()
                await manager.handle(message, respond)
                parallel[count].append((time.perf_counter() - begin) * 1000)
        await manager.aclose()
    if sum(answered) != overhead_calls + sum(n * repeats for n in (1, 8, 64)):
        raise RuntimeError(f"tool calls went unanswered: {answered}")
    return DispatchResult(overhead, parallel)


# ---------------------------------------------------------------------- long session


def rss_mb() -> float:
    """This process's resident set size in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024 / 1e6
    return float("nan")


@dataclass
class LongSessionResult:
    """What an accelerated hour did to the app."""

    turns: int
    turns_lost: int
    reconnects: int
    planned_reconnects: int
    go_aways: int
    drops: int
    rss_start_mb: float
    rss_end_mb: float
    wall_s: float

    @property
    def growth_mb(self) -> float:
        return self.rss_end_mb - self.rss_start_mb


async def long_session(
    turns: int = 60, go_away_every: int = 10, drops: tuple[int, ...] = (23, 47)
) -> LongSessionResult:
    """A turn per simulated minute; goAway every ``go_away_every``; drops mid-answer."""
    script: list[Turn] = []
    for number in range(turns):
        heard = InputTranscription(text=f"question {number}")
        if number in drops:
            script.append(
                Turn(
                    OnActivityEnd(),
                    [heard, Tone(duration_s=0.05, transcript="Ans"), Close(code=None)],
                )
            )
        actions: list[Action] = [
            heard,
            Tone(duration_s=0.05, transcript=f"Answer {number}."),
            TurnComplete(),
        ]
        if number % go_away_every == go_away_every - 1:
            actions.append(GoAway(time_left_s=50))
        script.append(Turn(OnActivityEnd(), actions))
    bus = EventBus()
    waiter = EventWaiter(bus)
    sink = CountingSink()
    policy = ReconnectPolicy(
        initial_s=0.01,
        maximum_s=0.05,
        max_attempts=5,
        stable_after_s=30,
        goaway_margin_s=0.0,
        connect_timeout_s=5,
    )
    question = speech(0.1)
    with tempfile.TemporaryDirectory(prefix="sammy-bench-long-") as folder:
        async with LiveSimulator(Scenario(turns=script), api_keys=(API_KEY,)) as sim:
            core, tools = _core(bus, sim, sink, Path(folder), reconnect=policy)
            begin = time.monotonic()
            try:
                await core.start()
                await _wait_state(waiter, core, AgentState.READY)
                rss_start = 0.0
                for number in range(turns):
                    if number == 2:  # after the first turns warmed every cache up
                        gc.collect()
                        rss_start = rss_mb()
                    before = waiter.count(TurnStats)
                    planned = sum(
                        1 for e in waiter.events if isinstance(e, Reconnected) and e.planned
                    )
                    assert core.begin_talk()
                    for offset in range(0, len(question), 3200):
                        core.send_audio(question[offset : offset + 3200])
                    core.end_talk()
                    while waiter.count(TurnStats) <= before:
                        await asyncio.wait_for(waiter.next(TurnStats), 20)
                    if number % go_away_every == go_away_every - 1:
                        while (
                            sum(
                                1 for e in waiter.events if isinstance(e, Reconnected) and e.planned
                            )
                            <= planned
                        ):
                            await asyncio.wait_for(waiter.next(Reconnected), 20)
                    await _wait_state(waiter, core, AgentState.READY)
                gc.collect()
                rss_end = rss_mb()
            finally:
                await core.stop()
                await tools.aclose()
            wall = time.monotonic() - begin
    finals = [
        e.text
        for e in waiter.events
        if isinstance(e, TranscriptUpdated) and e.final and e.text.startswith("Answer ")
    ]
    expected = [f"Answer {n}." for n in range(turns)]
    lost = sum(1 for text in expected if text not in finals)
    reconnects = [e for e in waiter.events if isinstance(e, Reconnected)]
    return LongSessionResult(
        turns=turns,
        turns_lost=lost,
        reconnects=len(reconnects),
        planned_reconnects=sum(1 for e in reconnects if e.planned),
        go_aways=turns // go_away_every,
        drops=len(drops),
        rss_start_mb=rss_start,
        rss_end_mb=rss_end,
        wall_s=wall,
    )


def main() -> int:
    """Run one benchmark of this module and print its result as JSON (a fresh process each).

    Each runs in its own interpreter so that nothing a previous benchmark did to this
    process (PortAudio's state, the heap) colours the next one.
    """
    parser = argparse.ArgumentParser(description="one in-process benchmark, JSON out")
    parser.add_argument("which", choices=("share", "tools", "long"))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--overhead-calls", type=int, default=200)
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--go-away-every", type=int, default=10)
    parser.add_argument("--drops", default="23,47")
    args = parser.parse_args()
    result: Any
    if args.which == "share":
        result = asyncio.run(app_share(args.rounds))
    elif args.which == "tools":
        result = asyncio.run(tool_dispatch(args.repeats, args.overhead_calls))
    else:
        drops = tuple(int(n) for n in args.drops.split(",") if n)
        result = asyncio.run(long_session(args.turns, args.go_away_every, drops))
    print(json.dumps(dataclasses.asdict(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
