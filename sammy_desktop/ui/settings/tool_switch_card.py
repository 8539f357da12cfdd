"""One tool on Settings > Tools: its title, what it does for the person, badges and a switch.

The card shows the tool's title ("Open a web page"), its sentence for the person (the
function name is in the tooltip), "from plugin X" for a plugin's tool, "asks first" when the
person approves every use, and a switch. Titles and sentences are shown as written, never
as markup: a plugin or an MCP server writes them. The built-in tools' groups and each MCP
server's group use the same card.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from sammy_desktop.tools.kinds import ToolCategory
from sammy_desktop.ui.painted import ToggleSwitch

__all__ = ["ToolInfo", "ToolSwitchCard"]


class ToolInfo(Protocol):
    """What the tools page shows of a tool (``ToolDefinition`` satisfies it)."""

    @property
    def name(self) -> str:
        """The function name."""
        ...

    @property
    def title(self) -> str:
        """What the person calls it ("Open a web page")."""
        ...

    @property
    def about_for_people(self) -> str:
        """What it does, in a sentence for the person."""
        ...

    @property
    def category(self) -> ToolCategory:
        """Action, context or system."""
        ...

    @property
    def asks_first(self) -> bool:
        """Whether the person is asked before it acts."""
        ...


class ToolSwitchCard(QFrame):
    """A tool's card with its switch.

    Args:
        tool: the tool shown.
        enabled: whether it is switched on now.
        on_toggled: called with the tool's name and the new position of its switch.
        plugin: the package that installed it, for a plugin's tool ("from plugin X").
        title: what to call it when not its own title (an MCP server's group leaves the
            server's name out of its tools' titles).
        parent: the Qt parent.
    """

    def __init__(
        self,
        tool: ToolInfo,
        *,
        enabled: bool,
        on_toggled: Callable[[str, bool], None],
        plugin: str | None = None,
        title: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.tool_name = tool.name
        shown_title = title or tool.title
        self.setObjectName("settingsToolCard")
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 12, 14, 12)
        text = QVBoxLayout()
        text.setSpacing(4)
        top = QHBoxLayout()
        top.setSpacing(8)
        name = QLabel(shown_title)
        name.setObjectName("fieldTitle")
        name.setTextFormat(Qt.TextFormat.PlainText)
        name.setToolTip(f"Sammy calls it {tool.name}")
        top.addWidget(name)
        self.plugin_label: QLabel | None = None
        """The "from plugin X" badge, for a plugin's tool."""
        if plugin is not None:
            origin = QLabel(f"from plugin {plugin}")
            origin.setObjectName("badge")
            origin.setTextFormat(Qt.TextFormat.PlainText)
            origin.setToolTip(
                "Installed with the package " + plugin + ", not part of Sammy. Its tools start "
                "switched off."
            )
            top.addWidget(origin)
            self.plugin_label = origin
        self.asks_first_label: QLabel | None = None
        """The "asks first" badge, when the person approves every use."""
        if tool.asks_first:
            badge = QLabel("asks first")
            badge.setObjectName("badge")
            badge.setToolTip("The assistant needs your approval every time it uses this tool.")
            top.addWidget(badge)
            self.asks_first_label = badge
        top.addStretch(1)
        text.addLayout(top)
        about = tool.about_for_people
        self.description = QLabel(about)
        """What the tool does, as the tool says it."""
        self.description.setObjectName("fieldDescription")
        self.description.setTextFormat(Qt.TextFormat.PlainText)
        self.description.setWordWrap(True)
        text.addWidget(self.description)
        row.addLayout(text, 1)
        self.switch = ToggleSwitch()
        """On: the assistant may use the tool."""
        self.switch.setChecked(enabled)
        confirm = ", asks first" if tool.asks_first else ""
        self.switch.setAccessibleName(f"{shown_title} ({tool.category}{confirm})")
        self.switch.setAccessibleDescription(about)
        self.switch.toggled.connect(lambda on: on_toggled(tool.name, on))
        row.addWidget(self.switch, 0, Qt.AlignmentFlag.AlignVCenter)
