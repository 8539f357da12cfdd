"""Settings > Audio devices with the real audio layer on the private PulseAudio.

The lists are the sound server's own devices by their human names; one plugged in while the
page is open appears there and goes when it is unplugged; no device at all says what to
check; the test tone moves the speaker's meter, so the person sees it played.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot

from sammy_desktop.audio import AudioEngine, list_devices
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.settings import SettingsSection, SettingsWindow
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.voice_controls import EarconPlayer

from .conftest import MakeSettingsWindow, Picture, wait_until

OTHER = "sammy_plugged_in"
OTHER_NAME = "Plugged In Headphones"


def _items(combo: QComboBox) -> list[tuple[str, str]]:
    return [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())]


def _pactl(*args: str) -> str:
    return subprocess.run(
        ["pactl", *args], check=True, capture_output=True, text=True, timeout=10
    ).stdout.strip()


@pytest.fixture
def unplug() -> Iterator[list[str]]:
    """Modules a test loads; whatever is left is unloaded at the end."""
    modules: list[str] = []
    yield modules
    for module in modules:
        subprocess.run(["pactl", "unload-module", module], check=False, timeout=10)


def _plug_in() -> str:
    return _pactl(
        "load-module",
        "module-null-sink",
        f"sink_name={OTHER}",
        f"sink_properties=\"device.description='{OTHER_NAME}'\"",
    )


@pytest.mark.audio
def test_the_lists_show_the_sound_servers_devices_by_name_and_save_the_device(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    settings_state: SettingsState,
    tasks: UiTasks,
    test_output_dir: Path,
) -> None:
    async def scenario() -> None:
        window = make_settings_window(list_devices=list_devices, on_test_tone=lambda: None)
        window.show()
        qtbot.waitExposed(window)
        window.open_section(SettingsSection.DEVICES)
        await tasks.join()
        page = window.devices_page
        assert _items(page.input_combo) == [
            ("System default (SammyVirtualMic)", ""),
            ("SammyVirtualMic", "sammy_mic"),
        ]
        assert _items(page.output_combo) == [
            ("System default (SammyVirtualSpeaker)", ""),
            ("SammyVirtualSpeaker", "sammy_speaker"),
            ("SammyVirtualMicFeed", "sammy_mic_feed"),
        ]
        assert page.devices_note.text() == "1 microphone and 2 speakers found."
        page.output_combo.showPopup()
        popup = page.output_combo.view().window()
        await wait_until(popup.isVisible)
        picture = Picture(popup)
        await wait_until(picture.settled)
        folder = test_output_dir / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        assert picture.pixmap.save(str(folder / "settings-devices-speaker-list.png"))
        page.output_combo.hidePopup()
        index = page.output_combo.findText("SammyVirtualSpeaker")
        page.output_combo.setCurrentIndex(index)
        page.output_combo.activated.emit(index)
        assert settings_state.settings.output_device == "sammy_speaker"

    qloop.run(scenario())


@pytest.mark.audio
def test_a_device_plugged_in_appears_on_the_open_page_and_goes_when_unplugged(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    bus: EventBus,
    bridge: EventBridge,
    tasks: UiTasks,
    unplug: list[str],
) -> None:
    async def scenario() -> None:
        engine = AudioEngine(bus)
        await engine.start()
        try:
            window = make_settings_window(
                list_devices=list_devices, bridge=bridge, on_test_tone=lambda: None
            )
            window.open_section(SettingsSection.DEVICES)
            await tasks.join()
            page = window.devices_page
            await wait_until(engine.device_watch.connected.is_set)
            assert OTHER_NAME not in page.output_combo.itemText(page.output_combo.count() - 1)

            unplug.append(_plug_in())
            await wait_until(lambda: page.output_combo.findText(OTHER_NAME) >= 0)
            assert page.devices_note.text() == "1 microphone and 3 speakers found."
            _pactl("set-default-sink", OTHER)
            await wait_until(
                lambda: page.output_combo.itemText(0) == f"System default ({OTHER_NAME})"
            )

            _pactl("set-default-sink", "sammy_speaker")
            await wait_until(
                lambda: page.output_combo.itemText(0) == "System default (SammyVirtualSpeaker)"
            )

            _pactl("unload-module", unplug.pop())
            await wait_until(lambda: page.output_combo.findText(OTHER_NAME) < 0)
            await tasks.join()
        finally:
            await engine.stop()
            _pactl("set-default-sink", "sammy_speaker")

    qloop.run(scenario())


def test_no_device_at_all_says_what_to_check(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow, tasks: UiTasks
) -> None:
    async def scenario() -> None:
        window = make_settings_window(list_devices=list, on_test_tone=lambda: None)
        window.open_section(SettingsSection.DEVICES)
        await tasks.join()
        note = window.devices_page.devices_note.text()
        assert note.startswith("No microphone or speaker found. Check that it is plugged in")
        assert "PulseAudio or PipeWire" in note
        assert note.endswith("press Refresh devices.")
        assert "0 devices" not in note

    qloop.run(scenario())


@pytest.mark.audio
def test_the_test_tone_moves_the_speaker_meter(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    bus: EventBus,
    bridge: EventBridge,
    tasks: UiTasks,
    test_output_dir: Path,
) -> None:
    async def scenario() -> SettingsWindow:
        engine = AudioEngine(bus)
        earcons = EarconPlayer(Assets(), engine)
        await engine.start()
        try:
            window = make_settings_window(
                list_devices=list_devices,
                bridge=bridge,
                on_test_tone=lambda: earcons.play("test_tone"),
            )
            window.show()
            qtbot.waitExposed(window)
            window.open_section(SettingsSection.DEVICES)
            await tasks.join()
            meter = window.devices_page.speaker_meter
            assert meter.level == 0.0
            window.devices_page.test_tone_button.click()
            await wait_until(lambda: meter.level > 0.2, timeout_s=5)
            picture = Picture(window)
            await wait_until(picture.settled)
            folder = test_output_dir / "screenshots"
            folder.mkdir(parents=True, exist_ok=True)
            assert picture.pixmap.save(str(folder / "settings-devices-test-tone.png"))
            await wait_until(lambda: meter.level == 0.0, timeout_s=5)
        finally:
            await engine.stop()
        return window

    qloop.run(scenario())
