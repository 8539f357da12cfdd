"""Settings > Privacy: what the assistant may learn, and what Sammy keeps on this computer.

A switch per kind of context (the time, the time zone, the platform, the app's state...):
when the assistant asks for context it gets only what is switched on, and the main window
shows each time exactly what was shared. Then what the assistant may read: the generated
"about you" and custom context fields. Last, what Sammy keeps: how long the conversation
history and escalation records stay (older ones are deleted at start-up), and a button that
deletes them all, after asking, and says what it did. While the screen (or a window) is
shared, a card at the top lists it as shared now (:meth:`PrivacyPage.show_screen_shared`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from sammy_desktop.config import PrivacySettings
from sammy_desktop.config.private_data import delete_history, history_files
from sammy_desktop.ui.painted import ToggleSwitch
from sammy_desktop.ui.settings.fields import FieldCard
from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from sammy_desktop.config import AppPaths
    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["PrivacyPage"]


class PrivacyPage(FieldsPage):
    """The context-sharing switches, the context the person writes, and the history kept.

    Args:
        state: the live settings.
        parent: the Qt parent.
        paths: the app's folders, whose history "Delete all history" deletes; without
            them the button is not offered.
    """

    def __init__(
        self,
        state: SettingsState,
        parent: QWidget | None = None,
        *,
        paths: AppPaths | None = None,
    ) -> None:
        super().__init__(SettingsSection.PRIVACY, state, parent)
        self._paths = paths
        self.add_note(
            "When the assistant asks for context, it learns only what is switched on here. "
            "Each time, a banner in the main window shows exactly what was shared."
        )
        self._build_shared_now_card()
        for name, info in PrivacySettings.model_fields.items():
            switch = ToggleSwitch()
            switch.setChecked(bool(getattr(self.settings.privacy, name)))
            switch.toggled.connect(lambda on, n=name: self.set_shared(n, on))
            key = f"privacy.{name}"
            card = FieldCard(key, info.title or name, info.description or "", switch, inline=True)
            self.body.addWidget(card)
            self.cards[key] = card
        self.add_group_title("What the assistant may read")
        self.add_generated()
        self.add_group_title("What Sammy keeps on this computer")
        self.add_field("history_retention")
        self.delete_history_button = QPushButton("Delete all history…")
        self.confirm_delete_button = QPushButton("Delete")
        self.cancel_delete_button = QPushButton("Cancel")
        self.delete_question = QLabel("")
        self.delete_result = QLabel("")
        if paths is not None:
            self._build_delete_card()

    def _build_shared_now_card(self) -> None:
        self.shared_now_card = QFrame()
        self.shared_now_card.setObjectName("fieldCard")
        layout = QVBoxLayout(self.shared_now_card)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(4)
        title = QLabel("Shared with Sammy now")
        title.setObjectName("fieldTitle")
        self.shared_now_label = QLabel("")
        self.shared_now_label.setWordWrap(True)
        note = QLabel(
            "Pictures of it go to Gemini until you stop sharing (the red banner's Stop, or "
            "Ctrl+Shift+S in the main window)."
        )
        note.setObjectName("fieldDescription")
        note.setWordWrap(True)
        for widget in (title, self.shared_now_label, note):
            layout.addWidget(widget)
        self.shared_now_card.hide()
        self.body.addWidget(self.shared_now_card)

    @property
    def shared_now(self) -> list[str]:
        """What the page lists as shared now ("Your screen (…)"), nothing when nothing is."""
        return [self.shared_now_label.text()] if not self.shared_now_card.isHidden() else []

    def show_screen_shared(self, words: str) -> None:
        """List what is shared now ("Your screen (Screen 1, 1920x1080)"); "" for nothing."""
        self.shared_now_label.setText(words)
        self.shared_now_card.setVisible(bool(words))

    def set_shared(self, name: str, on: bool) -> None:
        """Switch the sharing of one kind of context (a ``PrivacySettings`` field)."""
        privacy = self.settings.privacy.model_dump()
        privacy[name] = on
        self.apply("privacy", privacy)

    # ------------------------------------------------------------------ delete all history

    def _build_delete_card(self) -> None:
        card = QFrame()
        card.setObjectName("fieldCard")
        layout = QVBoxLayout(card)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(6)
        title = QLabel("Delete all history")
        title.setObjectName("fieldTitle")
        description = QLabel(
            "Deletes the history of every conversation and every escalation record from this "
            "computer now. Your notes and settings stay."
        )
        description.setObjectName("fieldDescription")
        description.setWordWrap(True)
        self.delete_history_button.setObjectName("dangerButton")
        self.delete_history_button.setAccessibleName("Delete all history")
        self.delete_history_button.setAccessibleDescription(description.text())
        self.delete_history_button.clicked.connect(self.on_delete_history_requested)
        self.delete_question.setWordWrap(True)
        self.delete_question.hide()
        self.confirm_delete_button.setObjectName("dangerButton")
        self.confirm_delete_button.clicked.connect(self.on_delete_history_confirmed)
        self.cancel_delete_button.clicked.connect(self.on_delete_history_cancelled)
        self.delete_result.setObjectName("fieldDescription")
        self.delete_result.setWordWrap(True)
        self.delete_result.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.delete_history_button)
        buttons.addWidget(self.confirm_delete_button)
        buttons.addWidget(self.cancel_delete_button)
        buttons.addStretch(1)
        self._show_question(False)
        for widget in (title, description, self.delete_question):
            layout.addWidget(widget)
        layout.addLayout(buttons)
        layout.addWidget(self.delete_result)
        self.body.addWidget(card)

    def _show_question(self, asking: bool) -> None:
        self.delete_question.setVisible(asking)
        self.confirm_delete_button.setVisible(asking)
        self.cancel_delete_button.setVisible(asking)
        self.delete_history_button.setVisible(not asking)

    def on_delete_history_requested(self) -> None:
        """Ask first: say how many files would go, with Delete and Cancel."""
        if self._paths is None:
            return
        count = len(history_files(self._paths))
        self.delete_result.hide()
        if count == 0:
            self._say("There is no history to delete.")
            return
        self.delete_question.setText(
            f"Delete {_files(count)} of conversation history and escalation records? This "
            "cannot be undone. A conversation under way goes on being recorded from now on."
        )
        self._show_question(True)
        # Cancel has the focus: Space or Enter must not delete by accident.
        self.cancel_delete_button.setFocus()

    def on_delete_history_cancelled(self) -> None:
        """Nothing is deleted."""
        self._show_question(False)
        self._say("Nothing was deleted.")

    def on_delete_history_confirmed(self) -> None:
        """Delete every history and escalation file, and say what happened."""
        self._show_question(False)
        if self._paths is None:
            return
        result = delete_history(self._paths)
        if result.failed:
            names = ", ".join(path.name for path in result.failed[:3])
            more = "…" if len(result.failed) > 3 else ""
            self._say(
                f"Deleted {_files(result.deleted)}; {_files(len(result.failed))} could not be "
                f"deleted ({names}{more}). See the log for why."
            )
        else:
            self._say(f"Deleted {_files(result.deleted)}. No history is left on this computer.")

    def _say(self, text: str) -> None:
        self.delete_result.setText(text)
        self.delete_result.show()
        self.delete_result.setAccessibleName(text)


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"
