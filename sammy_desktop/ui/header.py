"""The window's header row, laid out so that no word in it is ever cut.

:class:`HeaderLayout` holds the app's name and the "Offline demo" badge on the left, and the
mic mark, the state pill and the settings button on the right. When one row cannot hold
them all at their full width (the minimum window width, "Session ended" with the mic on),
the badge moves to a second row under the name; when even the name does not fit beside the
right-hand group, the name joins the badge there. Every item always gets the width its
text needs, so nothing reads "Offline dem" or "Listenin".
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget

__all__ = ["HeaderLayout"]


class HeaderLayout(QLayout):
    """The header: a title and a badge on the left, a group of items on the right.

    Add the parts with :meth:`set_title`, :meth:`set_badge` and :meth:`add_trailing`
    (``addWidget`` adds to the right-hand group too).

    Args:
        parent: the widget it lays out, if any.
        spacing: the room between items in a row.
        row_spacing: the room between the two rows, when there are two.
    """

    def __init__(
        self, parent: QWidget | None = None, *, spacing: int = 8, row_spacing: int = 4
    ) -> None:
        super().__init__(parent)
        self._title: QLayoutItem | None = None
        self._badge: QLayoutItem | None = None
        self._trailing: list[QLayoutItem] = []
        self._adding = "trailing"
        self._gap = spacing
        self._row_gap = row_spacing
        self.setContentsMargins(0, 0, 0, 0)

    # ------------------------------------------------------------------ building

    def set_title(self, widget: QWidget) -> None:
        """The app's name, first on the left."""
        self._add_as("title", widget)

    def set_badge(self, widget: QWidget) -> None:
        """The badge after the name (it moves under the name when the row is full)."""
        self._add_as("badge", widget)

    def _add_as(self, role: str, widget: QWidget) -> None:
        self._adding = role
        try:
            self.addWidget(widget)
        finally:
            self._adding = "trailing"

    def add_trailing(self, widget: QWidget) -> None:
        """The next item of the right-hand group, which always stays on the first row."""
        self.addWidget(widget)

    # ------------------------------------------------------------------ QLayout

    def addItem(self, item: QLayoutItem) -> None:
        """Add ``item`` to the right-hand group (``addWidget`` comes through here)."""
        if self._adding == "title":
            self._title = item
        elif self._adding == "badge":
            self._badge = item
        else:
            self._trailing.append(item)
        self.invalidate()

    def _items(self) -> list[QLayoutItem]:
        return [i for i in (self._title, self._badge) if i is not None] + self._trailing

    def count(self) -> int:
        """How many items there are."""
        return len(self._items())

    def itemAt(self, index: int) -> QLayoutItem | None:
        """The item at ``index``, or None."""
        items = self._items()
        return items[index] if 0 <= index < len(items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        """Remove the item at ``index`` and hand it back."""
        item = self.itemAt(index)
        if item is None:
            return None
        if item is self._title:
            self._title = None
        elif item is self._badge:
            self._badge = None
        else:
            self._trailing.remove(item)
        self.invalidate()
        return item

    def expandingDirections(self) -> Qt.Orientation:
        """It takes the width it is given; its height is its rows'."""
        return Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:
        """Narrow, it takes two rows."""
        return True

    def heightForWidth(self, width: int) -> int:
        """The height of its rows at ``width``."""
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        """Place the items in one row, or two when one cannot hold them."""
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """Everything on one row."""
        left = self._row_width(self._left())
        right = self._row_width(self._visible(self._trailing))
        width = left + right + (self._gap if left and right else 0)
        return QSize(width, self._row_height(self._visible(self._items())))

    def minimumSize(self) -> QSize:
        """The right-hand group on the first row, the name and the badge on the second."""
        left = self._left()
        right = self._visible(self._trailing)
        width = max(self._row_width(left), self._row_width(right))
        height = self._row_height(right) + self._row_height(left)
        if left and right:
            height += self._row_gap
        return QSize(width, height)

    # ------------------------------------------------------------------ placing

    @staticmethod
    def _visible(items: list[QLayoutItem]) -> list[QLayoutItem]:
        return [item for item in items if not item.isEmpty()]

    def _left(self) -> list[QLayoutItem]:
        return self._visible([i for i in (self._title, self._badge) if i is not None])

    def _row_width(self, items: list[QLayoutItem]) -> int:
        if not items:
            return 0
        return sum(item.sizeHint().width() for item in items) + self._gap * (len(items) - 1)

    @staticmethod
    def _row_height(items: list[QLayoutItem]) -> int:
        return max((item.sizeHint().height() for item in items), default=0)

    def rows(self, width: int) -> tuple[list[QLayoutItem], list[QLayoutItem]]:
        """What goes on the first row and on the second at ``width``."""
        title = self._visible([self._title] if self._title is not None else [])
        badge = self._visible([self._badge] if self._badge is not None else [])
        right = self._visible(self._trailing)
        gap = self._gap if right else 0
        if self._row_width(title + badge) + gap + self._row_width(right) <= width:
            return title + badge + right, []
        if self._row_width(title) + gap + self._row_width(right) <= width:
            return title + right, badge
        return right, title + badge

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        first, second = self.rows(area.width())
        y = area.y()
        for row in (first, second):
            if not row:
                continue
            height = self._row_height(row)
            if move:
                self._place_row(row, area, y, height)
            y += height + self._row_gap
        used = y - self._row_gap - area.y() if first or second else 0
        return used + margins.top() + margins.bottom()

    def _place_row(self, row: list[QLayoutItem], area: QRect, y: int, height: int) -> None:
        # The right-hand group sits at the right edge, the rest from the left.
        right = [item for item in row if item in self._trailing]
        x = area.x()
        for item in row:
            if item in right:
                break
            x = self._place(item, x, y, height, area)
        x = max(x, area.right() + 1 - self._row_width(right))
        for item in right:
            x = self._place(item, x, y, height, area)

    def _place(self, item: QLayoutItem, x: int, y: int, height: int, area: QRect) -> int:
        # As in a box layout: the row's height for what may grow, centred otherwise.
        hint = item.sizeHint()
        width = max(0, min(hint.width(), area.right() + 1 - x))
        tall = max(hint.height(), min(height, item.maximumSize().height()))
        top = y + (height - tall) // 2
        item.setGeometry(QRect(QPoint(x, top), QSize(width, tall)))
        return x + hint.width() + self._gap
