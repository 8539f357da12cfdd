"""Settings > Talking: the talk mode, the microphone between turns, pre-roll, the hotkey...

Every field here is generated from the Settings model. Added by hand: the choices of
"Microphone between turns" in words, with a plain note while the microphone is kept ready
(the system's microphone indicator stays on, a Bluetooth headset loses quality), and the
pre-roll switched off where it does not apply (the microphone closed between turns); and,
under the global hotkey's switch, a calm sentence when this desktop will not let an app see
keys pressed in other windows (Wayland, for one), so the switch never seems to do nothing,
and then the command lines to bind in the desktop's keyboard settings instead
(:mod:`.talk_commands`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from PySide6.QtWidgets import QComboBox, QLabel

from sammy_desktop.config.settings import MicBetweenTurns
from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection
from sammy_desktop.ui.settings.talk_commands import TalkCommands

if TYPE_CHECKING:
    from pathlib import Path

    from PySide6.QtWidgets import QWidget

    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["KEPT_READY_NOTE", "MIC_CHOICES", "TalkingPage"]

MIC_CHOICES: Final = {
    MicBetweenTurns.CLOSE: "Close at once (default)",
    MicBetweenTurns.KEEP_READY: "Keep ready for 30 s after a turn",
    MicBetweenTurns.ALWAYS_READY: "Always ready (instant start, keeps the pre-roll)",
}
"""How each choice of "Microphone between turns" reads in the list."""

KEPT_READY_NOTE: Final = (
    "While the microphone is kept ready, your system's microphone indicator stays on, and a "
    "Bluetooth headset switches to call quality (music sounds muffled, media may pause)."
)


class TalkingPage(FieldsPage):
    """The generated talking fields and the global hotkey's status line.

    Args:
        state: the live settings.
        config_dir: the ``--config-dir`` profile, named in the command lines to bind.
        parent: the Qt parent.
    """

    def __init__(
        self,
        state: SettingsState,
        parent: QWidget | None = None,
        *,
        config_dir: Path | None = None,
    ) -> None:
        super().__init__(SettingsSection.TALKING, state, parent)
        self.add_generated()
        self._label_mic_choices()
        self.hotkey_status = QLabel("")
        self.hotkey_status.setObjectName("fieldDescription")
        self.hotkey_status.setWordWrap(True)
        self.hotkey_status.setAccessibleName("Global hotkey status")
        self.hotkey_status.hide()
        self.cards["global_hotkey"].add_below(self.hotkey_status)
        self.talk_commands = TalkCommands(config_dir)
        self.talk_commands.hide()
        self.cards["global_hotkey"].add_below(self.talk_commands)

    def _label_mic_choices(self) -> None:
        card = self.cards["mic_between_turns"]
        combo = card.editor
        assert isinstance(combo, QComboBox)
        for index in range(combo.count()):
            combo.setItemText(index, MIC_CHOICES[MicBetweenTurns(combo.itemData(index))])
        self.mic_note = QLabel(KEPT_READY_NOTE)
        self.mic_note.setObjectName("fieldDescription")
        self.mic_note.setWordWrap(True)
        self.mic_note.setAccessibleName("While the microphone is kept ready")
        card.add_below(self.mic_note)
        combo.currentIndexChanged.connect(lambda _index: self._show_mic_choice())
        self._show_mic_choice()

    def _show_mic_choice(self) -> None:
        """The note while the mic is kept ready; the pre-roll only where it applies."""
        kept_ready = self.settings.mic_between_turns is not MicBetweenTurns.CLOSE
        self.mic_note.setVisible(kept_ready)
        self.cards["pre_roll_ms"].editor.setEnabled(kept_ready)

    def show_hotkey_status(self, text: str) -> None:
        """Say under the global hotkey switch whether it works here, and why not ("" hides)."""
        self.hotkey_status.setText(text)
        self.hotkey_status.setVisible(bool(text))

    def show_hotkey_commands(self, shown: bool) -> None:
        """Offer the command lines to bind (while the hotkey is on but cannot work here)."""
        self.talk_commands.setVisible(shown)
