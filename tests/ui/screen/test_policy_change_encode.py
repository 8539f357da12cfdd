"""The send policy, the change thumbnail and the scaling and encoding, without a screen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication

from sammy_desktop.config import ScreenImageSize, ScreenSendPolicy
from sammy_desktop.ui.screen.change import changed, thumbnail
from sammy_desktop.ui.screen.encode import encode_frame, scaled_to
from sammy_desktop.ui.screen.policy import FramePolicy

from .support import quadrants, shows_quadrants


def test_a_press_wants_a_frame_at_once_then_none_while_idle() -> None:
    policy = FramePolicy(ScreenSendPolicy.WHILE_TALKING)
    assert policy.next_due(10.0) is None
    policy.press()
    assert policy.next_due(10.0) == 10.0
    policy.taken(10.0)
    assert policy.next_due(10.2) is None  # idle: nothing more


def test_while_talking_or_answering_at_most_one_a_second() -> None:
    policy = FramePolicy(ScreenSendPolicy.WHILE_TALKING)
    policy.press()
    policy.set_active(True)
    policy.taken(10.0)
    assert policy.next_due(10.3) == 11.0
    assert not policy.is_due(10.99)
    assert policy.is_due(11.0)
    policy.taken(11.0)
    policy.press()  # a press right after a frame waits for the second to pass
    assert policy.next_due(11.5) == 12.0
    policy.set_active(False)
    policy.taken(12.0)
    assert policy.next_due(12.5) is None


def test_always_sends_one_a_second_without_talking() -> None:
    policy = FramePolicy(ScreenSendPolicy.ALWAYS)
    assert policy.next_due(5.0) == 5.0
    policy.taken(5.0)
    assert policy.next_due(5.1) == 6.0


def test_without_continuous_grabs_only_presses_want_frames() -> None:
    policy = FramePolicy(ScreenSendPolicy.ALWAYS, continuous=False)
    policy.set_active(True)
    assert policy.next_due(1.0) is None
    policy.press()
    assert policy.next_due(1.0) == 1.0


def test_the_thumbnail_sees_a_change_but_not_the_same_picture(qapp: QApplication) -> None:
    picture = quadrants(1280, 1024)
    same = thumbnail(picture.copy())
    assert len(same) == 32 * 32
    assert not changed(thumbnail(picture), same)
    assert changed(None, same)

    typed = picture.copy()  # a word typed: a small dark patch
    painter = QPainter(typed)
    painter.fillRect(QRect(100, 100, 60, 20), QColor("black"))
    painter.end()
    assert changed(same, thumbnail(typed))

    faint = picture.copy()  # a pixel or two of noise is no change
    faint.setPixelColor(10, 10, QColor(0, 0, 0))
    assert not changed(same, thumbnail(faint))


@pytest.mark.parametrize("size", list(ScreenImageSize))
@pytest.mark.parametrize(("width", "height"), [(2560, 1440), (1080, 1920)])
def test_frames_are_scaled_to_the_settings_long_edge(
    qapp: QApplication, size: ScreenImageSize, width: int, height: int
) -> None:
    image = quadrants(width, height)
    scaled = scaled_to(image, size.pixels)
    assert max(scaled.width(), scaled.height()) == size.pixels
    assert abs(scaled.width() / scaled.height() - width / height) < 0.01
    encoded = encode_frame(image, size.pixels, None)
    assert encoded is not None
    assert (encoded.width, encoded.height) == (scaled.width(), scaled.height())
    decoded = QImage.fromData(encoded.jpeg)
    assert (decoded.width(), decoded.height()) == (encoded.width, encoded.height)
    assert encoded.jpeg[:2] == b"\xff\xd8"
    assert shows_quadrants(decoded)
    assert max(encoded.preview.width(), encoded.preview.height()) == 160


def test_a_small_frame_is_never_enlarged(qapp: QApplication) -> None:
    image = quadrants(640, 480)
    assert scaled_to(image, 1536).size() == image.size()


def test_an_unchanged_frame_is_not_encoded(qapp: QApplication) -> None:
    image = quadrants(800, 600)
    first = encode_frame(image, 768, None)
    assert first is not None
    assert encode_frame(image.copy(), 768, first.thumbnail) is None
