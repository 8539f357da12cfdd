"""Screenshots of sharing the screen (issue 20), light and dark, for a person to look at:
the window while sharing (the red banner with the last picture sent, the pressed Share
button beside the talk button), and the chooser. Saved under the test output folder's
``screenshots/``; the assertions only check that something sensible was drawn."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from sammy_desktop.config import Theme
from sammy_desktop.core.events import AgentState, Speaker, TranscriptUpdated
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.theme import ThemeController
from tests.helpers.screenshots import save_screenshot

from .conftest import FakeAgent, MakeSettingsWindow, MakeWindow, Picture
from .history_support import next_emit, wait_for
from .screen_share_support import EDITOR, make_rig


@pytest.mark.parametrize("theme_name", [Theme.LIGHT, Theme.DARK])
def test_sharing_screenshots(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    theme: ThemeController,
    bus: EventBus,
    bridge: EventBridge,
    agent: FakeAgent,
    settings_state: SettingsState,
    tasks: UiTasks,
    make_window: MakeWindow,
    test_output_dir: Path,
    theme_name: Theme,
) -> None:
    theme.set_theme(theme_name)
    rig = make_rig(agent, settings_state, tasks, bridge=bridge)
    window = make_window(screen_share=rig.share, list_sources=rig.list_sources)
    window.show()
    qtbot.waitExposed(window)
    agent.move_to(AgentState.READY)
    assert window.screen_sharing is not None

    assert window.share_button is not None
    window.share_button.click()
    chooser = window.screen_sharing.chooser
    assert chooser is not None
    qtbot.waitExposed(chooser)
    save_screenshot(chooser, test_output_dir, f"share-chooser-{theme_name.value}.png")
    chooser.reject()

    window.screen_sharing.start(rig.sources[0])
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.USER, text="What's wrong with this chart?", final=True, turn_id=1
        )
    )

    async def one_frame() -> None:
        sent = next_emit(rig.share.frame_sent)
        window.talk_button.pressed.emit()
        rig.timer.fire()
        await wait_for(sent)
        rig.clock.now += 20
        window.talk_button.released.emit()
        await tasks.join()

    qloop.run(one_frame())
    bus.emit(
        TranscriptUpdated(
            speaker=Speaker.ASSISTANT,
            text="The yellow bar on the right is taller than the others.",
            final=True,
            turn_id=1,
        )
    )
    agent.move_to(AgentState.READY)
    picture = Picture(window)
    qtbot.waitUntil(picture.settled, timeout=3000)  # the banner and the answer laid out
    assert not window.sharing_banner.thumbnail.pixmap().isNull()
    save_screenshot(window, test_output_dir, f"screen-sharing-{theme_name.value}.png")
    save_screenshot(
        window.sharing_banner, test_output_dir, f"sharing-banner-{theme_name.value}.png"
    )

    # A window shared: its title in the banner (long ones wrap, never widen the window).
    window.screen_sharing.start(EDITOR)
    window.resize(360, window.height())
    picture = Picture(window)
    qtbot.waitUntil(picture.settled, timeout=3000)
    assert window.sharing_banner.width() <= 360
    assert window.sharing_banner.title_label.shown_text.endswith("…")
    assert window.sharing_banner.title == "Sharing “notes.md - Editor”"
    save_screenshot(
        window.sharing_banner, test_output_dir, f"sharing-window-{theme_name.value}.png"
    )


def test_privacy_page_while_sharing_screenshot(
    qtbot: QtBot, make_settings_window: MakeSettingsWindow, test_output_dir: Path
) -> None:
    settings = make_settings_window()
    settings.open_section("Privacy")
    qtbot.waitExposed(settings)
    settings.privacy_page.show_screen_shared("Your screen (Screen 1, 1920x1080)")
    picture = Picture(settings)
    qtbot.waitUntil(picture.settled, timeout=3000)
    save_screenshot(settings, test_output_dir, "privacy-while-sharing.png")
