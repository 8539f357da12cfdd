"""The running app builds its ScreenShare and hands it to the window, the tray and the
privacy view (issue 20): sharing is off at start, the Share button and the tray's entry are
there, and what is shared shows in Settings > Privacy."""

from __future__ import annotations

import asyncio
from pathlib import Path

import qasync
from PySide6.QtWidgets import QApplication

from sammy_desktop.app import AppContext, QuitSignal, run_app
from sammy_desktop.config import AppPaths
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.settings.window import SettingsWindow


def test_the_running_app_offers_sharing_and_starts_without_it(
    qapp: QApplication, tmp_path: Path
) -> None:
    context = AppContext.create(AppPaths.profile(tmp_path / "profile"))
    earlier = {id(w) for w in qapp.topLevelWidgets() if isinstance(w, SettingsWindow)}
    seen: dict[str, object] = {}

    async def scenario() -> int:
        quit_signal = QuitSignal()

        def on_shown(window: MainWindow) -> None:
            sharing = window.screen_sharing
            assert sharing is not None and window.share_button is not None
            seen["sharing at start"] = sharing.sharing
            seen["button checked"] = window.share_button.isChecked()
            seen["banner hidden"] = window.sharing_banner.isHidden()
            [settings] = [
                w
                for w in qapp.topLevelWidgets()
                if isinstance(w, SettingsWindow) and id(w) not in earlier
            ]
            page = settings.privacy_page
            seen["privacy before"] = page.shared_now
            sharing.shared_context_changed.emit("Your screen (Screen 1, 1920x1080)")
            seen["privacy while"] = page.shared_now
            sharing.shared_context_changed.emit("")
            seen["privacy after"] = page.shared_now
            quit_signal.request()

        return await run_app(qapp, context, quit_signal, on_window_shown=on_shown)

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0
    assert seen == {
        "sharing at start": False,
        "button checked": False,
        "banner hidden": True,
        "privacy before": [],
        "privacy while": ["Your screen (Screen 1, 1920x1080)"],
        "privacy after": [],
    }
