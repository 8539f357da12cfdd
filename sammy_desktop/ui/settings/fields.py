"""Editors generated from the Settings model: one card per field, titled and described.

:func:`build_editor` picks the widget from the field's type (a switch for a bool, a list
for an enum, a number box with the model's limits for an int, a text box for a string)
and labels it with the field's ``title`` and ``description``. A :class:`FieldCard` shows
a refused value on the field itself: a red edge and a sentence naming the field.

A list, a number box or a slider takes the mouse wheel only while it has the keyboard
focus (:class:`WheelGuard`): scrolling a page past one must scroll the page, not pick the
next voice and save it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, Final

from annotated_types import Ge, Le, MaxLen
from pydantic.fields import FieldInfo
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.ui.painted import ToggleSwitch

__all__ = [
    "Apply",
    "FieldCard",
    "WheelGuard",
    "build_editor",
    "can_edit",
    "enum_label",
    "text_box",
]

_LONG_TEXT_CHARS: Final = 5000
_TEXT_DEBOUNCE_MS: Final = 700

Apply = Callable[[Any], None]
"""Called with the editor's new value; the card's owner validates and saves it."""

SPIN_TEXT_INSET: Final = 11
"""Where a number box's text starts: as in a line edit (app.qss: 1 px border, 10 px padding).

Qt lays a spin box's text field at its left edge whatever the stylesheet's ``padding-left``
and border say (Qt 6.11 applies only the top, right and bottom ones to it), and the embedded
line edit takes no style rules of its own, so the number touched the frame; the field gets
the inset itself.
"""


_WHEEL_EDITORS: Final = (QComboBox, QAbstractSpinBox, QAbstractSlider)
"""The editors whose value the mouse wheel changes."""


class WheelGuard(QObject):
    """Lets lists, number boxes and sliders take the wheel only while they have the focus.

    Unfocused, the wheel event is ignored by the editor and goes on to its parents, so the
    page under it scrolls. The editors get their focus from a click or Tab only: a wheel
    turned over them no longer gives it (which would let the next turn change the value).

    Args:
        parent: the Qt parent (the page whose editors it guards).
    """

    def guard(self, root: QWidget) -> None:
        """Guard ``root`` and every list, number box and slider inside it (again is fine)."""
        for widget in (root, *root.findChildren(QWidget)):
            if isinstance(widget, _WHEEL_EDITORS):
                widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
                widget.installEventFilter(self)  # installing twice keeps one

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """An unfocused editor lets the wheel through to the page."""
        if (
            event.type() == QEvent.Type.Wheel
            and isinstance(watched, QWidget)
            and not watched.hasFocus()
        ):
            # Ignored and filtered: Qt offers a spontaneous wheel event to the parents.
            event.ignore()
            return True
        return False


def enum_label(value: enum.Enum) -> str:
    """``push_to_talk`` -> ``Push to talk``."""
    return str(value.value).replace("_", " ").capitalize()


class FieldCard(QFrame):
    """A titled, described editor with room for an error under it.

    Args:
        name: the settings field (for error messages and tests).
        title: shown above the editor.
        description: the help text under the title.
        editor: the input widget.
        inline: put the editor beside the title (switches) instead of under it.
        parent: the Qt parent.
    """

    def __init__(
        self,
        name: str,
        title: str,
        description: str,
        editor: QWidget,
        *,
        inline: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.name = name
        self.title = title
        self.editor = editor
        self.setObjectName("fieldCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(4)
        title_label = QLabel(title, self)
        title_label.setObjectName("fieldTitle")
        title_label.setBuddy(editor)
        description_label = QLabel(description, self)
        description_label.setObjectName("fieldDescription")
        description_label.setWordWrap(True)
        if inline:
            row = QHBoxLayout()
            text = QVBoxLayout()
            text.setSpacing(2)
            text.addWidget(title_label)
            text.addWidget(description_label)
            row.addLayout(text, 1)
            row.addWidget(editor, 0, Qt.AlignmentFlag.AlignVCenter)
            layout.addLayout(row)
        else:
            layout.addWidget(title_label)
            layout.addWidget(description_label)
            layout.addSpacing(4)
            layout.addWidget(editor)
        self._layout = layout
        self.error_label = QLabel("", self)
        self.error_label.setObjectName("fieldError")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        layout.addWidget(self.error_label)
        editor.setAccessibleName(title)
        editor.setAccessibleDescription(description)
        editor.setToolTip(description)

    def add_below(self, widget: QWidget) -> None:
        """Add a widget under the editor (above the error line)."""
        self._layout.insertWidget(self._layout.indexOf(self.error_label), widget)

    @property
    def error(self) -> str:
        """The error shown, or ""."""
        return self.error_label.text() if not self.error_label.isHidden() else ""

    def show_error(self, message: str) -> None:
        """Mark the field invalid and say why."""
        self.error_label.setText(message)
        self.error_label.show()
        self._set_invalid(True)
        self.editor.setAccessibleDescription(message)

    def clear_error(self) -> None:
        """The field holds a valid value again."""
        self.error_label.hide()
        self.error_label.setText("")
        self._set_invalid(False)

    def _set_invalid(self, invalid: bool) -> None:
        self.editor.setProperty("invalid", invalid)
        self.editor.style().unpolish(self.editor)
        self.editor.style().polish(self.editor)


def _limit(info: FieldInfo, kind: type[Any]) -> Any:
    for item in info.metadata:
        if isinstance(item, kind):
            if isinstance(item, Ge):
                return item.ge
            if isinstance(item, Le):
                return item.le
            if isinstance(item, MaxLen):
                return item.max_length
    return None


def can_edit(info: FieldInfo) -> bool:
    """Whether :func:`build_editor` has an editor for the field's type."""
    annotation = info.annotation
    is_enum = isinstance(annotation, type) and issubclass(annotation, enum.Enum)
    return is_enum or annotation in (bool, int, str)


def text_box(text: str, apply: Apply) -> QPlainTextEdit:
    """A few lines of text, applied once typing pauses rather than on every keystroke."""
    box = QPlainTextEdit()
    box.setPlainText(text)
    box.setFixedHeight(96)
    timer = QTimer(box)
    timer.setSingleShot(True)
    timer.setInterval(_TEXT_DEBOUNCE_MS)
    timer.timeout.connect(lambda: apply(box.toPlainText()))
    box.textChanged.connect(timer.start)
    return box


def build_editor(info: FieldInfo, value: Any, apply: Apply) -> tuple[QWidget, bool]:
    """A widget for a field of type bool, enum, int or str, wired to ``apply``.

    Returns:
        The editor, and whether it should sit beside its title (switches do).

    Raises:
        TypeError: the field's type has no generated editor.
    """
    annotation = info.annotation
    if annotation is bool:
        switch = ToggleSwitch()
        switch.setChecked(bool(value))
        switch.toggled.connect(apply)
        return switch, True
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        combo = QComboBox()
        members = list(annotation)
        for member in members:
            combo.addItem(enum_label(member), member)
        combo.setCurrentIndex(members.index(value))
        combo.currentIndexChanged.connect(lambda index: apply(members[index]))
        return combo, False
    if annotation is int:
        spin = QSpinBox()
        spin.lineEdit().setTextMargins(SPIN_TEXT_INSET, 0, 0, 0)
        spin.setRange(_limit(info, Ge) or 0, _limit(info, Le) or 1_000_000)
        spin.setValue(int(value))
        spin.setAccelerated(True)
        spin.valueChanged.connect(apply)
        return spin, False
    if annotation is str:
        max_length = _limit(info, MaxLen)
        if max_length is not None and max_length >= _LONG_TEXT_CHARS:
            return text_box(str(value), apply), False
        line = QLineEdit()
        line.setText(str(value))
        if max_length is not None:
            line.setMaxLength(max_length)
        line.editingFinished.connect(lambda: apply(line.text()))
        return line, False
    raise TypeError(f"no editor for the type {annotation!r} of setting {info.title!r}")
