"""Text that never makes a widget wider than the room it is given.

A word-wrapped QLabel breaks lines only between words, so its minimum width is the width of
its longest word: one long URL on a tool card made the whole transcript wider than the
window, and every bubble after it was cut at the edge. The widgets here keep their text
within the width they get:

* :class:`WrappingLabel` breaks a word too long for any line anywhere in it (with invisible
  break opportunities in the shown text only; what is read, selected and copied is the text
  as given);
* :class:`ElidedLabel` keeps one line and ends it with "…" when it is cut, the whole text in
  its tooltip;
* :class:`WrappingButton` is a push button whose label wraps onto more lines.
"""

from __future__ import annotations

import itertools
import unicodedata
from typing import Final

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import (
    QContextMenuEvent,
    QEnterEvent,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QResizeEvent,
)
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QPushButton, QSizePolicy, QWidget

__all__ = ["LONG_WORD_CHARS", "ElidedLabel", "WrappingButton", "WrappingLabel", "breakable"]

LONG_WORD_CHARS: Final = 20
"""A word longer than this may be broken anywhere (a URL, a path, a run of letters)."""

_BREAK: Final = "\u200b"  # ZERO WIDTH SPACE: a line may break here, nothing is drawn
_JOINED_CATEGORIES: Final = frozenset({"Mn", "Mc", "Me", "Cf", "Sk"})
"""Characters that belong to the one before them (accents, joiners, emoji modifiers)."""


def breakable(text: str) -> str:
    """``text`` with a line-break opportunity between the characters of every long word.

    Words up to :data:`LONG_WORD_CHARS` characters are left alone, so ordinary text wraps
    between words as before; a longer one (a URL, a hash, a word with no spaces) may then
    wrap wherever the line ends. Combining marks and joiners stay with their character.
    """
    if _BREAK in text or len(text) <= LONG_WORD_CHARS:
        return text
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) > LONG_WORD_CHARS:
            out.append(run[0])
            for before, char in itertools.pairwise(run):
                joined = (
                    unicodedata.category(char) in _JOINED_CATEGORIES
                    or before == "\u200d"
                    or 0x1F3FB <= ord(char) <= 0x1F3FF
                )
                out.append(char if joined else _BREAK + char)
        else:
            out.extend(run)
        run.clear()

    for char in text:
        if char.isspace():
            flush()
            out.append(char)
        else:
            run.append(char)
    flush()
    return "".join(out)


class WrappingLabel(QLabel):
    """A word-wrapped plain-text label whose long words break too (see :func:`breakable`).

    :meth:`text` and :meth:`selectedText` give the text as it was set; copying a selection
    (Ctrl+C, the context menu, the X11 selection) copies it without the break marks.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setText(text)

    def setText(self, text: str) -> None:
        """Show ``text``, breakable wherever a long word needs it."""
        self._text = text
        super().setText(breakable(text))

    def text(self) -> str:
        """The text as it was set."""
        return self._text

    def selectedText(self) -> str:
        """The selected part of the text, as it was set."""
        return super().selectedText().replace(_BREAK, "")

    def _copy_selection(self) -> None:
        if self.hasSelectedText():
            QGuiApplication.clipboard().setText(self.selectedText())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Ctrl+C copies the selection as it reads."""
        if event.matches(QKeySequence.StandardKey.Copy) and self.hasSelectedText():
            self._copy_selection()
            event.accept()
            return
        super().keyPressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """A selection made with the mouse becomes the X11 selection as it reads."""
        super().mouseReleaseEvent(event)
        clipboard = QGuiApplication.clipboard()
        if clipboard.supportsSelection() and self.hasSelectedText():
            clipboard.setText(self.selectedText(), clipboard.Mode.Selection)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """Copy and Select all, copying the text as it reads."""
        if not self.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse:
            super().contextMenuEvent(event)
            return
        menu = QMenu(self)
        copy = menu.addAction("Copy")
        copy.setEnabled(self.hasSelectedText())
        copy.triggered.connect(self._copy_selection)
        select_all = menu.addAction("Select all")
        select_all.triggered.connect(lambda: self.setSelection(0, len(QLabel.text(self))))
        menu.exec(event.globalPos())
        menu.deleteLater()


class ElidedLabel(QLabel):
    """One line of plain text that ends in "…" when it has less room than it needs.

    It asks for the whole text's width but can shrink to ``keep`` pixels of it, so a row
    of labels fits any width; the whole text is the tooltip while it is cut. A ``modest``
    one asks only for what it keeps, and takes the room its row has to spare (give it a
    stretch): in a row, the others get their whole width first.

    Args:
        text: the text.
        parent: the Qt parent.
        keep: the width of text it keeps at least, in pixels (about four characters when
            None).
        modest: ask for the kept part only, not the whole text.
    """

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        *,
        keep: int | None = None,
        modest: bool = False,
    ) -> None:
        super().__init__(parent)
        self._full = ""
        self._keep = keep
        self._modest = modest
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setText(text)

    def setText(self, text: str) -> None:
        """Show ``text``, cut with "…" to the width there is."""
        self._full = text
        self._elide()
        self.updateGeometry()

    def text(self) -> str:
        """The whole text (what is shown may be cut)."""
        return self._full

    @property
    def shown_text(self) -> str:
        """What is drawn now: the text, or its start and "…"."""
        return QLabel.text(self)

    def sizeHint(self) -> QSize:
        """Room for the whole text on one line (a modest one: for what it keeps)."""
        whole = self._whole_size()
        return self._kept_size(whole) if self._modest else whole

    def minimumSizeHint(self) -> QSize:
        """Room for the first few characters and "…" (or the whole text, if shorter)."""
        return self._kept_size(self._whole_size())

    def _whole_size(self) -> QSize:
        hint = super().sizeHint()
        metrics = self.fontMetrics()
        extra = metrics.horizontalAdvance(self._full) - metrics.horizontalAdvance(self.shown_text)
        return QSize(hint.width() + max(0, extra), hint.height())

    def _kept_size(self, whole: QSize) -> QSize:
        metrics = self.fontMetrics()
        keep = self._keep if self._keep is not None else metrics.horizontalAdvance("Mmmm…")
        chrome = whole.width() - metrics.horizontalAdvance(self._full)
        return QSize(min(whole.width(), keep + max(0, chrome)), whole.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Cut the text again for the new width."""
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:
        """A new font (the stylesheet's) measures differently."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._elide()
            self.updateGeometry()

    def _elide(self) -> None:
        width = self.contentsRect().width()
        metrics = self.fontMetrics()
        # Before the first layout the label has no real width yet: show it all.
        fits = width <= 0 or metrics.horizontalAdvance(self._full) <= width
        shown = (
            self._full
            if fits
            else metrics.elidedText(self._full, Qt.TextElideMode.ElideRight, width)
        )
        if shown != QLabel.text(self):
            super().setText(shown)
        self.setToolTip("" if shown == self._full else self._full)


class WrappingButton(QPushButton):
    """A push button whose text wraps onto more lines instead of being cut.

    The words are a word-wrapped label inside the button (objectName ``buttonText``; the
    stylesheet colours it); :meth:`text` and :meth:`setText` work on it.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = WrappingLabel(text, self)
        self.label.setObjectName("buttonText")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        layout = QHBoxLayout(self)
        # The link look's padding (2 px 4 px) and its 2 px focus border.
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.label)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def setText(self, text: str) -> None:
        """The button's words."""
        self.label.setText(text)
        self.updateGeometry()

    def text(self) -> str:
        """The button's words."""
        return self.label.text()

    def _layout(self) -> QHBoxLayout:
        layout = self.layout()
        assert isinstance(layout, QHBoxLayout)
        return layout

    def sizeHint(self) -> QSize:
        """The words on one line (a word-wrapped label's own hint is narrower)."""
        margins = self._layout().contentsMargins()
        lines = self.label.text().splitlines() or [""]
        metrics = self.label.fontMetrics()
        width = max(metrics.horizontalAdvance(line) for line in lines) + 2
        width += margins.left() + margins.right()
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        """The longest word's room."""
        return self._layout().totalMinimumSize()

    def hasHeightForWidth(self) -> bool:
        """Narrower means taller."""
        return True

    def heightForWidth(self, width: int) -> int:
        """The height the words need at ``width``."""
        return self._layout().totalHeightForWidth(width)

    def enterEvent(self, event: QEnterEvent) -> None:
        """Underlined under the pointer, as a link is."""
        super().enterEvent(event)
        self._underline(True)

    def leaveEvent(self, event: QEvent) -> None:
        """Not underlined once the pointer leaves."""
        super().leaveEvent(event)
        self._underline(False)

    def _underline(self, on: bool) -> None:
        font = self.label.font()
        font.setUnderline(on)
        self.label.setFont(font)
