"""The first-run welcome panel and the tray icon."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.tray import TrayIcon

from .conftest import FakeAgent, MakeWelcome, MakeWindow, talking


def test_the_demo_button_calls_its_callback(
    make_window: MakeWindow, make_welcome: MakeWelcome
) -> None:
    demo_started: list[bool] = []
    window = make_window()

    def start_demo() -> None:
        demo_started.append(True)
        window.set_demo_mode(True)
        window.show_conversation()

    welcome = make_welcome(on_key_saved=window.show_conversation, on_try_demo=start_demo)
    window.set_welcome(welcome)
    window.show()
    assert window.stack.currentWidget() is welcome
    welcome.demo_button.click()
    assert demo_started == [True]
    assert window.stack.currentWidget() is window.transcript.parentWidget()
    assert window.demo_badge.isVisibleTo(window)
    assert "demo" in window.windowTitle()


def test_an_empty_key_is_refused_without_touching_the_keyring(
    qtbot: QtBot, tasks: UiTasks, make_welcome: MakeWelcome
) -> None:
    welcome = make_welcome()
    qtbot.addWidget(welcome)
    welcome.save_button.click()
    assert "Paste a key first" in welcome.error_label.text()
    assert tasks.pending == 0


def test_tray_follows_state_and_toggles_the_window(
    bridge: EventBridge, agent: FakeAgent, make_window: MakeWindow
) -> None:
    quits: list[bool] = []
    window = make_window(on_quit=lambda: quits.append(True))
    window.show()
    tray = TrayIcon(window, bridge, on_quit=lambda: quits.append(True))
    agent.move_to(AgentState.READY)
    assert tray.icon.toolTip() == "Sammy: Ready"
    agent.move_to(AgentState.ASSISTANT_SPEAKING)
    assert tray.icon.toolTip() == "Sammy: Speaking"
    tray.toggle_window()
    assert not window.isVisible()
    tray.toggle_window()
    assert window.isVisible()
    agent.move_to(AgentState.READY)
    tray.toggle_talk()
    assert agent.names() == ["begin_talk"]
    tray.toggle_talk()
    assert agent.names() == ["begin_talk", "end_talk"]
    tray.quit_action.trigger()
    assert quits == [True]


def test_the_trays_menu_has_each_thing_a_tray_app_is_asked_for(
    bridge: EventBridge, agent: FakeAgent, make_window: MakeWindow
) -> None:
    window = make_window()
    window.show()
    tray = TrayIcon(window, bridge, on_quit=lambda: None)
    words = [action.text() for action in tray.menu.actions() if not action.isSeparator()]
    assert words == ["Talk", "Stop speaking", "Hide Sammy", "Settings…", "Quit"]
    opened: list[str] = []
    window.settings_requested.connect(opened.append)
    tray.settings_action.trigger()
    assert opened == [""], "Settings opens where they were left, as the window's button"
    # Talk from the tray is a toggle in every talk key (there is no key to hold).
    agent.move_to(AgentState.READY)
    tray.talk_action.trigger()
    assert talking(window)
    tray.menu.aboutToShow.emit()
    assert tray.talk_action.text() == "Stop talking" and tray.talk_action.isChecked()
    tray.talk_action.trigger()
    assert not talking(window)
    assert agent.names() == ["begin_talk", "end_talk"]


def test_close_to_tray_hides_instead_of_quitting(
    settings_state: SettingsState, make_window: MakeWindow
) -> None:
    quits: list[bool] = []
    settings_state.update(close_to_tray=True)
    window = make_window(on_quit=lambda: quits.append(True))
    window.show()
    window.set_tray_available(True)
    window.close()
    assert not window.isVisible()
    assert quits == []
    window.set_tray_available(False)
    window.show()
    window.close()
    assert quits == [True]


def test_the_tray_says_demo_in_demo_mode(
    bridge: EventBridge, agent: FakeAgent, make_window: MakeWindow
) -> None:
    window = make_window(controls=None)  # the window before the agent exists
    tray = TrayIcon(window, bridge, on_quit=lambda: None, demo_mode=True)
    agent.move_to(AgentState.READY)
    assert tray.icon.toolTip() == "Sammy (offline demo): Ready"


def test_the_tray_follows_the_demo_entered_later_and_left_again(
    bridge: EventBridge, agent: FakeAgent, make_window: MakeWindow
) -> None:
    window = make_window(controls=None)
    tray = TrayIcon(window, bridge, on_quit=lambda: None)
    assert tray.icon.toolTip() == "Sammy: Disconnected"
    agent.move_to(AgentState.CONNECTING)
    # The welcome panel's "Try the offline demo": the app labels the window, the tray follows.
    window.set_demo_mode(True)
    assert tray.name == "Sammy (offline demo)"
    assert tray.icon.toolTip() == "Sammy (offline demo): Connecting"
    agent.move_to(AgentState.READY)
    assert tray.icon.toolTip() == "Sammy (offline demo): Ready"
    # A key saved in settings leaves the demo.
    window.set_demo_mode(False)
    assert tray.icon.toolTip() == "Sammy: Ready"


def test_a_tray_made_for_a_window_already_in_the_demo_says_so(
    bridge: EventBridge, make_window: MakeWindow
) -> None:
    window = make_window(controls=None, demo_mode=True)
    tray = TrayIcon(window, bridge, on_quit=lambda: None)
    assert tray.icon.toolTip() == "Sammy (offline demo): Disconnected"


def test_window_geometry_is_remembered(make_window: MakeWindow, tmp_path: Path) -> None:
    geometry = tmp_path / "state" / "window-geometry"
    first = make_window(geometry_file=geometry)
    first.show()
    first.resize(500, 720)
    first.close_for_quit()
    assert geometry.is_file()
    second = make_window(geometry_file=geometry)
    assert (second.width(), second.height()) == (500, 720)


def test_the_trays_stop_speaking_is_offered_while_sammy_speaks_and_stops_it(
    bridge: EventBridge, agent: FakeAgent, make_window: MakeWindow
) -> None:
    stops: list[bool] = []
    window = make_window(stop_speaking=lambda: stops.append(True))
    tray = TrayIcon(window, bridge, on_quit=lambda: None)
    assert not tray.stop_action.isEnabled()
    agent.move_to(AgentState.READY)
    agent.move_to(AgentState.ASSISTANT_SPEAKING)
    assert tray.stop_action.isEnabled()
    tray.stop_action.trigger()
    assert stops == [True]
    agent.move_to(AgentState.READY)
    assert not tray.stop_action.isEnabled()
