"""Asking the person before a risky tool runs: a sheet over the transcript.

:class:`ConfirmationSheet` shows one question at a time (more wait in line): the tool's
title as the question ("Open a web page?"), what will happen in one plain sentence, the
arguments as ``Label: value`` lines, and Approve (Enter) / Deny (Esc) / Always this
session, with a countdown; no answer in time is a no. :class:`QtConfirmationPort` is the
tool layer's :class:`~sammy_desktop.tools.context.ConfirmationPort` on top of it.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import shiboken6
from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.tools.context import ConfirmationRequest
from sammy_desktop.tools.wording import argument_lines, title_from_name
from sammy_desktop.ui.wrapping import WrappingButton, WrappingLabel

__all__ = ["Answer", "ConfirmationSheet", "Grant", "QtConfirmationPort"]

ARM_DELAY_MS: Final = 1000
"""How long after a question appears before it can be approved (browsers wait about as
long before a permission prompt takes a click): a key or a click meant for something else,
such as a push-to-talk tap, must not land on Approve."""


_CHOSEN_FOCUS: Final = (
    Qt.FocusReason.TabFocusReason,
    Qt.FocusReason.BacktabFocusReason,
    Qt.FocusReason.MouseFocusReason,
    Qt.FocusReason.ShortcutFocusReason,
)
"""Ways the person moves the focus themselves (the sheet's own focus on Deny is not one)."""


class Answer:
    """How a question was answered (the ``how`` of :attr:`ConfirmationSheet.answered`)."""

    APPROVED: Final = "approved"
    ALWAYS: Final = "always"
    DENIED: Final = "denied"
    TIMED_OUT: Final = "timed out"
    WITHDRAWN: Final = "withdrawn"


def _format_arguments(arguments: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    """The arguments as ``Label: value`` lines ("" when there are none)."""
    return "\n".join(argument_lines(arguments, titles))


@dataclass(frozen=True, slots=True)
class Grant:
    """An "always this session" yes: one tool, for one target (a site, an application).

    Attributes:
        tool_name: the tool allowed.
        target: what it is allowed for; None when the yes covers the whole tool.
        title: the tool's title for the person; not part of what the grant is.
    """

    tool_name: str
    target: str | None = None
    title: str = field(default="", compare=False)

    @property
    def tool_title(self) -> str:
        """The tool's title ("Open a web page"), made from its name when not given."""
        return self.title or title_from_name(self.tool_name)

    def describe(self) -> str:
        """``Open a web page for example.com``, or the tool's title alone."""
        if self.target is None:
            return self.tool_title
        return f"{self.tool_title} for {self.target}"


class _Choices(QWidget):
    """Two buttons side by side, or one above the other where the row is too narrow.

    It places them itself, without a layout: a layout's own height would stand in for the
    height this widget needs at a width (Qt asks the layout first).
    """

    _SPACING: Final = 8

    def __init__(self, first: QPushButton, second: QPushButton, parent: QWidget) -> None:
        super().__init__(parent)
        self._pair = (first, second)
        for button in self._pair:
            button.setParent(self)
        policy = self.sizePolicy()
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    @property
    def stacked(self) -> bool:
        """Whether the buttons are one above the other now."""
        first, second = self._pair
        return second.y() > first.y()

    def _fits(self, width: int) -> bool:
        first, second = (button.sizeHint().width() for button in self._pair)
        return first + second + self._SPACING <= width

    def _heights(self) -> tuple[int, int]:
        first, second = (button.sizeHint().height() for button in self._pair)
        return first, second

    def sizeHint(self) -> QSize:
        """Side by side."""
        first, second = (button.sizeHint() for button in self._pair)
        width = first.width() + second.width() + self._SPACING
        return QSize(width, max(first.height(), second.height()))

    def minimumSizeHint(self) -> QSize:
        """Room for the wider button alone (below that they stack)."""
        first, second = (button.sizeHint() for button in self._pair)
        return QSize(max(first.width(), second.width()), self.heightForWidth(0))

    def hasHeightForWidth(self) -> bool:
        """Narrow, the buttons stack."""
        return True

    def heightForWidth(self, width: int) -> int:
        """One button's height, or both and the spacing where they stack at ``width``."""
        first, second = self._heights()
        if self._fits(width):
            return max(first, second)
        return first + self._SPACING + second

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Place the buttons for the new width."""
        super().resizeEvent(event)
        width = event.size().width()
        first, second = self._pair
        first_height, second_height = self._heights()
        if self._fits(width):
            half = (width - self._SPACING) // 2
            left = max(half, first.sizeHint().width())
            if second.sizeHint().width() > width - self._SPACING - left:
                left = width - self._SPACING - second.sizeHint().width()
            height = max(first_height, second_height)
            first.setGeometry(0, 0, left, height)
            second.setGeometry(left + self._SPACING, 0, width - left - self._SPACING, height)
        else:
            first.setGeometry(0, 0, width, first_height)
            second.setGeometry(0, first_height + self._SPACING, width, second_height)


class ConfirmationSheet(QWidget):
    """A sheet that covers its parent (the transcript's host) while a question is open.

    Safe by default: the focus starts on Deny; Approve and "Always" take no click or key
    for :data:`ARM_DELAY_MS` after a question appears; Space never presses a button here
    (it is the push-to-talk key); Enter approves once armed, unless the person moved the
    focus to another choice; Esc denies at any time. Once the last question is answered
    the focus goes back where it was before the sheet showed.

    Every text wraps, long words and the "Always" choice included; the buttons stack where
    they do not fit side by side, and the sheet scrolls where the window is too low for it.

    Args:
        parent: the widget the sheet covers; it follows that widget's size.
        arm_delay_ms: the delay before a question can be approved.
    """

    answered = Signal(str, bool, str)
    """``(token, approved, how)`` with ``how`` one of the :class:`Answer` values; the token
    is the question's own (:attr:`ConfirmationRequest.token`), never the call id."""
    shown_request = Signal(str)
    """A question appeared (its token): the window raises itself."""
    armed_request = Signal(str)
    """The question (its token) can be approved now (:data:`ARM_DELAY_MS` after it showed)."""

    def __init__(self, parent: QWidget, *, arm_delay_ms: int = ARM_DELAY_MS) -> None:
        super().__init__(parent)
        self._host = parent
        self._focus_chosen = False
        self.setObjectName("sheetBackdrop")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setAccessibleName("Approval needed")
        self._queue: deque[ConfirmationRequest] = deque()
        self._current: ConfirmationRequest | None = None
        self._deadline = 0.0
        self._focus_before: QWidget | None = None

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("sheetScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        holder = QWidget(self.scroll_area)
        holder.setObjectName("sheetHolder")
        holder.setMinimumWidth(1)  # as wide as the sheet, never wider (see TranscriptView)
        holder_layout = QVBoxLayout(holder)
        holder_layout.setContentsMargins(16, 16, 16, 16)
        holder_layout.addStretch(1)
        self.scroll_area.setWidget(holder)
        outer.addWidget(self.scroll_area)
        self.card = QFrame(holder)
        self.card.setObjectName("sheetCard")
        card_layout = QVBoxLayout(self.card)
        card_layout.setContentsMargins(20, 18, 20, 16)
        card_layout.setSpacing(10)
        self.title_label = WrappingLabel(parent=self.card)
        self.title_label.setObjectName("sheetTitle")
        self.title_label.setWordWrap(True)
        self.prompt_label = WrappingLabel(parent=self.card)
        self.prompt_label.setObjectName("sheetPrompt")
        self.prompt_label.setWordWrap(True)
        self.arguments_label = WrappingLabel(parent=self.card)
        self.arguments_label.setObjectName("sheetArguments")
        self.arguments_label.setWordWrap(True)
        self.arguments_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.arguments_label.setAccessibleName("Arguments")
        # Margins, not stylesheet padding: word-wrapped labels size themselves right then.
        self.arguments_label.setContentsMargins(10, 8, 10, 8)
        self.countdown_label = QLabel(self.card)
        self.countdown_label.setObjectName("sheetCountdown")
        # What a tool asks and the model's arguments: shown as written, never as markup
        # (an HTML comment in an argument must not hide the rest of the question).
        for label in (self.title_label, self.prompt_label, self.arguments_label):
            label.setTextFormat(Qt.TextFormat.PlainText)
        card_layout.addWidget(self.title_label)
        card_layout.addWidget(self.prompt_label)
        card_layout.addWidget(self.arguments_label)
        card_layout.addWidget(self.countdown_label)

        self.deny_button = QPushButton("Deny (Esc)", self.card)
        self.deny_button.setAccessibleName("Deny")
        self.approve_button = QPushButton("Approve (Enter)", self.card)
        self.approve_button.setObjectName("primaryButton")
        self.approve_button.setAccessibleName("Approve")
        self.choices = _Choices(self.deny_button, self.approve_button, self.card)
        card_layout.addWidget(self.choices)
        # It names the tool and the target, so it can be long: it wraps.
        self.always_button = WrappingButton("Always allow this session", self.card)
        self.always_button.setObjectName("linkButton")
        self.always_button.setAccessibleName("Approve always for this session")
        card_layout.addWidget(self.always_button, 0, Qt.AlignmentFlag.AlignHCenter)
        holder_layout.addWidget(self.card)
        # Tab order from the safe choice, where the focus starts.
        QWidget.setTabOrder(self.deny_button, self.approve_button)
        QWidget.setTabOrder(self.approve_button, self.always_button)
        self._arming = QTimer(self)
        self._arming.setSingleShot(True)
        self._arming.setInterval(max(0, arm_delay_ms))
        self._arming.timeout.connect(self._arm)
        for button in self._buttons:
            button.installEventFilter(self)

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
            self._focus_before = self.window().focusWidget()
            self._present(request)
        else:
            self._queue.append(request)

    def withdraw(self, token: str) -> None:
        """Drop the question ``token`` (the tool layer stopped waiting)."""
        self._queue = deque(r for r in self._queue if r.token != token)
        if self._current is not None and self._current.token == token:
            self._finish(False, Answer.WITHDRAWN)

    @property
    def armed(self) -> bool:
        """Whether the current question can be approved yet (see :data:`ARM_DELAY_MS`)."""
        return self._current is not None and self.approve_button.isEnabled()

    def approve(self) -> None:
        """Approve the current question (nothing before it is armed)."""
        if self.armed:
            self._finish(True, Answer.APPROVED)

    def approve_always(self) -> None:
        """Approve it, and this tool's later questions on the same target this session."""
        if self.armed:
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
        self.title_label.setText(f"{request.title}?")
        always = (
            "Always allow this session"
            if request.target is None
            else f"Always allow {request.target} this session"
        )
        self.always_button.setText(always)
        self.always_button.setAccessibleName(always)
        self.prompt_label.setText(request.prompt)
        shown = _format_arguments(request.arguments, request.argument_titles)
        self.arguments_label.setText(shown)
        self.arguments_label.setVisible(bool(shown))
        self.setAccessibleDescription(request.prompt)
        self._deadline = time.monotonic() + request.timeout_s
        self._timeout.start(max(0, round(request.timeout_s * 1000)))
        self._tick.start()
        self._on_tick()
        self.setGeometry(self._host.rect())
        self.approve_button.setEnabled(False)
        self.always_button.setEnabled(False)
        self.show()
        self.raise_()
        self.deny_button.setFocus(Qt.FocusReason.OtherFocusReason)
        self._focus_chosen = False
        self._arming.start()
        self.shown_request.emit(request.token)

    def _arm(self) -> None:
        if self._current is not None:
            self.approve_button.setEnabled(True)
            self.always_button.setEnabled(True)
            self.armed_request.emit(self._current.token)

    @property
    def _buttons(self) -> tuple[QPushButton, ...]:
        return (self.deny_button, self.approve_button, self.always_button)

    def _finish(self, approved: bool, how: str) -> None:
        request = self._current
        if request is None:
            return
        self._current = None
        self._tick.stop()
        self._timeout.stop()
        self._arming.stop()
        self.hide()
        if not self._queue:
            self._give_focus_back()
        self.answered.emit(request.token, approved, how)
        if self._queue and self._current is None:
            self._present(self._queue.popleft())

    def _give_focus_back(self) -> None:
        """Hiding the sheet passed the focus on to the next widget; put it back instead."""
        before, self._focus_before = self._focus_before, None
        if (
            before is None
            or not shiboken6.isValid(before)
            or not before.isVisible()
            or not before.isEnabled()
            or self.isAncestorOf(before)
        ):
            return
        before.setFocus(Qt.FocusReason.OtherFocusReason)

    def _on_tick(self) -> None:
        left = self.seconds_left()
        self.countdown_label.setText(f"No answer in {left:.0f} s counts as no.")

    def _on_timeout(self) -> None:
        self._finish(False, Answer.TIMED_OUT)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc denies; Enter approves once armed, or presses the choice the person focused."""
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.deny()
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.isAutoRepeat():
                pass  # a held key is not a decision
            elif self._focus_chosen and self.focusWidget() is self.deny_button:
                self.deny()
            elif self._focus_chosen and self.focusWidget() is self.always_button:
                self.approve_always()
            else:
                self.approve()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keep covering the parent when it is resized; keep Space off the buttons."""
        # Asks Qt for the parent instead of reading self._host: the filter also runs while
        # a collected window is torn down, after Python has cleared the sheet's attributes.
        host = self.parentWidget()
        kind = event.type()
        if watched is host:
            if kind == QEvent.Type.Resize:
                self.setGeometry(host.rect())
            return False
        if kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease) and isinstance(event, QKeyEvent):
            # A button presses itself on Space: here Space is push-to-talk, never a choice.
            return event.key() == Qt.Key.Key_Space
        if (
            kind == QEvent.Type.FocusIn
            and isinstance(event, QFocusEvent)
            and event.reason() in _CHOSEN_FOCUS
        ):
            self._focus_chosen = True
        return False


class QtConfirmationPort(QObject):
    """The tool layer's ``ConfirmationPort``, answered by the person on the sheet.

    It needs no widget to exist, so the app can build it before the tool manager and the
    window: the window connects :attr:`asked` to its sheet and the sheet's answers to
    :meth:`answer`. "Always this session" approvals are :class:`Grant` s, one tool for one
    target (a site, an application), remembered until :meth:`forget_session` or
    :meth:`revoke` (Settings lists them).

    Args:
        parent: the Qt parent.
    """

    asked = Signal(object)
    """A :class:`ConfirmationRequest` to show."""
    withdrawn = Signal(str)
    """The token of a question that no longer needs an answer (the tool layer gave up)."""
    grants_changed = Signal()
    """A grant was added or revoked, or the session's grants were forgotten."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._waiting: dict[str, tuple[Grant, asyncio.Future[bool]]] = {}
        self._grants: dict[Grant, None] = {}  # ordered: Settings lists them as given

    def attach(self, sheet: ConfirmationSheet) -> None:
        """Show the questions on ``sheet`` and take its answers."""
        self.asked.connect(sheet.ask)
        self.withdrawn.connect(sheet.withdraw)
        sheet.answered.connect(self.answer)

    @property
    def grants(self) -> tuple[Grant, ...]:
        """What is approved for the rest of the session, oldest first."""
        return tuple(self._grants)

    def revoke(self, grant: Grant) -> None:
        """Ask again for ``grant``'s tool and target from now on."""
        if grant in self._grants:
            del self._grants[grant]
            self.grants_changed.emit()

    def forget_session(self) -> None:
        """A new session starts: every tool asks again."""
        if self._grants:
            self._grants.clear()
            self.grants_changed.emit()

    async def confirm(self, request: ConfirmationRequest) -> bool:
        """Show ``request`` and wait for the person's answer (no answer in time is no)."""
        grant = Grant(request.tool_name, request.target, request.title)
        if grant in self._grants:
            return True
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting[request.token] = (grant, future)
        self.asked.emit(request)
        try:
            return await future
        finally:
            self._waiting.pop(request.token, None)
            # Cancelled by the tool layer (its own timeout, or shutdown): take the sheet down.
            self.withdrawn.emit(request.token)

    def answer(self, token: str, approved: bool, how: str) -> None:
        """The person answered the question ``token`` (``how``: an :class:`Answer`)."""
        waiting = self._waiting.get(token)
        if waiting is None:
            return
        grant, future = waiting
        if how == Answer.ALWAYS and grant not in self._grants:
            self._grants[grant] = None
            self.grants_changed.emit()
        if not future.done():
            future.set_result(approved)
