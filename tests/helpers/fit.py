"""Whether text is shown whole: every label and button at least as large as its text needs.

:func:`clipped_text` walks the visible widgets under a root and names each one whose text
is cut: a one-line label or button narrower (or lower) than its size hint, a word-wrapped
label lower than its height for the width it got (descenders and underscores of its last
line lost), or narrower than its longest unbreakable word. An :class:`ElidedLabel` cuts by
design and is only checked to show "…" when it does. :func:`wider_than` names the widgets
that reach past the right edge of an area (a viewport, a window).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QAbstractButton, QLabel, QWidget

from sammy_desktop.ui.wrapping import ElidedLabel, WrappingButton

__all__ = ["clipped_text", "describe", "wider_than"]


def describe(widget: QWidget) -> str:
    """A widget named for a failure message."""
    text = widget.text() if isinstance(widget, QLabel | QAbstractButton) else ""
    name = widget.objectName() or type(widget).__name__
    return f"{name} {text[:40]!r}" if text else name


def _shown(root: QWidget) -> list[QWidget]:
    return [w for w in (root, *root.findChildren(QWidget)) if w.isVisible()]


def clipped_text(root: QWidget) -> list[str]:
    """Every visible widget under ``root`` (itself included) whose text does not fit."""
    problems = []
    for widget in _shown(root):
        size = widget.size()
        if isinstance(widget, ElidedLabel):
            shown = widget.shown_text
            if shown != widget.text() and not shown.endswith("…"):
                problems.append(f"{describe(widget)} is cut without an ellipsis")
            elif widget.height() < widget.sizeHint().height():
                problems.append(f"{describe(widget)} is {size.height()} px high, needs more")
        elif isinstance(widget, QLabel):
            if not widget.text():
                continue
            if widget.wordWrap():
                need = widget.heightForWidth(widget.width())
                narrowest = widget.minimumSizeHint().width()
                if widget.height() < need:
                    problems.append(
                        f"{describe(widget)} is {widget.height()} px high, needs {need}"
                    )
                if widget.width() < narrowest:
                    problems.append(f"{describe(widget)} is {widget.width()} px, needs {narrowest}")
            else:
                hint = widget.sizeHint()
                if size.width() < hint.width() or size.height() < hint.height():
                    problems.append(
                        f"{describe(widget)} is {size.toTuple()}, needs {hint.toTuple()}"
                    )
        elif isinstance(widget, WrappingButton):
            need = widget.heightForWidth(widget.width())
            if widget.height() < need or widget.width() < widget.minimumSizeHint().width():
                problems.append(f"{describe(widget)} is {size.toTuple()}, needs more")
        elif isinstance(widget, QAbstractButton) and widget.text():
            hint = widget.sizeHint()
            if size.width() < hint.width() or size.height() < hint.height():
                problems.append(f"{describe(widget)} is {size.toTuple()}, needs {hint.toTuple()}")
    return problems


def wider_than(area: QWidget, root: QWidget) -> list[str]:
    """Every visible widget under ``root`` whose right edge is past ``area``'s."""
    problems = []
    for widget in _shown(root):
        right = widget.mapTo(area, QPoint(widget.width(), 0)).x()
        if right > area.width():
            problems.append(f"{describe(widget)} ends at {right} px, past {area.width()} px")
    return problems
