"""Frames on Wayland: the desktop portal's Screenshot, against a real (test) portal on the
private session bus. The portal writes each screenshot to a file; Sammy reads it and
deletes it at once, and never asks for more than one a press."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtGui import QImage

from sammy_desktop.core.events import AgentState
from sammy_desktop.core.screen import VideoFrame
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.screen.grab import GrabFailed
from sammy_desktop.ui.screen.share import ScreenShare
from sammy_desktop.ui.screen.wayland import PRESS_ONLY, PortalGrabber
from sammy_desktop.ui.settings_state import SettingsState
from tests.helpers.portal_service import running_portal
from tests.ui.conftest import FakeAgent

from .support import SCREEN, FakeClock, FakeTimer, quadrants, shows_quadrants


@pytest.fixture(autouse=True)
def session_bus() -> None:
    """The private session bus; a desktop's own portal must never answer these tests."""
    if not os.environ.get("SAMMY_TEST_SERVICES") or not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        pytest.fail(
            "this test needs the private D-Bus session bus: run it with "
            "`scripts/with-test-services.sh .venv/bin/python -m pytest ...`",
            pytrace=False,
        )


def _png(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, "PNG")  # type: ignore[call-overload]  # str at run time
    return bytes(buffer.data().data())


def test_a_screenshot_comes_through_the_portal_and_its_file_is_deleted(
    qloop: asyncio.Runner, tmp_path: Path
) -> None:
    grabber = PortalGrabber()
    assert not grabber.continuous and grabber.limitation == PRESS_ONLY

    async def scenario() -> QImage:
        try:
            return await grabber.grab(SCREEN)
        finally:
            await grabber.aclose()

    with running_portal(screenshot=_png(quadrants(320, 200)), screenshot_dir=tmp_path) as portal:
        image = qloop.run(scenario())
    assert (image.width(), image.height()) == (320, 200)
    assert shows_quadrants(image)
    (written,) = portal.screenshots
    assert not written.exists(), "the portal's file is gone as soon as it was read"
    assert list(tmp_path.iterdir()) == []
    assert portal.screenshot_options[0]["interactive"] is False
    assert portal.calls[:2] == ["Properties.Get", "Screenshot.Screenshot"]


def test_without_a_portal_or_its_screenshots_the_grab_says_why(
    qloop: asyncio.Runner, tmp_path: Path
) -> None:
    async def attempt() -> str:
        grabber = PortalGrabber()
        try:
            await grabber.grab(SCREEN)
        except GrabFailed as exc:
            return str(exc)
        finally:
            await grabber.aclose()
        return "no failure"

    assert qloop.run(attempt()) == "no desktop portal is running."
    with running_portal():  # GlobalShortcuts only, as some desktops' portals
        said = qloop.run(attempt())
    assert said == "your desktop's portal takes no screenshots for apps."


def test_a_declined_screenshot_says_so_and_the_next_press_asks_again(
    qloop: asyncio.Runner, tmp_path: Path
) -> None:
    grabber = PortalGrabber()

    async def scenario() -> tuple[str, QImage]:
        try:
            try:
                await grabber.grab(SCREEN)
            except GrabFailed as exc:
                declined = str(exc)
            else:
                declined = "taken"
            portal.screenshot_response = 0
            return declined, await grabber.grab(SCREEN)
        finally:
            await grabber.aclose()

    with running_portal(
        screenshot=_png(quadrants(64, 48)), screenshot_dir=tmp_path, screenshot_response=1
    ) as portal:
        declined, image = qloop.run(scenario())
    assert declined == "the screenshot was cancelled."
    assert not image.isNull()
    assert len(portal.screenshot_options) == 2


def test_sharing_on_wayland_sends_a_frame_at_each_press_only(
    qloop: asyncio.Runner,
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
    bridge: EventBridge,
    tmp_path: Path,
) -> None:
    agent.move_to(AgentState.READY, "connected")
    clock = FakeClock()
    timers: list[FakeTimer] = []

    def timer(callback: object) -> FakeTimer:
        made = FakeTimer(callback, clock)  # type: ignore[arg-type]
        timers.append(made)
        return made

    grabber = PortalGrabber()
    share = ScreenShare(
        agent,
        settings_state,
        tasks,
        grabber=grabber,
        clock=clock,
        timer=timer,
        bridge=bridge,
        capture_allowed=lambda: "",
    )
    problems: list[str] = []
    share.problem.connect(problems.append)

    def frames() -> list[VideoFrame]:
        return [args[0] for name, args in agent.calls if name == "send_video"]  # type: ignore[misc]

    async def scenario() -> None:
        assert share.start(SCREEN)
        agent.begin_talk()  # the press: one screenshot
        await tasks.join()
        clock.now += 5.0  # talking on: no more (the portal's screenshots are press-only)
        for made in timers:
            if made.due_at is not None and made.due_at <= clock.now:
                made.fire()
        await tasks.join()
        share.stop()
        await grabber.aclose()

    with running_portal(screenshot=_png(quadrants(640, 400)), screenshot_dir=tmp_path) as portal:
        qloop.run(scenario())
    share.close()
    assert problems == [PRESS_ONLY]
    (frame,) = frames()
    assert (frame.width, frame.height) == (640, 400)
    assert shows_quadrants(QImage.fromData(frame.jpeg))
    assert len(portal.screenshots) == 1
    assert list(tmp_path.iterdir()) == []
