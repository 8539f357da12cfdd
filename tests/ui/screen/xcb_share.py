"""A helper process for the Xvfb tests: shares real X windows through Qt's xcb platform.

The test process's Qt runs offscreen, where nothing can be grabbed; this process runs
``QT_QPA_PLATFORM=xcb`` on the tests' Xvfb, shows the pictures, drives a real
:class:`ScreenShare` (real grabber, clock and timer) against a recording agent, and writes
what was sent, with when, to a JSON file the test then checks::

    python -m tests.ui.screen.xcb_share screen|window OUTPUT.json
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QApplication, QWidget

from sammy_desktop.config import Settings
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.core.events import AgentState
from sammy_desktop.core.screen import VideoFrame
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.screen.policy import FramePolicy
from sammy_desktop.ui.screen.share import ScreenShare
from sammy_desktop.ui.screen.sources import list_sources
from sammy_desktop.ui.settings_state import SettingsState

from .support import QUADRANTS

WAIT_S = 10.0


class Picture(QWidget):
    """A frameless window painted in four quadrants, or in one colour; a patch can change."""

    def __init__(self, title: str, colours: tuple[QColor, ...]) -> None:
        super().__init__(None, Qt.WindowType.FramelessWindowHint)
        self.setWindowTitle(title)
        self.colours = colours
        self.patch: QColor | None = None
        self.painted = 0

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        w, h = self.width(), self.height()
        if len(self.colours) == 1:
            painter.fillRect(self.rect(), self.colours[0])
        else:
            hw, hh = w // 2, h // 2
            for rect, colour in zip(
                (QRect(0, 0, hw, hh), QRect(hw, 0, w - hw, hh)),
                self.colours[:2],
                strict=True,
            ):
                painter.fillRect(rect, colour)
            for rect, colour in zip(
                (QRect(0, hh, hw, h - hh), QRect(hw, hh, w - hw, h - hh)),
                self.colours[2:],
                strict=True,
            ):
                painter.fillRect(rect, colour)
        if self.patch is not None:  # a change in the top left quadrant's corner
            painter.fillRect(QRect(0, 0, w // 8, h // 8), self.patch)
        painter.end()
        self.painted += 1


class Agent:
    """Records the frames and the sharing calls; always connected."""

    def __init__(self) -> None:
        self.state = AgentState.READY
        self.frames: list[tuple[float, VideoFrame, str]] = []
        self.sharing: list[list[Any]] = []
        self.phase = ""

    def send_video(self, frame: VideoFrame) -> bool:
        self.frames.append((time.monotonic(), frame, self.phase))
        return True

    def set_screen_sharing(self, active: bool, source: str = "") -> None:
        self.sharing.append([active, source])


async def until(condition: Callable[[], bool], what: str, timeout_s: float = WAIT_S) -> None:
    """Wait for ``condition``, letting Qt and the loop run; fails naming ``what``."""
    try:
        async with asyncio.timeout(timeout_s):
            while not condition():  # noqa: ASYNC110 - X and Qt state, no event to await
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise SystemExit(f"timed out waiting for {what}") from None


# No QApplication.sync() after a paint: it processes events, and inside a qasync task that
# runs another task's step re-entrantly ("Cannot enter into task ... while another task is
# being executed": the helper then hung, seen once in CI). Nor is it needed: the painted
# pixels go to the X server on Qt's one xcb connection, which the grab's GetImage then uses,
# so the server handles them in that order.


async def shown(picture: Picture) -> None:
    """Show ``picture`` and wait until it was painted (its pixels sent to the X server)."""
    picture.show()
    before = picture.painted
    await until(lambda: picture.painted > before, f"{picture.windowTitle()} painted")
    await asyncio.sleep(0.1)  # the window mapped: a first expose may follow


async def repaint(picture: Picture, patch: QColor) -> None:
    before = picture.painted
    picture.patch = patch
    picture.update()
    await until(lambda: picture.painted > before, "the repaint")


def record(agent: Agent, share: ScreenShare, output: Path, extra: dict[str, Any]) -> None:
    result = {
        "frames": [
            {
                "t": t,
                "width": frame.width,
                "height": frame.height,
                "phase": phase,
                "jpeg": base64.b64encode(frame.jpeg).decode(),
            }
            for t, frame, phase in agent.frames
        ],
        "sharing": agent.sharing,
        "unchanged": share.frames_unchanged,
        **extra,
    }
    output.write_text(json.dumps(result))


async def share_the_screen(output: Path, settings_state: SettingsState) -> None:
    screen = QApplication.primaryScreen()
    picture = Picture("Quadrants", QUADRANTS)
    picture.setGeometry(screen.geometry())
    await shown(picture)
    agent = Agent()
    tasks = UiTasks()
    # When each frame was taken, the send policy's own moments: a frame reaches the agent
    # once it is encoded on a worker, which takes longer for some than for others.
    taken_at: list[float] = []
    policy_taken = FramePolicy.taken

    def taken(policy: FramePolicy, now: float) -> None:
        taken_at.append(now)
        policy_taken(policy, now)

    FramePolicy.taken = taken  # type: ignore[method-assign, assignment]
    share = ScreenShare(agent, settings_state, tasks)
    stopped: list[str] = []
    share.stopped.connect(stopped.append)
    (source,) = [s for s in list_sources() if s.kind == "screen"]
    assert share.start(source)
    agent.phase = "press"
    share.on_state(AgentState.READY, AgentState.USER_SPEAKING)
    await until(lambda: len(agent.frames) == 1, "the press's frame")
    agent.phase = "unchanged"
    await until(lambda: share.frames_unchanged >= 2, "two unchanged grabs")
    agent.phase = "changing"
    changes_until = time.monotonic() + 3.2
    n = 0
    while time.monotonic() < changes_until:  # a new gray each time: every grab sees a change
        level = 20 + (n * 11) % 220
        await repaint(picture, QColor(level, level, level))
        n += 1
        await asyncio.sleep(0.15)
    agent.phase = "after stop"
    share.stop()
    grabs_at_stop = share.frames_unchanged + len(agent.frames)
    share.on_talk_pressed()
    await repaint(picture, QColor("gray"))
    await asyncio.sleep(1.5)  # an absence: nothing may be sent while nothing is shared
    await tasks.join()
    record(
        agent,
        share,
        output,
        {
            "stopped": stopped,
            "grabs_after_stop": share.frames_unchanged + len(agent.frames) - grabs_at_stop,
            "screen": [screen.geometry().width(), screen.geometry().height()],
            "taken": taken_at,
        },
    )
    share.close()
    FramePolicy.taken = policy_taken  # type: ignore[method-assign]


async def share_a_window(output: Path, settings_state: SettingsState) -> None:
    shared = Picture("Quadrants window", QUADRANTS)
    shared.setGeometry(40, 60, 400, 300)
    other = Picture("Magenta window", (QColor(230, 0, 230),))
    other.setGeometry(600, 400, 300, 300)
    await shown(shared)
    await shown(other)
    own = [s.title for s in list_sources()]
    listed = list_sources(exclude=())
    agent = Agent()
    tasks = UiTasks()
    share = ScreenShare(agent, settings_state, tasks)
    stopped: list[str] = []
    share.stopped.connect(stopped.append)
    (source,) = [s for s in listed if s.title == "Quadrants window"]
    assert int(source.id) == int(shared.winId())
    assert share.start(source)
    agent.phase = "press"
    share.on_state(AgentState.READY, AgentState.USER_SPEAKING)
    await until(lambda: len(agent.frames) == 1, "the window's frame")
    agent.phase = "closed"
    shared.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    shared.close()
    await until(lambda: bool(stopped), "sharing to stop")
    await tasks.join()
    record(
        agent,
        share,
        output,
        {"stopped": stopped, "listed": [s.title for s in listed], "listed_own": own},
    )
    share.close()
    other.close()


def main(argv: list[str]) -> int:
    scenario, output = argv[1], Path(argv[2])
    app = QApplication(argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        settings_state = SettingsState(SettingsStore(Path(folder) / "settings.json"), Settings())
        run = share_the_screen if scenario == "screen" else share_a_window
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            runner.run(run(output, settings_state))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
