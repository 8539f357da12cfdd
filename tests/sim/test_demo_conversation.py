"""The offline demo through the app's own core and tools, on the strict default profile.

The real AgentCore and the real ToolManager with the desktop pack and the built-ins talk to
the demo scenario over TLS, as ``sammy-desktop --demo`` does: typed requests in plain words
become tool calls the tools accept (no failure card), and the answers come back as
sentences built from the tools' own values, with no JSON and no function names in them.
"""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.config.settings import DEFAULT_MODEL
from sammy_desktop.core.agent import AgentCore
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.endpoint import make_client_factory
from sammy_desktop.core.events import AgentState, SessionEnded, Speaker, TranscriptUpdated
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.eventbus import EventBus
from sammy_desktop.sim import LiveSimulator, demo_scenario
from sammy_desktop.tools import ToolManager, ToolServices
from sammy_desktop.tools.desktop import TimerService, desktop_tools
from sammy_desktop.tools.events import ToolCallFailed, ToolCallFinished
from tests.core.conftest import FakeSink
from tests.helpers.clock import ManualScheduler
from tests.helpers.events import EventLog
from tests.sim.demo_calls import assert_calls_match_declarations
from tests.sim.live_client import MODELS

API_KEY = "demo-test-key"
# Tuesday 2 June 2026, 14:05 in a zone an hour east of UTC.
NOW = datetime(2026, 6, 2, 14, 5, tzinfo=timezone(timedelta(hours=1), "CET"))
CAMEL_CASE = re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b")


@dataclass
class Demo:
    sim: LiveSimulator
    core: AgentCore
    events: EventLog
    tools: ToolManager
    timers: TimerService
    paths: AppPaths

    async def ask(self, text: str) -> str:
        """Type ``text``; return the demo's final answer once the app is Ready again."""
        answers = len(self._answers())
        assert self.core.send_text(text)
        await self.events.wait_for(
            TranscriptUpdated,
            lambda e: e.speaker is Speaker.ASSISTANT and e.final,
            count=answers + 1,
            within_s=10,
        )
        return self._answers()[-1]

    def _answers(self) -> list[str]:
        return [
            e.text
            for e in self.events.of(TranscriptUpdated)
            if e.speaker is Speaker.ASSISTANT and e.final
        ]

    def finished(self, name: str) -> ToolCallFinished:
        (call,) = [e for e in self.events.of(ToolCallFinished) if e.name == name]
        return call

    def value(self, name: str) -> Any:
        """The value the tool ``name`` answered with (it was called once, and succeeded)."""
        result = self.finished(name).result
        assert result.ok and result.value is not None
        return result.value


@contextlib.asynccontextmanager
async def demo_app(tmp_path: Path, model: str = DEFAULT_MODEL) -> AsyncIterator[Demo]:
    """The app's core and tools against the demo, as desktop_app wires them."""
    bus = EventBus()
    events = EventLog(bus)
    paths = AppPaths.profile(tmp_path / "profile")
    settings = Settings(model=model)
    history = ConversationHistory(paths.history_dir)
    timers = TimerService(bus, None, wall_clock=lambda: NOW, scheduler=ManualScheduler())
    core_ref: list[AgentCore] = []
    tools = ToolManager(
        bus,
        ToolServices(
            paths=paths,
            settings=lambda: settings,
            transcript=history.transcript,
            clock=lambda: NOW,
            platform_description="Linux (Debian 12)",
        ),
        tools=desktop_tools(timers=timers, clipboard=None),
        load_entry_points=False,
        state=lambda: core_ref[0].snapshot(),
    )
    async with LiveSimulator(demo_scenario(echo_delay_s=0), api_keys=(API_KEY,)) as sim:
        assert all(profile.strict for profile in sim.profiles.profiles)  # the app's own way
        core = AgentCore(
            bus=bus,
            settings=settings,
            tools=tools,
            sink=FakeSink(),
            client_factory=make_client_factory(
                lambda: API_KEY, base_url=sim.base_url, ssl_context=sim.ssl_context
            ),
            history=history,
            reconnect=ReconnectPolicy(initial_s=0.01, maximum_s=0.05, max_attempts=2),
            rng=random.Random(3),
            demo_mode=True,
        )
        core_ref.append(core)
        try:
            await core.start()
            await events.wait_state(AgentState.READY)
            yield Demo(sim, core, events, tools, timers, paths)
        finally:
            await core.stop()
            await tools.aclose()
            timers.shutdown()


def _says_nothing_for_developers(answer: str) -> None:
    assert "{" not in answer and "}" not in answer, answer  # no JSON
    assert not CAMEL_CASE.search(answer), answer  # no function names
    assert "_" not in answer, answer  # no field names


async def test_a_demo_conversation_calls_each_tool_with_valid_arguments(tmp_path: Path) -> None:
    async with demo_app(tmp_path) as demo:
        answers = {
            "time": await demo.ask("What time is it?"),
            "timer": await demo.ask("Set a timer for two minutes"),
            "note": await demo.ask("Note that the wifi password is on the router"),
            "context": await demo.ask("What do you know about my computer?"),
        }
        ended = demo.events.wait_for(SessionEnded, within_s=10)
        answers["goodbye"] = await demo.ask("OK, goodbye!")
        await ended

        assert answers["time"] == "It's 14:05 on Tuesday."
        assert demo.finished("getDateTime").result.ok

        assert answers["timer"] == "Your timer for 2 minutes is running; it ends at 14:07."
        (timer,) = demo.timers.running()
        assert timer.duration_s == 120

        assert demo.value("addNote").text == "The wifi password is on the router."
        assert answers["note"] == "I've noted it: \u201cThe wifi password is on the router.\u201d"

        assert demo.finished("getCurrentContext").result.ok
        assert answers["context"] == (
            "It's Tuesday here, your time zone is CET (UTC+01:00), and this computer runs "
            "Linux (Debian 12)."
        )

        assert demo.value("endSession").reason == "you said \u201cOK, goodbye\u201d"
        assert answers["goodbye"] == "Goodbye! Thanks for trying Sammy's offline demo."

        assert demo.events.of(ToolCallFailed) == []  # no red card in the whole conversation
        assert_calls_match_declarations(demo.sim)
        for answer in answers.values():
            _says_nothing_for_developers(answer)


@pytest.mark.parametrize("family", list(MODELS))
async def test_each_model_family_gets_the_same_demo(tmp_path: Path, family: str) -> None:
    async with demo_app(tmp_path, model=MODELS[family]) as demo:
        assert await demo.ask("remind me in ten minutes to check the oven") == (
            "I'll remind you to check the oven in 10 minutes, at 14:15."
        )
        assert demo.value("setTimer").label == "check the oven"
        assert await demo.ask("what's the time in Tokyo") == "In Tokyo it's 22:05 on Tuesday."
        assert demo.events.of(ToolCallFailed) == []
