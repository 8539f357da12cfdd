"""A screenshot tour of the app, for anyone to look at: ``build/test-output/tour/``.

Every ``make test`` writes it afresh, with an ``index.html`` that shows each picture under a
line saying what it is. The first test drives the real app as a new user would: the first
run, the offline demo (the real simulator, the real tools), typed turns and their tool
cards, a tool that asks first and its sheet, the conversation narrow and wide, every
settings page, in the light and the dark theme. The second shows the error states, each
from the events the core sends, on the same window. The assertions only check that each
picture was drawn; the tour is there to be looked at.
"""

from __future__ import annotations

import asyncio
import html
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.app import AppContext, QuitSignal, run_app
from sammy_desktop.audio.events import MicrophoneUnavailable, StreamError
from sammy_desktop.config import AppPaths, Theme
from sammy_desktop.core.events import (
    AgentState,
    ConnectionLost,
    ErrorKind,
    ErrorRaised,
    Reconnecting,
    Speaker,
    TranscriptUpdated,
)
from sammy_desktop.core.failures import what_to_do
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.settings.window import SettingsWindow
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.welcome import WelcomePanel

from .conftest import FakeAgent, MakeWindow, Picture, wait_until

pytestmark = [pytest.mark.audio, pytest.mark.keyring]


@dataclass
class Tour:
    """The tour's folder and what it holds so far, in order."""

    folder: Path
    pictures: list[tuple[str, str]] = field(default_factory=list)

    def name(self, stem: str) -> str:
        """``NN-stem.png``, numbered in the order taken."""
        return f"{len(self.pictures) + 1:02d}-{stem}.png"

    def save(self, picture: Picture, stem: str, caption: str) -> Path:
        """Save ``picture``'s latest pixmap (let it settle first) under the next number."""
        image = picture.pixmap.toImage()
        assert image.width() >= 200 and image.height() >= 200
        colours = {image.pixel(x, y) for x in range(0, image.width(), 9) for y in range(0, 200, 9)}
        assert len(colours) > 4, f"{stem}: the picture is blank"
        path = self.folder / self.name(stem)
        assert picture.pixmap.save(str(path))
        self.pictures.append((path.name, caption))
        return path

    def write_index(self) -> None:
        """``index.html``: every picture with its caption, in order."""
        figures = "\n".join(
            f'<figure><img src="{html.escape(name)}" alt="">'
            f"<figcaption>{html.escape(name)}: {html.escape(caption)}</figcaption></figure>"
            for name, caption in self.pictures
        )
        page = (
            "<!doctype html><meta charset='utf-8'><title>Sammy: the screenshot tour</title>"
            "<style>body{font-family:sans-serif;background:#ddd}figure{display:inline-block;"
            "vertical-align:top;margin:12px;max-width:920px}img{border:1px solid #999}"
            "figcaption{max-width:420px}</style>"
            f"<h1>Sammy: the screenshot tour</h1>{figures}\n"
        )
        (self.folder / "index.html").write_text(page, encoding="utf-8")


@pytest.fixture(scope="module")
def tour() -> Iterator[Tour]:
    """The tour's folder, emptied first; the index is written once the module is done."""
    folder = Path(os.environ.get("SAMMY_TEST_OUTPUT", "build/test-output")) / "tour"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shown = Tour(folder)
    yield shown
    shown.write_index()


async def settled(widget: QWidget) -> Picture:
    """A picture of ``widget`` once it stops changing (layouts and slides done)."""
    picture = Picture(widget)
    await wait_until(picture.settled)
    return picture


async def _type(window: MainWindow, text: str) -> None:
    """Type ``text`` and press Enter, as a person does."""
    box = window.message_input
    box.setFocus(Qt.FocusReason.MouseFocusReason)
    QTest.keyClicks(box, text)
    QTest.keyClick(box, Qt.Key.Key_Return)


async def _answered(window: MainWindow, lines_before: int) -> None:
    """Wait for the demo's answer to the last turn, its tool card done and the state Ready."""

    def done() -> bool:
        new = window.transcript.lines()[lines_before:]
        answered = any(r.speaker is Speaker.ASSISTANT and r.final for r in new)
        cards = window.transcript.tool_cards()
        running = any(card.status in ("running", "waiting") for card in cards)
        return answered and not running and window.state_pill.state is AgentState.READY

    await wait_until(done, 20)


def _choose_theme(settings: SettingsWindow, theme: Theme) -> None:
    """Pick ``theme`` on Settings > Appearance, as a person does (it applies at once)."""
    combo = settings.cards["theme"].editor
    assert isinstance(combo, QComboBox)
    words = {Theme.LIGHT: "light", Theme.DARK: "dark", Theme.SYSTEM: "system"}[theme]
    index = next(i for i in range(combo.count()) if words in combo.itemText(i).lower())
    combo.setCurrentIndex(index)


def _settings_window(app: QApplication, earlier: set[int]) -> SettingsWindow:
    """The app's own settings window (earlier tests may leave theirs behind)."""
    new = [w for w in app.topLevelWidgets() if id(w) not in earlier]
    (window,) = [w for w in new if isinstance(w, SettingsWindow)]
    return window


async def _walk(app: QApplication, window: MainWindow, tour: Tour, earlier: set[int]) -> None:
    settings = _settings_window(app, earlier)
    assert isinstance(window.welcome, WelcomePanel)
    await wait_until(window.welcome.isVisible)
    for theme in (Theme.LIGHT, Theme.DARK):
        _choose_theme(settings, theme)
        tour.save(await settled(window), f"first-run-{theme.value}", "First run: no key yet.")
    _choose_theme(settings, Theme.LIGHT)

    QTest.mouseClick(window.welcome.demo_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: window.state_pill.state is AgentState.READY, 20)
    tour.save(await settled(window), "demo-connected", "The offline demo, connected.")

    turns = (
        ("what time is it", "demo-time", "A demo turn: the time, its tool card, the answer."),
        ("set a timer for two minutes", "demo-timer", "A timer set by the demo."),
        ("what do you know about my computer", "demo-context", "What the app shares."),
    )
    for text, stem, caption in turns:
        before = len(window.transcript.lines())
        await _type(window, text)
        await _answered(window, before)
        tour.save(await settled(window), stem, caption)

    # A tool that asks first: the demo calls a tool named as it is.
    sheet = window.confirmation_sheet
    await _type(window, "readClipboard")
    await wait_until(lambda: sheet.current is not None, 20)
    await wait_until(lambda: sheet.armed, 5)
    tour.save(await settled(window), "sheet", "A tool that asks first: the confirmation sheet.")
    window.resize(360, window.height())
    tour.save(await settled(window), "sheet-narrow", "The sheet at the minimum width.")
    window.resize(420, window.height())
    before = len(window.transcript.lines())
    QTest.keyClick(sheet.deny_button, Qt.Key.Key_Escape)
    await _answered(window, before)
    tour.save(await settled(window), "denied", "Denied: the card says so.")

    for theme in (Theme.LIGHT, Theme.DARK):
        _choose_theme(settings, theme)
        for width, what in ((360, "narrow"), (900, "wide")):
            window.resize(width, 680)
            window.transcript.scroll_to_end()
            caption = f"The conversation, {what} ({width} px), {theme.value}."
            tour.save(await settled(window), f"conversation-{what}-{theme.value}", caption)
    window.resize(420, 680)
    _choose_theme(settings, Theme.LIGHT)

    window.settings_requested.emit("")
    await wait_until(settings.isVisible)
    settings.resize(780, 600)
    for theme in (Theme.LIGHT, Theme.DARK):
        _choose_theme(settings, theme)
        for page in settings.all_pages:
            settings.show_section(page.title)
            if page is settings.devices_page:
                await wait_until(lambda: settings.devices_page.device_names_loaded, 10)
            stem = f"settings-{page.title.split()[0].lower()}-{theme.value}"
            tour.save(await settled(settings), stem, f"Settings > {page.title}, {theme.value}.")
    _choose_theme(settings, Theme.LIGHT)
    settings.close()


def test_tour_the_app_from_first_run_to_settings(
    qapp: QApplication, tmp_path: Path, tour: Tour
) -> None:
    context = AppContext.create(AppPaths.profile(tmp_path / "profile"))
    quit_signal = QuitSignal()
    before = {id(w) for w in qapp.topLevelWidgets()}
    failed: list[BaseException] = []

    async def scenario() -> int:
        shown: asyncio.Future[MainWindow] = asyncio.get_running_loop().create_future()

        async def walk() -> None:
            try:
                await _walk(qapp, await shown, tour, before)
            except Exception as exc:  # raised again once the app has quit
                failed.append(exc)
            finally:
                quit_signal.request()

        task = asyncio.ensure_future(walk())
        try:
            return await run_app(qapp, context, quit_signal, on_window_shown=shown.set_result)
        finally:
            await asyncio.wait([task], timeout=5)

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0
    if failed:
        raise failed[0]


def _show(qtbot: QtBot, make_window: MakeWindow, width: int) -> MainWindow:
    window = make_window()
    window.resize(width, 680)
    window.show()
    qtbot.waitExposed(window)
    return window


def _said(bus: EventBus, text: str, turn: int = 1) -> None:
    bus.emit(TranscriptUpdated(speaker=Speaker.USER, text=text, final=True, turn_id=turn))


def _bad_key(bus: EventBus, agent: FakeAgent) -> None:
    agent.move_to(AgentState.CONNECTING)
    reason = "API key not valid. Please pass a valid API key"
    bus.emit(ConnectionLost(code=1008, reason=reason))
    agent.move_to(AgentState.ERROR, reason)
    message = f"The service did not accept the API key ({reason})."
    bus.emit(
        ErrorRaised(kind=ErrorKind.AUTH, message=message, what_to_do=what_to_do(ErrorKind.AUTH))
    )


def _reconnecting(bus: EventBus, agent: FakeAgent) -> None:
    agent.move_to(AgentState.READY)
    _said(bus, "What's on my calendar today?")
    reason = "keepalive ping timeout"
    bus.emit(ConnectionLost(code=1011, reason=reason))
    agent.move_to(AgentState.RECONNECTING, reason)
    bus.emit(Reconnecting(attempt=2, max_attempts=6, delay_s=1.5, reason=reason))


def _no_microphone(bus: EventBus, agent: FakeAgent) -> None:
    agent.move_to(AgentState.READY)
    reason = "no input device found"
    bus.emit(MicrophoneUnavailable(reason=reason))
    bus.emit(StreamError(direction="input", reason=reason))


ERROR_STATES = {
    "bad-key": (_bad_key, "The service refused the API key."),
    "reconnecting": (_reconnecting, "The connection dropped; reconnecting."),
    "no-microphone": (_no_microphone, "No microphone could be opened."),
}


@pytest.mark.parametrize("theme_name", [Theme.LIGHT, Theme.DARK], ids=["light", "dark"])
def test_tour_the_error_states(
    qtbot: QtBot,
    qloop: asyncio.Runner,
    theme: ThemeController,
    bus: EventBus,
    agent: FakeAgent,
    make_window: MakeWindow,
    tour: Tour,
    theme_name: Theme,
) -> None:
    theme.set_theme(theme_name)
    for stem, (happen, caption) in ERROR_STATES.items():
        widths = (360, 900) if stem == "bad-key" else (420,)
        for width in widths:
            window = _show(qtbot, make_window, width)
            happen(bus, agent)
            picture = qloop.run(settled(window))
            tour.save(picture, f"error-{stem}-{width}px-{theme_name.value}", caption)
            window.close()
