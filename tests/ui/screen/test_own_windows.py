"""Sammy's own windows are blanked out of a shared screen's picture.

The model has no use for Sammy's transcript, and Sammy's window changes whenever it
listens (the level ring) or speaks: left in, every grab of the screen would be a change,
sent, at a frame a second.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.ui.screen.grab import BLANK, QtGrabber, blank_out, this_apps_windows
from sammy_desktop.ui.screen.sources import ShareSource

from .support import QUADRANTS, close_to, quadrants


def test_the_parts_own_windows_cover_are_blanked_and_the_rest_kept() -> None:
    picture = quadrants(400, 300)
    screen = QRect(1000, 0, 400, 300)  # a second screen, right of the first
    windows = [QRect(1000, 0, 100, 80), QRect(1350, 250, 200, 200), QRect(0, 0, 900, 900)]
    blanked = blank_out(picture, screen, windows)
    assert blanked.pixelColor(50, 40) == BLANK  # inside the first window
    assert blanked.pixelColor(380, 280) == BLANK  # the part of the second on this screen
    assert close_to(blanked.pixelColor(150, 100), QUADRANTS[0])  # uncovered: the picture
    assert close_to(blanked.pixelColor(300, 200), QUADRANTS[3])
    assert picture.pixelColor(50, 40) != BLANK, "the grab itself is left alone"
    # A window on another screen only changes nothing, and costs no copy.
    assert blank_out(picture, screen, [QRect(0, 0, 900, 900)]) is picture


def test_a_high_dpi_screens_picture_is_blanked_in_device_pixels() -> None:
    picture = quadrants(800, 600)  # a 400 x 300 screen at a ratio of 2
    blanked = blank_out(picture, QRect(0, 0, 400, 300), [QRect(0, 0, 100, 50)], 2.0)
    assert blanked.pixelColor(199, 99) == BLANK
    assert blanked.pixelColor(201, 101) != BLANK


def test_a_screen_grab_leaves_out_sammys_own_window_whatever_it_shows(
    qtbot: QtBot, qapp: QApplication
) -> None:
    window = QWidget()
    qtbot.addWidget(window)
    window.setGeometry(10, 10, 200, 150)
    window.setStyleSheet("background: white")
    window.show()
    qtbot.waitExposed(window)
    handle = window.windowHandle()
    assert handle is not None and handle.frameGeometry() in this_apps_windows()
    screen = QGuiApplication.primaryScreen()
    geometry = screen.geometry()
    area = (geometry.x(), geometry.y(), geometry.width(), geometry.height())
    source = ShareSource("screen", screen.name(), "Screen", area)
    grabber = QtGrabber(this_apps_windows)
    inside = [(12, 12), (110, 85), (208, 158)]
    seen: list[list[QColor]] = []
    loop = asyncio.new_event_loop()
    try:
        for colour in ("white", "black"):  # Sammy's window changes...
            window.setStyleSheet(f"background: {colour}")
            window.repaint()
            image = loop.run_until_complete(grabber.grab(source))
            seen.append([image.pixelColor(x, y) for x, y in inside])
    finally:
        loop.close()
        grabber.close()
    # ...and the picture shows neither: the same blank each time, so no change to send.
    assert seen == [[BLANK] * 3, [BLANK] * 3]
    # Without it (the grabber of a process whose windows are not Sammy's), they show.
    plain = QtGrabber()
    loop = asyncio.new_event_loop()
    try:
        image = loop.run_until_complete(plain.grab(source))
    finally:
        loop.close()
        plain.close()
    assert image.pixelColor(110, 85) != BLANK
