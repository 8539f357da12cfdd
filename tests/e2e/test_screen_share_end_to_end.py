"""Sharing the screen, end to end: the real app under Xvfb, a known picture in a window of
another app, Ctrl+Shift+S in Sammy's window and the picture's window chosen, push-to-talk
from a desktop shortcut's command, and the Live simulator (run by the test) receiving JPEG
frames that show the picture, and only it.

Frames go at a talk press, then only when the picture changes (it does not here), and none
once sharing stopped. (Sharing the whole screen would show Sammy's own window too, whose
level meter moves while you talk: that is a change, and sent.)
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication

from sammy_desktop.sim import LiveSimulator
from sammy_desktop.sim.recorder import Received
from tests.ui.test_single_instance import KEY, _app, _sammy

from .show_picture import QUADRANTS

pytestmark = [pytest.mark.xvfb, pytest.mark.audio]

REPO = Path(__file__).resolve().parents[2]


def _xdotool(*args: str) -> str:
    done = subprocess.run(
        ["xdotool", *args], capture_output=True, text=True, timeout=30, check=True
    )
    return done.stdout


def _close_to(actual: QColor, expected: QColor, tolerance: int = 40) -> bool:
    pairs = zip(
        (actual.red(), actual.green(), actual.blue()),
        (expected.red(), expected.green(), expected.blue()),
        strict=True,
    )
    return all(abs(a - b) <= tolerance for a, b in pairs)


async def test_ctrl_shift_s_shares_the_screen_the_simulator_sees_it(
    tmp_path: Path, qapp: QApplication
) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="xcb")
    picture = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.e2e.show_picture",
        cwd=REPO,
        env=env,
        stdout=asyncio.subprocess.PIPE,
    )
    profile = tmp_path / "profile"
    remote = ("--config-dir", str(profile))
    try:
        assert picture.stdout is not None
        assert (await asyncio.wait_for(picture.stdout.readline(), 30)).strip() == b"shown"
        async with (
            LiveSimulator(api_keys=(KEY,)) as sim,
            _app(profile, "--log-level", "DEBUG", sim=sim) as app,
        ):
            # A conversation first (sharing needs one): a turn from the shortcut's command.
            assert (await _sammy(*remote, "--toggle-talk"))[0] == 0
            await sim.recorder.wait_for(Received.ACTIVITY_START, timeout=30)
            assert (await _sammy(*remote, "--toggle-talk"))[0] == 0
            await sim.recorder.wait_for(Received.ACTIVITY_END, timeout=30)

            # Ctrl+Shift+S in Sammy's window: the chooser (nothing chosen before), the
            # screen first, then the windows: Down to the picture's, Enter shares it.
            found = await asyncio.to_thread(
                _xdotool, "search", "--sync", "--onlyvisible", "--name", "^Sammy"
            )
            window = found.split()[0]
            await asyncio.to_thread(_xdotool, "windowfocus", "--sync", window)
            await asyncio.to_thread(_xdotool, "key", "--clearmodifiers", "ctrl+shift+s")
            await asyncio.to_thread(
                _xdotool, "search", "--sync", "--onlyvisible", "--name", "^Share with Sammy"
            )
            await asyncio.to_thread(_xdotool, "key", "Down", "Return")
            await app.wait_for_line("screen sharing started: window")

            # A push-to-talk turn: the press sends a picture of the window (the turn itself
            # starts once the microphone, closed between turns, hears).
            assert (await _sammy(*remote, "--talk-start"))[0] == 0
            (frame,) = await sim.recorder.wait_for(Received.VIDEO, timeout=30)
            await sim.recorder.wait_for(Received.ACTIVITY_START, count=2, timeout=30)
            assert frame.data["mime_type"] == "image/jpeg" and frame.data["jpeg"]
            image = QImage.fromData(frame.picture)
            assert (image.width(), image.height()) == (frame.data["width"], frame.data["height"])
            # The picture's window, not the screen: its own size (under the 1024 px long
            # edge of Settings > Screen, so not enlarged), every quadrant in its place.
            assert (image.width(), image.height()) == (560, 420)
            w, h = image.width(), image.height()
            places = ((w // 4, h // 4), (3 * w // 4, h // 4), (w // 4, 3 * h // 4))
            for (x, y), colour in zip((*places, (3 * w // 4, 3 * h // 4)), QUADRANTS, strict=True):
                assert _close_to(image.pixelColor(x, y), colour), (x, y)

            # Talking on, the screen unchanged: grabbed again, nothing more sent.
            await app.wait_for_line("screen frame unchanged: not sent")
            assert len(sim.recorder.video_frames()) == 1
            assert (await _sammy(*remote, "--talk-stop"))[0] == 0
            await sim.recorder.wait_for(Received.ACTIVITY_END, count=2, timeout=30)

            # Stopped: the next press sends nothing (frames and turn markers go through
            # one ordered outbox, so a picture of the press would arrive before its end).
            code, said, _err = await _sammy(*remote, "--toggle-share")
            assert (code, said) == (0, "")
            await app.wait_for_line("screen sharing stopped (by the person): 1 frames sent")
            assert (await _sammy(*remote, "--toggle-talk"))[0] == 0
            await sim.recorder.wait_for(Received.ACTIVITY_START, count=3, timeout=30)
            assert (await _sammy(*remote, "--toggle-talk"))[0] == 0
            await sim.recorder.wait_for(Received.ACTIVITY_END, count=3, timeout=30)
            assert len(sim.recorder.video_frames()) == 1
            assert sim.recorder.video_rate() == 0.0
    finally:
        picture.terminate()
        await picture.wait()
