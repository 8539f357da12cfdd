"""A pasted key is checked with the service before it is saved (issue 24, point 13).

Against the simulator, whose models list refuses a bad key as the service does (HTTP 400
``API_KEY_INVALID``, docs/live-service.md C6), and against an endpoint nobody listens on
(no network). The keyring is the private gnome-keyring: what was saved is read back there.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QMessageBox
from pytestqt.qtbot import QtBot

from sammy_desktop.app import AppContext, QuitSignal, run_app
from sammy_desktop.backend import Backend
from sammy_desktop.config import AppPaths
from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.core.key_check import (
    NO_LIVE_MESSAGE,
    REFUSED_MESSAGE,
    UNREACHABLE_MESSAGE,
    KeyCheck,
    check_key,
)
from sammy_desktop.desktop_app import LaunchOptions
from sammy_desktop.sim import LiveSimulator
from sammy_desktop.sim.faults import with_faults
from sammy_desktop.sim.profiles import GEMINI_38_LIVE
from sammy_desktop.sim.recorder import Received
from sammy_desktop.ui.api_key import CHECKING_TEXT
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.settings import SettingsSection, SettingsWindow
from sammy_desktop.ui.settings_state import SettingsState

from .conftest import MakeSettingsWindow, MakeWelcome, Picture, wait_until

pytestmark = pytest.mark.keyring

GOOD_KEY = "AIzaSyGoodTestKey-0123456789abcdefghij"
BAD_KEY = "AIzaSyWrongTestKey-0123456789abcdefghi"


@pytest.fixture
def secrets() -> Iterator[SecretStore]:
    """The private keyring, empty before and after the test."""
    store = SecretStore(environ={})
    assert store.backend_available()
    if store.has_stored_key():
        store.delete_api_key()
    yield store
    if store.has_stored_key():
        store.delete_api_key()


def _checker(backend: Backend) -> Callable[[str], Awaitable[KeyCheck]]:
    return lambda key: check_key(key, backend.client_for_key)


def _backend(settings_state: SettingsState, base_url: str, sim: LiveSimulator | None) -> Backend:
    return Backend(
        SecretStore(environ={}),
        lambda: settings_state.settings,
        api_base_url=base_url,
        ssl_context=sim.ssl_context if sim is not None else None,
    )


def _model_requests(sim: LiveSimulator) -> int:
    paths = [str(event.data["path"]) for event in sim.recorder.events(Received.HTTP)]
    return sum("/models" in path for path in paths)


@pytest.fixture
def closed_port() -> int:
    """A loopback port nobody listens on: connecting is refused, as with no network."""
    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_bad_key_is_refused_by_the_service_and_not_saved(
    qloop: asyncio.Runner,
    make_welcome: MakeWelcome,
    settings_state: SettingsState,
    secrets: SecretStore,
    tasks: UiTasks,
) -> None:
    saved: list[bool] = []

    async def scenario() -> None:
        async with LiveSimulator(profile="service", api_keys=(GOOD_KEY,)) as sim:
            backend = _backend(settings_state, sim.base_url, sim)
            welcome = make_welcome(
                on_key_saved=lambda: saved.append(True), check_key=_checker(backend)
            )
            welcome.show()
            welcome.key_input.setText(BAD_KEY)
            welcome.save_button.click()
            assert not welcome.save_button.isEnabled()
            assert welcome.save_button.text() == CHECKING_TEXT
            await tasks.join()
            assert _model_requests(sim) == 1
        assert welcome.error_label.text() == REFUSED_MESSAGE
        assert not welcome.error_label.isHidden()
        assert welcome.save_anyway_button.isHidden()  # the service said no: no way round it
        assert welcome.save_button.isEnabled()
        assert welcome.save_button.text() == "Save and connect"
        assert welcome.key_input.text() == BAD_KEY  # to correct it
        assert saved == []
        assert secrets.get_stored_key() is None
        welcome.deleteLater()

    qloop.run(scenario())


def test_a_key_that_works_is_saved_and_connects(
    qloop: asyncio.Runner,
    make_welcome: MakeWelcome,
    settings_state: SettingsState,
    secrets: SecretStore,
    tasks: UiTasks,
) -> None:
    saved: list[bool] = []

    async def scenario() -> None:
        async with LiveSimulator(profile="service", api_keys=(GOOD_KEY,)) as sim:
            backend = _backend(settings_state, sim.base_url, sim)
            welcome = make_welcome(
                on_key_saved=lambda: saved.append(True), check_key=_checker(backend)
            )
            welcome.key_input.setText(GOOD_KEY)
            welcome.save_button.click()
            await tasks.join()
        assert saved == [True]
        assert secrets.get_stored_key() == GOOD_KEY
        assert welcome.key_input.text() == ""
        assert welcome.error_label.isHidden()
        welcome.deleteLater()

    qloop.run(scenario())


def test_without_a_network_nothing_is_saved_until_the_person_saves_anyway(
    qloop: asyncio.Runner,
    make_welcome: MakeWelcome,
    settings_state: SettingsState,
    secrets: SecretStore,
    tasks: UiTasks,
    closed_port: int,
    test_output_dir: Path,
) -> None:
    saved: list[bool] = []
    backend = _backend(settings_state, f"https://127.0.0.1:{closed_port}", None)

    async def scenario() -> None:
        welcome = make_welcome(on_key_saved=lambda: saved.append(True), check_key=_checker(backend))
        welcome.show()
        welcome.key_input.setText(GOOD_KEY)
        welcome.save_button.click()
        await tasks.join()
        assert welcome.error_label.text() == UNREACHABLE_MESSAGE
        assert not welcome.save_anyway_button.isHidden()
        assert saved == []
        assert secrets.get_stored_key() is None
        welcome.resize(420, 680)
        picture = Picture(welcome)
        await wait_until(picture.settled)
        folder = test_output_dir / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        assert picture.pixmap.save(str(folder / "welcome-key-not-checked-no-network.png"))

        # Editing the key makes the offer stale: it goes, with the message.
        welcome.key_input.textEdited.emit(GOOD_KEY)
        assert welcome.save_anyway_button.isHidden()
        assert welcome.error_label.isHidden()
        welcome.save_button.click()
        await tasks.join()
        assert not welcome.save_anyway_button.isHidden()

        welcome.save_anyway_button.click()
        await tasks.join()
        assert saved == [True]
        assert secrets.get_stored_key() == GOOD_KEY
        assert welcome.save_anyway_button.isHidden()
        assert welcome.error_label.isHidden()
        welcome.deleteLater()

    qloop.run(scenario())


def test_a_key_without_live_access_is_not_saved(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    settings_state: SettingsState,
    secrets: SecretStore,
    tasks: UiTasks,
) -> None:
    # The key is accepted, but no model it may use lists bidiGenerateContent.
    no_live = with_faults(GEMINI_38_LIVE, models_list_entry="not_live")

    async def scenario() -> None:
        async with LiveSimulator(profile=no_live, api_keys=(GOOD_KEY,)) as sim:
            backend = _backend(settings_state, sim.base_url, sim)
            window = make_settings_window(secrets=secrets, check_key=_checker(backend))
            await tasks.join()
            account = window.account_page
            account.key_input.setText(GOOD_KEY)
            account.save_key_button.click()
            await tasks.join()
        assert account.key_error.text() == NO_LIVE_MESSAGE
        assert account.save_anyway_button.isHidden()
        assert secrets.get_stored_key() is None
        assert not account.remove_key_button.isEnabled()

    qloop.run(scenario())


def test_settings_checks_the_key_and_remove_asks_first(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    settings_state: SettingsState,
    secrets: SecretStore,
    tasks: UiTasks,
    test_output_dir: Path,
) -> None:
    changes: list[bool] = []

    async def scenario() -> None:
        async with LiveSimulator(profile="service", api_keys=(GOOD_KEY,)) as sim:
            backend = _backend(settings_state, sim.base_url, sim)
            window: SettingsWindow = make_settings_window(
                secrets=secrets, check_key=_checker(backend), on_key_changed=changes.append
            )
            window.show()
            qtbot.waitExposed(window)
            await tasks.join()
            account = window.account_page
            assert not account.remove_key_button.isEnabled()  # nothing to remove yet

            account.key_input.setText(BAD_KEY)
            account.save_key_button.click()
            await tasks.join()
            assert account.key_error.text() == REFUSED_MESSAGE
            picture = Picture(window)
            await wait_until(picture.settled)
            folder = test_output_dir / "screenshots"
            folder.mkdir(parents=True, exist_ok=True)
            assert picture.pixmap.save(str(folder / "settings-account-key-refused.png"))
            assert changes == []

            account.key_input.setText(GOOD_KEY)
            account.save_key_button.click()
            await tasks.join()
        assert changes == [True]
        assert secrets.get_stored_key() == GOOD_KEY
        assert account.key_error.isHidden()
        assert account.remove_key_button.isEnabled()
        for widget in QApplication.allWidgets():
            if isinstance(widget, QLabel | QLineEdit):
                assert GOOD_KEY not in widget.text()

        # Remove asks first; Cancel is the default and keeps the key.
        account.remove_key_button.click()
        question = account.remove_confirmation
        assert isinstance(question, QMessageBox)
        await wait_until(question.isVisible)
        assert question.text() == "Remove the API key?"
        assert question.defaultButton() is question.button(QMessageBox.StandardButton.Cancel)
        picture = Picture(question)
        await wait_until(picture.settled)
        assert picture.pixmap.save(str(folder / "settings-account-remove-question.png"))
        question.button(QMessageBox.StandardButton.Cancel).click()
        await tasks.join()
        assert secrets.get_stored_key() == GOOD_KEY
        assert changes == [True]

        account.remove_key_button.click()
        question = account.remove_confirmation
        assert question is not None
        (remove,) = [b for b in question.buttons() if b.text() == "Remove key"]
        remove.click()
        await tasks.join()
        assert secrets.get_stored_key() is None
        assert changes == [True, False]
        assert not account.remove_key_button.isEnabled()

    qloop.run(scenario())


def test_the_offline_demo_stays_in_settings(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    secrets: SecretStore,
    tasks: UiTasks,
    test_output_dir: Path,
) -> None:
    started: list[bool] = []
    left: list[bool] = []

    async def scenario() -> None:
        window = make_settings_window(
            secrets=secrets,
            on_try_demo=lambda: started.append(True),
            on_leave_demo=lambda: left.append(True),
        )
        window.show()
        qtbot.waitExposed(window)
        await tasks.join()
        account = window.account_page
        assert account.demo_button is not None
        assert account.demo_button.text() == "Try the offline demo"
        picture = Picture(window)
        await wait_until(picture.settled)
        folder = test_output_dir / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        assert picture.pixmap.save(str(folder / "settings-account-demo.png"))
        account.demo_button.click()
        assert started == [True]

        account.set_demo_mode(True)  # no key saved: nothing to leave to yet
        assert not account.demo_button.isEnabled()
        assert "Saving a key above ends it" in account.demo_status.text()

        await asyncio.to_thread(secrets.set_api_key, GOOD_KEY)
        account.refresh_key_status()
        await tasks.join()
        assert account.demo_button.isEnabled()
        assert account.demo_button.text() == "Leave the demo and use my key"
        account.demo_button.click()
        assert left == [True]
        assert started == [True]

    qloop.run(scenario())


def test_saving_a_key_during_the_demo_leaves_it_and_says_so(
    qapp: QApplication,
    tmp_path: Path,
    secrets: SecretStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    context = AppContext.create(AppPaths.profile(tmp_path / "profile"))
    seen: dict[str, object] = {}
    # Earlier tests' windows may still be alive until Qt deletes them: only this app's count.
    earlier = {id(w) for w in qapp.topLevelWidgets() if isinstance(w, SettingsWindow)}

    async def scenario() -> int:
        async with LiveSimulator(profile="service", api_keys=(GOOD_KEY,)) as sim:
            # The app trusts the service's certificates as the SDK does: SSL_CERT_FILE.
            monkeypatch.setenv("SSL_CERT_FILE", str(sim.ca_pem_path))
            quit_signal = QuitSignal()

            async def steps(window: MainWindow, settings: SettingsWindow) -> None:
                try:
                    await wait_until(lambda: window.demo_mode)
                    account = settings.account_page
                    button = account.demo_button
                    assert button is not None
                    await wait_until(lambda: button.text() == "Leave the demo and use my key")
                    settings.open_section(SettingsSection.ACCOUNT)
                    account.key_input.setText(GOOD_KEY)
                    account.save_key_button.click()
                    await wait_until(lambda: not window.demo_mode, timeout_s=20)
                    banner = window.banners.banner("demo-ended")
                    seen["banner"] = banner.text if banner is not None else None
                    seen["status"] = account.key_status.text()
                    seen["stored"] = secrets.get_stored_key() == GOOD_KEY
                    await wait_until(lambda: button.text() == "Try the offline demo")
                finally:
                    quit_signal.request()

            def on_shown(window: MainWindow) -> None:
                (settings,) = [
                    w
                    for w in qapp.topLevelWidgets()
                    if isinstance(w, SettingsWindow) and id(w) not in earlier
                ]
                seen["task"] = asyncio.ensure_future(steps(window, settings))

            options = LaunchOptions(demo=True, api_base_url=sim.base_url)
            code = await run_app(qapp, context, quit_signal, options, on_window_shown=on_shown)
            task = seen["task"]
            assert isinstance(task, asyncio.Future)
            await task
            seen["model_requests"] = _model_requests(sim)
            return code

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        assert runner.run(scenario()) == 0
    assert seen["banner"] == (
        "The offline demo has ended: Sammy now talks to Gemini with your key. "
        "The demo is still in Settings > Account."
    )
    assert seen["status"] == (
        "Your key is saved, so the offline demo has ended: Sammy now talks to Gemini."
    )
    assert seen["stored"] is True
    # The key was checked with the service, not with the demo's simulator.
    assert seen["model_requests"] == 1
    assert "GEMINI_API_KEY" not in os.environ
