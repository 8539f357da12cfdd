"""Settings > Voice & language: the model, its voice, and the language settings.

The model and the voice are editable lists: the known names to pick from, and room to type
one that is not listed (a newer model, a new voice). Under the model a line says what it
supports (tools that run while it keeps talking, affective dialog, thinking settings), from
the tool layer's capability table, so a person sees why a background tool waits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from PySide6.QtWidgets import QComboBox, QLabel

from sammy_desktop.config.settings import DEFAULT_MODEL
from sammy_desktop.tools.capabilities import capabilities_for
from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["VOICES", "VoicePage"]

VOICES: Final = ("Puck", "Charon", "Kore", "Fenrir", "Aoede", "Leda", "Orus", "Zephyr")
"""The Live API's prebuilt voices, offered in the list."""


class VoicePage(FieldsPage):
    """The model, the voice, and the generated language fields.

    Args:
        state: the live settings.
        parent: the Qt parent.
    """

    def __init__(self, state: SettingsState, parent: QWidget | None = None) -> None:
        super().__init__(SettingsSection.VOICE, state, parent)
        settings = self.settings
        self.model_combo = self._name_list("model", (settings.model, DEFAULT_MODEL))
        card = self.add_card("model", self.model_combo)
        self.model_support = QLabel("")
        self.model_support.setObjectName("fieldDescription")
        self.model_support.setWordWrap(True)
        card.add_below(self.model_support)
        self._show_model_support(settings.model)
        self.voice_combo = self._name_list("voice", (settings.voice, *VOICES))
        self.add_card("voice", self.voice_combo)
        self.add_generated()

    def apply(self, name: str, value: Any) -> bool:
        """Apply a setting; a new model also says what it supports."""
        accepted = super().apply(name, value)
        if accepted and name == "model":
            self._show_model_support(str(value))
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
