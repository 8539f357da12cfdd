"""Google Search suggestions under a grounded answer: the searches the model ran, as chips.

Google's terms for grounding with Google Search ask for its Search Suggestions to be shown
with a grounded answer (docs/live-service.md R10). The service sends them twice: as an HTML
and CSS snippet (``searchEntryPoint``), made for a web page, and as the plain queries. The
window shows the queries, each as a chip that opens Google's results for it in the person's
browser, under the caption "Google Search suggestions". A query is the model's text: it is
only ever shown as plain text, and only ever opens ``https://www.google.com/search``.

:class:`FlowLayout` puts the chips in rows that wrap at the transcript's width.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final
from urllib.parse import urlencode

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QLabel,
    QLayout,
    QLayoutItem,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

__all__ = ["SEARCH_SUGGESTIONS_TITLE", "FlowLayout", "SearchSuggestions", "google_search_url"]

SEARCH_SUGGESTIONS_TITLE: Final = "Google Search suggestions"

_GOOGLE_SEARCH: Final = "https://www.google.com/search"
_MAX_CHIP_CHARS: Final = 60


def google_search_url(query: str) -> QUrl:
    """Google's results page for ``query`` (every character of it encoded, ``+`` and ``&`` too)."""
    return QUrl(f"{_GOOGLE_SEARCH}?{urlencode({'q': query.strip()})}", QUrl.ParsingMode.StrictMode)


def _chip_text(query: str) -> str:
    text = " ".join(query.split())
    if len(text) > _MAX_CHIP_CHARS:
        text = text[: _MAX_CHIP_CHARS - 1] + "…"
    # A button reads "&x" as a keyboard mnemonic; the model's "&" is just a character.
    return text.replace("&", "&&")


class FlowLayout(QLayout):
    """Lays its items out left to right, wrapping to a new row where the width ends.

    Args:
        parent: the widget it lays out.
        spacing: the room between items, across and down.
    """

    def __init__(self, parent: QWidget | None = None, *, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(QMargins(0, 0, 0, 0))

    def addItem(self, item: QLayoutItem) -> None:
        """Take ``item`` at the end (``addWidget`` comes through here)."""
        self._items.append(item)

    def count(self) -> int:
        """How many items there are."""
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        """The item at ``index``, or None."""
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        """Remove the item at ``index`` and hand it back."""
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        """It never asks for more room than its rows need."""
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        """Its height depends on its width (how many rows the items wrap into)."""
        return True

    def heightForWidth(self, width: int) -> int:
        """The height the items need at ``width``."""
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        """Place the items in rows within ``rect``."""
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """The widest item's room (a row is at least that wide)."""
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        """Room for the largest item."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, row_height = area.x(), area.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:
                x, y, row_height = area.x(), y + row_height + self._gap, 0
            if move:
                width = min(hint.width(), area.width())
                item.setGeometry(QRect(QPoint(x, y), QSize(width, hint.height())))
            x += hint.width() + self._gap
            row_height = max(row_height, hint.height())
        return y + row_height - rect.y() + margins.bottom()


class SearchSuggestions(QWidget):
    """The caption "Google Search suggestions" and a chip per query.

    Args:
        open_url: opens a URL in the person's browser (``QDesktopServices.openUrl`` by
            default; tests pass a recorder).
        parent: the Qt parent.
    """

    def __init__(
        self,
        open_url: Callable[[QUrl], bool] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._open_url = open_url or QDesktopServices.openUrl
        self._queries: list[str] = []
        self.setObjectName("searchSuggestions")
        self.setAccessibleName(SEARCH_SUGGESTIONS_TITLE)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.title = QLabel(SEARCH_SUGGESTIONS_TITLE, self)
        # The quiet caption style of the lines under an answer, as its "Sources:" line.
        self.title.setObjectName("sourcesLine")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.title)
        self._chip_area = QWidget(self)
        self._chip_area.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._chips_layout = FlowLayout(self._chip_area)
        layout.addWidget(self._chip_area)
        self._chips: list[QPushButton] = []

    @property
    def queries(self) -> list[str]:
        """The queries shown, in order."""
        return list(self._queries)

    def chips(self) -> list[QPushButton]:
        """The chips, in order."""
        return list(self._chips)

    def add_queries(self, queries: Sequence[str]) -> None:
        """Show a chip for each query not shown yet (the service may repeat them)."""
        for query in queries:
            query = " ".join(query.split())
            if not query or query in self._queries:
                continue
            self._queries.append(query)
            self._chips.append(self._chip(query))
        self.setVisible(bool(self._queries))

    def _chip(self, query: str) -> QPushButton:
        chip = QPushButton(_chip_text(query), self._chip_area)
        chip.setObjectName("searchSuggestion")
        chip.setCursor(Qt.CursorShape.PointingHandCursor)
        chip.setAccessibleName(f"Search Google for {query}")
        chip.setToolTip(f"Search Google for “{query}” in your browser")
        chip.setAutoDefault(False)
        chip.clicked.connect(lambda: self.open_query(query))
        self._chips_layout.addWidget(chip)
        return chip

    def open_query(self, query: str) -> bool:
        """Open Google's results for ``query``; False when the desktop refused."""
        return bool(self._open_url(google_search_url(query)))
