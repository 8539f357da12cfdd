"""The History window's list of conversations, newest first.

Each row says when the conversation started, the first thing the person said, the tools
it used, how long it took, its tokens and what they may have cost ("≈ $0.004 estimated",
or "no price known"). The conversation going on now has a "now" badge: it cannot be
deleted while it is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, tzinfo

from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from sammy_desktop.archive import SessionSummary
from sammy_desktop.config.prices import TokenPrices
from sammy_desktop.ui.history.rows import RowList
from sammy_desktop.ui.history.wording import (
    NOTHING_SAID,
    cost_tooltip,
    session_day,
    session_facts,
    tools_words,
)
from sammy_desktop.ui.wrapping import ElidedLabel

__all__ = ["SessionList", "SessionRow"]


class SessionRow(QWidget):
    """One conversation in the list.

    Args:
        summary: the conversation.
        custom: the person's own token prices, by model.
        live: whether it is the conversation going on now.
        now: the time "Today" is counted from (the computer's clock if None).
        tz: the clock times are said on (the computer's own if None).
        parent: the Qt parent.
    """

    def __init__(
        self,
        summary: SessionSummary,
        custom: Mapping[str, TokenPrices] | None,
        *,
        live: bool = False,
        now: datetime | None = None,
        tz: tzinfo | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("historyRow")
        self.summary = summary
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 8, 12, 8)
        column.setSpacing(2)
        top = QHBoxLayout()
        top.setSpacing(8)
        self.date_label = QLabel(session_day(summary.started, now, tz), self)
        self.date_label.setObjectName("historyRowDate")
        top.addWidget(self.date_label)
        top.addStretch(1)
        self.live_badge = QLabel("now", self)
        self.live_badge.setObjectName("badge")
        self.live_badge.setToolTip("This conversation is going on now.")
        self.live_badge.setVisible(live)
        top.addWidget(self.live_badge)
        column.addLayout(top)
        said = summary.first_said or NOTHING_SAID
        self.first_said_label = ElidedLabel(said, self)
        self.first_said_label.setObjectName("historyRowText")
        column.addWidget(self.first_said_label)
        tools = tools_words(summary)
        self.tools_label = ElidedLabel(tools, self)
        self.tools_label.setObjectName("historyRowTools")
        self.tools_label.setVisible(bool(tools))
        column.addWidget(self.tools_label)
        self.facts_label = ElidedLabel(session_facts(summary, custom), self)
        self.facts_label.setObjectName("historyRowFacts")
        self.cost_tooltip = cost_tooltip(summary, custom)
        """Where the estimate's prices come from (the row's tooltip)."""
        column.addWidget(self.facts_label)

    @property
    def accessible_text(self) -> str:
        """The row read as one sentence."""
        parts = [self.date_label.text(), self.first_said_label.text()]
        if self.tools_label.text():
            parts.append(f"tools: {self.tools_label.text()}")
        parts.append(self.facts_label.text())
        if self.live_badge.isVisibleTo(self):
            parts.append("going on now")
        return ". ".join(parts)


class SessionList(RowList):
    """Every conversation, newest first; a click or Enter opens one.

    Args:
        parent: the Qt parent.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Conversations", parent)
        self._rows: dict[str, SessionRow] = {}

    def show_sessions(
        self,
        sessions: Sequence[SessionSummary],
        custom: Mapping[str, TokenPrices] | None,
        *,
        live_name: str | None,
        now: datetime | None = None,
        tz: tzinfo | None = None,
    ) -> None:
        """Show ``sessions`` (newest first), keeping the selection on the same one."""
        selected = self.current_value()
        self.clear()
        self._rows = {}
        for summary in sessions:
            live = live_name is not None and summary.path.name == live_name
            row = SessionRow(summary, custom, live=live, now=now, tz=tz)
            self._rows[summary.id] = row
            said = summary.first_said or NOTHING_SAID
            self.add_row(row, summary.id, row.accessible_text, f"{said}\n\n{row.cost_tooltip}")
        if selected is not None:
            self.select_value(selected)

    def row_of(self, session_id: str) -> SessionRow | None:
        """The row of the conversation ``session_id``."""
        return self._rows.get(session_id)

    def session_ids(self) -> list[str]:
        """The conversations listed, newest first."""
        return [str(value) for value in self.values()]
