"""Settings > Voice & language: the known Live models, the key's own models, the language note.

The key's models come from the real simulator's ``GET /v1beta/models`` through the real
google-genai client (docs/live-service.md C6): every strict profile's ids and one model
that is not a Live model, which the list must leave out.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from sammy_desktop.backend import Backend
from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.core.endpoint import make_client_factory
from sammy_desktop.core.ports import ClientFactory
from sammy_desktop.sim import LiveSimulator, Received
from sammy_desktop.sim.profiles import GEMINI_38_LIVE, PROFILES
from sammy_desktop.tools.capabilities import LIVE_MODELS
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.settings import SettingsSection, SettingsWindow
from sammy_desktop.ui.settings.voice_page import LANGUAGE_NOTE, UNKNOWN_FEATURES, VoicePage
from sammy_desktop.ui.settings_state import SettingsState

from .conftest import MakeSettingsWindow, Picture, wait_until

API_KEY = "ui-models-key"
UNKNOWN_MODEL = "gemini-9-live-experimental"


def _sim_factory(sim: LiveSimulator, key: str = API_KEY) -> ClientFactory:
    return make_client_factory(lambda: key, base_url=sim.base_url, ssl_context=sim.ssl_context)


def _labels(page: VoicePage) -> list[str]:
    combo = page.model_combo
    return [combo.itemText(index) for index in range(combo.count())]


def _model_requests(sim: LiveSimulator) -> list[str]:
    return [str(event.data["path"]) for event in sim.recorder.events(Received.HTTP)]


STRICT = ("gemini-3.8-live", "gemini-3.1-flash-live", "gemini-2.5-flash-native-audio")
SERVED = tuple(model for name in STRICT for model in PROFILES[name].model_ids)
"""The Live model ids the strict profiles serve (the simulator's models list has them)."""


def test_the_model_list_offers_the_known_live_models_with_the_recommended_one_marked(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow, settings_state: SettingsState
) -> None:
    window = make_settings_window()  # the window owns the page: keep it
    page = window.voice_page
    assert page.model_ids == list(LIVE_MODELS)
    assert _labels(page)[0] == "gemini-3.8-live · recommended"
    assert _labels(page)[1:] == list(LIVE_MODELS[1:])
    assert page.model_combo.currentText() == settings_state.settings.model == "gemini-3.8-live"
    # Picking a line applies the model's id, not its marks.
    page.model_combo.setCurrentIndex(1)
    page.model_combo.activated.emit(1)
    assert settings_state.settings.model == LIVE_MODELS[1]
    assert page.model_combo.currentText() == LIVE_MODELS[1]
    # Any id can be typed, and a list line typed (or completed) in full means its id.
    line = page.model_combo.lineEdit()
    assert isinstance(line, QLineEdit)
    line.setText("gemini-4-live-preview")
    line.editingFinished.emit()
    assert settings_state.settings.model == "gemini-4-live-preview"
    line.setText("gemini-3.8-live · recommended")
    line.editingFinished.emit()
    assert settings_state.settings.model == "gemini-3.8-live"
    assert page.model_combo.currentText() == "gemini-3.8-live"


def test_a_model_the_app_does_not_know_is_listed_and_marked(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow, settings_state: SettingsState
) -> None:
    settings_state.update(model="gemini-4-live-preview")
    window = make_settings_window()  # the window owns the page: keep it
    page = window.voice_page
    assert page.model_combo.currentText() == "gemini-4-live-preview"
    assert f"gemini-4-live-preview · {UNKNOWN_FEATURES}" in _labels(page)
    assert "unknown model" in page.model_support.text()


def test_opening_the_page_lists_the_models_the_key_can_really_use(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    tasks: UiTasks,
) -> None:
    # The strict profiles, and one more serving a model the capability table does not know.
    experimental = GEMINI_38_LIVE.with_changes(name="experimental", model_ids=(UNKNOWN_MODEL,))
    profiles = [*(PROFILES[name] for name in STRICT), experimental]

    async def scenario() -> None:
        async with LiveSimulator(profile=profiles, api_keys=(API_KEY,)) as sim:
            window = make_settings_window(client_factory=_sim_factory(sim))
            page = window.voice_page
            assert _model_requests(sim) == []  # nothing asked before the page opens
            window.open_section(SettingsSection.VOICE)
            qtbot.waitExposed(window)
            await tasks.join()
            requests = _model_requests(sim)
        assert requests and all(path.startswith("/v1beta/models") for path in requests)
        ids = page.model_ids
        # Only Live models (not the generateContent one); the recommended first, then
        # the known ones, then the ones the app does not know.
        assert "gemini-2.5-flash" not in ids
        assert sorted(ids) == sorted((*SERVED, UNKNOWN_MODEL))
        assert ids[0] == "gemini-3.8-live" and ids[-1] == UNKNOWN_MODEL
        labels = _labels(page)
        assert labels[0] == "gemini-3.8-live · recommended"
        assert labels[-1] == f"{UNKNOWN_MODEL} · {UNKNOWN_FEATURES}"
        assert page.models_status.text().startswith(f"Your key can use {len(ids)} Live models")
        assert UNKNOWN_FEATURES in page.models_status.text()
        assert page.model_combo.currentText() == "gemini-3.8-live"
        assert page.check_models_button.isEnabled()

    qloop.run(scenario())


def test_a_refused_key_is_said_in_a_sentence_and_the_list_stays(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow, tasks: UiTasks
) -> None:
    async def scenario() -> None:
        async with LiveSimulator(profile="service", api_keys=(API_KEY,)) as sim:
            window = make_settings_window(client_factory=_sim_factory(sim, "wrong-key"))
            page = window.voice_page
            page.check_models_button.click()
            assert not page.check_models_button.isEnabled()  # one question at a time
            await tasks.join()
        assert page.models_status.text() == (
            "The service did not accept the API key, so it would not list its models."
        )
        assert page.model_ids == list(LIVE_MODELS)
        assert page.check_models_button.isEnabled()

    qloop.run(scenario())


@pytest.mark.keyring
def test_without_a_key_nothing_is_asked_of_the_network(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    settings_state: SettingsState,
    tasks: UiTasks,
) -> None:
    secrets = SecretStore(environ={})
    assert not secrets.has_stored_key()

    async def scenario() -> None:
        async with LiveSimulator(profile="service", api_keys=(API_KEY,)) as sim:
            backend = Backend(secrets, lambda: settings_state.settings, api_base_url=sim.base_url)
            window = make_settings_window(secrets=secrets, client_factory=backend)
            page = window.voice_page
            page.check_models_button.click()
            await tasks.join()
            assert _model_requests(sim) == []
        assert page.models_status.text() == (
            "No API key is saved yet: save one on the Account page, then check again."
        )

    qloop.run(scenario())


def test_without_a_client_factory_there_is_no_check(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow
) -> None:
    window = make_settings_window()  # the window owns the page: keep it
    page = window.voice_page
    row = page.check_models_button.parentWidget()
    assert row is not None and row.isHidden()
    page.check_models()  # asks nothing: there is nothing to ask with
    assert page.models_status.isHidden()


def test_the_language_note_says_native_audio_chooses_its_language(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow, settings_state: SettingsState
) -> None:
    window: SettingsWindow = make_settings_window()
    page = window.voice_page
    assert page.language_note.text() == LANGUAGE_NOTE
    assert page.language_note.parentWidget() is window.cards["language"]
    line = page.model_combo.lineEdit()
    assert isinstance(line, QLineEdit)
    for model in LIVE_MODELS:  # none of them honours the language code (M4)
        line.setText(model)
        line.editingFinished.emit()
        assert settings_state.settings.model == model
        assert not page.language_note.isHidden(), model


def test_voice_page_screenshot_with_the_keys_models(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    tasks: UiTasks,
    test_output_dir: Path,
) -> None:
    experimental = GEMINI_38_LIVE.with_changes(name="experimental", model_ids=(UNKNOWN_MODEL,))
    folder = test_output_dir / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)

    async def scenario() -> None:
        async with LiveSimulator(profile=[PROFILES["gemini-3.8-live"], experimental]) as sim:
            window = make_settings_window(client_factory=_sim_factory(sim))
            window.show()
            qtbot.waitExposed(window)
            window.open_section(SettingsSection.VOICE)
            await tasks.join()
        page = window.voice_page
        assert page.model_ids == ["gemini-3.8-live", UNKNOWN_MODEL]
        picture = Picture(window)
        await wait_until(picture.settled)
        assert picture.pixmap.save(str(folder / "settings-voice-models.png"))
        page.model_combo.showPopup()
        popup = page.model_combo.view().window()
        await wait_until(lambda: popup.isVisible())
        picture = Picture(popup)
        await wait_until(picture.settled)
        assert picture.pixmap.save(str(folder / "settings-voice-model-list.png"))
        page.model_combo.hidePopup()

    qloop.run(scenario())
