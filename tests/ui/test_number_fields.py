"""Settings' number fields start their text where the text fields do, in both themes.

The tour (../shared/reviews/new-user-tour/zoom-spinbox-no-padding.png): "700" in "Pause
before answering (ms)" touched the field's left edge, while every text field had 10 px.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QLineEdit, QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.config import Theme
from sammy_desktop.ui.theme import ThemeController

from .conftest import MakeSettingsWindow, Picture


def _text_starts(field: QWidget) -> int:
    """How far from the field's left edge its text's first pixel is drawn."""
    image = field.grab().toImage()
    height = image.height()
    background = image.pixelColor(field.width() // 2, 3)  # inside the frame, above the text
    for x in range(3, image.width()):  # past the frame and its rounded corner
        for y in range(height // 4, 3 * height // 4):
            if abs(image.pixelColor(x, y).lightness() - background.lightness()) > 90:
                return x
    raise AssertionError("no text drawn")


@pytest.mark.parametrize("theme_name", [Theme.LIGHT, Theme.DARK], ids=["light", "dark"])
def test_a_number_field_is_padded_like_a_text_field(
    qtbot: QtBot,
    theme: ThemeController,
    make_settings_window: MakeSettingsWindow,
    theme_name: Theme,
    test_output_dir: Path,
) -> None:
    theme.set_theme(theme_name)
    settings = make_settings_window()
    settings.resize(780, 600)
    settings.show()
    qtbot.waitExposed(settings)
    settings.show_section("Talking")
    number = settings.cards["silence_duration_ms"].editor
    assert isinstance(number, QSpinBox)
    text = settings.cards["language"].editor
    assert isinstance(text, QLineEdit)
    settings.setFocus()  # no cursor in either field
    picture = Picture(settings)
    qtbot.waitUntil(picture.settled)
    picture.pixmap.save(str(test_output_dir / f"settings-number-field-{theme_name.value}.png"))
    number_starts, text_starts = _text_starts(number), _text_starts(text)
    assert abs(number_starts - text_starts) <= 2, (number_starts, text_starts)
