"""Settings > Tools, "Add server…": a new MCP server in ``mcp.json``, from a small dialog.

A server is a name and either a program on this computer (a command line, split as a shell
does and shown as the program and its arguments, with optional environment variables) or
an address on the web (an ``https://`` URL, with optional headers). Each variable's or
header's value may be kept in the system keyring instead of the file: "Keep in the keyring"
stores it as the secret ``<server>-<NAME>`` (:meth:`SecretStore.set_secret`, off the loop)
and writes ``"keyring:<server>-<NAME>"`` in ``mcp.json``.

What is wrong is said on the field it concerns (``parse_server``'s sentence names the field),
and nothing the person typed is lost: the dialog stays open until the server is saved.
Saving goes through :meth:`McpServers.put_server`, which starts the server at once.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.config.secrets import SecretStoreError
from sammy_desktop.os_errors import os_error_reason
from sammy_desktop.tools.mcp.config import (
    KEYRING_PREFIX,
    ConfigProblem,
    HttpTransport,
    StdioTransport,
    parse_server,
    server_entry,
)
from sammy_desktop.ui.painted import ToggleSwitch
from sammy_desktop.ui.wrapping import WrappingLabel

if TYPE_CHECKING:
    from sammy_desktop.config.secrets import SecretStore
    from sammy_desktop.tools.mcp.servers import McpServers
    from sammy_desktop.ui.controls import UiTasks

__all__ = [
    "AddServerDialog",
    "CommandLineError",
    "SwitchWords",
    "ValueRow",
    "ValueRows",
    "describe_command",
    "secret_name",
    "split_command_line",
]

_log = logging.getLogger(__name__)

PROGRAM: Final = "program"
WEB: Final = "web"


class CommandLineError(ValueError):
    """The command line cannot be split; the message says why, for the person."""


def split_command_line(text: str, *, windows: bool = sys.platform == "win32") -> list[str]:
    """The program and its arguments, split as a shell does (quotes keep spaces together).

    On Windows a backslash is part of a path, not an escape, and quotes are removed from
    around an argument.

    Raises:
        CommandLineError: a quotation mark is not closed.
    """
    try:
        words = shlex.split(text, posix=not windows)
    except ValueError:
        raise CommandLineError(
            "A quotation mark in the command line is not closed; close it, or leave it out."
        ) from None
    if windows:
        words = [
            word[1:-1] if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'" else word
            for word in words
        ]
    return words


def describe_command(words: list[str]) -> str:
    """What Sammy will start, in words: the program, then each argument in quotes."""
    if not words:
        return ""
    program, *arguments = words
    if not arguments:
        return f"Sammy starts “{program}” with no arguments."
    quoted = "  ".join(f"“{argument}”" for argument in arguments)
    count = "1 argument" if len(arguments) == 1 else f"{len(arguments)} arguments"
    return f"Sammy starts “{program}” with {count}: {quoted}"


def secret_name(server: str, name: str) -> str:
    """The keyring name a value of ``server`` is kept under (``<server>-<NAME>``)."""
    return f"{server}-{name}"


def _mark(widget: QWidget, invalid: bool) -> None:
    widget.setProperty("invalid", invalid)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def _error_label() -> WrappingLabel:
    label = WrappingLabel("")
    label.setObjectName("fieldError")
    label.hide()
    return label


def _title(text: str, buddy: QWidget) -> QLabel:
    label = QLabel(text)
    label.setObjectName("fieldTitle")
    label.setBuddy(buddy)
    return label


def _description(text: str) -> WrappingLabel:
    label = WrappingLabel(text)
    label.setObjectName("fieldDescription")
    return label


class SwitchWords(QLabel):
    """The words beside a switch; a click on them switches it, as a check box's words do.

    Args:
        text: what the switch does.
        switch: the switch.
        parent: the Qt parent.
    """

    def __init__(self, text: str, switch: ToggleSwitch, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self._switch = switch
        self.setBuddy(switch)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Switch the switch (a left click on an enabled one)."""
        if event.button() == Qt.MouseButton.LeftButton and self._switch.isEnabled():
            self._switch.click()
            event.accept()
            return
        super().mousePressEvent(event)


class ValueRow(QWidget):
    """One environment variable or header: its name, its value, the keyring, Remove.

    Args:
        kind: "variable" or "header", for the words.
        on_remove: called when the person removes the row.
        keyring: whether a keyring can keep the value (the box is off without one).
        parent: the Qt parent.
    """

    def __init__(
        self,
        kind: str,
        on_remove: Callable[[ValueRow], None],
        *,
        keyring: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.kind = kind
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        row = QHBoxLayout()
        row.setSpacing(8)
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("TOKEN" if kind == "variable" else "Authorization")
        self.name_edit.setAccessibleName(f"The {kind}'s name")
        self.value_edit = QLineEdit()
        self.value_edit.setPlaceholderText("value")
        self.value_edit.setAccessibleName(f"The {kind}'s value")
        self.keyring_box = ToggleSwitch()
        """On: the value is kept in the keyring, and only named in ``mcp.json``."""
        keyring_words = SwitchWords("Keep in the keyring", self.keyring_box)
        tip = (
            "The value goes to the system keyring; mcp.json only names it, so the file can "
            "be shared without it."
            if keyring
            else "Sammy has no keyring to keep it in here."
        )
        for widget in (self.keyring_box, keyring_words):
            widget.setToolTip(tip)
            widget.setEnabled(keyring)
        self.keyring_box.setAccessibleName(f"Keep the {kind}'s value in the keyring")
        self.keyring_box.toggled.connect(self._on_keyring)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setAccessibleName(f"Remove this {kind}")
        self.remove_button.setAutoDefault(False)
        self.remove_button.clicked.connect(lambda: on_remove(self))
        self.name_edit.setMinimumWidth(140)
        row.addWidget(self.name_edit, 2)
        row.addWidget(self.value_edit, 3)
        row.addWidget(self.remove_button)
        column.addLayout(row)
        below = QHBoxLayout()
        below.setSpacing(4)
        below.addWidget(self.keyring_box, 0, Qt.AlignmentFlag.AlignVCenter)
        below.addWidget(keyring_words)
        below.addStretch(1)
        column.addLayout(below)
        self.error_label = _error_label()
        column.addWidget(self.error_label)

    @property
    def name(self) -> str:
        """The name typed, without spaces around it."""
        return self.name_edit.text().strip()

    @property
    def value(self) -> str:
        """The value typed, as typed."""
        return self.value_edit.text()

    @property
    def in_keyring(self) -> bool:
        """Whether the value is to be kept in the keyring."""
        return self.keyring_box.isChecked()

    @property
    def error(self) -> str:
        """The error shown on the row, or ""."""
        return self.error_label.text() if not self.error_label.isHidden() else ""

    def _on_keyring(self, on: bool) -> None:
        # A value kept out of the file is not shown on screen either.
        self.value_edit.setEchoMode(
            QLineEdit.EchoMode.Password if on else QLineEdit.EchoMode.Normal
        )

    def show_error(self, message: str, *, on_name: bool = False) -> None:
        """Say what is wrong, marking the name or the value."""
        self.error_label.setText(message)
        self.error_label.show()
        _mark(self.name_edit if on_name else self.value_edit, True)

    def clear_error(self) -> None:
        """Nothing is wrong with it."""
        self.error_label.hide()
        self.error_label.setText("")
        _mark(self.name_edit, False)
        _mark(self.value_edit, False)


class ValueRows(QWidget):
    """Environment variables or headers, one row each, added one at a time.

    Args:
        kind: "variable" or "header".
        title: the title over the rows.
        description: what they are for.
        keyring: whether a keyring can keep the values.
        parent: the Qt parent.
    """

    def __init__(
        self,
        kind: str,
        title: str,
        description: str,
        *,
        keyring: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.kind = kind
        self._keyring = keyring
        self.rows: list[ValueRow] = []
        """The rows, in order."""
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        self.add_button = QPushButton(f"Add {kind}")
        self.add_button.setAutoDefault(False)
        self.add_button.clicked.connect(lambda: self.add_row().name_edit.setFocus())
        column.addWidget(_title(title, self.add_button))
        column.addWidget(_description(description))
        self._rows_box = QVBoxLayout()
        self._rows_box.setSpacing(12)
        column.addLayout(self._rows_box)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        column.addLayout(buttons)

    def add_row(self, name: str = "", value: str = "", *, keyring: bool = False) -> ValueRow:
        """A new row, filled with ``name`` and ``value``."""
        row = ValueRow(self.kind, self._remove, keyring=self._keyring, parent=self)
        row.name_edit.setText(name)
        row.value_edit.setText(value)
        row.keyring_box.setChecked(keyring)
        self._rows_box.addWidget(row)
        self.rows.append(row)
        previous = self.rows[-2].keyring_box if len(self.rows) > 1 else None
        if previous is not None:
            QWidget.setTabOrder(previous, row.name_edit)
        for before, after in (
            (row.name_edit, row.value_edit),
            (row.value_edit, row.remove_button),
            (row.remove_button, row.keyring_box),
            (row.keyring_box, self.add_button),
        ):
            QWidget.setTabOrder(before, after)
        return row

    def _remove(self, row: ValueRow) -> None:
        self.rows.remove(row)
        row.hide()
        self._rows_box.removeWidget(row)
        row.deleteLater()
        self.add_button.setFocus()

    def clear_errors(self) -> None:
        """Nothing is marked."""
        for row in self.rows:
            row.clear_error()

    def row_named(self, name: str) -> ValueRow | None:
        """The first row with ``name``."""
        return next((row for row in self.rows if row.name == name), None)


@dataclass
class _Plan:
    """What Save writes: the entry, and the values to store in the keyring first."""

    name: str
    entry: dict[str, Any]
    secrets: list[tuple[str, str]] = field(default_factory=list)


class AddServerDialog(QDialog):
    """Add an MCP server: a name, and a program or a web address.

    Args:
        mcp: the MCP servers; Save adds the server through them.
        tasks: runs the keyring's calls off the loop.
        secrets: where "Keep in the keyring" stores a value; None: the boxes are off.
        parent: the Qt parent.
    """

    saved = Signal(str)
    """The server (its name) was written to ``mcp.json``."""

    def __init__(
        self,
        mcp: McpServers,
        tasks: UiTasks,
        *,
        secrets: SecretStore | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._mcp = mcp
        self._tasks = tasks
        self._secrets = secrets
        self.setWindowTitle("Add an MCP server")
        self.setModal(True)
        self.resize(620, 640)
        self.setMinimumSize(480, 360)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        scroll = QScrollArea(self)
        scroll.setObjectName("settingsPage")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        content = QWidget()
        content.setObjectName("settingsPageContent")
        self._column = QVBoxLayout(content)
        self._column.setContentsMargins(24, 20, 24, 12)
        self._column.setSpacing(6)
        scroll.setWidget(content)
        outer.addWidget(scroll, 1)
        self._build_fields()
        self._build_buttons(outer)
        self._show_kind()
        self._show_parsed()

    # ------------------------------------------------------------------ building

    def _build_fields(self) -> None:
        column = self._column
        heading = QLabel("Add an MCP server")
        heading.setObjectName("sheetTitle")
        column.addWidget(heading)
        column.addWidget(
            _description(
                "A program on this computer, or a server on the web, that speaks the Model "
                "Context Protocol. Its tools become Sammy's, each with its own switch."
            )
        )
        column.addSpacing(8)

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("time")
        self.name_edit.setAccessibleName("Server name")
        column.addWidget(_title("Name", self.name_edit))
        column.addWidget(
            _description("Part of its tools' names for Sammy: a short word reads best.")
        )
        column.addWidget(self.name_edit)
        self.name_error = _error_label()
        column.addWidget(self.name_error)
        column.addSpacing(8)

        self.kind_combo = QComboBox()
        self.kind_combo.addItem("A program on this computer", PROGRAM)
        self.kind_combo.addItem("A server on the web (HTTP)", WEB)
        self.kind_combo.setAccessibleName("How Sammy reaches the server")
        self.kind_combo.currentIndexChanged.connect(lambda _index: self._show_kind())
        column.addWidget(_title("How Sammy reaches it", self.kind_combo))
        column.addWidget(self.kind_combo)
        column.addSpacing(8)

        self.program_box = QWidget()
        program = QVBoxLayout(self.program_box)
        program.setContentsMargins(0, 0, 0, 0)
        program.setSpacing(6)
        self.command_edit = QLineEdit()
        self.command_edit.setPlaceholderText("uvx mcp-server-time --local-timezone Europe/Paris")
        self.command_edit.setAccessibleName("Command line")
        self.command_edit.textChanged.connect(lambda _text: self._show_parsed())
        program.addWidget(_title("Command line", self.command_edit))
        program.addWidget(
            _description(
                "The program and its arguments, as you would type them in a terminal; put "
                "an argument with spaces in quotes."
            )
        )
        program.addWidget(self.command_edit)
        self.parsed_label = _description("")
        """The command line as Sammy reads it: the program, then each argument."""
        self.parsed_label.setAccessibleName("How Sammy reads the command line")
        program.addWidget(self.parsed_label)
        self.command_error = _error_label()
        program.addWidget(self.command_error)
        program.addSpacing(8)
        self.env_rows = ValueRows(
            "variable",
            "Environment variables",
            "Optional. The program gets these besides a few basic ones (never Sammy's API key).",
            keyring=self._secrets is not None,
        )
        program.addWidget(self.env_rows)
        column.addWidget(self.program_box)

        self.web_box = QWidget()
        web = QVBoxLayout(self.web_box)
        web.setContentsMargins(0, 0, 0, 0)
        web.setSpacing(6)
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("https://example.com/mcp")
        self.url_edit.setAccessibleName("URL")
        web.addWidget(_title("URL", self.url_edit))
        web.addWidget(_description("The server's streamable HTTP address, often ending in /mcp."))
        web.addWidget(self.url_edit)
        self.url_error = _error_label()
        web.addWidget(self.url_error)
        web.addSpacing(8)
        self.header_rows = ValueRows(
            "header",
            "Headers",
            "Optional, for a token the server asks for (Authorization = Bearer …).",
            keyring=self._secrets is not None,
        )
        web.addWidget(self.header_rows)
        column.addWidget(self.web_box)

        self.form_error = _error_label()
        """What went wrong that is not one field's (the keyring, the file)."""
        column.addSpacing(4)
        column.addWidget(self.form_error)
        column.addStretch(1)

    def _build_buttons(self, outer: QVBoxLayout) -> None:
        bar = QHBoxLayout()
        bar.setContentsMargins(24, 12, 24, 18)
        bar.setSpacing(8)
        bar.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAutoDefault(False)
        self.cancel_button.clicked.connect(self.reject)
        self.save_button = QPushButton("Add server")
        self.save_button.setObjectName("primaryButton")
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.save)
        bar.addWidget(self.cancel_button)
        bar.addWidget(self.save_button)
        outer.addLayout(bar)

    # ------------------------------------------------------------------ showing

    @property
    def kind(self) -> str:
        """:data:`PROGRAM` or :data:`WEB`."""
        return str(self.kind_combo.currentData())

    def _show_kind(self) -> None:
        self.program_box.setVisible(self.kind == PROGRAM)
        self.web_box.setVisible(self.kind == WEB)

    def _show_parsed(self) -> None:
        text = self.command_edit.text()
        try:
            words = split_command_line(text)
        except CommandLineError as error:
            self.parsed_label.hide()
            self._field_error(self.command_edit, self.command_error, str(error))
            return
        self._field_error(self.command_edit, self.command_error, "")
        self.parsed_label.setText(describe_command(words))
        self.parsed_label.setVisible(bool(words))

    def error_for(self, field_name: str) -> str:
        """The error shown on a field ("name", "command", "url", "form"), or ""."""
        label = {
            "name": self.name_error,
            "command": self.command_error,
            "url": self.url_error,
            "form": self.form_error,
        }[field_name]
        return label.text() if not label.isHidden() else ""

    def _field_error(self, editor: QWidget | None, label: QLabel, message: str) -> None:
        label.setText(message)
        label.setVisible(bool(message))
        if editor is not None:
            _mark(editor, bool(message))

    def _clear_errors(self) -> None:
        self._field_error(self.name_edit, self.name_error, "")
        self._field_error(self.url_edit, self.url_error, "")
        self._field_error(None, self.form_error, "")
        self.env_rows.clear_errors()
        self.header_rows.clear_errors()
        self._show_parsed()

    # ------------------------------------------------------------------ saving

    def save(self) -> None:
        """Check what was typed; store the keyring's values; write the server (it starts)."""
        plan = self._plan()
        if plan is not None:
            self.save_button.setEnabled(False)
            self._tasks.run(self._save(plan), "ui-mcp-add-server")

    def _plan(self) -> _Plan | None:
        self._clear_errors()
        first: list[QWidget] = []

        def refuse(editor: QWidget, label: QLabel, message: str) -> None:
            self._field_error(editor, label, message)
            first.append(editor)

        name = self.name_edit.text().strip()
        if not name:
            refuse(
                self.name_edit,
                self.name_error,
                "Give the server a name: it is part of its tools' names for Sammy.",
            )
        elif name in self._mcp.config_file.load().entries:
            refuse(
                self.name_edit,
                self.name_error,
                f"There is already a server called “{name}”. Choose another name, or remove "
                "that one first.",
            )
        secrets: list[tuple[str, str]] = []
        transport: StdioTransport | HttpTransport | None = None
        if self.kind == PROGRAM:
            try:
                words = split_command_line(self.command_edit.text())
            except CommandLineError as error:
                refuse(self.command_edit, self.command_error, str(error))
                words = []
            else:
                if not words:
                    refuse(
                        self.command_edit,
                        self.command_error,
                        "Type the program to start, and its arguments.",
                    )
            values = self._values(self.env_rows, name, secrets, first)
            if words and values is not None:
                transport = StdioTransport(command=words[0], args=tuple(words[1:]), env=values)
        else:
            url = self.url_edit.text().strip()
            if not url:
                refuse(
                    self.url_edit,
                    self.url_error,
                    "Type the server's address, like https://example.com/mcp.",
                )
            values = self._values(self.header_rows, name, secrets, first)
            if url and values is not None:
                transport = HttpTransport(url=url, headers=values)
        if first or transport is None:
            if first:
                first[0].setFocus()
            return None
        entry = server_entry(transport)
        source = self._mcp.config_file.path.name
        checked = parse_server(name, entry, source=source)
        if isinstance(checked, ConfigProblem):
            self._show_problem(checked, name, source)
            return None
        return _Plan(name=name, entry=entry, secrets=secrets)

    def _values(
        self,
        rows: ValueRows,
        server: str,
        secrets: list[tuple[str, str]],
        first: list[QWidget],
    ) -> dict[str, str] | None:
        """The rows as ``env`` or ``headers``; the keyring's values go to ``secrets``."""
        values: dict[str, str] = {}
        forbidden = "=" if rows.kind == "variable" else ":"
        for row in rows.rows:
            if not row.name and not row.value:
                continue
            problem, on_name = "", True
            if not row.name:
                problem = f"Give the {row.kind} a name."
            elif any(ch.isspace() for ch in row.name) or forbidden in row.name:
                problem = f"A {row.kind}'s name cannot have spaces or “{forbidden}” in it."
            elif row.name in values:
                problem = f"“{row.name}” is given twice; keep one."
            elif row.in_keyring and not row.value:
                problem, on_name = "Type the value to keep in the keyring.", False
            elif row.in_keyring and self._secrets is None:
                problem = "There is no keyring here: leave “Keep in the keyring” off."
                on_name = False
            if problem:
                row.show_error(problem, on_name=on_name)
                first.append(row.name_edit if on_name else row.value_edit)
                continue
            if row.in_keyring:
                kept = secret_name(server, row.name)
                secrets.append((kept, row.value))
                values[row.name] = f"{KEYRING_PREFIX}{kept}"
            else:
                values[row.name] = row.value
        return None if first else values

    def _show_problem(self, problem: ConfigProblem, name: str, source: str) -> None:
        """``parse_server``'s sentence on the field it names."""
        message = problem.message.removeprefix(f'{source}, server "{name}": ')
        message = message[:1].upper() + message[1:]
        field_name = problem.field or "name"
        if field_name in ("command", "args"):
            self._field_error(self.command_edit, self.command_error, message)
            self.command_edit.setFocus()
        elif field_name == "url":
            self._field_error(self.url_edit, self.url_error, message)
            self.url_edit.setFocus()
        elif field_name == "name":
            self._field_error(self.name_edit, self.name_error, message)
            self.name_edit.setFocus()
        elif field_name.startswith(("env.", "headers.")):
            rows = self.env_rows if field_name.startswith("env.") else self.header_rows
            row = rows.row_named(field_name.split(".", 1)[1])
            if row is not None:
                row.show_error(message)
                row.value_edit.setFocus()
            else:
                self._field_error(None, self.form_error, message)
        else:
            self._field_error(None, self.form_error, message)

    async def _save(self, plan: _Plan) -> None:
        try:
            await self._write(plan)
        finally:
            self.save_button.setEnabled(True)

    async def _write(self, plan: _Plan) -> None:
        if plan.secrets and self._secrets is not None:
            store = self._secrets
            try:
                for kept, value in plan.secrets:
                    await asyncio.to_thread(store.set_secret, kept, value)
            except (SecretStoreError, ValueError) as error:
                self._field_error(None, self.form_error, f"{error} Nothing was saved.")
                return
        try:
            self._mcp.put_server(plan.name, plan.entry)
        except ValueError as error:
            self._field_error(None, self.form_error, str(error))
            return
        except OSError as error:
            self._field_error(
                None,
                self.form_error,
                f"mcp.json could not be saved: {os_error_reason(error)}. Nothing was added.",
            )
            return
        _log.info("MCP server %r added in Settings", plan.name)
        self.saved.emit(plan.name)
        self.accept()
