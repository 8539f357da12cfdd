"""Hand-written stand-ins for the desktop parts the UI provides, and a manual clock.

Each implements the same Protocol as the real part (QClipboard, the tray notifier,
QProcess) and records what the tools asked of it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from google.genai import types

from sammy_desktop.tools.desktop import Earcon


class FakeClipboard:
    """A clipboard holding ``text`` (None: something that is not text)."""

    def __init__(self, text: str | None = "") -> None:
        self.text = text
        self.reads = 0
        self.writes: list[str] = []

    async def read_text(self) -> str | None:
        self.reads += 1
        return self.text

    async def write_text(self, text: str) -> None:
        self.writes.append(text)
        self.text = text


@dataclass
class RecordingNotifier:
    """Records notifications and earcons."""

    notifications: list[tuple[str, str]] = field(default_factory=list)
    earcons: list[Earcon] = field(default_factory=list)

    def notify(self, title: str, body: str) -> None:
        self.notifications.append((title, body))

    def play_earcon(self, earcon: Earcon) -> None:
        self.earcons.append(earcon)


class RecordingLauncher:
    """Records the argument lists it was asked to start; ``error`` makes starting fail."""

    def __init__(self, error: OSError | None = None) -> None:
        self.error = error
        self.launched: list[list[str]] = []

    async def launch(self, argv: Sequence[str]) -> None:
        if self.error is not None:
            raise self.error
        self.launched.append(list(argv))


class WaitingResponder:
    """Records answers like ``session.send_tool_response`` and lets a test wait for them."""

    def __init__(self) -> None:
        self.responses: list[types.FunctionResponse] = []
        self._arrived = asyncio.Condition()

    async def __call__(self, responses: list[types.FunctionResponse]) -> None:
        async with self._arrived:
            self.responses.extend(responses)
            self._arrived.notify_all()

    async def wait_for(self, count: int, timeout_s: float = 5.0) -> list[types.FunctionResponse]:
        """Wait until ``count`` answers have arrived in all; return them."""
        async with asyncio.timeout(timeout_s), self._arrived:
            await self._arrived.wait_for(lambda: len(self.responses) >= count)
        return list(self.responses)
