"""Benchmark of screen sharing (issue 20): grab + encode per frame, loop lag and CPU.

Run by ``bench/run.py --only screen`` in a process of its own on Qt's xcb platform (it
needs an X server: the tests' Xvfb under ``scripts/with-test-services.sh``). A window
fills the screen with a picture that changes ten times a second, so every frame due is
sent. Prints one JSON line:

* ``grab_encode_ms``: per long edge (768, 1024, 1536), a grab on the Qt thread plus the
  change check, scaling and JPEG encoding, per frame;
* ``lag_ms``: how late a 10 ms timer task on the qasync loop woke while sharing at one
  frame a second (the "always" policy);
* ``cpu_sharing`` and ``cpu_idle``: the process's CPU time over wall time, in percent of
  one core, with the same changing picture, sharing and not (windows of each in turn, the
  lag probe running in all of them).

    python bench/screen_share.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import qasync  # noqa: E402
from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtGui import QColor, QImage, QPainter, QPaintEvent  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from sammy_desktop.config import ScreenImageSize, ScreenSendPolicy, Settings  # noqa: E402
from sammy_desktop.config.store import SettingsStore  # noqa: E402
from sammy_desktop.core.events import AgentState  # noqa: E402
from sammy_desktop.core.screen import VideoFrame  # noqa: E402
from sammy_desktop.ui.controls import UiTasks  # noqa: E402
from sammy_desktop.ui.screen.encode import encode_frame  # noqa: E402
from sammy_desktop.ui.screen.grab import QtGrabber  # noqa: E402
from sammy_desktop.ui.screen.share import ScreenShare  # noqa: E402
from sammy_desktop.ui.screen.sources import screen_sources  # noqa: E402
from sammy_desktop.ui.settings_state import SettingsState  # noqa: E402


class Busy(QWidget):
    """A full-screen picture whose colours move ten times a second."""

    def __init__(self) -> None:
        super().__init__()
        self.step = 0
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._next)
        self.timer.start(100)

    def _next(self) -> None:
        self.step += 1
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        w, h = self.width(), self.height()
        for i in range(8):
            hue = (self.step * 13 + i * 45) % 360
            painter.fillRect(i * w // 8, 0, w // 8 + 1, h, QColor.fromHsv(hue, 200, 220))
        painter.drawText(20, 40, f"frame {self.step}: some text to read on the screen")
        painter.end()


class Agent:
    state = AgentState.READY

    def __init__(self) -> None:
        self.frames = 0

    def send_video(self, frame: VideoFrame) -> bool:
        self.frames += 1
        return True

    def set_screen_sharing(self, active: bool, source: str = "") -> None:
        pass


async def grab_encode(rounds: int) -> dict[str, list[float]]:
    grabber = QtGrabber()
    (source, *_) = screen_sources()
    out: dict[str, list[float]] = {}
    for size in ScreenImageSize:
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            image: QImage = await grabber.grab(source)
            encode_frame(image, size.pixels, None)
            times.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.05)
        out[size.value] = times
    grabber.close()
    return out


WINDOWS = (False, True, True, False)
"""The CPU windows, not sharing and sharing, in this order: a machine whose load drifts
meanwhile weighs on both alike (one window of each, one after the other, read 2.5-5 % in
four runs of the same code)."""


async def lag_and_cpu(seconds: float, settings_state: SettingsState) -> dict[str, object]:
    """Loop lag while sharing; CPU sharing and not, ``seconds`` of each.

    The lag probe (a 10 ms timer task) runs in every window, so its own wake-ups are in
    both CPU figures and not in their difference; only the lags while sharing are kept.
    """
    agent = Agent()
    tasks = UiTasks()
    share = ScreenShare(agent, settings_state, tasks)
    source = screen_sources()[0]
    lags: list[float] = []
    sharing = False
    stop = False

    async def probe() -> None:
        while not stop:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            if sharing:
                lags.append((time.monotonic() - before - 0.01) * 1000)

    prober = asyncio.get_running_loop().create_task(probe())
    # Per state (sharing or not): CPU seconds, wall seconds.
    spent = {False: [0.0, 0.0], True: [0.0, 0.0]}
    window_s = seconds * 2 / len(WINDOWS)
    for shares in WINDOWS:
        if shares:
            share.start(source)
        wall, cpu = time.monotonic(), time.process_time()
        sharing = shares
        await asyncio.sleep(window_s)
        sharing = False
        spent[shares][0] += time.process_time() - cpu
        spent[shares][1] += time.monotonic() - wall
        if shares:
            share.stop()
            await tasks.join()
    stop = True
    await prober
    share.close()
    return {
        "lag_ms": lags,
        "cpu_idle": spent[False][0] / spent[False][1] * 100,
        "cpu_sharing": spent[True][0] / spent[True][1] * 100,
        "frames": agent.frames,
        "unchanged": share.frames_unchanged,
        "skipped": share.frames_skipped,
    }


async def run(seconds: float, rounds: int, settings_state: SettingsState) -> dict[str, object]:
    screen = QApplication.primaryScreen()
    busy = Busy()
    busy.setGeometry(screen.geometry())
    busy.show()
    await asyncio.sleep(0.5)
    result: dict[str, object] = {"grab_encode_ms": await grab_encode(rounds)}
    result.update(await lag_and_cpu(seconds, settings_state))
    result["screen"] = [screen.geometry().width(), screen.geometry().height()]
    busy.close()
    return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        print("needs an X server (DISPLAY)", file=sys.stderr)
        return 2
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    app = QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(screen_send_policy=ScreenSendPolicy.ALWAYS)
        settings_state = SettingsState(SettingsStore(Path(folder) / "settings.json"), settings)
        with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
            result = runner.run(run(args.seconds, args.rounds, settings_state))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
