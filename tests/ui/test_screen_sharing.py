"""Sharing the screen, as the person sees and touches it (issue 20): the Share button, Ctrl+Shift+S,
the tray's entry, the chooser, the red banner with its thumbnail and Stop, the notices, and the
privacy view. The real ScreenShare runs on a grabber, a clock and a timer the test holds."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolButton
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import AgentState, StateChanged
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.screen.share import NOT_RUNNING, SESSION_ENDED
from sammy_desktop.ui.screen_chooser import ScreenChooser
from sammy_desktop.ui.screen_sharing import (
    PROBLEM_KEY,
    STOPPED_KEY,
    ScreenSharing,
    shared_words,
    sharing_title,
)
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.tray import TrayIcon

from .conftest import FakeAgent, MakeSettingsWindow, MakeWindow
from .history_support import next_emit, wait_for
from .screen_share_support import (
    BROWSER,
    EDITOR,
    EVERYTHING,
    SCREEN_1,
    SCREEN_2,
    ShareRig,
    make_rig,
)


@pytest.fixture
def rig(
    agent: FakeAgent, settings_state: SettingsState, tasks: UiTasks, bridge: EventBridge
) -> ShareRig:
    return make_rig(agent, settings_state, tasks, bridge=bridge)


def _window(make_window: MakeWindow, rig: ShareRig, qtbot: QtBot) -> MainWindow:
    window = make_window(screen_share=rig.share, list_sources=rig.list_sources)
    window.show()
    qtbot.waitExposed(window)
    return window


def _button(window: MainWindow) -> QToolButton:
    assert window.share_button is not None
    return window.share_button


def _sharing(window: MainWindow) -> ScreenSharing:
    assert window.screen_sharing is not None
    return window.screen_sharing


def _chooser(window: MainWindow) -> ScreenChooser:
    chooser = _sharing(window).chooser
    assert chooser is not None, "the chooser is not open"
    return chooser


def _banner_texts(window: MainWindow) -> dict[str, str]:
    return {banner.key: banner.text for banner in window.banners.banners()}


# ---------------------------------------------------------------- the button, off at start


def test_the_share_button_sits_beside_the_talk_button_and_sharing_is_off_at_start(
    qtbot: QtBot, make_window: MakeWindow, rig: ShareRig, agent: FakeAgent
) -> None:
    agent.move_to(AgentState.READY)
    window = _window(make_window, rig, qtbot)
    button = _button(window)
    assert button.isVisible()
    assert button.accessibleName() == "Share screen"
    assert "Ctrl+Shift+S" in button.toolTip()
    assert button.isCheckable() and not button.isChecked()
    assert not rig.share.sharing and window.sharing_banner.isHidden()
    # Beside the talk button, on its right, level with it; the talk button stays centred.
    talk = window.talk_button.geometry()
    assert button.geometry().left() > talk.right()
    assert abs(button.geometry().center().y() - talk.center().y()) <= 2
    panel_centre = window.bottom_panel.width() / 2
    assert abs(talk.center().x() - panel_centre) <= 2
    assert window.talk_button.nextInFocusChain() is button


def test_without_a_screen_share_there_is_no_share_button(
    qtbot: QtBot, make_window: MakeWindow, bridge: EventBridge
) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    assert window.screen_sharing is None
    assert window.share_button is None
    tray = TrayIcon(window, bridge, on_quit=lambda: None)
    assert tray.share_action not in tray.menu.actions()


# ---------------------------------------------------------------- the chooser


def test_the_button_asks_what_to_share_and_enter_shares_the_selected_one(
    qtbot: QtBot, make_window: MakeWindow, rig: ShareRig, agent: FakeAgent
) -> None:
    agent.move_to(AgentState.READY)
    window = _window(make_window, rig, qtbot)
    _button(window).click()
    chooser = _chooser(window)
    assert not _button(window).isChecked()  # asking is not sharing yet
    assert chooser.titles() == [
        "Screens",
        "Screen 1 (1920x1080)",
        "Screen 2 (2560x1440)",
        "Windows",
        "notes.md - Editor",
        "Python docs - Browser",
    ]
    qtbot.waitExposed(chooser)
    assert chooser.selected == SCREEN_1
    # The arrows step over the "Windows" heading; Enter shares what is selected.
    QTest.keyClick(chooser.list, Qt.Key.Key_Down)
    assert chooser.selected == SCREEN_2
    QTest.keyClick(chooser.list, Qt.Key.Key_Down)
    assert chooser.selected == EDITOR
    with qtbot.waitSignal(rig.share.sharing_changed, timeout=2000):
        QTest.keyClick(chooser.list, Qt.Key.Key_Return)
    assert rig.share.source == EDITOR
    assert _sharing(window).chooser is None
    assert _button(window).isChecked()
    assert "Stop sharing" in _button(window).toolTip()
    assert not window.sharing_banner.isHidden()
    assert window.sharing_banner.title == "Sharing “notes.md - Editor”"
    assert window.sharing_banner.stats == "No picture sent yet"
    assert ("set_screen_sharing", (True, EDITOR.title)) in agent.calls

    # The button again stops it; the banner goes.
    _button(window).click()
    assert not rig.share.sharing
    assert window.sharing_banner.isHidden()
    assert not _button(window).isChecked()
    assert STOPPED_KEY not in _banner_texts(window)  # the person stopped it: no notice


def test_escape_shares_nothing_and_the_chooser_remembers_the_last_choice(
    qtbot: QtBot, make_window: MakeWindow, rig: ShareRig, agent: FakeAgent
) -> None:
    agent.move_to(AgentState.READY)
    window = _window(make_window, rig, qtbot)
    _button(window).click()
    chooser = _chooser(window)
    qtbot.waitExposed(chooser)
    QTest.keyClick(chooser.list, Qt.Key.Key_End)
    assert chooser.selected == BROWSER
    with qtbot.waitSignal(chooser.finished, timeout=2000):
        QTest.keyClick(chooser.list, Qt.Key.Key_Escape)
    assert chooser.chosen is None
    assert not rig.share.sharing and _sharing(window).chooser is None
    assert not _button(window).isChecked()
    assert ("set_screen_sharing", (True, BROWSER.title)) not in agent.calls

    _button(window).click()
    chooser = _chooser(window)
    QTest.keyClick(chooser.list, Qt.Key.Key_Down)
    chooser.share_button.click()
    assert rig.share.source == SCREEN_2
    window.sharing_banner.stop_button.click()
    assert not rig.share.sharing

    # Opened again, the chooser has the last choice selected: Enter alone shares it again.
    _button(window).click()
    chooser = _chooser(window)
    assert chooser.selected == SCREEN_2
    chooser.accept()
    assert rig.share.source == SCREEN_2
    assert window.sharing_banner.title == "Sharing your screen"


def test_with_one_screen_and_no_window_it_shares_at_once(
    qtbot: QtBot, make_window: MakeWindow, rig: ShareRig, agent: FakeAgent
) -> None:
    agent.move_to(AgentState.READY)
    rig.sources[:] = [SCREEN_1]
    window = _window(make_window, rig, qtbot)
    _button(window).click()
    assert _sharing(window).chooser is None
    assert rig.share.source == SCREEN_1


def test_nothing_to_share_is_said_in_the_chooser(qtbot: QtBot) -> None:
    chooser = ScreenChooser([])
    qtbot.addWidget(chooser)
    assert chooser.titles() == []
    assert not chooser.share_button.isEnabled()
    assert not chooser.empty_label.isHidden()
    chooser.accept()
    assert chooser.chosen is None


# ---------------------------------------------------------------- Ctrl+Shift+S and the tray


def test_ctrl_shift_s_toggles_sharing_with_the_last_choice(
    qtbot: QtBot, make_window: MakeWindow, rig: ShareRig, agent: FakeAgent
) -> None:
    agent.move_to(AgentState.READY)
    window = _window(make_window, rig, qtbot)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier

    def press() -> None:
        focused = QApplication.focusWidget() or window
        QTest.keyClick(focused, Qt.Key.Key_S, shift_ctrl)

    # No choice yet: it asks.
    press()
    chooser = _chooser(window)
    QTest.keyClick(chooser.list, Qt.Key.Key_Down)
    QTest.keyClick(chooser.list, Qt.Key.Key_Return)
    assert rig.share.source == SCREEN_2
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    press()
    assert not rig.share.sharing and window.sharing_banner.isHidden()
    # From then on it shares the last choice at once.
    press()
    assert rig.share.source == SCREEN_2 and _sharing(window).chooser is None
    assert _button(window).isChecked()
    press()
    assert not rig.share.sharing


def test_the_tray_entry_shares_and_stops_and_the_tray_says_so(
    qtbot: QtBot, make_window: MakeWindow, rig: ShareRig, agent: FakeAgent, bridge: EventBridge
) -> None:
    agent.move_to(AgentState.READY)
    rig.sources[:] = [SCREEN_1, EDITOR]
    window = _window(make_window, rig, qtbot)
    tray = TrayIcon(window, bridge, on_quit=lambda: None)
    tray.on_state_changed(_ready())
    action = tray.share_action
    assert action in tray.menu.actions() and action.text() == "Share screen…"
    assert tray.menu.actions().index(action) == tray.menu.actions().index(tray.stop_action) + 1
    plain_icon = tray.icon.icon().pixmap(32).toImage()

    action.trigger()
    chooser = _chooser(window)
    assert chooser.titles() == ["Screens", SCREEN_1.title, "Windows", EDITOR.title]
    chooser.accept()
    assert rig.share.source == SCREEN_1
    assert tray.tooltip == "Sammy: Ready · sharing screen"
    assert action.text() == "Stop sharing"
    assert tray.icon.icon().pixmap(32).toImage() != plain_icon  # the red dot
    dotted = tray.icon.icon().pixmap(32).toImage()
    assert _is_reddish(dotted.pixelColor(26, 26).name())

    action.trigger()
    assert not rig.share.sharing
    assert tray.tooltip == "Sammy: Ready"
    assert action.text() == "Share screen…"
    assert tray.icon.icon().pixmap(32).toImage() == plain_icon


def _ready() -> StateChanged:
    return StateChanged(old=AgentState.CONNECTING, new=AgentState.READY)


def _is_reddish(name: str) -> bool:
    red, green, blue = (int(name[i : i + 2], 16) for i in (1, 3, 5))
    return red > 150 and red > green + 60 and red > blue + 60


# ---------------------------------------------------------------- frames, Stop, notices


def test_a_press_sends_a_picture_that_shows_in_the_banner_until_stop(
    qloop: asyncio.Runner, qtbot: QtBot, make_window: MakeWindow, rig: ShareRig, agent: FakeAgent
) -> None:
    agent.move_to(AgentState.READY)
    window = _window(make_window, rig, qtbot)
    sharing = _sharing(window)
    sharing.start(SCREEN_1)
    banner = window.sharing_banner
    assert banner.thumbnail.pixmap().isNull()
    assert rig.timer.pending is None  # while talking: nothing goes until a press

    async def scenario() -> None:
        sent = next_emit(rig.share.frame_sent)
        window.talk_button.pressed.emit()  # the talk press asks for a picture at once
        assert rig.timer.pending == 0
        rig.timer.fire()
        image, width, height = await wait_for(sent)
        assert isinstance(image, QImage) and (width, height) == (1024, 576)
        window.talk_button.released.emit()

        rig.clock.now += 30.0
        sent = next_emit(rig.share.frame_sent)
        window.talk_button.pressed.emit()
        rig.timer.fire()
        await wait_for(sent)

    qloop.run(scenario())
    assert [name for name in agent.names() if name == "send_video"] == ["send_video"] * 2
    thumbnail = banner.thumbnail.pixmap()
    assert not thumbnail.isNull()
    assert thumbnail.width() / thumbnail.devicePixelRatio() == 96
    assert banner.thumbnail.toolTip() == "The last picture sent to Gemini, 1024x576 px"
    per_minute = round(rig.share.tokens_per_minute)
    assert per_minute > 0
    assert banner.stats == f"2 pictures sent · ≈ {per_minute:,} tokens/min"

    banner.stop_button.click()
    assert not rig.share.sharing
    assert banner.isHidden() and not _button(window).isChecked()
    assert STOPPED_KEY not in _banner_texts(window)


def test_a_window_that_closes_stops_the_sharing_with_a_notice(
    qloop: asyncio.Runner, qtbot: QtBot, make_window: MakeWindow, rig: ShareRig, agent: FakeAgent
) -> None:
    agent.move_to(AgentState.READY)
    window = _window(make_window, rig, qtbot)
    _sharing(window).start(EDITOR)
    rig.grabber.fail = "the window “notes.md - Editor” was closed."

    async def scenario() -> None:
        stopped = next_emit(rig.share.stopped)
        window.talk_button.pressed.emit()
        rig.timer.fire()
        reason = await wait_for(stopped)
        assert "was closed" in reason

    qloop.run(scenario())
    assert window.sharing_banner.isHidden() and not _button(window).isChecked()
    notice = _banner_texts(window)[STOPPED_KEY]
    assert notice == "Screen sharing stopped: the window “notes.md - Editor” was closed."
    # Sharing again takes the old notice away.
    _sharing(window).start(SCREEN_1)
    assert STOPPED_KEY not in _banner_texts(window)


def test_sharing_stops_when_the_conversation_ends(
    qtbot: QtBot, make_window: MakeWindow, rig: ShareRig, agent: FakeAgent
) -> None:
    agent.move_to(AgentState.READY)
    window = _window(make_window, rig, qtbot)
    _sharing(window).start(SCREEN_1)
    agent.move_to(AgentState.DISCONNECTED, "stopped by the person")
    assert not rig.share.sharing
    assert window.sharing_banner.isHidden() and not _button(window).isChecked()
    assert _banner_texts(window)[STOPPED_KEY] == SESSION_ENDED


def test_a_problem_is_a_banner_with_its_sentence(
    qtbot: QtBot, make_window: MakeWindow, rig: ShareRig, agent: FakeAgent
) -> None:
    window = _window(make_window, rig, qtbot)  # not connected
    rig.sources[:] = [SCREEN_1]
    _button(window).click()
    assert not rig.share.sharing and not _button(window).isChecked()
    assert _banner_texts(window)[PROBLEM_KEY] == NOT_RUNNING
    assert window.sharing_banner.isHidden()


def test_a_refusal_by_the_system_is_said(
    qtbot: QtBot,
    make_window: MakeWindow,
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
    bridge: EventBridge,
) -> None:
    refusal = (
        "Sammy may not record the screen: allow it in System Settings > Privacy & Security > "
        "Screen Recording, then share again."
    )
    rig = make_rig(agent, settings_state, tasks, bridge=bridge, capture_allowed=lambda: refusal)
    agent.move_to(AgentState.READY)
    window = _window(make_window, rig, qtbot)
    _sharing(window).start(SCREEN_1)
    assert _banner_texts(window)[PROBLEM_KEY] == refusal
    assert not _button(window).isChecked()


# ---------------------------------------------------------------- privacy


def test_the_privacy_view_lists_the_screen_only_while_it_is_shared(
    qtbot: QtBot,
    make_window: MakeWindow,
    make_settings_window: MakeSettingsWindow,
    rig: ShareRig,
    agent: FakeAgent,
    tmp_path: Path,
) -> None:
    agent.move_to(AgentState.READY)
    window = _window(make_window, rig, qtbot)
    settings = make_settings_window()
    page = settings.privacy_page
    # As the app wires it (DesktopApp._build_windows).
    _sharing(window).shared_context_changed.connect(page.show_screen_shared)
    assert page.shared_now == []
    _sharing(window).start(SCREEN_2)
    assert page.shared_now == ["Your screen (Screen 2, 2560x1440)"]
    _sharing(window).start(EDITOR)
    assert page.shared_now == ["Your screen (the window “notes.md - Editor”)"]
    window.sharing_banner.stop_button.click()
    assert page.shared_now == []


def test_the_words_for_what_is_shared() -> None:
    assert sharing_title(SCREEN_1) == "Sharing your screen"
    assert sharing_title(BROWSER) == "Sharing “Python docs - Browser”"
    assert shared_words(SCREEN_1) == "Your screen (Screen 1, 1920x1080)"
    assert shared_words(EDITOR) == "Your screen (the window “notes.md - Editor”)"
    assert len(EVERYTHING) == 4


def test_with_the_window_hidden_the_tray_says_why_sharing_stopped(
    qtbot: QtBot,
    make_window: MakeWindow,
    rig: ShareRig,
    agent: FakeAgent,
    bridge: EventBridge,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent.move_to(AgentState.READY)
    window = make_window(screen_share=rig.share, list_sources=rig.list_sources)
    tray = TrayIcon(window, bridge, on_quit=lambda: None)
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(tray, "show_message", lambda title, body: messages.append((title, body)))
    _sharing(window).start(SCREEN_1)
    _sharing(window).stop()  # the person: nothing to say
    _sharing(window).start(SCREEN_1)
    agent.move_to(AgentState.ENDED, "goodbye")
    assert messages == [("Sammy", SESSION_ENDED)]
