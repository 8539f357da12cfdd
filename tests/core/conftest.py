"""Fixtures for the agent core tests: the real SDK against the simulator, a fake sink.

``core_harness`` starts a :class:`LiveSimulator` with a scenario, and an :class:`AgentCore`
wired to it through the real google-genai client over TLS, with the real ToolManager, a
real history folder under ``tmp_path``, and tiny backoff numbers so reconnect tests are
fast. The only fake is :class:`FakeSink`, because the speaker belongs to the audio layer.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from google import genai
from google.genai import types
from pydantic import BaseModel

from sammy_desktop.config import AppPaths, Settings, TalkMode
from sammy_desktop.core.agent import DEFAULT_BUFFER_BYTES, AgentCore, WatchdogPolicy
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.events import AgentState, StateChanged
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.core.ports import ToolRunner
from sammy_desktop.eventbus import Event, EventBus
from sammy_desktop.sim import LiveSimulator, Scenario
from sammy_desktop.tools import (
    AgentStateSnapshot,
    ToolCategory,
    ToolContext,
    ToolDefinition,
    ToolManager,
    ToolServices,
    tool,
)
from sammy_desktop.tools.desktop import TimerService, timer_tools
from tests.tools.desktop.fakes import ManualScheduler

E = TypeVar("E", bound=Event)

API_KEY = "test-key"


class FakeSink:
    """Stands in for the audio layer's AudioPlayback: keeps what it is asked to play."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.flushes = 0
        self.turn_ends = 0
        self.hold_playing = False

    def play(self, pcm24k: bytes) -> None:
        self.chunks.append(pcm24k)

    def flush(self) -> None:
        self.flushes += 1
        self.chunks.clear()

    def end_of_turn(self) -> None:
        self.turn_ends += 1

    @property
    def is_playing(self) -> bool:
        return self.hold_playing

    @property
    def played_bytes(self) -> int:
        return sum(len(chunk) for chunk in self.chunks)


class EventLog:
    """Every event on the bus, with waits that resolve as soon as a match arrives."""

    def __init__(self, bus: EventBus) -> None:
        self.events: list[Event] = []
        self._waiters: list[tuple[Callable[[Event], bool], int, asyncio.Future[Event]]] = []
        bus.subscribe(Event, self._on_event)

    def _on_event(self, event: Event) -> None:
        self.events.append(event)
        for waiter in list(self._waiters):
            matches, count, future = waiter
            if not future.done() and sum(1 for e in self.events if matches(e)) >= count:
                future.set_result(event)

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    def states(self) -> list[AgentState]:
        return [e.new for e in self.of(StateChanged)]

    async def wait_for(
        self,
        kind: type[E],
        predicate: Callable[[E], bool] | None = None,
        *,
        count: int = 1,
        within_s: float = 5.0,
    ) -> E:
        """The ``count``-th event of ``kind`` matching ``predicate`` (already seen or coming)."""

        def matches(event: Event) -> bool:
            return isinstance(event, kind) and (predicate is None or predicate(event))

        seen = [e for e in self.events if matches(e)]
        if len(seen) >= count:
            found = seen[count - 1]
            assert isinstance(found, kind)
            return found
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        entry = (matches, count, future)
        self._waiters.append(entry)
        try:
            await asyncio.wait_for(future, within_s)
        except TimeoutError:
            names = [type(e).__name__ for e in self.events[-15:]]
            raise TimeoutError(
                f"no {kind.__name__} #{count} within {within_s} s; last: {names}"
            ) from None
        finally:
            self._waiters.remove(entry)
        found = [e for e in self.events if matches(e)][count - 1]
        assert isinstance(found, kind)
        return found

    async def wait_state(self, state: AgentState, *, count: int = 1, within_s: float = 5.0) -> None:
        await self.wait_for(StateChanged, lambda e: e.new is state, count=count, within_s=within_s)


# ------------------------------------------------------------------ test tools


class TimeInput(BaseModel):
    zone: str = "UTC"


class TimeOutput(BaseModel):
    time: str


class LookupInput(BaseModel):
    topic: str


class LookupOutput(BaseModel):
    summary: str


@tool(category=ToolCategory.CONTEXT)
async def get_time(args: TimeInput, context: ToolContext) -> TimeOutput:
    """Tell the current time."""
    return TimeOutput(time=f"12:00 {args.zone}")


@dataclass
class LookupGate:
    """Controls the ``slow_lookup`` tool: it reports who started and waits to be released."""

    started: list[str] = field(default_factory=list)
    running: int = 0
    max_running: int = 0
    release: asyncio.Event = field(default_factory=asyncio.Event)
    all_started: asyncio.Event = field(default_factory=asyncio.Event)
    expected: int = 1
    cancelled: list[str] = field(default_factory=list)

    def definition(self) -> ToolDefinition[Any, Any]:
        gate = self

        async def slow_lookup(args: LookupInput, context: ToolContext) -> LookupOutput:
            """Look something up (slowly)."""
            gate.started.append(args.topic)
            gate.running += 1
            gate.max_running = max(gate.max_running, gate.running)
            if len(gate.started) >= gate.expected:
                gate.all_started.set()
            try:
                await gate.release.wait()
            except asyncio.CancelledError:
                gate.cancelled.append(args.topic)
                raise
            finally:
                gate.running -= 1
            return LookupOutput(summary=f"all about {args.topic}")

        return tool(
            category=ToolCategory.CONTEXT,
            input_model=LookupInput,
            output_model=LookupOutput,
            timeout_s=10,
        )(slow_lookup)


# ------------------------------------------------------------------ the harness


@dataclass
class Harness:
    sim: LiveSimulator
    core: AgentCore
    sink: FakeSink
    events: EventLog
    bus: EventBus
    tools: ToolManager
    history: ConversationHistory
    settings: Settings
    paths: AppPaths
    gate: LookupGate
    timers: TimerService
    scheduler: ManualScheduler

    async def ready(self) -> None:
        await self.core.start()
        await self.events.wait_state(AgentState.READY)

    async def say(self, pcm: bytes, *, chunk: int = 3200) -> None:
        """Push to talk: press, stream ``pcm`` in chunks, release."""
        assert self.core.begin_talk()
        for start in range(0, len(pcm), chunk):
            self.core.send_audio(pcm[start : start + chunk])
        self.core.end_talk()


def speech(seconds: float, level: int = 3000) -> bytes:
    """A loud square wave at 16 kHz: "speech" for the simulator's energy VAD."""
    period = [level, -level] * 20
    samples = (period * (int(16000 * seconds) // len(period) + 1))[: int(16000 * seconds)]
    return b"".join(s.to_bytes(2, "little", signed=True) for s in samples)


def wire_field(obj: Any, *path: str) -> Any:
    """Read a nested setup field whichever way the SDK spelled it (camelCase or snake_case)."""
    for snake in path:
        camel = snake.split("_")[0] + "".join(w.title() for w in snake.split("_")[1:])
        obj = obj[snake] if snake in obj else obj[camel]
    return obj


HarnessFactory = Callable[..., contextlib.AbstractAsyncContextManager[Harness]]


@pytest.fixture
def core_harness(tmp_path: Path) -> HarnessFactory:
    @contextlib.asynccontextmanager
    async def make(
        scenario: Scenario,
        *,
        talk_mode: TalkMode = TalkMode.PUSH_TO_TALK,
        api_key: str = API_KEY,
        reconnect: ReconnectPolicy | None = None,
        watchdog: WatchdogPolicy | None = None,
        gate_expected: int = 1,
        buffer_bytes: int | None = None,
        wrap_tools: Callable[[ToolManager], ToolRunner] | None = None,
        with_timers: bool = False,
        settings: Settings | None = None,
        extra_tools: Callable[[Settings], list[types.Tool]] | None = None,
        before_connect: Callable[[], Awaitable[None]] | None = None,
    ) -> AsyncIterator[Harness]:
        bus = EventBus()
        events = EventLog(bus)
        paths = AppPaths.profile(tmp_path / "profile")
        settings = settings or Settings(talk_mode=talk_mode)
        history = ConversationHistory(paths.history_dir)
        gate = LookupGate(expected=gate_expected)
        # The real timer service on a clock the test moves (no waiting for real minutes).
        scheduler = ManualScheduler()
        timers = TimerService(bus, None, scheduler=scheduler)
        core_ref: list[AgentCore] = []

        def state() -> AgentStateSnapshot:
            return core_ref[0].snapshot()

        services = ToolServices(
            paths=paths, settings=lambda: settings, transcript=history.transcript
        )
        tools = ToolManager(
            bus,
            services,
            tools=(get_time, gate.definition(), *(timer_tools(timers) if with_timers else ())),
            load_entry_points=False,
            state=state,
        )
        sink = FakeSink()
        async with LiveSimulator(scenario, api_keys=(API_KEY,)) as sim:
            options = sim.http_options()
            core = AgentCore(
                bus=bus,
                settings=settings,
                tools=tools if wrap_tools is None else wrap_tools(tools),
                sink=sink,
                client_factory=lambda: genai.Client(api_key=api_key, http_options=options),
                history=history,
                reconnect=reconnect
                or ReconnectPolicy(
                    initial_s=0.01,
                    maximum_s=0.05,
                    max_attempts=3,
                    stable_after_s=30,
                    goaway_margin_s=0.0,
                    connect_timeout_s=5,
                ),
                watchdog=watchdog or WatchdogPolicy(no_response_s=5),
                rng=random.Random(7),
                buffer_bytes=buffer_bytes or DEFAULT_BUFFER_BYTES,
                take_announcements=timers.take_announcements,
                extra_tools=extra_tools or (lambda _settings: []),
                before_connect=before_connect,
            )
            core_ref.append(core)
            harness = Harness(
                sim=sim,
                core=core,
                sink=sink,
                events=events,
                bus=bus,
                tools=tools,
                history=history,
                settings=settings,
                paths=paths,
                gate=gate,
                timers=timers,
                scheduler=scheduler,
            )
            try:
                yield harness
            finally:
                gate.release.set()
                await core.stop()
                await tools.aclose()

    return make
