"""The mouse wheel scrolls a settings page; it changes a list or a number only once focused.

The tour (issue 24, point 3) scrolled Voice & language with the wheel and the voice went
Puck -> Charon -> Kore, each one saved. The wheel events here are the window system's own
(``QTest.wheelEvent`` goes through the platform's input queue, so Qt hands an ignored one
on to the parents, as it does for a real mouse).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QWidget,
)
from pytestqt.qtbot import QtBot

from sammy_desktop.audio.devices import AudioDevice
from sammy_desktop.config import AppPaths
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.context import ToolServices
from sammy_desktop.tools.desktop import TimerService, desktop_tools
from sammy_desktop.tools.manager import ToolManager
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.desktop_ports import QtApplicationLauncher, QtClipboard, QtDesktopNotifier
from sammy_desktop.ui.settings import SettingsSection, SettingsWindow
from sammy_desktop.ui.settings.page import SettingsPage
from sammy_desktop.ui.settings_state import SettingsState

from .conftest import MakeSettingsWindow

SECTIONS = [
    SettingsSection.ACCOUNT,
    SettingsSection.VOICE,
    SettingsSection.TALKING,
    SettingsSection.DEVICES,
    SettingsSection.TOOLS,
    SettingsSection.PRIVACY,
    SettingsSection.APPEARANCE,
    SettingsSection.ABOUT,
]

WHEEL_STEP = 120
"""One notch of a mouse wheel, in eighths of a degree."""


def _devices() -> list[AudioDevice]:
    return [
        AudioDevice(0, "Built-in Microphone", "ALSA", 48000.0, 2, 0, True, False),
        AudioDevice(1, "Built-in Speakers", "ALSA", 48000.0, 0, 2, False, True),
        AudioDevice(2, "USB Headset", "ALSA", 16000.0, 1, 2, False, False),
    ]


def _value(editor: QWidget) -> Any:
    if isinstance(editor, QComboBox):
        return editor.currentIndex(), editor.currentText()
    if isinstance(editor, QAbstractSpinBox):
        return editor.text()
    assert isinstance(editor, QAbstractSlider)
    return editor.value()


def _editors(page: SettingsPage) -> list[QWidget]:
    content = page.widget()
    assert content is not None
    return [
        widget
        for widget in content.findChildren(QWidget)
        if isinstance(widget, QComboBox | QAbstractSpinBox | QAbstractSlider)
        and widget.isVisibleTo(page)
    ]


def _turn_wheel(window: SettingsWindow, over: QWidget, notches: int) -> None:
    """Turn the wheel ``notches`` (negative: towards the person, scrolling down) over ``over``."""
    handle = window.windowHandle()
    assert handle is not None
    at = over.mapTo(window, over.rect().center())
    QTest.wheelEvent(handle, at, QPoint(0, notches * WHEEL_STEP))
    QApplication.processEvents()


@pytest.fixture
def shown(
    qtbot: QtBot,
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    bus: EventBus,
    settings_state: SettingsState,
    tasks: UiTasks,
    tmp_path: Path,
) -> SettingsWindow:
    """Every page as the app builds it (the tools, the devices), in a short window."""
    services = ToolServices(
        paths=AppPaths.profile(tmp_path / "profile"),
        settings=lambda: settings_state.settings,
        transcript=lambda: (),
    )
    pack = desktop_tools(
        timers=TimerService(bus, QtDesktopNotifier(lambda: settings_state.settings)),
        clipboard=QtClipboard(),
        launcher=QtApplicationLauncher(),
    )
    manager = ToolManager(bus, services, tools=pack, load_entry_points=False)

    async def build() -> SettingsWindow:
        window = make_settings_window(
            tools=manager, list_devices=_devices, on_test_tone=lambda: None
        )
        window.devices_page.refresh_devices()
        await tasks.join()
        return window

    window = qloop.run(build())
    assert window.devices_page.device_names_loaded
    # Short enough that every page scrolls.
    window.resize(760, 300)
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.mark.parametrize("section", SECTIONS)
def test_the_wheel_over_a_list_or_number_scrolls_the_page_and_changes_nothing(
    shown: SettingsWindow, settings_state: SettingsState, section: str
) -> None:
    shown.show_section(section)
    page = next(p for p in shown.all_pages if p.title == section)
    QApplication.processEvents()
    bar = page.verticalScrollBar()
    saved = settings_state.settings.model_dump()
    for editor in _editors(page):
        page.ensureWidgetVisible(editor)
        QApplication.processEvents()
        before, position = _value(editor), bar.value()
        # Down unless the page is at its end; then up.
        notches = 1 if bar.maximum() and position == bar.maximum() else -1
        _turn_wheel(shown, editor, notches)
        assert _value(editor) == before, f"the wheel changed {editor.accessibleName()!r}"
        assert not editor.hasFocus(), "the wheel gave the editor its focus"
        if bar.maximum():
            assert bar.value() != position, f"the page did not scroll over {editor!r}"
    assert settings_state.settings.model_dump() == saved


def test_every_page_has_its_lists_guarded_and_the_test_reaches_them(
    shown: SettingsWindow,
) -> None:
    """The pages with lists and number boxes have them found, and scroll in the test's size."""
    counts = {}
    for page in shown.all_pages:
        shown.show_section(page.title)
        QApplication.processEvents()
        counts[page.title] = len(_editors(page))
    assert counts[SettingsSection.VOICE] >= 2  # the model and the voice
    assert counts[SettingsSection.TALKING] >= 2  # talk mode, microphone, pre-roll...
    assert counts[SettingsSection.DEVICES] >= 2  # the microphone and the speaker
    for page in (shown.voice_page, shown.talking_page, shown.devices_page):
        shown.show_section(page.title)
        QApplication.processEvents()
        assert page.verticalScrollBar().maximum() > 0, f"{page.title} does not scroll"


def test_a_focused_list_takes_the_wheel(
    shown: SettingsWindow, settings_state: SettingsState, qtbot: QtBot, test_output_dir: Path
) -> None:
    shown.show_section(SettingsSection.VOICE)
    combo = shown.voice_page.voice_combo
    shown.voice_page.ensureWidgetVisible(combo)
    QApplication.processEvents()
    assert settings_state.settings.voice == "Puck"
    bar = shown.voice_page.verticalScrollBar()
    position = bar.value()
    _turn_wheel(shown, combo, -1)
    assert settings_state.settings.voice == "Puck"
    assert bar.value() > position
    shown.grab().save(str(test_output_dir / "settings-wheel-scrolled-voice-kept.png"))

    combo.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(combo.hasFocus)
    _turn_wheel(shown, combo, -1)
    qtbot.waitUntil(lambda: combo.currentText() != "Puck")
    assert combo.currentText() == "Charon"
    assert settings_state.settings.voice == "Charon"
