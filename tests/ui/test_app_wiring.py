"""The running app hands its settings window what the pages need: the confirmation port
(the session's "always" answers), the model check and the code execution rule."""

from __future__ import annotations

import asyncio
from pathlib import Path

import qasync
from PySide6.QtWidgets import QApplication

from sammy_desktop.app import AppContext, QuitSignal, run_app
from sammy_desktop.config import AppPaths
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.settings.window import SettingsWindow


def test_the_settings_window_of_the_running_app_is_wired(
    qapp: QApplication, tmp_path: Path
) -> None:
    context = AppContext.create(AppPaths.profile(tmp_path / "profile"))
    seen: list[SettingsWindow] = []
    # Earlier tests' windows may still be alive until Qt deletes them: only this app's count.
    earlier = {id(w) for w in qapp.topLevelWidgets() if isinstance(w, SettingsWindow)}

    async def scenario() -> int:
        quit_signal = QuitSignal()

        def on_shown(_window: MainWindow) -> None:
            seen.extend(
                w
                for w in qapp.topLevelWidgets()
                if isinstance(w, SettingsWindow) and id(w) not in earlier
            )
            quit_signal.request()

        return await run_app(qapp, context, quit_signal, on_window_shown=on_shown)

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0
    (settings,) = seen
    tools = settings.tools_page
    assert tools.session_grants is not None  # the "Allowed this session" list
    # No Live model offers code execution: with the default model its switch is off limits.
    assert not tools.code_execution_note.isHidden()
    # The models check is offered (the backend is its client factory).
    row = settings.voice_page.check_models_button.parentWidget()
    assert row is not None and not row.isHidden()
