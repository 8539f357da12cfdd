"""The small dialog that asks what to share with Sammy: a whole screen, or one window.

Screens come first, then windows, each by its title under a heading. The keyboard is
enough: the arrows move between them (the headings are skipped), Enter shares the one
selected, Esc shares nothing. The last choice is selected when the dialog opens, so Enter
alone shares the same thing again. The dialog is not modal and never waits: what the
person chose comes as :attr:`ScreenChooser.source_chosen`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from sammy_desktop.ui.screen.sources import ShareSource

__all__ = ["ScreenChooser", "same_source"]

_SOURCE_ROLE = Qt.ItemDataRole.UserRole
_HEADINGS = (("screen", "Screens"), ("window", "Windows"))


def same_source(a: ShareSource | None, b: ShareSource | None) -> bool:
    """Whether ``a`` and ``b`` are the same screen or window (a title may have changed)."""
    return a is not None and b is not None and (a.kind, a.id) == (b.kind, b.id)


class ScreenChooser(QDialog):
    """What to share: the screens, then the windows.

    Args:
        sources: what can be shared now (:func:`~sammy_desktop.ui.screen.sources.list_sources`).
        last: the person's last choice; selected when it is still there.
        parent: the window the dialog belongs to.
    """

    source_chosen = Signal(object)
    """The person chose a :class:`~sammy_desktop.ui.screen.sources.ShareSource` (Enter, Share)."""

    def __init__(
        self,
        sources: Sequence[ShareSource],
        *,
        last: ShareSource | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("screenChooser")
        self.setWindowTitle("Share with Sammy")
        self.setAccessibleName("Choose what to share with Sammy")
        self.resize(380, 360)
        self._chosen: ShareSource | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.setSpacing(8)
        title = QLabel("What should Sammy see?", self)
        title.setObjectName("chooserTitle")
        layout.addWidget(title)
        note = QLabel(
            "Sammy sends pictures of it to Gemini until you stop sharing. "
            "Enter shares, Esc cancels.",
            self,
        )
        note.setObjectName("fieldDescription")
        note.setWordWrap(True)
        layout.addWidget(note)

        self.list = QListWidget(self)
        self.list.setObjectName("shareSources")
        self.list.setAccessibleName("Screens and windows")
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        layout.addWidget(self.list, 1)
        self.empty_label = QLabel("There is no screen or window Sammy can share.", self)
        self.empty_label.setObjectName("fieldDescription")
        self.empty_label.setWordWrap(True)
        layout.addWidget(self.empty_label)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setAutoDefault(False)
        self.cancel_button.clicked.connect(self.reject)
        self.share_button = QPushButton("Share", self)
        self.share_button.setObjectName("primaryButton")
        self.share_button.setDefault(True)
        self.share_button.clicked.connect(self.accept)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.share_button)
        layout.addLayout(buttons)

        self._fill(sources, last)

    def _fill(self, sources: Sequence[ShareSource], last: ShareSource | None) -> None:
        first: QListWidgetItem | None = None
        selected: QListWidgetItem | None = None
        for kind, heading in _HEADINGS:
            group = [source for source in sources if source.kind == kind]
            if not group:
                continue
            header = QListWidgetItem(heading)
            # A heading: seen, never selected; the arrows step over it.
            header.setFlags(Qt.ItemFlag.NoItemFlags)
            font = QFont(self.font())
            font.setBold(True)
            font.setPointSizeF(max(font.pointSizeF() * 0.85, 7.0))
            header.setFont(font)
            self.list.addItem(header)
            for source in group:
                item = QListWidgetItem(source.title)
                item.setData(_SOURCE_ROLE, source)
                item.setToolTip(source.title)
                self.list.addItem(item)
                if first is None:
                    first = item
                if same_source(source, last):
                    selected = item
        selected = selected or first
        self.empty_label.setVisible(selected is None)
        self.list.setVisible(selected is not None)
        self.share_button.setEnabled(selected is not None)
        if selected is not None:
            self.list.setCurrentItem(selected)
            self.list.setFocus(Qt.FocusReason.OtherFocusReason)

    @staticmethod
    def _source_of(item: QListWidgetItem | None) -> ShareSource | None:
        if item is None:
            return None
        source = item.data(_SOURCE_ROLE)
        return source if source is not None else None

    @property
    def selected(self) -> ShareSource | None:
        """The screen or window selected now."""
        return self._source_of(self.list.currentItem())

    @property
    def chosen(self) -> ShareSource | None:
        """What the person chose to share, once they did; None until then (or cancelled)."""
        return self._chosen

    def titles(self) -> list[str]:
        """Every line of the list as shown, headings included."""
        return [self.list.item(row).text() for row in range(self.list.count())]

    def accept(self) -> None:
        """Share what is selected (Enter, Share, a double click)."""
        source = self.selected
        if source is None or self._chosen is not None:
            return
        self._chosen = source
        super().accept()
        self.source_chosen.emit(source)
