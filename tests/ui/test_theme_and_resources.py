"""The stylesheet template, the icons and the earcons under resources/."""

from __future__ import annotations

import re
import wave

import pytest
from PySide6.QtWidgets import QApplication

from sammy_desktop.config import Theme
from sammy_desktop.ui.assets import AssetMissingError, Assets
from sammy_desktop.ui.theme import DARK, LIGHT, Palette, ThemeController, render_stylesheet


@pytest.mark.parametrize("palette", [LIGHT, DARK])
def test_the_template_fills_completely_from_each_palette(palette: Palette) -> None:
    assets = Assets()
    sheet = render_stylesheet(assets.stylesheet_template(), palette, assets.root / "icons")
    assert "${" not in sheet
    for url in re.findall(r"url\(([^)]+)\)", sheet):
        assert (assets.root / "icons").joinpath(url.rsplit("/", 1)[-1]).is_file(), url


def test_theme_follows_the_setting(qapp: QApplication) -> None:
    controller = ThemeController(qapp, Assets(), Theme.LIGHT)
    seen: list[Palette] = []
    controller.palette_changed.connect(seen.append)
    controller.set_theme(Theme.DARK)
    assert controller.palette is DARK and seen == [DARK]
    assert DARK.surface in qapp.styleSheet()
    controller.set_theme(Theme.LIGHT)
    assert controller.palette is LIGHT


def test_every_icon_renders(qapp: QApplication) -> None:
    assets = Assets()
    for svg in sorted((assets.root / "icons").glob("*.svg")):
        pixmap = assets.pixmap(svg.stem, "#336699", 16)
        assert not pixmap.isNull(), svg.name
        assert not pixmap.toImage().isNull()
    assert not assets.app_icon().isNull()


def test_a_missing_resource_says_so(qapp: QApplication) -> None:
    with pytest.raises(AssetMissingError, match="nope"):
        Assets().pixmap("nope", "#000000")


@pytest.mark.parametrize("name", ["listen_start", "listen_stop"])
def test_earcons_are_short_soft_mono_wavs(name: str) -> None:
    path = Assets().sound(name)
    with wave.open(str(path), "rb") as sound:
        assert sound.getnchannels() == 1
        assert sound.getsampwidth() == 2
        duration_ms = sound.getnframes() / sound.getframerate() * 1000
        frames = sound.readframes(sound.getnframes())
    assert 50 < duration_ms < 150
    peak = max(
        abs(int.from_bytes(frames[i : i + 2], "little", signed=True))
        for i in range(0, len(frames), 2)
    )
    assert peak < 32767 * 0.2, "earcons must be soft (below about -14 dBFS)"
