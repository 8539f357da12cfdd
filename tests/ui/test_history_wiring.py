"""The running app builds the History window on its history folder and wires it: Ctrl+H
(the header's button) opens it, and a conversation it continues is said in the main window."""

from __future__ import annotations

import asyncio
from pathlib import Path

import qasync
from PySide6.QtWidgets import QApplication, QLabel

from sammy_desktop.app import AppContext, QuitSignal, run_app
from sammy_desktop.config import AppPaths
from sammy_desktop.ui.controls import ConversationControls
from sammy_desktop.ui.history import HistoryWindow
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.voice_controls import VoiceControls


def test_the_history_window_of_the_running_app_is_wired(qapp: QApplication, tmp_path: Path) -> None:
    paths = AppPaths.profile(tmp_path / "profile")
    context = AppContext.create(paths)
    earlier = {id(w) for w in qapp.topLevelWidgets() if isinstance(w, HistoryWindow)}
    seen: list[tuple[HistoryWindow, bool, list[str]]] = []

    async def scenario() -> int:
        quit_signal = QuitSignal()

        def on_shown(window: MainWindow) -> None:
            [history] = [
                w
                for w in qapp.topLevelWidgets()
                if isinstance(w, HistoryWindow) and id(w) not in earlier
            ]
            window.history_button.click()
            shown = history.isVisible()
            history.continued.emit("Mon 30 Nov 2026, 09:15")
            notes = [n.text() for n in window.transcript.findChildren(QLabel, "systemLine")]
            seen.append((history, shown, notes))
            quit_signal.request()

        return await run_app(qapp, context, quit_signal, on_window_shown=on_shown)

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0
    [(history, shown, notes)] = seen
    assert shown
    assert history.archive.history_dir == paths.history_dir
    assert "Continuing the conversation of Mon 30 Nov 2026, 09:15" in notes


def as_conversation_controls(controls: VoiceControls) -> ConversationControls:
    return controls  # mypy fails here if VoiceControls drifts from what History calls


def test_the_voice_controls_can_continue_a_conversation() -> None:
    assert hasattr(VoiceControls, "continue_conversation")
