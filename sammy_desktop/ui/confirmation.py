"""Asking the person before a risky tool runs: a sheet over the transcript.

:class:`ConfirmationSheet` shows one question at a time (more wait in line): what will
happen in one plain sentence, the arguments, and Approve (Enter) / Deny (Esc) / Always this
session, with a countdown; no answer in time is a no. :class:`QtConfirmationPort` is the
tool layer's :class:`~sammy_desktop.tools.context.ConfirmationPort` on top of it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from typing import Any, Final

from pydantic_core import to_jsonable_python
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.tools.context import ConfirmationRequest

__all__ = ["Answer", "ConfirmationSheet", "QtConfirmationPort"]


class Answer:
    """How a question was answered (the ``how`` of :attr:`ConfirmationSheet.answered`)."""

    APPROVED: Final = "approved"
    ALWAYS: Final = "always"
    DENIED: Final = "denied"
    TIMED_OUT: Final = "timed out"
    WITHDRAWN: Final = "withdrawn"


def _format_arguments(arguments: Any) -> str:
    data = to_jsonable_python(arguments, fallback=repr)
    if isinstance(data, dict):
        if not data:
            return "(no arguments)"
        lines = []
        for key, value in data.items():
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            lines.append(f"{key}: {shown}")
        return "\n".join(lines)
    return json.dumps(data, indent=2, ensure_ascii=False)


class ConfirmationSheet(QWidget):
    """A sheet that covers its parent (the transcript's host) while a question is open.

    Args:
        parent: the widget the sheet covers; it follows that widget's size.
    """

    answered = Signal(str, bool, str)
    """``(call_id, approved, how)`` with ``how`` one of the :class:`Answer` values."""
    shown_request = Signal(str)
    """A question appeared (its call id): the window raises itself."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._host = parent
        self.setObjectName("sheetBackdrop")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setAccessibleName("Approval needed")
        self._queue: deque[ConfirmationRequest] = deque()
        self._current: ConfirmationRequest | None = None
        self._deadline = 0.0

        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 16, 16, 16)
        outer.addStretch(1)
        self.card = QFrame(self)
        self.card.setObjectName("sheetCard")
        card_layout = QVBoxLayout(self.card)
        card_layout.setContentsMargins(20, 18, 20, 16)
        card_layout.setSpacing(10)
        self.title_label = QLabel(self.card)
        self.title_label.setObjectName("sheetTitle")
        self.title_label.setWordWrap(True)
        self.prompt_label = QLabel(self.card)
        self.prompt_label.setObjectName("sheetPrompt")
        self.prompt_label.setWordWrap(True)
        self.arguments_label = QLabel(self.card)
        self.arguments_label.setObjectName("sheetArguments")
        self.arguments_label.setWordWrap(True)
        self.arguments_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.arguments_label.setAccessibleName("Arguments")
        # Margins, not stylesheet padding: word-wrapped labels size themselves right then.
        self.arguments_label.setContentsMargins(10, 8, 10, 8)
        self.countdown_label = QLabel(self.card)
        self.countdown_label.setObjectName("sheetCountdown")
        card_layout.addWidget(self.title_label)
        card_layout.addWidget(self.prompt_label)
        card_layout.addWidget(self.arguments_label)
        card_layout.addWidget(self.countdown_label)

        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        self.deny_button = QPushButton("Deny (Esc)", self.card)
        self.deny_button.setAccessibleName("Deny")
        self.approve_button = QPushButton("Approve (Enter)", self.card)
        self.approve_button.setObjectName("primaryButton")
        self.approve_button.setAccessibleName("Approve")
        buttons.addWidget(self.deny_button, 1)
        buttons.addWidget(self.approve_button, 1)
        card_layout.addLayout(buttons)
        self.always_button = QPushButton("Always allow this session", self.card)
        self.always_button.setObjectName("linkButton")
        self.always_button.setAccessibleName("Approve always for this session")
        card_layout.addWidget(self.always_button, 0, Qt.AlignmentFlag.AlignHCenter)
        outer.addWidget(self.card)
        # Natural tab order inside the sheet: the safe choice first after Approve.
        QWidget.setTabOrder(self.approve_button, self.deny_button)
        QWidget.setTabOrder(self.deny_button, self.always_button)

        self._tick = QTimer(self)
        self._tick.setInterval(250)
        self._tick.timeout.connect(self._on_tick)
        self._timeout = QTimer(self)
        self._timeout.setSingleShot(True)
        self._timeout.timeout.connect(self._on_timeout)
        self.approve_button.clicked.connect(self.approve)
        self.deny_button.clicked.connect(self.deny)
        self.always_button.clicked.connect(self.approve_always)
        parent.installEventFilter(self)
        self.hide()

    # ------------------------------------------------------------------ public API

    @property
    def current(self) -> ConfirmationRequest | None:
        """The question shown now."""
        return self._current

    @property
    def waiting(self) -> int:
        """Questions in line behind the current one."""
        return len(self._queue)

    def ask(self, request: ConfirmationRequest) -> None:
        """Show ``request`` now, or after the questions before it."""
        if self._current is None:
            self._present(request)
        else:
            self._queue.append(request)

    def withdraw(self, call_id: str) -> None:
        """Drop the question for ``call_id`` (the tool layer stopped waiting)."""
        self._queue = deque(r for r in self._queue if r.call_id != call_id)
        if self._current is not None and self._current.call_id == call_id:
            self._finish(False, Answer.WITHDRAWN)

    def approve(self) -> None:
        """Approve the current question."""
        self._finish(True, Answer.APPROVED)

    def approve_always(self) -> None:
        """Approve it, and this tool's later questions in this session."""
        self._finish(True, Answer.ALWAYS)

    def deny(self) -> None:
        """Deny the current question."""
        self._finish(False, Answer.DENIED)

    def seconds_left(self) -> float:
        """Time left to answer the current question."""
        return max(0.0, self._deadline - time.monotonic()) if self._current else 0.0

    # ------------------------------------------------------------------ internals

    def _present(self, request: ConfirmationRequest) -> None:
        self._current = request
        self.title_label.setText(f"Allow {request.tool_name}?")
        self.always_button.setText(f"Always allow {request.tool_name} this session")
        self.prompt_label.setText(request.prompt)
        self.arguments_label.setText(_format_arguments(request.arguments))
        self.setAccessibleDescription(request.prompt)
        self._deadline = time.monotonic() + request.timeout_s
        self._timeout.start(max(0, round(request.timeout_s * 1000)))
        self._tick.start()
        self._on_tick()
        self.setGeometry(self._host.rect())
        self.show()
        self.raise_()
        self.approve_button.setFocus(Qt.FocusReason.OtherFocusReason)
        self.shown_request.emit(request.call_id)

    def _finish(self, approved: bool, how: str) -> None:
        request = self._current
        if request is None:
            return
        self._current = None
        self._tick.stop()
        self._timeout.stop()
        self.hide()
        self.answered.emit(request.call_id, approved, how)
        if self._queue and self._current is None:
            self._present(self._queue.popleft())

    def _on_tick(self) -> None:
        left = self.seconds_left()
        self.countdown_label.setText(f"No answer in {left:.0f} s counts as no.")

    def _on_timeout(self) -> None:
        self._finish(False, Answer.TIMED_OUT)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter presses the focused choice (Approve at first); Esc denies."""
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.deny()
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            focused = self.focusWidget()
            if focused in (self.deny_button, self.always_button):
                focused.click()
            else:
                self.approve()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keep covering the parent when it is resized."""
        # Asks Qt for the parent instead of reading self._host: the filter also runs while
        # a collected window is torn down, after Python has cleared the sheet's attributes.
        host = self.parentWidget()
        if watched is host and event.type() == QEvent.Type.Resize:
            self.setGeometry(host.rect())
        return False


class QtConfirmationPort(QObject):
    """The tool layer's ``ConfirmationPort``, answered by the person on the sheet.

    It needs no widget to exist, so the app can build it before the tool manager and the
    window: the window connects :attr:`asked` to its sheet and the sheet's answers to
    :meth:`answer`. "Always this session" approvals are remembered per tool until
    :meth:`forget_session`.

    Args:
        parent: the Qt parent.
    """

    asked = Signal(object)
    """A :class:`ConfirmationRequest` to show."""
    withdrawn = Signal(str)
    """The call id whose question no longer needs an answer (the tool layer gave up)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._waiting: dict[str, tuple[str, asyncio.Future[bool]]] = {}
        self._always: set[str] = set()

    def attach(self, sheet: ConfirmationSheet) -> None:
        """Show the questions on ``sheet`` and take its answers."""
        self.asked.connect(sheet.ask)
        self.withdrawn.connect(sheet.withdraw)
        sheet.answered.connect(self.answer)

    @property
    def always_approved(self) -> frozenset[str]:
        """Tools approved for the rest of the session."""
        return frozenset(self._always)

    def forget_session(self) -> None:
        """A new session starts: every tool asks again."""
        self._always.clear()

    async def confirm(self, request: ConfirmationRequest) -> bool:
        """Show ``request`` and wait for the person's answer (no answer in time is no)."""
        if request.tool_name in self._always:
            return True
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting[request.call_id] = (request.tool_name, future)
        self.asked.emit(request)
        try:
            return await future
        finally:
            self._waiting.pop(request.call_id, None)
            # Cancelled by the tool layer (its own timeout, or shutdown): take the sheet down.
            self.withdrawn.emit(request.call_id)

    def answer(self, call_id: str, approved: bool, how: str) -> None:
        """The person answered the question for ``call_id`` (``how``: an :class:`Answer`)."""
        waiting = self._waiting.get(call_id)
        if waiting is None:
            return
        tool_name, future = waiting
        if how == Answer.ALWAYS:
            self._always.add(tool_name)
        if not future.done():
            future.set_result(approved)
