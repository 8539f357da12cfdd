"""Fixtures for the audio tests: espeak-ng speech, the virtual devices, an event recorder."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest

from sammy_desktop.eventbus import Event, EventBus
from tests.audio.signals import speak
from tests.audio.virtual_devices import MIC_FEED, SPEAKER, SPEAKER_MONITOR, SinkKeepAlive
from tests.helpers.clock import ManualScheduler
from tests.helpers.events import EventLog
from tests.helpers.jitter_device import Listener

E = TypeVar("E", bound=Event)

FAR_END_TEXT = (
    "Hello, this is the assistant speaking. The weather today is sunny and warm, "
    "with a gentle breeze from the west and a few clouds in the afternoon."
)
SHORT_TEXT = "The quick brown fox jumps over the lazy dog."
NEAR_END_TEXT = "Stop, stop, please wait a moment, I have a question."


class BlockCollector:
    """A capture consumer that keeps every block and lets a test wait for an amount."""

    def __init__(self) -> None:
        self.blocks: list[bytes] = []
        self._grown = asyncio.Event()

    def __call__(self, block: bytes) -> None:
        self.blocks.append(block)
        self._grown.set()

    @property
    def sample_count(self) -> int:
        """Samples received so far."""
        return sum(len(b) for b in self.blocks) // 2

    def samples(self, first_block: int = 0) -> np.ndarray:
        """The samples of the blocks from ``first_block`` on."""
        return np.frombuffer(b"".join(self.blocks[first_block:]), dtype=np.int16)

    async def wait_for_blocks(self, count: int, *, within: float = 10) -> None:
        """Wait until ``count`` blocks have arrived in total."""

        async def wait() -> None:
            while len(self.blocks) < count:
                self._grown.clear()
                await self._grown.wait()

        await asyncio.wait_for(wait(), within)


async def until(condition: Callable[[], bool], *, within: float = 5.0) -> None:
    """Wait until ``condition()`` holds, checking every 10 ms; fail after ``within`` s.

    For states that have no event of their own (a stream resting, a counter reaching a
    value): the wait ends as soon as the state is there, and fails loudly if it never comes.
    """

    async def poll() -> None:
        while not condition():  # noqa: ASYNC110 - a state without an event, polled
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), within)


@pytest.fixture
def scheduler() -> ManualScheduler:
    """A clock and timers the test moves by hand (at 100 s: no time reads as "never")."""
    return ManualScheduler(now=100.0)


@pytest.fixture
def listener() -> Listener:
    """What a jitter buffer driven by hand told its owner (tests/helpers/jitter_device.py)."""
    return Listener()


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def events(bus: EventBus) -> EventLog:
    return EventLog(bus)


@pytest.fixture(scope="session")
def speech_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("speech")


@pytest.fixture(scope="session")
def far_speech_16k(speech_dir: Path) -> np.ndarray:
    return speak(FAR_END_TEXT, speech_dir / "far.wav", rate=16000)


@pytest.fixture(scope="session")
def short_speech_16k(speech_dir: Path) -> np.ndarray:
    return speak(SHORT_TEXT, speech_dir / "short.wav", rate=16000)


@pytest.fixture(scope="session")
def short_speech_24k(speech_dir: Path) -> np.ndarray:
    return speak(SHORT_TEXT, speech_dir / "short.wav", rate=24000)


@pytest.fixture(scope="session")
def far_speech_24k(speech_dir: Path) -> np.ndarray:
    return speak(FAR_END_TEXT, speech_dir / "far.wav", rate=24000)


@pytest.fixture(scope="session")
def near_speech_16k(speech_dir: Path) -> np.ndarray:
    return speak(NEAR_END_TEXT, speech_dir / "near.wav", rate=16000, voice="en-us+f3")


@pytest.fixture
def running_sinks() -> Iterator[None]:
    """Keep the virtual sinks awake at low latency for the test."""
    with SinkKeepAlive(MIC_FEED, SPEAKER):
        yield


@pytest.fixture
def speaker_looped_into_mic() -> Iterator[None]:
    """What the virtual speaker plays comes back into the virtual mic (a laptop's echo)."""
    module = subprocess.run(
        [
            "pactl",
            "load-module",
            "module-loopback",
            f"source={SPEAKER_MONITOR}",
            f"sink={MIC_FEED}",
            "latency_msec=40",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    try:
        yield
    finally:
        subprocess.run(["pactl", "unload-module", module], check=True)
