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
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from google.genai import types
from pydantic import BaseModel

from sammy_desktop.config import AppPaths, Settings, TalkMode
from sammy_desktop.core.agent import DEFAULT_BUFFER_BYTES, AgentCore, WatchdogPolicy
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.endpoint import DEFAULT_API_VERSION, make_client_factory
from sammy_desktop.core.events import AgentState
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.core.ports import ToolRunner
from sammy_desktop.eventbus import Event, EventBus
from sammy_desktop.scheduling import Scheduler
from sammy_desktop.sim import LiveSimulator, Received, Scenario
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
from tests.helpers.clock import ManualScheduler
from tests.helpers.events import EventLog

E = TypeVar("E", bound=Event)

API_KEY = "test-key"


class FakeSink:
    """Stands in for the audio layer's AudioPlayback: keeps what it is asked to play."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.first_played_at: float | None = None  # time.monotonic() of the first chunk
        self.flushes = 0
        self.turn_ends = 0
        self.hold_playing = False

    def play(self, pcm24k: bytes) -> None:
        if self.first_played_at is None:
            self.first_played_at = time.monotonic()
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


def typed_texts(sim: LiveSimulator) -> list[str]:
    """Every text the app sent, in order: client_content turns and realtime text alike."""
    kinds = (Received.TEXT, Received.CLIENT_CONTENT)
    return [str(e.data["text"]) for e in sim.recorder.events() if e.kind in kinds]


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
        api_version: str = DEFAULT_API_VERSION,
        profile: str | None = None,
        core_scheduler: Scheduler | None = None,
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
        async with LiveSimulator(scenario, api_keys=(API_KEY,), profile=profile) as sim:
            core = AgentCore(
                bus=bus,
                settings=settings,
                tools=tools if wrap_tools is None else wrap_tools(tools),
                sink=sink,
                client_factory=make_client_factory(
                    lambda: api_key,
                    base_url=sim.base_url,
                    ssl_context=sim.ssl_context,
                    api_version=api_version,
                ),
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
                extra_tools=extra_tools or (lambda _settings: []),
                before_connect=before_connect,
                scheduler=core_scheduler,
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
