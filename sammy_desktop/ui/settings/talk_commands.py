"""Settings > Talking: the command lines to bind where the global hotkey cannot work.

Where Sammy cannot have a hotkey of its own (Wayland without the portal's GlobalShortcuts,
an X server without RECORD...), the desktop's keyboard settings can still run a command
on a key: ``sammy-desktop --toggle-talk`` starts talking in the running Sammy or stops.
:class:`TalkCommands` shows that exact line for this installation and profile
(:func:`~sammy_desktop.ui.instance.commands.command_line`), and the start and stop pair for
desktops that bind a key's press and release apart; each line is selectable and has a Copy
button.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QPushButton, QWidget

from sammy_desktop.ui.instance.commands import RemoteCommand, command_line

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["COMMANDS", "TalkCommands"]

COMMANDS: Final = (
    (RemoteCommand.TOGGLE_TALK, "Talk or stop"),
    (RemoteCommand.TALK_START, "Start (key press)"),
    (RemoteCommand.TALK_STOP, "Stop (key release)"),
)
"""The lines shown, with the caption of each."""

INTRO: Final = "For a custom shortcut in your desktop's keyboard settings:"
PAIR_INTRO: Final = "Or, where a shortcut can run one command on press and another on release:"
COPIED: Final = "Copied."


class TalkCommands(QWidget):
    """The command lines a desktop shortcut can run to talk, each with Copy.

    Args:
        config_dir: the ``--config-dir`` profile (None for the standard folders).
        program: the executable the lines name (this installation's by default).
        parent: the Qt parent.
    """

    def __init__(
        self,
        config_dir: Path | None = None,
        *,
        program: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setAccessibleName("Commands to bind to a key")
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 4, 0, 0)
        self._grid.setHorizontalSpacing(6)
        self._grid.setVerticalSpacing(6)
        self._grid.setColumnStretch(1, 1)
        self._rows = 0
        self.lines: dict[RemoteCommand, QLineEdit] = {}
        """The field showing each command line (read-only, selectable)."""
        self.copy_buttons: dict[RemoteCommand, QPushButton] = {}
        """The Copy button of each line."""
        for command, caption in COMMANDS:
            if command is RemoteCommand.TOGGLE_TALK:
                self._add_note(INTRO)
            elif command is RemoteCommand.TALK_START:
                self._add_note(PAIR_INTRO)
            self._add_row(command, caption, command_line(command, config_dir, program=program))
        self.copied_label = self._add_note("")
        self.copied_label.hide()

    def copy(self, command: RemoteCommand) -> None:
        """Put ``command``'s line on the clipboard (its Copy button)."""
        QGuiApplication.clipboard().setText(self.lines[command].text())
        self.copied_label.setText(COPIED)
        self.copied_label.show()

    def _add_note(self, text: str) -> QLabel:
        label = QLabel(text, self)
        label.setObjectName("fieldDescription")
        label.setWordWrap(True)
        self._grid.addWidget(label, self._next_row(), 0, 1, 3)
        return label

    def _next_row(self) -> int:
        self._rows += 1
        return self._rows - 1

    def _add_row(self, command: RemoteCommand, caption: str, line: str) -> None:
        title = QLabel(caption, self)
        title.setObjectName("fieldDescription")
        field = QLineEdit(line, self)
        field.setReadOnly(True)
        field.setCursorPosition(0)
        field.setAccessibleName(f"Command: {caption}")
        field.setToolTip(line)
        button = QPushButton("Copy", self)
        button.setAccessibleName(f"Copy the command: {caption}")
        button.clicked.connect(lambda _checked=False, c=command: self.copy(c))
        title.setBuddy(field)
        row = self._next_row()
        self._grid.addWidget(title, row, 0)
        self._grid.addWidget(field, row, 1)
        self._grid.addWidget(button, row, 2)
        self.lines[command] = field
        self.copy_buttons[command] = button
