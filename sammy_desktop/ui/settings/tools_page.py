"""Settings > Tools: a switch per tool, grouped by category, and what the tools may use.

Each registered tool gets a card with its title ("Open a web page"), what it does in a
sentence for the person (its ``about``; the function name is in the tooltip), a badge
"asks first" when the person must approve every use, "from plugin X" for a plugin's tool
(those start switched off), and a switch; titles and sentences are shown as written,
never as markup (a plugin writes them). "Allowed this session" lists the "always" answers
given on the confirmation sheet, each revocable (:mod:`.session_grants`). A switch applies at
once: it is saved, and the running conversation's tools change mid-session (the page says
whether that reached the live session or waits for the next connection). Under the tools:
the notes folder (opened in the file manager, made first if it does not exist yet), the
generated tool settings (web search, code execution) and the applications the assistant may
open, edited as ``Name = command`` lines (see :mod:`~sammy_desktop.ui.settings.applications`).

The person's MCP servers (``mcp.json``) follow the built-in tools, each as a group of its own
with its status, its confirm policy and a switch per tool, switched as every other tool is
(:mod:`~sammy_desktop.ui.settings.mcp_servers`); their tools are not repeated in the groups
by category.

Code execution is the Live API's own tool, and no Live model offers it today: with a model
that does not, its switch is disabled and the page says why (the sentence comes from the
tool pack, through the ``code_execution_unavailable`` the app passes), and it follows the
model chosen on the Voice & language page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from sammy_desktop.config import Settings
from sammy_desktop.os_errors import os_error_reason
from sammy_desktop.tools.kinds import ToolCategory
from sammy_desktop.tools.mcp.definition import McpToolDefinition
from sammy_desktop.ui.painted import ToggleSwitch
from sammy_desktop.ui.settings.applications import (
    ApplicationListError,
    format_applications,
    parse_applications,
)
from sammy_desktop.ui.settings.fields import text_box
from sammy_desktop.ui.settings.mcp_servers import McpSection
from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection
from sammy_desktop.ui.settings.session_grants import SessionGrantsCard
from sammy_desktop.ui.settings.tool_switch_card import ToolInfo, ToolSwitchCard

if TYPE_CHECKING:
    from sammy_desktop.config.secrets import SecretStore
    from sammy_desktop.core.events import ToolsChanged
    from sammy_desktop.tools.mcp.events import McpConfigRead, McpServerStatusChanged
    from sammy_desktop.tools.mcp.servers import McpServers
    from sammy_desktop.ui.confirmation import QtConfirmationPort
    from sammy_desktop.ui.controls import AgentControls, UiTasks
    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["NotesFolderCard", "ToolCatalog", "ToolInfo", "ToolsPage", "tools_change_timing"]

_log = logging.getLogger(__name__)

_CATEGORY_TITLES: Final = {
    ToolCategory.ACTION: "Actions",
    ToolCategory.CONTEXT: "Context",
    ToolCategory.SYSTEM: "System",
}


class ToolCatalog(Protocol):
    """The registered tools (``ToolManager`` satisfies it)."""

    @property
    def tools(self) -> Sequence[ToolInfo]:
        """Every registered tool."""
        ...

    def is_enabled(self, name: str) -> bool:
        """Whether the model may use ``name`` now."""
        ...

    def plugin_of(self, name: str) -> str | None:
        """The package that installed ``name``, or None when it is not a plugin's."""
        ...


def tools_change_timing(event: ToolsChanged) -> str:
    """When a tool switch reaches Sammy: "now", "after this answer" or at the next connection.

    The running conversation takes a switch in place (``applied_live``), or by reconnecting
    quietly once the answer in progress is over (``after_this_answer``); otherwise the
    change waits for the next connection.
    """
    if event.applied_live:
        return "now"
    if event.after_this_answer:
        return "after this answer"
    return "when Sammy next connects"


class NotesFolderCard(QFrame):
    """Where the notes tools keep their file, with a button that shows it.

    Args:
        folder: the notes folder (``AppPaths.notes_dir``).
        open_folder: shows a folder in the file manager; False when the desktop refused.
        parent: the Qt parent.
    """

    def __init__(
        self, folder: Path, open_folder: Callable[[Path], bool], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._folder = folder
        self._open_folder = open_folder
        self.setObjectName("fieldCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(6)
        row = QHBoxLayout()
        text = QLabel(f"The notes Sammy keeps for you are in {folder}")
        text.setObjectName("fieldDescription")
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.button = QPushButton("Open notes folder")
        self.button.setAccessibleName("Open the notes folder")
        self.button.setAccessibleDescription(str(folder))
        self.button.clicked.connect(lambda: self.open())
        row.addWidget(text, 1)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addLayout(row)
        self.error_label = QLabel("")
        self.error_label.setObjectName("fieldError")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        layout.addWidget(self.error_label)

    def open(self) -> bool:
        """Show the folder in the file manager, creating it first if missing.

        Returns:
            True when the desktop opened it; otherwise the card says why.
        """
        folder = self._folder
        try:
            # Before the first note there is no folder, and file managers refuse a missing one.
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _log.warning("notes folder %s: %s", folder, exc)
            return self._show_error(
                f"The notes folder {folder} could not be made: {os_error_reason(exc)}. Make "
                "it yourself, then try again."
            )
        if not self._open_folder(folder):
            return self._show_error(
                "The desktop did not open the folder. Open it in your file manager: it is "
                f"{folder}."
            )
        self.error_label.hide()
        return True

    def _show_error(self, message: str) -> bool:
        _log.info("notes folder: %s", message)
        self.error_label.setText(message)
        self.error_label.show()
        return False


class ToolsPage(FieldsPage):
    """The tool switches, the MCP servers, the notes folder and the tool settings.

    Args:
        state: the live settings.
        tasks: runs the agent's coroutine that switches a tool mid-session, and the
            keyring's calls.
        tools: the registered tools; the page only has the settings without it.
        controls: the agent, to switch tools mid-session.
        notes_folder: where the notes tools keep their file; no notes card without it.
        open_folder: shows a folder (or ``mcp.json``) on the desktop.
        code_execution_unavailable: why the code execution switch does nothing with a
            model, or None when the model offers it (the pack's
            ``code_execution_unavailable_reason``); without it the switch is always on offer.
        confirmations: the confirmation port, whose "always" answers the page lists.
        mcp: the person's MCP servers; no MCP section without them (MCP unavailable).
        secrets: where Add server keeps a value the person wants in the keyring.
        parent: the Qt parent.
    """

    def __init__(
        self,
        state: SettingsState,
        tasks: UiTasks,
        *,
        open_folder: Callable[[Path], bool],
        tools: ToolCatalog | None = None,
        controls: AgentControls | None = None,
        notes_folder: Path | None = None,
        code_execution_unavailable: Callable[[str], str | None] | None = None,
        confirmations: QtConfirmationPort | None = None,
        mcp: McpServers | None = None,
        secrets: SecretStore | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(SettingsSection.TOOLS, state, parent)
        self._tasks = tasks
        self._tools = tools
        self._controls = controls
        self._code_execution_unavailable = code_execution_unavailable
        self.tool_switches: dict[str, ToggleSwitch] = {}
        """Each built-in or plugin tool's switch, by tool name (MCP tools: :attr:`mcp`)."""
        self.plugin_labels: dict[str, QLabel] = {}
        """The "from plugin X" label of each plugin's tool, by tool name."""
        self.session_grants: SessionGrantsCard | None = None
        """The "Allowed this session" list (with a confirmation port only)."""
        self.tools_status: QLabel | None = None
        """Whether the last switch reached the running conversation (with tools only)."""
        self.notes_folder: NotesFolderCard | None = None
        """The notes folder's card, when there is a notes folder."""
        self.mcp: McpSection | None = None
        """The MCP servers' groups (with MCP servers only)."""
        own_tools = [
            tool
            for tool in (tools.tools if tools is not None else ())
            if not isinstance(tool, McpToolDefinition)
        ]
        if tools is None or not own_tools:
            self.add_note("No tools are registered.")
            self._add_mcp(mcp, secrets, open_folder)
            self._add_notes_folder(notes_folder, open_folder)
        else:
            self._add_tool_cards(own_tools, tools)
            self._add_mcp(mcp, secrets, open_folder)
            if confirmations is not None:
                self.add_group_title("Allowed this session")
                self.session_grants = SessionGrantsCard(confirmations)
                self.body.addWidget(self.session_grants)
            self._add_notes_folder(notes_folder, open_folder)
            self.add_group_title("More")
        self.add_generated()
        self.code_execution_note = QLabel("")
        """Why the code execution switch is off limits with the chosen model (hidden if not)."""
        self.code_execution_note.setObjectName("fieldDescription")
        self.code_execution_note.setWordWrap(True)
        self.code_execution_note.hide()
        self.cards["code_execution"].add_below(self.code_execution_note)
        self._show_code_execution(self.settings.model)
        state.changed.connect(self.on_settings_changed)
        self._add_applications()

    def _add_tool_cards(self, own_tools: Sequence[ToolInfo], tools: ToolCatalog) -> None:
        self.add_note(
            "Switch a tool off and the assistant stops using it at once, even mid-"
            "conversation. Tools marked “asks first” wait for your approval each time."
        )
        self.tools_status = QLabel("")
        self.tools_status.setObjectName("fieldDescription")
        self.tools_status.setAccessibleName("Tool changes")
        self.tools_status.hide()
        self.body.addWidget(self.tools_status)
        by_category: dict[ToolCategory, list[ToolInfo]] = {}
        for tool in own_tools:
            by_category.setdefault(tool.category, []).append(tool)
        for category in sorted(by_category, key=list(ToolCategory).index):
            self.add_group_title(_CATEGORY_TITLES.get(category, str(category).capitalize()))
            for tool in by_category[category]:
                self.body.addWidget(self._tool_card(tool, tools))

    def _tool_card(self, tool: ToolInfo, catalog: ToolCatalog) -> ToolSwitchCard:
        card = ToolSwitchCard(
            tool,
            enabled=catalog.is_enabled(tool.name),
            on_toggled=self.set_tool_enabled,
            plugin=catalog.plugin_of(tool.name),
        )
        if card.plugin_label is not None:
            self.plugin_labels[tool.name] = card.plugin_label
        self.tool_switches[tool.name] = card.switch
        return card

    def _add_mcp(
        self,
        mcp: McpServers | None,
        secrets: SecretStore | None,
        open_folder: Callable[[Path], bool],
    ) -> None:
        if mcp is None:
            return
        self.mcp = McpSection(
            mcp,
            self._tasks,
            secrets=secrets,
            is_enabled=self._is_enabled,
            set_tool_enabled=self.set_tool_enabled,
            open_file=open_folder,
            guard=self.wheel_guard.guard,
        )
        self.body.addWidget(self.mcp)

    def _is_enabled(self, name: str) -> bool:
        if self._tools is not None:
            return self._tools.is_enabled(name)
        return self.settings.is_tool_enabled(name)

    def _add_notes_folder(self, folder: Path | None, open_folder: Callable[[Path], bool]) -> None:
        if folder is None:
            return
        self.add_group_title("Notes")
        self.notes_folder = NotesFolderCard(folder, open_folder)
        self.body.addWidget(self.notes_folder)

    def _add_applications(self) -> None:
        box = text_box(format_applications(self.settings.allowed_applications), self._apply_text)
        box.setPlaceholderText("Calculator = gnome-calculator\nText editor = gedit --new-window")
        self.add_card("allowed_applications", box)

    def _apply_text(self, text: object) -> None:
        self.apply_applications(str(text))

    def set_tool_enabled(self, name: str, on: bool) -> None:
        """Save a tool switch and apply it to the running session at once."""
        enabled = dict(self.settings.enabled_tools)
        enabled[name] = on
        if not self.apply("enabled_tools", enabled):
            return
        if self._controls is not None:
            self._tasks.run(self._controls.set_tool_enabled(name, on), f"ui-tool-{name}")

    def open_notes_folder(self) -> bool:
        """Show the notes folder in the file manager (see :meth:`NotesFolderCard.open`).

        Returns:
            True when the desktop opened it; False without a notes folder, or when the
            folder could not be made or opened (the card then says why).
        """
        return self.notes_folder.open() if self.notes_folder is not None else False

    def apply_applications(self, text: str) -> bool:
        """Read the applications list (``Name = command`` lines) and apply it."""
        card = self.cards["allowed_applications"]
        try:
            applications = parse_applications(text)
        except ApplicationListError as exc:
            why = str(exc)
            card.show_error(f"{card.title} was not changed. {why[:1].upper()}{why[1:]}.")
            return False
        return self.apply("allowed_applications", applications)

    def on_settings_changed(self, settings: Settings, names: frozenset[str]) -> None:
        """A new model may or may not offer code execution."""
        if "model" in names:
            self._show_code_execution(settings.model)

    def _show_code_execution(self, model: str) -> None:
        card = self.cards["code_execution"]
        why = self._code_execution_unavailable(model) if self._code_execution_unavailable else None
        description = Settings.model_fields["code_execution"].description or ""
        card.editor.setEnabled(why is None)
        card.editor.setToolTip(why or description)
        card.editor.setAccessibleDescription(why or description)
        self.code_execution_note.setText(why or "")
        self.code_execution_note.setVisible(why is not None)

    def on_tools_changed(self, event: ToolsChanged) -> None:
        """Say whether the last switch reached the running conversation."""
        if self.tools_status is None or event.source is not None:
            return  # tools an MCP server brought or took: no switch of the person's
        self.tools_status.setText(f"Saved; applies {tools_change_timing(event)}.")
        self.tools_status.show()

    def on_mcp_status(self, event: McpServerStatusChanged) -> None:
        """An MCP server's status changed: its group follows."""
        if self.mcp is not None:
            self.mcp.on_status(event)

    def on_mcp_config_read(self, event: McpConfigRead) -> None:
        """``mcp.json`` was read again: the MCP groups and the file's problems follow."""
        del event  # the servers object holds what was read
        if self.mcp is not None:
            self.mcp.refresh()
