"""Settings > Tools, "Import from Claude Desktop": its MCP servers added to ``mcp.json``.

:func:`read_claude_servers` reads ``claude_desktop_config.json`` (where Claude Desktop keeps
it, :func:`~sammy_desktop.tools.mcp.config.claude_desktop_config_path`) and says in a
sentence when there is no such file, or it is not JSON, or it lists no servers. Its servers
are merged with Sammy's (:func:`~sammy_desktop.tools.mcp.config.merge_servers`); for a name
both have, with different entries, :class:`ImportClashDialog` asks which to keep: Sammy's,
Claude Desktop's, or both (the imported one renamed ``name-2``). :func:`resolve_import`
applies the answers and counts what was added.
"""

from __future__ import annotations

import enum
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.os_errors import os_error_reason
from sammy_desktop.tools.mcp.config import ServerConfig, parse_server
from sammy_desktop.ui.wrapping import WrappingLabel

__all__ = [
    "ClashChoice",
    "ImportClashDialog",
    "ImportResult",
    "free_name",
    "read_claude_servers",
    "resolve_import",
]

_log = logging.getLogger(__name__)

_SERVERS_KEY: Final = "mcpServers"


class ClashChoice(enum.Enum):
    """What to do with a server both Sammy and Claude Desktop have under one name."""

    KEEP_OURS = "keep Sammy's"
    TAKE_THEIRS = "take Claude Desktop's"
    KEEP_BOTH = "keep both"


def read_claude_servers(path: Path) -> dict[str, Any] | str:
    """Claude Desktop's ``mcpServers``, or why there are none to import (a sentence)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return (
            f"Claude Desktop's settings were not found: there is no {path}. Nothing was imported."
        )
    except (OSError, UnicodeDecodeError) as error:
        why = os_error_reason(error) if isinstance(error, OSError) else "it is not UTF-8 text"
        return f"{path} could not be read ({why}). Nothing was imported."
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        _log.info("Claude Desktop's settings %s: %s", path, error)
        return (
            f"Claude Desktop's settings file {path} is not valid JSON (line {error.lineno}), "
            "so nothing was imported. Fix it, then try again."
        )
    servers = document.get(_SERVERS_KEY) if isinstance(document, dict) else None
    if not isinstance(document, dict) or (servers is not None and not isinstance(servers, dict)):
        return (
            f"Claude Desktop's settings file {path} does not list servers the way Claude "
            f'Desktop writes them ("{_SERVERS_KEY}"), so nothing was imported.'
        )
    if not servers:
        return f"Claude Desktop has no MCP servers to import: {path} lists none."
    return dict(servers)


def free_name(name: str, taken: Sequence[str] | Mapping[str, Any]) -> str:
    """``name-2`` (or ``name-3``…), the first that is not ``taken``."""
    number = 2
    while f"{name}-{number}" in taken:
        number += 1
    return f"{name}-{number}"


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import writes, and what it changed.

    Attributes:
        servers: the whole ``mcpServers`` to write.
        added: the names that are new to Sammy.
        replaced: the names whose entry is now Claude Desktop's.
    """

    servers: dict[str, Any]
    added: tuple[str, ...]
    replaced: tuple[str, ...]

    def summary(self) -> str:
        """What the import did, in a sentence or two."""
        parts = []
        if self.added:
            count = len(self.added)
            servers = "1 server" if count == 1 else f"{count} servers"
            parts.append(f"Added {servers} from Claude Desktop: {', '.join(self.added)}.")
        if self.replaced:
            names = ", ".join(f"“{name}”" for name in self.replaced)
            parts.append(f"Took Claude Desktop's {names} in place of Sammy's.")
        return " ".join(parts)


def resolve_import(
    ours: Mapping[str, Any],
    theirs: Mapping[str, Any],
    merged: Mapping[str, Any],
    choices: Mapping[str, ClashChoice],
) -> ImportResult:
    """The merge with the person's answer for each clashing name (Sammy's kept by default)."""
    servers = dict(merged)
    replaced: list[str] = []
    for name, choice in choices.items():
        if choice is ClashChoice.TAKE_THEIRS:
            servers[name] = theirs[name]
            replaced.append(name)
        elif choice is ClashChoice.KEEP_BOTH:
            servers[free_name(name, servers)] = theirs[name]
    added = tuple(name for name in servers if name not in ours)
    return ImportResult(servers=servers, added=added, replaced=tuple(replaced))


def _describe(name: str, entry: object) -> str:
    checked = parse_server(name, entry)
    if isinstance(checked, ServerConfig):
        return checked.transport.describe()
    return "an entry Sammy cannot use as it is"


class ImportClashDialog(QDialog):
    """Asks, for each name both have, which server to keep.

    Args:
        clashes: the names both have, with different entries.
        ours: Sammy's entries.
        theirs: Claude Desktop's entries.
        parent: the Qt parent.
    """

    def __init__(
        self,
        clashes: Sequence[str],
        ours: Mapping[str, Any],
        theirs: Mapping[str, Any],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import from Claude Desktop")
        self.setModal(True)
        self.setMinimumWidth(480)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 18)
        layout.setSpacing(10)
        title = QLabel("Which server should Sammy keep?")
        title.setObjectName("sheetTitle")
        layout.addWidget(title)
        several = len(clashes) > 1
        intro = WrappingLabel(
            "Sammy and Claude Desktop each have a different server under these names. "
            "Choose for each one."
            if several
            else "Sammy and Claude Desktop each have a different server under this name."
        )
        intro.setObjectName("fieldDescription")
        layout.addWidget(intro)
        taken = {**ours, **theirs}
        self.choice_lists: dict[str, QComboBox] = {}
        """The list of choices for each clashing name."""
        for name in clashes:
            layout.addWidget(self._clash_card(name, ours[name], theirs[name], taken))
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAutoDefault(False)
        self.cancel_button.clicked.connect(self.reject)
        self.import_button = QPushButton("Import")
        self.import_button.setObjectName("primaryButton")
        self.import_button.setDefault(True)
        self.import_button.clicked.connect(self.accept)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.import_button)
        layout.addLayout(buttons)

    def _clash_card(
        self, name: str, our_entry: object, their_entry: object, taken: Mapping[str, Any]
    ) -> QFrame:
        card = QFrame()
        card.setObjectName("fieldCard")
        column = QVBoxLayout(card)
        column.setContentsMargins(14, 12, 14, 12)
        column.setSpacing(4)
        title = QLabel(f"“{name}”")
        title.setObjectName("fieldTitle")
        title.setTextFormat(Qt.TextFormat.PlainText)
        column.addWidget(title)
        for whose, entry in (("Sammy's", our_entry), ("Claude Desktop's", their_entry)):
            line = WrappingLabel(f"{whose}: {_describe(name, entry)}")
            line.setObjectName("fieldDescription")
            column.addWidget(line)
        choices = QComboBox()
        renamed = free_name(name, taken)
        for choice, words in (
            (ClashChoice.KEEP_OURS, "Keep Sammy's"),
            (ClashChoice.TAKE_THEIRS, "Take Claude Desktop's"),
            (ClashChoice.KEEP_BOTH, f"Keep both (Claude Desktop's as “{renamed}”)"),
        ):
            choices.addItem(words, choice)
        choices.setAccessibleName(f"Which “{name}” to keep")
        title.setBuddy(choices)
        column.addSpacing(4)
        column.addWidget(choices)
        self.choice_lists[name] = choices
        return card

    def choose(self, name: str, choice: ClashChoice) -> None:
        """Pick ``choice`` for ``name`` (as the person does in its list)."""
        combo = self.choice_lists[name]
        wanted = [ClashChoice(combo.itemData(index)) for index in range(combo.count())]
        combo.setCurrentIndex(wanted.index(choice))

    def choices(self) -> dict[str, ClashChoice]:
        """The answer for each clashing name."""
        return {name: ClashChoice(combo.currentData()) for name, combo in self.choice_lists.items()}
