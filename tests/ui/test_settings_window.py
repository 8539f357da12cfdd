"""The settings pane: generated fields, tool switches mid-session, refused values, the key."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import keyring
import pytest
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QPlainTextEdit
from pytestqt.qtbot import QtBot

from sammy_desktop.audio.devices import AudioDevice
from sammy_desktop.config import AppPaths, Settings, Theme
from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.core.events import ToolsChanged
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.context import ToolServices
from sammy_desktop.tools.desktop import TimerService, desktop_tools
from sammy_desktop.tools.desktop.code_execution import (
    CODE_EXECUTION_UNAVAILABLE,
    code_execution_unavailable_reason,
)
from sammy_desktop.tools.manager import ToolManager
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.desktop_ports import QtApplicationLauncher, QtClipboard, QtDesktopNotifier
from sammy_desktop.ui.settings import SettingsSection, SettingsWindow
from sammy_desktop.ui.settings.applications import (
    ApplicationListError,
    format_applications,
    parse_applications,
)
from sammy_desktop.ui.settings.fields import can_edit
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.theme import ThemeController

from .conftest import FakeAgent, MakeSettingsWindow, Picture, wait_until


class ToolSwitchingAgent(FakeAgent):
    """Applies tool switches to a real ToolManager, as the core does."""

    def __init__(self, bus: EventBus, manager: ToolManager, model: str) -> None:
        super().__init__(bus)
        self.manager = manager
        self.model = model
        self.declared: list[list[str]] = []

    async def set_tool_enabled(self, name: str, on: bool) -> bool:
        await super().set_tool_enabled(name, on)
        self.manager.set_enabled(name, on)
        names = [
            declaration.name or ""
            for tool in self.manager.declarations(self.model)
            for declaration in tool.function_declarations or []
        ]
        self.declared.append(names)
        return True


def _devices() -> list[AudioDevice]:
    return [
        AudioDevice(0, "Built-in Microphone", "ALSA", 48000.0, 2, 0, True, False),
        AudioDevice(1, "Built-in Speakers", "ALSA", 48000.0, 0, 2, False, True),
        AudioDevice(2, "USB Headset", "ALSA", 16000.0, 1, 2, False, False),
    ]


def _window(make: MakeSettingsWindow, **options: Any) -> SettingsWindow:
    """The settings window with the test's devices and a silent test tone."""
    defaults: dict[str, Any] = {"list_devices": _devices, "on_test_tone": lambda: None}
    return make(**(defaults | options))


@pytest.fixture
def manager(bus: EventBus, settings_state: SettingsState, tmp_path: Path) -> ToolManager:
    """A real tool manager with the desktop pack, as the app builds it."""
    services = ToolServices(
        paths=AppPaths.profile(tmp_path / "profile"),
        settings=lambda: settings_state.settings,
        transcript=lambda: (),
    )
    notifier = QtDesktopNotifier(lambda: settings_state.settings)
    pack = desktop_tools(
        timers=TimerService(bus, notifier),
        clipboard=QtClipboard(),
        launcher=QtApplicationLauncher(),
    )
    return ToolManager(bus, services, tools=pack, load_entry_points=False)


def test_tool_switch_persists_and_changes_the_declarations_mid_session(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    bus: EventBus,
    manager: ToolManager,
    settings_state: SettingsState,
    tasks: UiTasks,
    tmp_path: Path,
) -> None:
    agent = ToolSwitchingAgent(bus, manager, settings_state.settings.model)
    names = [tool.name for tool in manager.tools]
    assert "getCurrentContext" in names

    async def scenario() -> None:
        window = _window(make_settings_window, tools=manager, controls=agent)
        window.open_section(SettingsSection.TOOLS)
        assert window.current_section == "Tools"
        switch = window.tools_page.tool_switches["getCurrentContext"]
        assert switch.isChecked()
        switch.click()
        await tasks.join()
        assert "getCurrentContext" not in agent.declared[-1]
        assert agent.tool_switches == [("getCurrentContext", False)]

    qloop.run(scenario())
    # Persisted: a fresh load of the file has the switch off.
    saved = SettingsStore(tmp_path / "settings.json").load().settings
    assert saved.enabled_tools == {"getCurrentContext": False}


def test_tools_page_groups_by_category_and_badges_risky_ones(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow, manager: ToolManager
) -> None:
    async def scenario() -> None:
        window = _window(make_settings_window, tools=manager)
        page = window.tools_page
        texts = [label.text() for label in page.findChildren(QLabel)]
        assert "Actions" in texts or "Context" in texts
        risky = [t.name for t in manager.tools if t.asks_first]
        assert {"openUrl", "deleteNote"} <= set(risky)
        assert texts.count("asks first") == len(risky)

    qloop.run(scenario())


def test_an_invalid_value_is_refused_with_the_field_named(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    settings_state: SettingsState,
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        window = _window(make_settings_window)
        card = window.cards["language"]
        editor = card.editor
        assert isinstance(editor, QLineEdit)
        editor.setText("english please")
        editor.editingFinished.emit()
        assert card.error == (
            "Language was not changed. Use a language code like en-US, or just en."
        )
        assert editor.property("invalid") is True
        assert settings_state.settings.language == "en-US"
        editor.setText("de-DE")
        editor.editingFinished.emit()
        assert card.error == ""
        assert settings_state.settings.language == "de-DE"

    qloop.run(scenario())
    saved = SettingsStore(tmp_path / "settings.json").load().settings
    assert saved.language == "de-DE"


def test_generated_pages_cover_every_visible_field(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow
) -> None:
    async def scenario() -> None:
        window = _window(make_settings_window)
        custom = {"model", "voice", "input_device", "output_device"}
        for name, info in Settings.model_fields.items():
            extra = info.json_schema_extra
            visible = isinstance(extra, dict) and extra.get("section") != "hidden"
            if visible and (can_edit(info) or name in custom):
                assert name in window.cards, name
        assert "privacy.share_time" in window.cards
        assert isinstance(window.cards["system_prompt"].editor, QPlainTextEdit)

    qloop.run(scenario())


def test_devices_page_lists_devices_after_refresh(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    settings_state: SettingsState,
    tasks: UiTasks,
) -> None:
    async def scenario() -> None:
        window = _window(make_settings_window)
        window.open_section(SettingsSection.DEVICES)
        await tasks.join()
        devices = window.devices_page
        inputs = [devices.input_combo.itemText(i) for i in range(devices.input_combo.count())]
        outputs = [devices.output_combo.itemText(i) for i in range(devices.output_combo.count())]
        assert inputs == [
            "System default (Built-in Microphone)",
            "Built-in Microphone",
            "USB Headset",
        ]
        assert outputs == ["System default (Built-in Speakers)", "Built-in Speakers", "USB Headset"]
        devices.input_combo.setCurrentIndex(2)
        devices.input_combo.activated.emit(2)
        assert settings_state.settings.input_device == "USB Headset"
        await tasks.aclose()

    qloop.run(scenario())


@pytest.mark.keyring
def test_api_key_is_saved_to_the_keyring_and_never_displayed(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow, tasks: UiTasks
) -> None:
    secrets = SecretStore(environ={})
    assert secrets.backend_available(), keyring.get_keyring()
    key = "AIzaTestKey-1234567890abcdef"
    changes: list[bool] = []

    async def scenario() -> None:
        window = _window(make_settings_window, secrets=secrets, on_key_changed=changes.append)
        window.show()
        account = window.account_page
        assert account.key_input.echoMode() is QLineEdit.EchoMode.Password
        account.key_input.setText(key)
        account.save_key_button.click()
        await tasks.join()
        assert changes == [True]
        assert secrets.get_stored_key() == key
        assert account.key_input.text() == ""
        assert "saved in the system keyring" in account.key_status.text()
        for widget in QApplication.allWidgets():
            if isinstance(widget, QLabel | QLineEdit):
                assert key not in widget.text()
        account.remove_key_button.click()  # asks first (tests/ui/test_api_key_check.py)
        question = account.remove_confirmation
        assert question is not None
        (remove,) = [b for b in question.buttons() if b.text() == "Remove key"]
        remove.click()
        await tasks.join()
        assert changes == [True, False]
        assert secrets.get_stored_key() is None
        assert "No key is saved" in account.key_status.text()

    try:
        qloop.run(scenario())
    finally:
        if secrets.has_stored_key():
            secrets.delete_api_key()


def test_settings_screenshot(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    manager: ToolManager,
    theme: ThemeController,
    tasks: UiTasks,
    test_output_dir: Path,
) -> None:
    async def scenario() -> None:
        window = _window(make_settings_window, tools=manager)
        window.show()
        qtbot.waitExposed(window)
        folder = test_output_dir / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        for section in (SettingsSection.TOOLS, SettingsSection.TALKING, SettingsSection.ACCOUNT):
            window.open_section(section)
            await tasks.join()  # what the pages read in the background: keyring, devices
            picture = Picture(window)  # once the page is laid out, its picture stays put
            await wait_until(picture.settled)
            name = section.lower().split()[0]
            assert picture.pixmap.save(str(folder / f"settings-{name}.png"))
        theme.set_theme(Theme.DARK)
        window.open_section(SettingsSection.DEVICES)
        await tasks.join()
        assert window.grab().save(str(folder / "settings-devices-dark.png"))
        theme.set_theme(Theme.LIGHT)
        card = window.cards["language"]
        assert isinstance(card.editor, QLineEdit)
        window.open_section(SettingsSection.VOICE)
        card.editor.setText("english")
        card.editor.editingFinished.emit()
        picture = Picture(window)  # the refusal is laid out under the field
        await wait_until(picture.settled)
        assert picture.pixmap.save(str(folder / "settings-invalid-value.png"))
        await tasks.aclose()

    qloop.run(scenario())


def test_applications_list_is_read_saved_and_refused_with_the_line_named(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow, tmp_path: Path
) -> None:
    async def scenario() -> None:
        window = _window(make_settings_window)
        assert not window.tools_page.apply_applications("Calculator gnome-calculator")
        card = window.cards["allowed_applications"]
        assert card.error == (
            "Applications the assistant may open was not changed. Line 1: write it as "
            "Name = command."
        )
        text = "# mine\nCalculator = gnome-calculator\nEditor = gedit --new-window 'a b'\n"
        assert window.tools_page.apply_applications(text)
        assert card.error == ""

    qloop.run(scenario())
    saved = SettingsStore(tmp_path / "settings.json").load().settings
    assert saved.allowed_applications == {
        "Calculator": ["gnome-calculator"],
        "Editor": ["gedit", "--new-window", "a b"],
    }


def test_applications_format_round_trips() -> None:
    apps = {"Editor": ["gedit", "--new-window", "a b"], "Calc": ["gnome-calculator"]}
    assert parse_applications(format_applications(apps)) == apps
    with pytest.raises(ApplicationListError, match="line 2: the command after = is empty"):
        parse_applications("A = a\nB =   ")
    with pytest.raises(ApplicationListError, match="line 1: a quotation mark is not closed"):
        parse_applications("A = 'oops")


def test_code_execution_is_off_limits_with_a_model_that_does_not_offer_it(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    manager: ToolManager,
    settings_state: SettingsState,
) -> None:
    window = _window(
        make_settings_window,
        tools=manager,
        code_execution_unavailable=code_execution_unavailable_reason,
    )
    page = window.tools_page
    card = window.cards["code_execution"]
    assert card.title == "Code execution"
    assert card.parentWidget() is window.cards["google_search"].parentWidget()  # beside it
    assert not card.editor.isEnabled()
    assert page.code_execution_note.text() == CODE_EXECUTION_UNAVAILABLE
    assert not page.code_execution_note.isHidden()
    assert card.editor.accessibleDescription() == CODE_EXECUTION_UNAVAILABLE
    # No model in service offers it: another one changes nothing.
    window.voice_page.apply("model", "gemini-2.5-flash-native-audio-latest")
    assert not card.editor.isEnabled()


def test_the_code_execution_switch_follows_the_chosen_model(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow
) -> None:
    def unavailable(model: str) -> str | None:  # a model that offers it, as one day may
        return None if model == "gemini-9-live" else CODE_EXECUTION_UNAVAILABLE

    window = _window(make_settings_window, code_execution_unavailable=unavailable)
    switch = window.cards["code_execution"].editor
    assert not switch.isEnabled()
    window.voice_page.apply("model", "gemini-9-live")
    assert switch.isEnabled()
    assert window.tools_page.code_execution_note.isHidden()
    window.voice_page.apply("model", "gemini-3.8-live")
    assert not switch.isEnabled()


def test_the_tools_page_says_when_a_switch_applies(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    manager: ToolManager,
    bus: EventBus,
    bridge: EventBridge,
) -> None:
    window = _window(make_settings_window, tools=manager, bridge=bridge)
    status = window.tools_page.tools_status
    assert status is not None and status.isHidden()
    said = []
    for event in (
        ToolsChanged(enabled=("a",), applied_live=True),
        ToolsChanged(enabled=("a",), applied_live=False, after_this_answer=True),
        ToolsChanged(enabled=("a",), applied_live=False),
    ):
        bus.emit(event)
        said.append(status.text())
    assert said == [
        "Saved; applies now.",
        "Saved; applies after this answer.",
        "Saved; applies when Sammy next connects.",
    ]
    assert not status.isHidden()


def test_code_execution_switch_screenshot(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    manager: ToolManager,
    test_output_dir: Path,
) -> None:
    async def scenario() -> None:
        window = _window(
            make_settings_window,
            tools=manager,
            code_execution_unavailable=code_execution_unavailable_reason,
        )
        window.show()
        qtbot.waitExposed(window)
        window.open_section(SettingsSection.TOOLS)
        card = window.cards["code_execution"]
        window.tools_page.ensureWidgetVisible(card, 0, 160)  # with web search above it
        picture = Picture(window)
        await wait_until(picture.settled)
        folder = test_output_dir / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        assert picture.pixmap.save(str(folder / "settings-tools-code-execution.png"))

    qloop.run(scenario())
