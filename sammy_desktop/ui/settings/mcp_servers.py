"""Settings > Tools, MCP servers: a group per server of ``mcp.json``, its status and its tools.

Each usable server of ``mcp.json`` is a group like the built-in tools' groups: a card with
its status in words and a coloured dot (starting, ready with N tools, failed with the reason,
restarting in N s, stopped), where it runs (the command line or the address, never a
secret), when its calls are confirmed first (a list: :data:`CONFIRM_CHOICES`), Restart, and
Remove (which asks first), and the problems with its tools (a schema the Live API cannot
take, a renamed tool); then a card with a switch for each of its tools, switched as every
other tool is (so a running conversation takes the change).

Above the groups: what is wrong in ``mcp.json`` (each problem names the server and the
field; "Open mcp.json" shows the file; the other servers still show), a one-line invitation
when there are no servers, and "Add server…" (:mod:`.mcp_add_dialog`) and "Import from
Claude Desktop" (:mod:`.mcp_import`). Everything follows :class:`McpServerStatusChanged` and
:class:`McpConfigRead` (through the bridge) and the changes made here.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.os_errors import os_error_reason
from sammy_desktop.tools.mcp.config import (
    ConfirmPolicy,
    ServerConfig,
    StdioTransport,
    claude_desktop_config_path,
    merge_servers,
)
from sammy_desktop.tools.mcp.events import McpServerStatusChanged, ServerStatus
from sammy_desktop.ui.painted import StateDot, ToggleSwitch
from sammy_desktop.ui.settings.mcp_add_dialog import AddServerDialog
from sammy_desktop.ui.settings.mcp_import import (
    ImportClashDialog,
    ImportResult,
    read_claude_servers,
    resolve_import,
)
from sammy_desktop.ui.settings.tool_switch_card import ToolSwitchCard
from sammy_desktop.ui.wrapping import WrappingLabel

if TYPE_CHECKING:
    from sammy_desktop.config.secrets import SecretStore
    from sammy_desktop.tools.mcp.config import ConfigProblem
    from sammy_desktop.tools.mcp.definition import McpToolDefinition
    from sammy_desktop.tools.mcp.servers import McpServers
    from sammy_desktop.ui.controls import UiTasks
    from sammy_desktop.ui.settings.mcp_import import ClashChoice

__all__ = [
    "CONFIRM_CHOICES",
    "MCP_INVITATION",
    "McpProblemsCard",
    "McpSection",
    "McpServerCard",
    "McpServerGroup",
    "status_reason",
    "status_words",
]

_log = logging.getLogger(__name__)

MCP_INVITATION: Final = (
    "MCP servers give Sammy more tools: programs on this computer or services on the web "
    "that speak the Model Context Protocol."
)

CONFIRM_CHOICES: Final = (
    (ConfirmPolicy.UNLESS_READ_ONLY, "Ask before anything that may change things"),
    (ConfirmPolicy.ALWAYS, "Always ask"),
    (ConfirmPolicy.NEVER, "Never ask"),
)
"""The confirm policies in the order the list offers them, each in words."""

_STATUS_TONES: Final = {
    ServerStatus.STARTING: "thinking",
    ServerStatus.READY: "speaking",
    ServerStatus.FAILED: "error",
    ServerStatus.RESTARTING: "thinking",
    ServerStatus.STOPPED: "idle",
}


def _tools(count: int) -> str:
    return "1 tool" if count == 1 else f"{count} tools"


def _sentence(text: str) -> str:
    """``text`` with a capital first letter and a full stop (a reason is a phrase)."""
    text = text.strip()
    if not text:
        return ""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def status_words(status: McpServerStatusChanged | None, remaining_s: float | None = None) -> str:
    """The server's status in a few words ("Ready with 2 tools", "Restarting in 4 s").

    Args:
        status: its last status, or None before it has one.
        remaining_s: for a server restarting, the seconds left before it starts again
            (its ``retry_in_s`` when None).
    """
    if status is None:
        return "Waiting to start"
    match status.status:
        case ServerStatus.STARTING:
            return "Starting…"
        case ServerStatus.READY:
            count = len(status.tools)
            return f"Ready with {_tools(count)}" if count else "Ready, with no tools"
        case ServerStatus.FAILED:
            return "Failed"
        case ServerStatus.RESTARTING:
            left = status.retry_in_s if remaining_s is None else remaining_s
            seconds = math.ceil(left) if left is not None else 0
            return f"Restarting in {seconds} s" if seconds > 0 else "Restarting now…"
        case _:
            return "Stopped"


def status_reason(status: McpServerStatusChanged | None) -> str:
    """Why it failed or restarts, as a sentence ("" when there is nothing to say)."""
    if status is None or status.status not in (ServerStatus.FAILED, ServerStatus.RESTARTING):
        return ""
    return _sentence(status.detail)


def _where(config: ServerConfig) -> str:
    transport = config.transport
    if isinstance(transport, StdioTransport):
        return f"Runs {transport.describe()}"
    return f"At {transport.describe()}"


def _shown_title(tool: McpToolDefinition) -> str:
    """The tool's title without " (server)": its group names the server already."""
    suffix = f" ({tool.server})"
    return tool.title.removesuffix(suffix) if tool.title.endswith(suffix) else tool.title


def _label(text: str, name: str) -> WrappingLabel:
    label = WrappingLabel(text)
    label.setObjectName(name)
    return label


class McpServerCard(QFrame):
    """One server's status, where it runs, its confirm policy, Restart and Remove.

    Args:
        name: the server's name in ``mcp.json``.
        on_restart: starts it again.
        on_remove: removes it from ``mcp.json`` (called once the person said yes).
        on_confirm: changes its confirm policy.
        parent: the Qt parent.
    """

    def __init__(
        self,
        name: str,
        *,
        on_restart: Callable[[], None],
        on_remove: Callable[[], None],
        on_confirm: Callable[[ConfirmPolicy], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.name = name
        self._on_remove = on_remove
        self._on_confirm = on_confirm
        self._status: McpServerStatusChanged | None = None
        self._restart_at: float | None = None
        self.setObjectName("fieldCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(6)

        top = QHBoxLayout()
        top.setSpacing(8)
        self.dot = StateDot(self)
        """The status's colour, always beside its words."""
        self.status_label = QLabel("")
        """The status in words."""
        self.status_label.setObjectName("fieldTitle")
        self.restart_button = QPushButton("Restart")
        self.restart_button.setAccessibleName(f"Restart the MCP server {name}")
        self.restart_button.clicked.connect(lambda: on_restart())
        self.remove_button = QPushButton("Remove…")
        self.remove_button.setObjectName("dangerButton")
        self.remove_button.setAccessibleName(f"Remove the MCP server {name}")
        self.remove_button.clicked.connect(self.ask_remove)
        top.addWidget(self.dot, 0, Qt.AlignmentFlag.AlignVCenter)
        top.addWidget(self.status_label, 1)
        top.addWidget(self.restart_button, 0, Qt.AlignmentFlag.AlignVCenter)
        top.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addLayout(top)

        self.where_label = _label("", "fieldDescription")
        """The command line or the address (never a secret)."""
        self.where_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.where_label)
        self.failure_label = _label("", "fieldError")
        """Why it failed."""
        self.failure_label.hide()
        layout.addWidget(self.failure_label)
        self.reason_label = _label("", "fieldDescription")
        """Why it is restarting."""
        self.reason_label.hide()
        layout.addWidget(self.reason_label)

        confirm_row = QHBoxLayout()
        confirm_row.setSpacing(8)
        confirm_title = QLabel("Ask first")
        self.confirm_combo = QComboBox()
        """When a call of its tools waits for the person's yes."""
        for policy, words in CONFIRM_CHOICES:
            self.confirm_combo.addItem(words, policy)
        self.confirm_combo.setAccessibleName(f"When the MCP server {name} asks first")
        self.confirm_combo.setAccessibleDescription(
            "Before anything that may change things: tools the server marks read-only run "
            "without asking."
        )
        self.confirm_combo.currentIndexChanged.connect(self._on_confirm_chosen)
        confirm_title.setBuddy(self.confirm_combo)
        confirm_row.addWidget(confirm_title)
        confirm_row.addWidget(self.confirm_combo, 1)
        layout.addLayout(confirm_row)

        self.tool_problems_box = QVBoxLayout()
        self.tool_problems_box.setSpacing(4)
        layout.addLayout(self.tool_problems_box)
        self.tool_problem_labels: list[QLabel] = []
        """One label per problem with its tools."""

        self.remove_question = _label(
            f"Remove “{name}” from mcp.json? Sammy stops it, and its tools go at once.",
            "fieldDescription",
        )
        self.confirm_remove_button = QPushButton("Remove server")
        self.confirm_remove_button.setObjectName("dangerButton")
        self.confirm_remove_button.setAccessibleName(f"Remove the MCP server {name} now")
        self.confirm_remove_button.clicked.connect(self._remove_confirmed)
        self.cancel_remove_button = QPushButton("Cancel")
        self.cancel_remove_button.setAccessibleName(f"Keep the MCP server {name}")
        self.cancel_remove_button.clicked.connect(self.cancel_remove)
        question_buttons = QHBoxLayout()
        question_buttons.addWidget(self.confirm_remove_button)
        question_buttons.addWidget(self.cancel_remove_button)
        question_buttons.addStretch(1)
        layout.addWidget(self.remove_question)
        layout.addLayout(question_buttons)
        self._show_question(False)

        self.error_label = _label("", "fieldError")
        """What went wrong with the last change made here."""
        self.error_label.hide()
        layout.addWidget(self.error_label)

        self._countdown = QTimer(self)
        self._countdown.setInterval(1000)
        self._countdown.timeout.connect(self._show_status)

    # ------------------------------------------------------------------ what it shows

    @property
    def status_text(self) -> str:
        """The status words shown."""
        return self.status_label.text()

    @property
    def confirm_policy(self) -> ConfirmPolicy:
        """The policy the list shows."""
        return ConfirmPolicy(self.confirm_combo.currentData())

    def set_config(self, config: ServerConfig) -> None:
        """Show where it runs and its confirm policy as ``mcp.json`` says now."""
        self.where_label.setText(_where(config))
        policies = [policy for policy, _words in CONFIRM_CHOICES]
        self.confirm_combo.blockSignals(True)
        self.confirm_combo.setCurrentIndex(policies.index(config.confirm))
        self.confirm_combo.blockSignals(False)

    def set_status(self, status: McpServerStatusChanged | None, *, can_restart: bool) -> None:
        """Show its last status."""
        self._status = status
        restarting = status is not None and status.status is ServerStatus.RESTARTING
        if restarting and status is not None and status.retry_in_s is not None:
            self._restart_at = time.monotonic() + status.retry_in_s
            self._countdown.start()
        else:
            self._restart_at = None
            self._countdown.stop()
        self.restart_button.setEnabled(can_restart)
        self._show_status()

    def _show_status(self) -> None:
        status = self._status
        remaining = None
        if self._restart_at is not None:
            remaining = max(0.0, self._restart_at - time.monotonic())
            if remaining <= 0:
                self._countdown.stop()
        words = status_words(status, remaining)
        self.status_label.setText(words)
        self.dot.set_tone(_STATUS_TONES[status.status] if status is not None else "idle")
        reason = status_reason(status)
        failed = status is not None and status.status is ServerStatus.FAILED
        self.failure_label.setText(reason)
        self.failure_label.setVisible(failed and bool(reason))
        self.reason_label.setText(reason)
        self.reason_label.setVisible(not failed and bool(reason))
        spoken = f"{words}. {reason}" if reason else words
        self.setAccessibleName(f"MCP server {self.name}: {spoken}")
        self.status_label.setAccessibleName(f"Status: {spoken}")

    def set_tool_problems(self, problems: Sequence[str]) -> None:
        """List what is wrong with its tools (each a sentence)."""
        if [label.text() for label in self.tool_problem_labels] == list(problems):
            return
        for label in self.tool_problem_labels:
            label.deleteLater()
        self.tool_problem_labels = []
        for problem in problems:
            label = _label(problem, "fieldError")
            self.tool_problems_box.addWidget(label)
            self.tool_problem_labels.append(label)

    def show_error(self, message: str) -> None:
        """Say what went wrong with a change made here ("" hides it)."""
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))

    # ------------------------------------------------------------------ remove

    @property
    def asking_to_remove(self) -> bool:
        """Whether "Remove …?" is asked now."""
        return not self.remove_question.isHidden()

    def ask_remove(self) -> None:
        """Ask first: Remove server / Cancel, with Cancel focused."""
        self._show_question(True)
        # Cancel has the focus: Space or Enter must not remove it by accident.
        self.cancel_remove_button.setFocus()

    def cancel_remove(self) -> None:
        """Nothing is removed."""
        self._show_question(False)
        self.remove_button.setFocus()

    def _remove_confirmed(self) -> None:
        self._show_question(False)
        self._on_remove()

    def _show_question(self, asking: bool) -> None:
        self.remove_question.setVisible(asking)
        self.confirm_remove_button.setVisible(asking)
        self.cancel_remove_button.setVisible(asking)
        self.remove_button.setEnabled(not asking)

    def _on_confirm_chosen(self, index: int) -> None:
        self._on_confirm(ConfirmPolicy(self.confirm_combo.itemData(index)))

    def focus_chain(self) -> list[QWidget]:
        """Its focusable widgets in the order they are seen."""
        return [
            self.restart_button,
            self.remove_button,
            self.confirm_combo,
            self.confirm_remove_button,
            self.cancel_remove_button,
        ]


class McpServerGroup(QWidget):
    """One server: a group title, its card, and a switch per tool.

    Args:
        config: the server's entry.
        card: its status card.
        parent: the Qt parent.
    """

    def __init__(
        self, config: ServerConfig, card: McpServerCard, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.name = config.name
        self.card = card
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
        layout.addSpacing(6)
        self.title = QLabel(f"MCP server “{config.name}”")
        self.title.setObjectName("groupTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.title)
        layout.addWidget(card)
        self._tools_box = QVBoxLayout()
        self._tools_box.setSpacing(10)
        layout.addLayout(self._tools_box)
        self.tool_cards: dict[str, ToolSwitchCard] = {}
        """Each tool's card, by the name it is declared under."""
        self._shown: tuple[tuple[str, str, str, bool], ...] = ()
        card.set_config(config)

    @property
    def tool_switches(self) -> dict[str, ToggleSwitch]:
        """Each tool's switch, by the name it is declared under."""
        return {name: card.switch for name, card in self.tool_cards.items()}

    def set_tools(
        self,
        tools: Sequence[McpToolDefinition],
        is_enabled: Callable[[str], bool],
        on_toggled: Callable[[str, bool], None],
    ) -> bool:
        """Show ``tools``; the cards shown stay when the tools did not change.

        Returns:
            True when cards were made anew.
        """
        shown = tuple(
            (tool.name, tool.title, tool.about_for_people, tool.asks_first) for tool in tools
        )
        if shown == self._shown:
            for name, card in self.tool_cards.items():
                card.switch.blockSignals(True)
                card.switch.setChecked(is_enabled(name))
                card.switch.blockSignals(False)
            return False
        for card in self.tool_cards.values():
            card.hide()
            card.deleteLater()
        self.tool_cards = {}
        for tool in tools:
            card = ToolSwitchCard(
                tool,
                enabled=is_enabled(tool.name),
                on_toggled=on_toggled,
                title=_shown_title(tool),
            )
            self._tools_box.addWidget(card)
            self.tool_cards[tool.name] = card
        self._shown = shown
        return True

    def focus_chain(self) -> list[QWidget]:
        """Its focusable widgets in the order they are seen."""
        return [*self.card.focus_chain(), *(card.switch for card in self.tool_cards.values())]


class McpProblemsCard(QFrame):
    """What in ``mcp.json`` could not be used, with buttons that open it and read it again.

    Args:
        path: ``mcp.json``.
        open_file: hands a file or folder to the desktop; False when it refused.
        on_reload: reads ``mcp.json`` again (once the person fixed it).
        parent: the Qt parent.
    """

    def __init__(
        self,
        path: Path,
        open_file: Callable[[Path], bool],
        on_reload: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._path = path
        self._open_file = open_file
        self.setObjectName("fieldCard")
        self.setAccessibleName("Problems in mcp.json")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(6)
        self.title = QLabel("Some of mcp.json could not be used")
        self.title.setObjectName("fieldTitle")
        layout.addWidget(self.title)
        self._problems_box = QVBoxLayout()
        self._problems_box.setSpacing(4)
        layout.addLayout(self._problems_box)
        self.problem_labels: list[QLabel] = []
        """One label per problem, each naming the server and the field."""
        hint = _label(
            "The other servers run as usual. Fix the file, then read it again.",
            "fieldDescription",
        )
        layout.addWidget(hint)
        row = QHBoxLayout()
        self.open_button = QPushButton("Open mcp.json")
        self.open_button.setAccessibleName("Open mcp.json")
        self.open_button.setAccessibleDescription(str(path))
        self.open_button.clicked.connect(lambda: self.open())
        self.reload_button = QPushButton("Read it again")
        self.reload_button.setAccessibleName("Read mcp.json again")
        self.reload_button.clicked.connect(lambda: on_reload())
        row.addWidget(self.open_button)
        row.addWidget(self.reload_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.error_label = _label("", "fieldError")
        self.error_label.hide()
        layout.addWidget(self.error_label)

    def set_problems(self, problems: Sequence[ConfigProblem]) -> None:
        """List ``problems``; the card hides when there are none."""
        messages = [problem.message for problem in problems]
        if [label.text() for label in self.problem_labels] != messages:
            for label in self.problem_labels:
                label.deleteLater()
            self.problem_labels = []
            for message in messages:
                label = _label(message, "fieldError")
                self._problems_box.addWidget(label)
                self.problem_labels.append(label)
        self.setVisible(bool(messages))

    def open(self) -> bool:
        """Show ``mcp.json`` (its folder when there is no file); False when the desktop refused."""
        target = self._path if self._path.exists() else self._path.parent
        if self._open_file(target):
            self.error_label.hide()
            return True
        _log.info("the desktop did not open %s", target)
        self.error_label.setText(f"The desktop did not open it. The file is {self._path}.")
        self.error_label.show()
        return False


class McpSection(QWidget):
    """The MCP part of Settings > Tools.

    Args:
        mcp: the MCP servers (``mcp.json`` and the running servers).
        tasks: runs the keyring's calls off the loop (Add server).
        secrets: where "Keep in the keyring" stores a value; None offers no keyring.
        is_enabled: whether a tool is switched on now.
        set_tool_enabled: switches a tool, saved and applied mid-session (the page's).
        open_file: hands ``mcp.json`` to the desktop.
        guard: keeps the mouse wheel for the page over the lists it makes (the page's
            ``wheel_guard.guard``).
        claude_config: Claude Desktop's settings file; where Claude Desktop keeps it on
            this system when None.
        parent: the Qt parent.
    """

    def __init__(
        self,
        mcp: McpServers,
        tasks: UiTasks,
        *,
        secrets: SecretStore | None,
        is_enabled: Callable[[str], bool],
        set_tool_enabled: Callable[[str, bool], None],
        open_file: Callable[[Path], bool],
        guard: Callable[[QWidget], None] = lambda _widget: None,
        claude_config: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._mcp = mcp
        self._tasks = tasks
        self._secrets = secrets
        self._is_enabled = is_enabled
        self._set_tool_enabled = set_tool_enabled
        self._guard = guard
        self._claude_config = claude_config
        self.groups: dict[str, McpServerGroup] = {}
        """Each usable server's group, by name, in the file's order."""
        self.add_dialog: AddServerDialog | None = None
        """The Add server dialog while it is open."""
        self.import_dialog: ImportClashDialog | None = None
        """The question about clashing names while it is asked."""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
        layout.addSpacing(6)
        title = QLabel("MCP servers")
        title.setObjectName("groupTitle")
        layout.addWidget(title)
        self.invitation = _label(MCP_INVITATION, "fieldDescription")
        """The one line shown while there are no servers."""
        layout.addWidget(self.invitation)
        self.problems_card = McpProblemsCard(mcp.config_file.path, open_file, self.reload)
        self.problems_card.hide()
        layout.addWidget(self.problems_card)
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add server…")
        self.add_button.setAccessibleName("Add an MCP server")
        self.add_button.clicked.connect(self.open_add_dialog)
        self.import_button = QPushButton("Import from Claude Desktop")
        self.import_button.setAccessibleName("Import MCP servers from Claude Desktop")
        self.import_button.clicked.connect(self.import_from_claude)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.import_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.note = _label("", "fieldDescription")
        """What the last Add or Import did."""
        self.note.setAccessibleName("MCP servers changed")
        self.note.hide()
        layout.addWidget(self.note)
        self.error = _label("", "fieldError")
        """Why the last Add, Import or change could not be done."""
        self.error.hide()
        layout.addWidget(self.error)
        self._groups_box = QVBoxLayout()
        self._groups_box.setSpacing(10)
        layout.addLayout(self._groups_box)
        self.refresh()

    # ------------------------------------------------------------------ showing

    def refresh(self) -> None:
        """Show ``mcp.json`` as last read, each server with its last status and tools."""
        config = self._mcp.config
        self.invitation.setVisible(not config.entries)
        self.problems_card.set_problems(config.problems)
        wanted = [server.name for server in config.servers]
        for name in [name for name in self.groups if name not in wanted]:
            gone = self.groups.pop(name)
            gone.hide()
            self._groups_box.removeWidget(gone)
            gone.deleteLater()
        for server in config.servers:
            known = self.groups.get(server.name)
            if known is None:
                self.groups[server.name] = self._new_group(server)
            else:
                known.card.set_config(server)
        self.groups = {name: self.groups[name] for name in wanted}
        for index, name in enumerate(wanted):
            group = self.groups[name]
            if self._groups_box.indexOf(group) != index:
                self._groups_box.removeWidget(group)
                self._groups_box.insertWidget(index, group)
        for name in wanted:
            self._show_server(name)
        self._order_focus()

    def _new_group(self, server: ServerConfig) -> McpServerGroup:
        name = server.name
        card = McpServerCard(
            name,
            on_restart=lambda: self.restart(name),
            on_remove=lambda: self.remove(name),
            on_confirm=lambda policy: self.set_confirm(name, policy),
        )
        group = McpServerGroup(server, card, self)
        self._guard(group)
        return group

    def _show_server(self, name: str) -> None:
        group = self.groups[name]
        group.card.set_status(
            self._mcp.status_of(name), can_restart=self._mcp.server(name) is not None
        )
        group.card.set_tool_problems(self._mcp.tool_problems(name))
        if group.set_tools(self._mcp.tools_of(name), self._is_enabled, self._set_tool_enabled):
            self._order_focus()

    def _order_focus(self) -> None:
        """Tab goes through the groups in the order they show, after Import."""
        previous: QWidget = self.import_button
        for name in self.groups:
            for widget in self.groups[name].focus_chain():
                QWidget.setTabOrder(previous, widget)
                previous = widget

    def on_status(self, event: McpServerStatusChanged) -> None:
        """A server's status changed: its card, its tools and their problems follow."""
        if event.server in self.groups:
            self._show_server(event.server)
        elif self._mcp.config.server(event.server) is not None:
            self.refresh()

    # ------------------------------------------------------------------ changes

    def _say(self, note: str = "", error: str = "") -> None:
        self.note.setText(note)
        self.note.setVisible(bool(note))
        self.error.setText(error)
        self.error.setVisible(bool(error))
        if error:
            _log.info("MCP settings: %s", error)

    def _change_failed(self, error: Exception) -> str:
        if isinstance(error, OSError):
            return f"mcp.json could not be saved: {os_error_reason(error)}."
        return str(error)

    def reload(self) -> None:
        """Read ``mcp.json`` again (the person fixed it in an editor); servers follow."""
        self._mcp.reload()
        self.refresh()

    def restart(self, name: str) -> None:
        """Start the server again now."""
        self._mcp.restart(name)

    def remove(self, name: str) -> None:
        """Remove the server from ``mcp.json``; it stops and its tools go."""
        group = self.groups.get(name)
        focused = QApplication.focusWidget()
        had_focus = group is not None and focused is not None and group.isAncestorOf(focused)
        try:
            self._mcp.remove_server(name)
        except (ValueError, OSError) as error:
            if group is not None:
                group.card.show_error(self._change_failed(error))
            return
        self.refresh()
        self._say(f"Removed “{name}”.")
        if had_focus:
            self.add_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def set_confirm(self, name: str, policy: ConfirmPolicy) -> None:
        """Change when the server's calls are confirmed first; its tools follow at once."""
        group = self.groups.get(name)
        try:
            self._mcp.set_confirm(name, policy)
        except (ValueError, OSError) as error:
            if group is not None:
                group.card.show_error(self._change_failed(error))
            self.refresh()  # the list shows what the file still says
            return
        if group is not None:
            group.card.show_error("")
        self.refresh()

    def open_add_dialog(self) -> AddServerDialog:
        """Open Add server (the one already open, if it is)."""
        if self.add_dialog is None:
            dialog = AddServerDialog(self._mcp, self._tasks, secrets=self._secrets, parent=self)
            dialog.saved.connect(self._on_server_added)
            dialog.finished.connect(self._on_add_dialog_finished)
            self.add_dialog = dialog
        self.add_dialog.open()
        return self.add_dialog

    def _on_add_dialog_finished(self, _result: int) -> None:
        dialog, self.add_dialog = self.add_dialog, None
        if dialog is not None:
            dialog.deleteLater()

    def _on_server_added(self, name: str) -> None:
        self.refresh()
        self._say(f"Added “{name}”. Sammy is starting it; its tools appear here once it is ready.")

    def import_from_claude(self) -> None:
        """Read Claude Desktop's servers; ask about clashing names; write the merge."""
        path = self._claude_config or claude_desktop_config_path()
        theirs = read_claude_servers(path)
        if isinstance(theirs, str):
            self._say(error=theirs)
            return
        ours = dict(self._mcp.config_file.load().entries)
        merged, clashes = merge_servers(ours, theirs)
        if not clashes:
            self._finish_import(ours, theirs, merged, {})
            return
        dialog = ImportClashDialog(clashes, ours, theirs, parent=self)
        dialog.accepted.connect(lambda: self._finish_import(ours, theirs, merged, dialog.choices()))
        dialog.finished.connect(self._on_import_dialog_finished)
        self.import_dialog = dialog
        dialog.open()

    def _on_import_dialog_finished(self, result: int) -> None:
        dialog, self.import_dialog = self.import_dialog, None
        if dialog is not None:
            dialog.deleteLater()
        if result != ImportClashDialog.DialogCode.Accepted:
            self._say("Nothing was imported.")

    def _finish_import(
        self,
        ours: dict[str, object],
        theirs: dict[str, object],
        merged: dict[str, object],
        choices: dict[str, ClashChoice],
    ) -> None:
        result: ImportResult = resolve_import(ours, theirs, merged, choices)
        if not result.added and not result.replaced:
            self._say("Nothing new: Sammy already has every server Claude Desktop has.")
            return
        try:
            self._mcp.import_servers(result.servers)
        except (ValueError, OSError) as error:
            self._say(error=f"Nothing was imported. {self._change_failed(error)}")
            return
        self.refresh()
        self._say(result.summary())
