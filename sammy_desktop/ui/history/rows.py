"""A list whose rows are small widgets: the History window's conversations and search hits.

:class:`RowList` is a ``QListWidget`` that shows a widget in each row, keeps each row as
high as its widget needs at the list's width (rows with wrapped text grow), and tells what
the person picked: a click, Enter (``opened``) or the Delete key (``delete_requested``) on
a row. The arrow keys only move the selection; nothing opens until asked.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QListWidget,
    QListWidgetItem,
    QWidget,
)

from sammy_desktop.ui.focus_frame import track_keyboard_focus

__all__ = ["RowList"]

_DATA_ROLE = Qt.ItemDataRole.UserRole
_ROW_INSET_PX = 4


class RowList(QListWidget):
    """A list of row widgets, each carrying a value (a session id, a search hit).

    Args:
        name: the list's accessible name.
        parent: the Qt parent.
    """

    opened = Signal(object)
    """A row was clicked or Enter pressed on it; the argument is the row's value."""

    delete_requested = Signal(object)
    """The Delete key was pressed on a row; the argument is its value."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyList")
        self.setAccessibleName(name)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.setSpacing(2)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        track_keyboard_focus(self)
        self.clicked.connect(self._on_index)
        self.activated.connect(self._on_index)

    # ------------------------------------------------------------------ rows

    def add_row(
        self, widget: QWidget, value: Any, accessible: str, tooltip: str = ""
    ) -> QListWidgetItem:
        """Add ``widget`` as the last row, carrying ``value``; ``accessible`` names it."""
        item = QListWidgetItem(self)
        item.setData(_DATA_ROLE, value)
        item.setData(Qt.ItemDataRole.AccessibleTextRole, accessible)
        item.setToolTip(tooltip)
        widget.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setItemWidget(item, widget)
        item.setSizeHint(self._row_size(widget))
        return item

    def value(self, row: int) -> Any:
        """The value of row ``row``."""
        item = self.item(row)
        return item.data(_DATA_ROLE) if item is not None else None

    def values(self) -> list[Any]:
        """Every row's value, in order."""
        return [self.value(row) for row in range(self.count())]

    def row_widget(self, row: int) -> QWidget | None:
        """The widget shown in row ``row``."""
        item = self.item(row)
        return self.itemWidget(item) if item is not None else None

    def current_value(self) -> Any:
        """The value of the selected row, or None."""
        item = self.currentItem()
        return item.data(_DATA_ROLE) if item is not None else None

    def select_value(self, value: Any) -> bool:
        """Select the row carrying ``value`` (without opening it); False when none does."""
        for row in range(self.count()):
            if self.value(row) == value:
                self.setCurrentRow(row)
                return True
        return False

    def open_current(self) -> None:
        """Open the selected row, or the first when none is (Enter in the search box)."""
        if self.currentRow() < 0 and self.count():
            self.setCurrentRow(0)
        value = self.current_value()
        if value is not None:
            self.opened.emit(value)

    # ------------------------------------------------------------------ events

    def _on_index(self, index: QModelIndex | QPersistentModelIndex) -> None:
        item = self.item(index.row())
        if item is not None:
            self.opened.emit(item.data(_DATA_ROLE))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The Delete key asks to delete the selected row's conversation."""
        if event.key() == Qt.Key.Key_Delete and self.currentItem() is not None:
            self.delete_requested.emit(self.current_value())
            event.accept()
            return
        super().keyPressEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Rows as high as their text needs at the new width."""
        super().resizeEvent(event)
        self._fit_rows()

    def event(self, event: QEvent) -> bool:
        """After a style change (the theme) the rows' heights may change too."""
        handled = super().event(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._fit_rows()
        return handled

    def _fit_rows(self) -> None:
        for row in range(self.count()):
            item = self.item(row)
            widget = self.itemWidget(item) if item is not None else None
            if item is not None and widget is not None:
                item.setSizeHint(self._row_size(widget))

    def _row_size(self, widget: QWidget) -> QSize:
        widget.ensurePolished()  # measured in the stylesheet's fonts
        width = max(self.viewport().width() - 2 * self.spacing(), 120)
        height = widget.heightForWidth(width)
        if height <= 0:
            height = widget.sizeHint().height()
        # The view gives the row widget its item's rect less a pixel on each side.
        return QSize(width, height + _ROW_INSET_PX)
