"""One conversation read again: its facts, what can be done with it, and its transcript.

The transcript is the main window's own :class:`~sammy_desktop.ui.transcript.TranscriptView`
with the same bubbles and tool cards, filled from the history file instead of live events,
and read-only (there is nothing to type into and nothing runs). A tool card shows what was
recorded: the arguments under Details, the last answer in words, a failure with its red
edge, and how long the answer took.

Above it: when the conversation was, how long it took, its model, tokens and estimated cost,
and the actions: Continue this conversation, Export…, Copy and Delete… (disabled, with a
tooltip saying why, for the conversation going on now).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from datetime import tzinfo
from typing import Any, Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.archive import Session, SpokenLine
from sammy_desktop.archive import ToolCard as ArchivedCard
from sammy_desktop.archive.wording import count_words, long_duration
from sammy_desktop.config.prices import TokenPrices
from sammy_desktop.core.events import Speaker
from sammy_desktop.tools.events import (
    ToolCallCancelled,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallStarted,
)
from sammy_desktop.tools.results import ToolErrorKind, ToolResult
from sammy_desktop.ui.history.wording import (
    continued_words,
    cost_tooltip,
    session_moment,
    usage_words,
)
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.tool_card import ToolCard
from sammy_desktop.ui.transcript import MessageRow, TranscriptView
from sammy_desktop.ui.wrapping import ElidedLabel, WrappingLabel

__all__ = ["LIVE_REASON", "PLACEHOLDER", "SessionView", "fill_transcript"]

LIVE_REASON: Final = (
    "This conversation is going on now. End it in the main window first to delete it."
)
"""Why Delete is refused for the conversation being written."""

NOTHING_TO_CONTINUE: Final = "Nothing was said in this conversation: there is nothing to carry on."
LIVE_CONTINUE: Final = "This conversation is going on now, in the main window."
NO_AGENT: Final = "Sammy cannot start a conversation from here right now."
PLACEHOLDER: Final = "Choose a conversation on the left to read it again."

_FAILED_PREFIX: Final = "Failed: "


def _readable(value: Any) -> Any:
    """``value`` with each withheld field (``{"withheld_chars": N}``) said in words."""
    if isinstance(value, Mapping):
        if set(value) == {"withheld_chars"}:
            return f"({value['withheld_chars']} characters, not kept)"
        return {str(key): _readable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_readable(item) for item in value]
    return value


def _show_card(view: TranscriptView, card: ArchivedCard) -> ToolCard:
    """A tool card as the live transcript showed it, from what the history kept."""
    arguments = _readable(dict(card.arguments))
    shown = view.add_tool_call(ToolCallStarted(card.call_id, card.name, arguments))
    answer = card.result
    if answer is None:
        shown.cancel(ToolCallCancelled(card.call_id, card.name))
        if not card.cancelled:
            shown.result_label.setText("No answer was recorded.")
        return shown
    duration = None
    if answer.at is not None and card.at is not None:
        duration = max((answer.at - card.at).total_seconds(), 0.0)
    summary = answer.summary
    if answer.ok:
        shown.finish(
            ToolCallFinished(
                card.call_id,
                card.name,
                ToolResult.success(None),
                {},
                duration or 0.0,
                summary=summary,
            )
        )
    else:
        words = summary.removeprefix(_FAILED_PREFIX) or "It did not work."
        shown.fail(
            ToolCallFailed(
                card.call_id,
                card.name,
                ToolErrorKind.TOOL_FAILURE,
                (),
                duration or 0.0,
                ToolResult.failure(words),
                {},
                summary=words,
            )
        )
    if duration is None:
        shown.duration_label.setText("")
    return shown


def fill_transcript(view: TranscriptView, session: Session) -> dict[int, QWidget]:
    """Show every line and tool card of ``session`` in ``view``; returns them by file line."""
    view.set_invitation("")
    widgets: dict[int, QWidget] = {}
    for entry in session.entries:
        if isinstance(entry, SpokenLine):
            speaker = Speaker.USER if entry.speaker == "user" else Speaker.ASSISTANT
            row = view.add_line(speaker, entry.text)
            if entry.interrupted and speaker is Speaker.ASSISTANT:
                row.bubble.setToolTip("Cut off: the answer was interrupted.")
            widgets[entry.line] = row
        else:
            widgets[entry.line] = _show_card(view, entry)
    if not session.entries:
        view.add_note("Nothing was said in this conversation.")
    return widgets


class SessionView(QWidget):
    """The conversation opened in the History window.

    Args:
        theme: colours and icons (for the tool cards).
        parent: the Qt parent.
    """

    continue_clicked = Signal()
    export_clicked = Signal()
    copy_clicked = Signal()
    delete_clicked = Signal()

    def __init__(self, theme: ThemeController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = theme
        self._session: Session | None = None
        self._widgets: dict[int, QWidget] = {}
        self._current_line: int | None = None
        self.setObjectName("historySessionView")

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.pages = QStackedWidget(self)
        outer.addWidget(self.pages)

        self.placeholder = QLabel(PLACEHOLDER, self.pages)
        self.placeholder.setObjectName("emptyHint")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.pages.addWidget(self.placeholder)

        self._page = QWidget(self.pages)
        column = QVBoxLayout(self._page)
        column.setContentsMargins(20, 16, 20, 12)
        column.setSpacing(6)
        self.title_label = ElidedLabel("", self._page)
        self.title_label.setObjectName("historyTitle")
        column.addWidget(self.title_label)
        self.facts_label = WrappingLabel("", self._page)
        self.facts_label.setObjectName("fieldDescription")
        column.addWidget(self.facts_label)
        self.continues_label = QLabel("", self._page)
        self.continues_label.setObjectName("fieldDescription")
        self.continues_label.hide()
        column.addWidget(self.continues_label)
        self.problems_label = WrappingLabel("", self._page)
        self.problems_label.setObjectName("fieldDescription")
        self.problems_label.hide()
        column.addWidget(self.problems_label)

        actions = QHBoxLayout()
        actions.setSpacing(8)
        actions.setContentsMargins(0, 6, 0, 2)
        self.continue_button = self._button("Continue this conversation", "primaryButton")
        self.continue_button.setAccessibleDescription(
            "Starts a new conversation in the main window; Sammy hears this one first."
        )
        self.export_button = self._button("Export…")
        self.export_button.setToolTip("Save this conversation as Markdown, plain text or JSON")
        self.copy_button = self._button("Copy")
        self.copy_button.setToolTip("Copy this conversation to the clipboard as text")
        self.delete_button = self._button("Delete…", "dangerButton")
        for button in (
            self.continue_button,
            self.export_button,
            self.copy_button,
            self.delete_button,
        ):
            actions.addWidget(button)
        actions.addStretch(1)
        column.addLayout(actions)
        self.status_label = WrappingLabel("", self._page)
        self.status_label.setObjectName("fieldDescription")
        self.status_label.hide()
        column.addWidget(self.status_label)

        self._transcript_slot = QVBoxLayout()
        self._transcript_slot.setContentsMargins(0, 6, 0, 0)
        column.addLayout(self._transcript_slot, 1)
        self.transcript = self._new_transcript()
        self.pages.addWidget(self._page)

        self.continue_button.clicked.connect(self.continue_clicked)
        self.export_button.clicked.connect(self.export_clicked)
        self.copy_button.clicked.connect(self.copy_clicked)
        self.delete_button.clicked.connect(self.delete_clicked)
        self._order_tabs()

    def _button(self, text: str, name: str = "") -> QPushButton:
        button = QPushButton(text, self._page)
        if name:
            button.setObjectName(name)
        button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setAutoDefault(False)
        return button

    def _new_transcript(self) -> TranscriptView:
        view = TranscriptView(self._theme, parent=self._page)
        view.setAccessibleName("Conversation read again")
        view.set_invitation("")
        self._transcript_slot.addWidget(view)
        return view

    def _order_tabs(self) -> None:
        chain = [
            self.continue_button,
            self.export_button,
            self.copy_button,
            self.delete_button,
            self.transcript,
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    # ------------------------------------------------------------------ queries

    @property
    def session(self) -> Session | None:
        """The conversation shown, or None."""
        return self._session

    @property
    def current_line(self) -> int | None:
        """The line of the file last scrolled to (a search hit's), or None."""
        return self._current_line

    def entry_widget(self, line: int) -> QWidget | None:
        """The bubble row or tool card of the entry on line ``line`` of the file."""
        return self._widgets.get(line)

    @property
    def first_widget(self) -> QWidget | None:
        """The first tool card or line (the Tab order goes on from the buttons to it)."""
        return next(iter(self._widgets.values()), None)

    # ------------------------------------------------------------------ showing

    def clear(self) -> None:
        """Show no conversation (the placeholder)."""
        self._session = None
        self._widgets = {}
        self._current_line = None
        self.pages.setCurrentWidget(self.placeholder)

    def show_session(
        self,
        session: Session,
        *,
        custom: Mapping[str, TokenPrices] | None,
        live: bool,
        can_continue: bool,
        tz: tzinfo | None = None,
    ) -> None:
        """Show ``session``: its facts, its transcript from the top, the actions it allows.

        Args:
            session: the conversation read from its file.
            custom: the person's own token prices, by model.
            live: it is the conversation going on now (Delete and Continue are refused).
            can_continue: a new conversation can be started from here.
            tz: the clock times are said on.
        """
        summary = session.summary
        self._session = session
        self._current_line = None
        self.title_label.setText(f"Conversation of {session_moment(summary.started, tz)}")
        self.facts_label.setText(self.facts_words(custom))
        self.facts_label.setToolTip(cost_tooltip(summary, custom))
        self.continues_label.setVisible(bool(summary.continues))
        self.continues_label.setText(continued_words(summary.continues or "", tz))
        self._show_problems(session.problems)
        self.show_status("")
        self.set_live(live, can_continue=can_continue)

        old = self.transcript
        self.transcript = self._new_transcript()
        old.hide()
        self._transcript_slot.removeWidget(old)
        old.deleteLater()
        self._widgets = fill_transcript(self.transcript, session)
        self._order_tabs()
        self.pages.setCurrentWidget(self._page)
        first = self.first_widget
        if first is not None:
            self.transcript.show_widget(first)  # read from the top, not followed to the end

    def facts_words(self, custom: Mapping[str, TokenPrices] | None) -> str:
        """``45 s · gemini-… · 2 tool calls · 300 tokens · ≈ $0.0011 estimated``."""
        session = self._session
        if session is None:
            return ""
        summary = session.summary
        parts = [long_duration(summary.duration)]
        if summary.model:
            parts.append(summary.model)
        if summary.tool_calls:
            parts.append(count_words(summary.tool_calls, "tool call"))
        parts.extend(usage_words(summary, custom))
        return " · ".join(parts)

    def refresh_prices(self, custom: Mapping[str, TokenPrices] | None) -> None:
        """The person's rates changed: the estimate again."""
        if self._session is not None:
            self.facts_label.setText(self.facts_words(custom))
            self.facts_label.setToolTip(cost_tooltip(self._session.summary, custom))

    def set_live(self, live: bool, *, can_continue: bool) -> None:
        """Whether the conversation shown is the one going on now, and what that refuses."""
        session = self._session
        has_lines = session is not None and bool(session.lines)
        self.delete_button.setEnabled(not live)
        self.delete_button.setToolTip(
            LIVE_REASON if live else "Delete this conversation from this computer (asks first)"
        )
        allowed = can_continue and has_lines and not live
        self.continue_button.setEnabled(allowed)
        if live:
            why = LIVE_CONTINUE
        elif not has_lines:
            why = NOTHING_TO_CONTINUE
        elif not can_continue:
            why = NO_AGENT
        else:
            why = "Start a new conversation that carries on from this one"
        self.continue_button.setToolTip(why)

    def show_line(self, line: int, words: Sequence[str] = ()) -> QWidget | None:
        """Scroll to the entry on ``line`` of the file and mark the first of ``words`` in it."""
        widget = self._widgets.get(line)
        if widget is None:
            return None
        self._current_line = line
        if isinstance(widget, MessageRow):
            _select_word(widget, words)
        elif isinstance(widget, ToolCard) and not widget.details_button.isHidden():
            widget.details_button.setChecked(True)  # the arguments, where the words are
        self.transcript.show_widget(widget)
        return widget

    def show_status(self, text: str, *, error: bool = False) -> None:
        """A line under the actions ("Copied", "Saved to …", or what went wrong)."""
        self.status_label.setObjectName("fieldError" if error else "fieldDescription")
        self.status_label.style().unpolish(self.status_label)
        self.status_label.style().polish(self.status_label)
        self.status_label.setText(text)
        self.status_label.setVisible(bool(text))

    def _show_problems(self, problems: Sequence[str]) -> None:
        if not problems:
            self.problems_label.hide()
            return
        count = len(problems)
        lines = "a line" if count == 1 else f"{count} lines"
        self.problems_label.setText(
            f"{lines[0].upper()}{lines[1:]} of this conversation's file could not be read "
            "and " + ("was" if count == 1 else "were") + " left out."
        )
        self.problems_label.setToolTip("\n".join(problems))
        self.problems_label.show()


def _select_word(row: MessageRow, words: Sequence[str]) -> None:
    """Select the first matched word in the row's bubble, so the eye finds it."""
    text = row.bubble.text()
    lowered = text.lower()
    for word in words:
        start = lowered.find(word.lower()) if word else -1
        if start >= 0:
            row.bubble.setSelection(start, len(word))
            return
