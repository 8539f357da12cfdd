"""The window follows the microphone (issue 17): the cue, "Opening the microphone…", the
mic-on mark, the tray's tooltip, a microphone that would not open, the Bluetooth hint,
"Resting", and the setting "Microphone between turns". Screenshots go to the test output.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox, QPushButton
from pytestqt.qtbot import QtBot

from sammy_desktop.audio.events import (
    BluetoothMicrophone,
    MicrophoneInUse,
    MicrophoneListening,
    MicrophoneOpening,
    MicrophoneUnavailable,
    StreamError,
    StreamRecovered,
)
from sammy_desktop.config import MicBetweenTurns
from sammy_desktop.core.events import AgentState
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.mic_notices import BLUETOOTH_BANNER, MIC_FAILED_BANNER
from sammy_desktop.ui.settings.sections import SettingsSection
from sammy_desktop.ui.settings.talking_page import KEPT_READY_NOTE, MIC_CHOICES
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.talk_button import TalkLook
from sammy_desktop.ui.tray import TrayIcon

from .conftest import FakeAgent, MakeSettingsWindow, MakeWindow, Picture, talking, wait_until


class MicAgent(FakeAgent):
    """The agent as VoiceControls drives it with the microphone closed between turns.

    A press opens the microphone: it says so on the bus, and the turn starts when the test
    says the microphone hears (:meth:`hear`), as the audio engine's first block does.
    """

    def begin_talk(self, pre_roll: bytes = b"") -> bool:
        self._record("begin_talk")
        if not self.state.is_running:
            return False
        self.bus.emit(MicrophoneOpening())
        return True

    def hear(self) -> None:
        self.bus.emit(MicrophoneInUse(True))
        if self.state.is_connected:
            self.move_to(AgentState.USER_SPEAKING, "talk pressed")
        self.bus.emit(MicrophoneListening())

    def end_talk(self) -> None:
        super().end_talk()
        self.bus.emit(MicrophoneInUse(False))


@pytest.fixture
def mic_agent(bus: EventBus) -> MicAgent:
    return MicAgent(bus)


def _look(window: MainWindow) -> TalkLook:
    return window.talk_button.look  # calls, so mypy does not narrow between steps


def _mic_on(window: MainWindow) -> bool:
    return window.mic_mark.in_use


def _tooltip(tray: TrayIcon) -> str:
    return tray.tooltip


def _window(make_window: MakeWindow, agent: MicAgent, sounds: list[str]) -> MainWindow:
    return make_window(controls=agent, play_sound=sounds.append)


def test_the_cue_follows_the_microphone_not_the_key(
    qtbot: QtBot, make_window: MakeWindow, mic_agent: MicAgent
) -> None:
    sounds: list[str] = []
    window = _window(make_window, mic_agent, sounds)
    mic_agent.move_to(AgentState.READY)
    window.talk_input.on_pressed()
    # Pressed, the microphone still opening: no listening look, no earcon, no mark yet.
    assert talking(window)
    assert window.talk_input.opening
    assert _look(window) is TalkLook.IDLE
    assert sounds == []
    assert window.talk_hint.text() == "Hold Space to talk"
    assert window.state_label.text() == "Ready"
    assert not _mic_on(window)
    # After 150 ms the hint says why nothing happens yet.
    qtbot.waitUntil(lambda: window.talk_hint.text() == "Opening the microphone…", timeout=2000)
    mic_agent.hear()
    assert _look(window) is TalkLook.LISTENING
    assert sounds == ["listen_start"]
    assert window.talk_hint.text() == "Listening…"
    assert window.state_label.text() == "Listening"
    assert _mic_on(window)
    window.talk_input.on_released()
    assert sounds == ["listen_start", "listen_stop"]
    assert not _mic_on(window)


def test_a_quick_microphone_never_says_it_is_opening(
    qtbot: QtBot, make_window: MakeWindow, mic_agent: MicAgent
) -> None:
    window = _window(make_window, mic_agent, [])
    mic_agent.move_to(AgentState.READY)
    hints: list[str] = []
    window.talk_hint.setText("")
    window.talk_input.on_pressed()
    hints.append(window.talk_hint.text())
    mic_agent.hear()  # within the 150 ms
    hints.append(window.talk_hint.text())
    qtbot.wait(200)
    hints.append(window.talk_hint.text())
    assert "Opening the microphone…" not in hints
    assert hints[-1] == "Listening…"


def test_a_microphone_that_cannot_be_opened_says_why_and_starts_no_turn(
    make_window: MakeWindow, mic_agent: MicAgent, bus: EventBus
) -> None:
    sounds: list[str] = []
    window = _window(make_window, mic_agent, sounds)
    mic_agent.move_to(AgentState.READY)
    window.talk_input.on_pressed()
    bus.emit(MicrophoneUnavailable("Error opening RawInputStream: Device unavailable"))
    assert not talking(window)
    assert not window.talk_input.opening
    assert sounds == []
    # No invitation to talk into a microphone that does not work, and no Listening.
    assert window.talk_hint.text() == "Microphone not working · you can type instead"
    assert _look(window) is TalkLook.UNAVAILABLE
    assert window.talk_button.isEnabled(), "a press tries the microphone again"
    assert window.state_label.text() == "Ready"
    banner = window.banners.banner(MIC_FAILED_BANNER)
    assert banner is not None
    assert "microphone could not be opened: Error opening RawInputStream" in banner.text
    # Letting go afterwards is harmless, and the next press that is heard clears it.
    window.talk_input.on_released()
    window.talk_input.on_pressed()
    mic_agent.hear()
    assert window.banners.banner(MIC_FAILED_BANNER) is None
    assert window.talk_hint.text() == "Listening…"
    assert _look(window) is TalkLook.LISTENING


@pytest.mark.parametrize("press_first", [True, False], ids=["press-first", "stream-first"])
def test_no_microphone_is_one_banner_with_its_action(
    qtbot: QtBot,
    make_window: MakeWindow,
    mic_agent: MicAgent,
    bus: EventBus,
    press_first: bool,
    test_output_dir: Path,
) -> None:
    """The tour: with no microphone two banners said nearly the same thing."""
    window = _window(make_window, mic_agent, [])
    window.show()
    qtbot.waitExposed(window)
    mic_agent.move_to(AgentState.READY)
    reason = "no input device found"
    press, stream = MicrophoneUnavailable(reason), StreamError("input", reason)
    for event in (press, stream) if press_first else (stream, press):
        bus.emit(event)
    assert [b.key for b in window.banners.banners()] == [MIC_FAILED_BANNER]
    banner = window.banners.banner(MIC_FAILED_BANNER)
    assert banner is not None
    # The failed press's words: what happened, that nothing was sent, what to do.
    assert banner.text == (
        "The microphone could not be opened: no input device found. Nothing was sent; "
        "check the microphone, or choose another one."
    )
    requested: list[str] = []
    window.settings_requested.connect(requested.append)
    choose = [b for b in banner.findChildren(QPushButton) if b.text() == "Choose a device"]
    assert len(choose) == 1
    picture = Picture(window)
    qtbot.waitUntil(picture.settled)
    order = "press-first" if press_first else "stream-first"
    picture.pixmap.save(str(test_output_dir / f"mic-no-microphone-{order}.png"))
    choose[0].click()
    assert requested == [SettingsSection.DEVICES]
    # The stream closing ends no failed press; the microphone working again ends it.
    bus.emit(MicrophoneInUse(in_use=False))
    assert window.banners.banner(MIC_FAILED_BANNER) is banner
    bus.emit(StreamRecovered("input", "Built-in Microphone"))
    assert window.banners.banner(MIC_FAILED_BANNER) is None
    # A speaker's failure is its own condition, with its own banner.
    bus.emit(StreamError("output", "the headphones were unplugged"))
    bus.emit(StreamError("input", "the device was unplugged"))
    keys = {b.key for b in window.banners.banners()}
    assert keys == {MIC_FAILED_BANNER, "device-output"}


def test_the_mic_mark_and_the_tray_say_whenever_a_stream_is_open(
    make_window: MakeWindow, mic_agent: MicAgent, bus: EventBus, bridge: EventBridge
) -> None:
    window = _window(make_window, mic_agent, [])
    tray = TrayIcon(window, bridge, on_quit=lambda: None)
    mic_agent.move_to(AgentState.READY)
    assert not _mic_on(window)
    assert _tooltip(tray) == "Sammy: Ready"
    bus.emit(MicrophoneInUse(True))  # hands-free, or always ready
    assert _mic_on(window)
    assert window.mic_mark.text() == "● mic on"
    assert _tooltip(tray) == "Sammy: Ready · mic on"
    bus.emit(MicrophoneInUse(False))
    assert not _mic_on(window)
    assert _tooltip(tray) == "Sammy: Ready"
    mic_agent.move_to(AgentState.RESTING)
    assert window.state_label.text() == "Resting"
    assert _tooltip(tray) == "Sammy: Resting"


def test_the_bluetooth_hint_shows_once_and_dont_show_again_sticks(
    make_window: MakeWindow, mic_agent: MicAgent, bus: EventBus, settings_state: SettingsState
) -> None:
    window = _window(make_window, mic_agent, [])
    bus.emit(BluetoothMicrophone("AirPods Pro"))
    banner = window.banners.banner(BLUETOOTH_BANNER)
    assert banner is not None
    assert "AirPods Pro" in banner.text and "built-in" in banner.text
    window.banners.remove(BLUETOOTH_BANNER)
    bus.emit(BluetoothMicrophone("AirPods Pro"))
    assert window.banners.banner(BLUETOOTH_BANNER) is None, "once per run"
    # "Don't show again" is kept in the settings.
    window.mic_notices._bluetooth_shown = False  # a new run, in effect
    bus.emit(BluetoothMicrophone("AirPods Pro"))
    window.mic_notices._never_again()
    assert window.banners.banner(BLUETOOTH_BANNER) is None
    assert settings_state.settings.bluetooth_mic_hint is False
    window.mic_notices._bluetooth_shown = False
    bus.emit(BluetoothMicrophone("AirPods Pro"))
    assert window.banners.banner(BLUETOOTH_BANNER) is None


def test_talking_settings_offer_the_microphone_between_turns(
    make_settings_window: MakeSettingsWindow, settings_state: SettingsState
) -> None:
    window = make_settings_window()
    page = window.talking_page
    combo = page.cards["mic_between_turns"].editor
    assert isinstance(combo, QComboBox)
    assert [combo.itemText(i) for i in range(combo.count())] == list(MIC_CHOICES.values())
    assert combo.currentText() == "Close at once (default)"
    assert page.mic_note.isHidden()
    assert not page.cards["pre_roll_ms"].editor.isEnabled(), "no pre-roll when it closes"
    combo.setCurrentIndex(2)
    assert settings_state.settings.mic_between_turns is MicBetweenTurns.ALWAYS_READY
    assert not page.mic_note.isHidden()
    assert page.mic_note.text() == KEPT_READY_NOTE
    assert "microphone indicator stays on" in KEPT_READY_NOTE
    assert "Bluetooth" in KEPT_READY_NOTE
    assert page.cards["pre_roll_ms"].editor.isEnabled()
    assert "idle_rest_minutes" in page.cards


@pytest.mark.xvfb
def test_mic_screenshots(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_window: MakeWindow,
    make_settings_window: MakeSettingsWindow,
    mic_agent: MicAgent,
    bus: EventBus,
    test_output_dir: Path,
) -> None:
    folder = test_output_dir / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    window = _window(make_window, mic_agent, [])
    window.show()
    qtbot.waitExposed(window)
    mic_agent.move_to(AgentState.READY)
    window.talk_input.on_pressed()
    qtbot.waitUntil(lambda: window.talk_hint.text() == "Opening the microphone…", timeout=2000)
    assert window.grab().save(str(folder / "mic-opening.png"))
    mic_agent.hear()
    window.talk_input.on_released()
    bus.emit(MicrophoneInUse(True))
    mic_agent.move_to(AgentState.READY)
    bus.emit(BluetoothMicrophone("WH-1000XM4"))
    qtbot.wait(250)  # the banner slides in
    assert window.grab().save(str(folder / "mic-on-bluetooth.png"))
    bus.emit(MicrophoneInUse(False))
    mic_agent.move_to(AgentState.RESTING, "resting after 15 min of quiet")
    window.banners.remove(BLUETOOTH_BANNER)
    qtbot.wait(250)
    assert window.grab().save(str(folder / "resting.png"))

    settings = make_settings_window()
    settings.show()
    qtbot.waitExposed(settings)

    async def shot() -> None:
        settings.open_section(SettingsSection.TALKING)
        combo = settings.talking_page.cards["mic_between_turns"].editor
        assert isinstance(combo, QComboBox)
        combo.setCurrentIndex(1)
        settings.talking_page.ensureWidgetVisible(settings.talking_page.cards["mic_between_turns"])
        picture = Picture(settings)
        await wait_until(picture.settled)
        assert picture.pixmap.save(str(folder / "settings-talking-microphone.png"))

    qloop.run(shot())
