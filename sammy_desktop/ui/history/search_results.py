"""What a search of the history found: one row per line or tool call, best match first.

Each row says who said it (or which tool was called) and when, and the matching stretch
with the words searched for in bold. A click or Enter opens the conversation at that line.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import tzinfo

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from sammy_desktop.archive import SearchHit
from sammy_desktop.archive.wording import speaker_name
from sammy_desktop.tools.wording import title_from_name
from sammy_desktop.ui.history.rows import RowList
from sammy_desktop.ui.history.wording import session_day

__all__ = ["HitRow", "SearchResults", "hit_place", "snippet_html"]


def snippet_html(hit: SearchHit) -> str:
    """The hit's snippet as rich text: the matched words bold, everything else as written."""
    pieces = []
    for part in hit.snippet:
        text = html.escape(part.text, quote=False)
        pieces.append(f"<b>{text}</b>" if part.matched else text)
    # A tool call's text is its title, then an argument a line: one line, "·" between.
    lines = (line.strip() for line in "".join(pieces).splitlines())
    return " · ".join(line for line in lines if line)


def hit_place(hit: SearchHit, tz: tzinfo | None = None) -> str:
    """Who said it and when: ``You · Sun 30 Nov 09:15``, ``Tool: Start timer · Today 10:02``."""
    if hit.speaker == "tool":
        who = f"Tool: {title_from_name(hit.tool_name or 'unnamed tool')}"
    else:
        who = speaker_name(hit.speaker)
    return f"{who} · {session_day(hit.at, tz=tz)}"


class HitRow(QWidget):
    """One search hit.

    Args:
        hit: what was found.
        tz: the clock times are said on.
        parent: the Qt parent.
    """

    def __init__(
        self, hit: SearchHit, tz: tzinfo | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("historyRow")
        self.hit = hit
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 8, 12, 8)
        column.setSpacing(2)
        self.place_label = QLabel(hit_place(hit, tz), self)
        self.place_label.setObjectName("historyRowFacts")
        column.addWidget(self.place_label)
        self.snippet_label = QLabel(snippet_html(hit), self)
        self.snippet_label.setObjectName("historyRowText")
        self.snippet_label.setTextFormat(Qt.TextFormat.RichText)
        self.snippet_label.setWordWrap(True)
        column.addWidget(self.snippet_label)


class SearchResults(RowList):
    """The hits of a search; a click or Enter opens the conversation at the hit's line.

    Args:
        parent: the Qt parent.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Search results", parent)
        self._hits: tuple[SearchHit, ...] = ()

    @property
    def hits(self) -> tuple[SearchHit, ...]:
        """The hits shown, best first."""
        return self._hits

    def show_hits(self, hits: Sequence[SearchHit], tz: tzinfo | None = None) -> None:
        """Show ``hits``, best first."""
        self.clear()
        self._hits = tuple(hits)
        for hit in hits:
            row = HitRow(hit, tz)
            accessible = f"{row.place_label.text()}: {hit.text}"
            self.add_row(row, hit, accessible)

    def hit_row(self, row: int) -> HitRow | None:
        """The widget of row ``row``."""
        widget = self.row_widget(row)
        return widget if isinstance(widget, HitRow) else None
