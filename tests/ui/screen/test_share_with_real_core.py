"""Sharing through the real AgentCore to the simulator: the frames arrive as JPEG video.

The grab is the only stand-in (this process's Qt is offscreen; the Xvfb tests grab for
real): a talk press sends a frame, the simulator receives it as ``realtimeInput.video``
of the frame's size, and a stop ends the sharing.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from sammy_desktop.config import AppPaths, Settings, TalkKey
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.core.agent import AgentCore
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.endpoint import make_client_factory
from sammy_desktop.core.events import AgentState, StateChanged
from sammy_desktop.core.history import ConversationHistory
from sammy_desktop.eventbus import EventBus
from sammy_desktop.sim import LiveSimulator, Received
from sammy_desktop.sim.demo import demo_scenario
from sammy_desktop.tools import ToolManager, ToolServices
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.screen.share import ScreenShare
from sammy_desktop.ui.settings_state import SettingsState
from tests.helpers.events import next_event

from .support import SCREEN, FakeGrabber, quadrants

API_KEY = "ui-test-key"


class Silent:
    def play(self, pcm24k: bytes) -> None:
        pass

    def flush(self) -> None:
        pass

    @property
    def is_playing(self) -> bool:
        return False


def test_a_talk_press_sends_a_frame_the_simulator_receives(
    qloop: asyncio.Runner, tmp_path: Path
) -> None:
    bus = EventBus()
    bridge = EventBridge(bus)
    settings = Settings(talk_key=TalkKey.HOLD_TO_TALK)
    settings_state = SettingsState(SettingsStore(tmp_path / "settings.json"), settings)
    paths = AppPaths.profile(tmp_path / "profile")
    history = ConversationHistory(paths.history_dir)
    services = ToolServices(paths=paths, settings=lambda: settings, transcript=history.transcript)
    tools = ToolManager(bus, services, tools=(), load_entry_points=False)
    tasks = UiTasks()

    async def scenario() -> None:
        async with LiveSimulator(demo_scenario(chime_hz=0), api_keys=(API_KEY,)) as sim:
            core = AgentCore(
                bus=bus,
                settings=settings,
                tools=tools,
                sink=Silent(),
                client_factory=make_client_factory(
                    lambda: API_KEY, base_url=sim.base_url, ssl_context=sim.ssl_context
                ),
                reconnect=ReconnectPolicy(initial_s=0.01, maximum_s=0.05, max_attempts=2),
                history=history,
                rng=random.Random(1),
                demo_mode=True,
            )
            share = ScreenShare(
                core,
                settings_state,
                tasks,
                grabber=FakeGrabber(quadrants(1600, 1000)),
                bridge=bridge,
                capture_allowed=lambda: "",
            )
            ready = asyncio.ensure_future(
                next_event(bus, StateChanged, lambda e: e.new is AgentState.READY)
            )
            await core.start()
            await ready
            try:
                assert share.start(SCREEN)
                assert core.screen_shared
                assert core.begin_talk()
                (frame,) = await sim.recorder.wait_for(Received.VIDEO)
                assert frame.data["jpeg"] is True
                assert (frame.data["width"], frame.data["height"]) == (1024, 640)
                core.end_talk()
                share.stop()
                assert not core.screen_shared
            finally:
                share.close()
                await core.stop()
                await tasks.join()

    qloop.run(scenario())
    bridge.close()
