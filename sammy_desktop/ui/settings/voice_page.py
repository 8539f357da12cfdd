"""Settings > Voice & language: the model, its voice, and the language settings.

The model and the voice are editable lists: the known names to pick from, and room to type
one that is not listed (a newer model, a new voice). The model list starts with the Live
models in service that the app knows, Google's recommended one first and marked; "Check my
key's models" (and, once, opening the page) asks the service which Live models the key can
really use (``models.list()``, :func:`~sammy_desktop.core.models.live_models`) and lists
those instead, marking the ones whose features the app does not know. No key, no request:
the client factory refuses first. The request runs as a task on the loop, so the window
never waits for it.

Under the model a line says what it supports (tools that run while it keeps talking,
affective dialog, thinking settings), from the tool layer's capability table, so a person
sees why a background tool waits. Under the language, a note says when the model chooses
its language itself (native audio ignores the language code, so the language also goes
into Sammy's instructions).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QWidget

from sammy_desktop.config.secrets import SecretStoreError
from sammy_desktop.config.settings import DEFAULT_MODEL
from sammy_desktop.core.live import LiveConnectionError
from sammy_desktop.core.models import LiveModel, ModelListError, live_models
from sammy_desktop.tools.capabilities import LIVE_MODELS, capabilities_for, is_known_model
from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from sammy_desktop.core.ports import ClientFactory
    from sammy_desktop.live_sdk import genai
    from sammy_desktop.ui.controls import UiTasks
    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["LANGUAGE_NOTE", "UNKNOWN_FEATURES", "VOICES", "VoicePage", "model_label"]

_log = logging.getLogger(__name__)

VOICES: Final = ("Puck", "Charon", "Kore", "Fenrir", "Aoede", "Leda", "Orus", "Zephyr")
"""The Live API's prebuilt voices, offered in the list."""

UNKNOWN_FEATURES: Final = "features not known to Sammy"
"""How the list marks a model the capability table does not know."""

LANGUAGE_NOTE: Final = (
    "Native-audio models choose the language themselves, so Sammy also asks for it in its "
    "instructions."
)
"""Said under the language when the model ignores the language code (M4)."""

_NO_KEY: Final = "No API key is saved yet: save one on the Account page, then check again."


def model_label(model_id: str, *, recommended: bool = False, known: bool = True) -> str:
    """The model's line in the list: its id, then "recommended" or the unknown mark."""
    marks = (["recommended"] if recommended else []) + ([] if known else [UNKNOWN_FEATURES])
    return f"{model_id} · {', '.join(marks)}" if marks else model_id


def _known_models(current: str) -> list[LiveModel]:
    """The models the app knows, and the one in the settings if it is another."""
    ids = list(dict.fromkeys((*LIVE_MODELS, DEFAULT_MODEL, current)))
    return [
        LiveModel(
            model_id=model_id,
            display_name=model_id,
            known=is_known_model(model_id),
            recommended=model_id == LIVE_MODELS[0],
        )
        for model_id in ids
        if model_id
    ]


class VoicePage(FieldsPage):
    """The model (with the key's models), the voice, and the generated language fields.

    Args:
        state: the live settings.
        tasks: runs the models-list request; without it (or without ``client_factory``)
            there is no "Check my key's models".
        client_factory: builds the genai client for the current key and endpoint (the
            app's :class:`~sammy_desktop.backend.Backend`); it raises
            ``LiveConnectionError`` when there is no key, before any request.
        parent: the Qt parent.
    """

    def __init__(
        self,
        state: SettingsState,
        tasks: UiTasks | None = None,
        *,
        client_factory: ClientFactory | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(SettingsSection.VOICE, state, parent)
        self._tasks = tasks
        self._client_factory = client_factory
        self._checking = False
        self._checked_on_show = False
        settings = self.settings

        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        # A typed id is used, not added to the list: the list is what there is to pick.
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self._fill_models(_known_models(settings.model))
        self._show_model_id(settings.model)
        line = self.model_combo.lineEdit()
        assert line is not None  # an editable combo box always has one
        line.editingFinished.connect(self._on_model_typed)
        self.model_combo.activated.connect(self._on_model_picked)
        card = self.add_card("model", self.model_combo)
        self.model_support = QLabel("")
        self.model_support.setObjectName("fieldDescription")
        self.model_support.setWordWrap(True)
        card.add_below(self.model_support)
        self._add_models_check(card.add_below)
        self._show_model_support(settings.model)

        self.voice_combo = self._name_list("voice", (settings.voice, *VOICES))
        self.add_card("voice", self.voice_combo)
        self.add_generated()
        self.language_note = QLabel(LANGUAGE_NOTE)
        """Under the language: the model chooses its language itself (shown when it does)."""
        self.language_note.setObjectName("fieldDescription")
        self.language_note.setWordWrap(True)
        self.cards["language"].add_below(self.language_note)
        self._show_language_note(settings.model)

    def _add_models_check(self, add: Callable[[QWidget], None]) -> None:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 4, 0, 0)
        self.check_models_button = QPushButton("Check my key's models")
        self.check_models_button.setAccessibleDescription(
            "Ask Google which Live models your API key can use, and list them"
        )
        self.check_models_button.clicked.connect(self.check_models)
        layout.addWidget(self.check_models_button)
        layout.addStretch(1)
        add(row)
        self.models_status = QLabel("")
        """What the last check found, or why it could not."""
        self.models_status.setObjectName("fieldDescription")
        self.models_status.setAccessibleName("Models your key can use")
        self.models_status.setTextFormat(Qt.TextFormat.PlainText)
        self.models_status.setWordWrap(True)
        self.models_status.hide()
        add(self.models_status)
        row.setVisible(self._client_factory is not None and self._tasks is not None)

    # ------------------------------------------------------------------ the model list

    @property
    def model_ids(self) -> list[str]:
        """The model ids the list offers, in order."""
        combo = self.model_combo
        return [str(combo.itemData(index)) for index in range(combo.count())]

    def check_models(self) -> None:
        """Ask the service which Live models the key can use, and list them (a task)."""
        if self._client_factory is None or self._tasks is None or self._checking:
            return
        self._checking = True
        self.check_models_button.setEnabled(False)
        self._say("Asking the service which Live models your key can use…")
        self._tasks.run(self._check_models(self._client_factory), "ui-live-models")

    def on_key_changed(self, _saved: bool) -> None:
        """A key was saved or removed: its models are another question, asked again."""
        self._checked_on_show = False
        if self.isVisible():
            self._checked_on_show = True
            self.check_models()

    def showEvent(self, event: QShowEvent) -> None:
        """The first time the page shows, the key's models are checked once."""
        super().showEvent(event)
        if not self._checked_on_show and self._client_factory is not None:
            self._checked_on_show = True
            self.check_models()

    async def _check_models(self, factory: ClientFactory) -> None:
        try:
            try:
                # The factory reads the keyring, which may block: not on the window's thread.
                client = await asyncio.to_thread(factory)
            except LiveConnectionError:
                self._say(_NO_KEY)  # no key, so nothing was asked of the network
                return
            except SecretStoreError as exc:
                self._say(str(exc))
                return
            try:
                models = await self._list(client)
            except ModelListError as exc:
                _log.info("models list: %s", exc)
                self._say(str(exc))
                return
            self._show_key_models(models)
        finally:
            self._checking = False
            self.check_models_button.setEnabled(True)

    async def _list(self, client: genai.Client) -> list[LiveModel]:
        try:
            return await live_models(client)
        finally:
            with contextlib.suppress(Exception):
                await client.aio.aclose()
            with contextlib.suppress(Exception):
                client.close()

    def _show_key_models(self, models: list[LiveModel]) -> None:
        current = self.settings.model
        if not models:
            self._say("Google lists no Live model for this key. Check its project in AI Studio.")
            return
        typed = self.model_combo.currentText()
        self._fill_models(models)
        self.model_combo.setEditText(typed)
        count = len(models)
        models_word = "Live model" if count == 1 else "Live models"
        text = f"Your key can use {count} {models_word}, listed above."
        unknown = sum(not model.known for model in models)
        if unknown:
            text += (
                f" Those marked “{UNKNOWN_FEATURES}” are used with the safest choices "
                "(tools that answer before it goes on)."
            )
        if current not in (model.model_id for model in models):
            text += f" {current} is not one of them: choose one from the list."
        self._say(text)

    def _fill_models(self, models: list[LiveModel]) -> None:
        combo = self.model_combo
        combo.blockSignals(True)
        try:
            combo.clear()
            for model in models:
                label = model_label(
                    model.model_id, recommended=model.recommended, known=model.known
                )
                combo.addItem(label, model.model_id)
                tip = model.display_name if model.display_name != model.model_id else ""
                combo.setItemData(combo.count() - 1, tip or label, Qt.ItemDataRole.ToolTipRole)
        finally:
            combo.blockSignals(False)

    def _show_model_id(self, model: str) -> None:
        """The id alone in the box (the list's line also carries its marks)."""
        index = self.model_combo.findData(model)
        if index >= 0:
            self.model_combo.setCurrentIndex(index)
        self.model_combo.setEditText(model)

    def _on_model_picked(self, index: int) -> None:
        model = self.model_combo.itemData(index)
        if not isinstance(model, str):
            return
        self.model_combo.setEditText(model)
        self.apply("model", model)

    def _on_model_typed(self) -> None:
        text = self.model_combo.currentText().strip()
        # A line of the list (typed, or completed by the box) means its id, not its marks.
        index = self.model_combo.findText(text)
        data = self.model_combo.itemData(index) if index >= 0 else None
        model = data if isinstance(data, str) else text
        if model != text:
            self.model_combo.setEditText(model)
        self.apply("model", model)

    def _say(self, text: str) -> None:
        self.models_status.setText(text)
        self.models_status.setVisible(bool(text))

    # ------------------------------------------------------------------ applying

    def apply(self, name: str, value: Any) -> bool:
        """Apply a setting; a new model also says what it supports."""
        accepted = super().apply(name, value)
        if accepted and name == "model":
            self._show_model_support(str(value))
            self._show_language_note(str(value))
        return accepted

    def _name_list(self, name: str, names: tuple[str, ...]) -> QComboBox:
        """An editable list of ``names`` (the current one first) that applies ``name``."""
        combo = QComboBox()
        combo.setEditable(True)
        for item in dict.fromkeys(names):
            combo.addItem(item)
        combo.setCurrentText(getattr(self.settings, name))
        line = combo.lineEdit()
        assert line is not None  # an editable combo box always has one
        line.editingFinished.connect(lambda: self.apply(name, combo.currentText().strip()))
        combo.activated.connect(lambda _index: self.apply(name, combo.currentText().strip()))
        return combo

    def _show_model_support(self, model: str) -> None:
        caps = capabilities_for(model)
        parts = [
            "tools that run while it keeps talking"
            if caps.async_function_calling
            else "tools that answer before it goes on (no background tools)"
        ]
        if caps.affective_dialog:
            parts.append("affective dialog")
        if caps.thinking_config:
            parts.append("thinking settings")
        family = caps.family or "unknown model: treated conservatively"
        self.model_support.setText(f"Supports: {', '.join(parts)} ({family}).")

    def _show_language_note(self, model: str) -> None:
        self.language_note.setVisible(not capabilities_for(model).honours_language_code)
