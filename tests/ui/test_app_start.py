"""The app starts, shows its window and quits cleanly; its command line works."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

from sammy_desktop import __version__
from sammy_desktop.app import AppContext, QuitSignal, display_problem, run_app
from sammy_desktop.config import AppPaths
from sammy_desktop.ui.banners import Banner
from sammy_desktop.ui.garbage import QtThreadGarbageCollector
from sammy_desktop.ui.main_window import MainWindow

ENTRY_POINT = Path(sys.executable).with_name("sammy-desktop")


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.pop("GEMINI_API_KEY", None)
    env["HOME"] = str(tmp_path / "home")
    return env


def test_window_shows_and_quits_cleanly(qapp: QApplication, tmp_path: Path) -> None:
    context = AppContext.create(AppPaths.profile(tmp_path / "profile"))
    shown: list[MainWindow] = []
    leftover: list[asyncio.Task[object]] = []

    async def scenario() -> int:
        quit_signal = QuitSignal()

        async def long_running() -> None:
            await asyncio.Event().wait()

        leftover.append(asyncio.create_task(long_running(), name="test-leftover"))

        def on_shown(window: MainWindow) -> None:
            shown.append(window)
            assert window.isVisible()
            assert window.windowTitle() == "Sammy"
            assert window.state_label.text() == "Disconnected"
            quit_signal.request()

        return await run_app(qapp, context, quit_signal, on_window_shown=on_shown)

    children_before = {id(child) for child in qapp.children()}  # some are unhashable
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0  # bounded by the pytest timeout
    assert len(shown) == 1
    assert not shown[0].isVisible()
    # Shutdown cancelled the task that was still running.
    assert leftover[0].cancelled()
    # Nothing of the app stays a child of the application, which outlives it here: each
    # would keep the app and its windows alive, and its slots connected.
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    ours = [
        type(child).__name__
        for child in qapp.children()
        if id(child) not in children_before and type(child).__module__.startswith("sammy_desktop")
    ]
    assert ours == [], ours


def test_the_live_sdk_is_left_out_of_garbage_collection_once_loaded(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full collection that walked the SDK's objects held the GIL for ~100 ms: an answer
    # playing would underrun. The app freezes them once loaded, and gives them back at exit.
    context = AppContext.create(AppPaths.profile(tmp_path / "profile"))
    frozen: list[tuple[bool, int]] = []
    freeze = QtThreadGarbageCollector.freeze

    async def scenario() -> int:
        quit_signal = QuitSignal()
        done = asyncio.Event()

        def freezing(collector: QtThreadGarbageCollector) -> None:
            freeze(collector)
            frozen.append(("google.genai.live" in sys.modules, gc.get_freeze_count()))
            done.set()

        async def quit_once_frozen() -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), 30)
            quit_signal.request()

        monkeypatch.setattr(QtThreadGarbageCollector, "freeze", freezing)
        quitting = asyncio.ensure_future(quit_once_frozen())
        try:
            return await run_app(qapp, context, quit_signal)
        finally:
            quitting.cancel()

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0
    ((sdk_loaded, count),) = frozen
    assert sdk_loaded
    assert count > 10_000
    assert gc.get_freeze_count() == 0


@pytest.mark.logs_errors("the Live SDK could not be loaded")
def test_a_broken_live_sdk_is_shown_in_the_window_not_a_crash(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK loads after the window shows (sammy_desktop.lazy); a broken installation
    # must leave the window up with the reason, and quitting must still be clean.
    import sammy_desktop.desktop_app as desktop_app

    def broken() -> None:
        raise ImportError("cannot import name 'types' from 'google.genai' (test)")

    monkeypatch.setattr(desktop_app, "_load_live_sdk", broken)
    context = AppContext.create(AppPaths.profile(tmp_path / "profile"))
    texts: list[str] = []

    async def scenario() -> int:
        quit_signal = QuitSignal()

        def on_shown(window: MainWindow) -> None:
            show_banner = window.banners.show_banner

            def showing(key: str, kind: str, text: str, **kwargs: Any) -> Banner:
                banner = show_banner(key, kind, text, **kwargs)
                if key == "live-sdk":
                    texts.append(banner.text)
                    quit_signal.request()
                return banner

            monkeypatch.setattr(window.banners, "show_banner", showing)

        return await run_app(qapp, context, quit_signal, on_window_shown=on_shown)

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0
    (text,) = texts
    assert text == (
        "Sammy could not load its Live API library, so it cannot connect. Reinstall the app; "
        "the log file has the details."
    )
    assert "ImportError" not in text and "cannot import" not in text  # the log has them


@pytest.mark.keyring
def test_a_key_saved_while_running_is_redacted_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not key-shaped (a gateway's own key, say): only the exact match can hide it.
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    context = AppContext.create(AppPaths.profile(tmp_path / "profile"))
    odd_key = "gateway-token-7f3e9c1b5a"
    assert odd_key in context.redactor.redact(f"using {odd_key}")  # not known yet
    context.secrets.set_api_key(odd_key)
    try:
        assert context.redactor.redact(f"connecting with {odd_key} now") == (
            "connecting with [REDACTED] now"
        )
    finally:
        context.secrets.delete_api_key()


def test_corrupt_settings_notice_is_shown_in_the_window(qapp: QApplication, tmp_path: Path) -> None:
    paths = AppPaths.profile(tmp_path / "profile")
    paths.ensure()
    paths.settings_file.write_text("{broken", encoding="utf-8")
    context = AppContext.create(paths)
    window = MainWindow(context.settings, notices=context.notices, on_quit=lambda: None)
    (banner,) = window.notice_labels
    assert "could not be used" in banner.text()
    assert "settings.json.corrupt-" in banner.text()
    window.close_for_quit()


def test_closing_the_window_asks_to_quit(qapp: QApplication) -> None:
    from sammy_desktop.config import Settings

    asked: list[bool] = []
    window = MainWindow(Settings(), on_quit=lambda: asked.append(True))
    window.show()
    window.close()
    assert asked == [True]


def test_version_from_the_installed_entry_point(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(ENTRY_POINT), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_clean_env(tmp_path),
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"sammy-desktop {__version__}"


def test_python_dash_m_help_lists_the_flags(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sammy_desktop", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_clean_env(tmp_path),
        check=False,
    )
    assert result.returncode == 0
    for flag in ("--version", "--log-level", "--config-dir"):
        assert flag in result.stdout


def test_no_display_gives_one_plain_line(tmp_path: Path) -> None:
    env = _clean_env(tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        env.pop(name, None)
    result = subprocess.run(
        [str(ENTRY_POINT), "--config-dir", str(tmp_path / "p")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "no display" in lines[0]
    assert "xvfb-run" in lines[0]


def test_display_problem_rules() -> None:
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}) is None
    unreachable = display_problem({"DISPLAY": ":987"})
    assert unreachable is not None and "not reachable" in unreachable


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_quits_the_running_app_cleanly(tmp_path: Path, signum: signal.Signals) -> None:
    profile = tmp_path / "profile"
    proc = subprocess.Popen(
        [str(ENTRY_POINT), "--config-dir", str(profile), "--log-level", "INFO"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=_clean_env(tmp_path),
    )
    assert proc.stderr is not None
    seen: list[str] = []
    try:
        for line in proc.stderr:  # blocks line by line; the pytest timeout bounds it
            seen.append(line)
            if "window shown" in line:
                break
        else:
            pytest.fail("the app ended before showing its window:\n" + "".join(seen))
        proc.send_signal(signum)
        rest = proc.stderr.read()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    seen.append(rest)
    output = "".join(seen)
    expected = 0 if signum == signal.SIGINT else 128 + signum
    assert proc.returncode == expected, output
    assert f"received {signum.name}; quitting" in output
    assert "Sammy Desktop exited" in output
    assert "Traceback" not in output
    # The log file lives in the profile folder and has the same story.
    log_text = (profile / "logs" / "sammy-desktop.log").read_text(encoding="utf-8")
    assert "window shown" in log_text
