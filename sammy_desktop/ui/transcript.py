"""The live transcript: both sides' turns, partial text updating in place, tool cards.

Lines are keyed by ``(turn_id, speaker)``: every :class:`TranscriptUpdated` carries the
whole line so far, so the view simply replaces the text, drawn in a lighter tone until the
line is final. Tool cards are keyed by call id; the cards of code the model ran on the
service's side by the service's code id (a result without one goes to the turn's card still
waiting). Under a grounded answer: the web pages it came from, as links, and Google's Search
suggestions as chips. The view follows new content to the bottom until the person scrolls
up, and follows again once they scroll back down; while they read further up, new lines
bring up a "Jump to latest" button over the bottom of the view.

For screen readers every line is a label named after its speaker, the area is named
"Conversation", and its description always holds the newest finished line.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QSize, Qt, QTimer, QUrl
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.core.events import (
    AnswerStopped,
    CodeExecuted,
    GroundingSourcesFound,
    Speaker,
    TranscriptUpdated,
)
from sammy_desktop.tools.events import (
    ToolCallCancelled,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
)
from sammy_desktop.ui.focus_frame import track_keyboard_focus
from sammy_desktop.ui.search_suggestions import SearchSuggestions
from sammy_desktop.ui.theme import ThemeController
from sammy_desktop.ui.tool_card import CodeCard, ToolCard
from sammy_desktop.ui.wrapping import WrappingLabel

__all__ = ["Bubble", "MessageRow", "TranscriptView"]

_BUBBLE_WIDTH_SHARE: Final = 0.8
_FOLLOW_SLACK_PX: Final = 24
_JUMP_MARGIN_PX: Final = 10


class Bubble(WrappingLabel):
    """A word-wrapped line of text that is as wide as its text, up to its maximum width.

    A word-wrapped QLabel asks for a width of its own choosing, far narrower than the
    space there is ("[you spoke for 2.2 s]" broke after "2.2" in a 420 px window). This
    one asks for its text's one-line width, capped at the maximum width the transcript
    sets (about four fifths of it), and wraps only beyond that; a word too long for a
    line breaks anywhere (:class:`WrappingLabel`), so no bubble is ever wider than that.
    """

    def sizeHint(self) -> QSize:
        """The one-line width of the text (capped), and the height at that width."""
        width = min(self._natural_width(), self.maximumWidth())
        return QSize(width, self.heightForWidth(width))

    def _natural_width(self) -> int:
        metrics = self.fontMetrics()
        lines = self.text().splitlines() or [""]
        text_width = max(metrics.horizontalAdvance(line) for line in lines)
        chrome = self.width() - self.contentsRect().width()  # padding and border
        # A framed QLabel indents its text by about half an "x" on each side; a pixel
        # or two more keeps rounding from breaking the last word onto its own line.
        indent = metrics.horizontalAdvance("x")
        return text_width + chrome + indent + 2


class MessageRow(QWidget):
    """One line of the conversation: who said it, and the text in a bubble."""

    def __init__(self, speaker: Speaker, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.speaker = speaker
        is_user = speaker is Speaker.USER
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.speaker_label = QLabel(name, self)
        self.speaker_label.setObjectName("speakerLabel")
        align = Qt.AlignmentFlag.AlignRight if is_user else Qt.AlignmentFlag.AlignLeft
        self.speaker_label.setAlignment(align)
        layout.addWidget(self.speaker_label)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        self.bubble = Bubble(parent=self)
        self.bubble.setObjectName("userBubble" if is_user else "assistantBubble")
        self.bubble.setWordWrap(True)
        self.bubble.setTextFormat(Qt.TextFormat.PlainText)
        self.bubble.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bubble.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        self.bubble.setAccessibleName(f"{name} said")
        if is_user:
            row.addStretch(1)
            row.addWidget(self.bubble)
        else:
            row.addWidget(self.bubble)
            row.addStretch(1)
        layout.addLayout(row)
        self._layout = layout
        self._final = False
        self.stopped_label: QLabel | None = None
        """"Stopped" under an answer the person silenced (None until then)."""
        self.usage_label: QLabel | None = None
        """The turn's tokens (and estimated cost) under the answer (None until then)."""

    @property
    def text(self) -> str:
        """The text shown."""
        return self.bubble.text()

    @property
    def final(self) -> bool:
        """Whether the line is complete."""
        return self._final

    def mark_stopped(self) -> None:
        """Say under the bubble that the person stopped this answer."""
        if self.stopped_label is not None:
            return
        label = QLabel("Stopped", self)
        label.setObjectName("systemLine")  # quiet, not bold like a speaker's name
        label.setAccessibleName("You stopped this answer")
        self._layout.addWidget(label)
        label.show()  # a child added after its row is shown stays hidden otherwise
        self.stopped_label = label

    def show_usage(self, text: str, tooltip: str = "") -> QLabel:
        """Say under the bubble what the turn used: its tokens, what they may have cost."""
        label = self.usage_label
        if label is None:
            label = QLabel(self)
            label.setObjectName("systemLine")  # quiet, as the notes are
            self._layout.addWidget(label)
            label.show()  # a child added after its row is shown stays hidden otherwise
            self.usage_label = label
        label.setText(text)
        label.setToolTip(tooltip)
        label.setAccessibleName(f"This answer used {text}")
        return label

    def set_text(self, text: str, *, final: bool) -> None:
        """Replace the text; partial text is drawn lighter."""
        self.bubble.setText(text)
        if final != self._final or self.bubble.property("partial") is None:
            self._final = final
            self.bubble.setProperty("partial", not final)
            self.bubble.style().unpolish(self.bubble)
            self.bubble.style().polish(self.bubble)


class TranscriptView(QScrollArea):
    """The conversation area.

    Args:
        theme: colours and icons for the tool cards.
        assistant_name: how the assistant is labelled.
        open_url: opens a Search suggestion's results in the browser
            (``QDesktopServices.openUrl`` by default; tests pass a recorder).
        parent: the Qt parent.
    """

    def __init__(
        self,
        theme: ThemeController,
        *,
        assistant_name: str = "Sammy",
        open_url: Callable[[QUrl], bool] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._theme = theme
        self._assistant_name = assistant_name
        self._open_url = open_url
        self.setObjectName("transcript")
        self.setAccessibleName("Conversation")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self._content = QWidget(self)
        self._content.setObjectName("transcriptContent")
        # Any minimum width of its own keeps the content exactly as wide as the viewport:
        # without one the scroll area widens it to its widest child's minimum.
        self._content.setMinimumWidth(1)
        self._layout = QVBoxLayout(self._content)
        self._layout.setContentsMargins(4, 8, 8, 8)
        self._layout.setSpacing(12)
        self.empty_hint = QLabel(
            "Hold the button or the Space bar and say something.\nOr type a message below.",
            self._content,
        )
        self.empty_hint.setObjectName("emptyHint")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)
        self._layout.addStretch(1)
        self._layout.addWidget(self.empty_hint)
        self._layout.addStretch(1)
        self.setWidget(self._content)
        # A focus frame only for focus that came by the keyboard (Tab), not by a click.
        track_keyboard_focus(self)

        self.jump_button = QPushButton("Jump to latest", self)
        self.jump_button.setObjectName("jumpToLatest")
        self.jump_button.setAccessibleName("Jump to the latest line")
        self.jump_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.jump_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.jump_button.clicked.connect(self.scroll_to_end)
        self.jump_button.hide()

        self._lines: dict[tuple[int, Speaker], MessageRow] = {}
        self._cards: dict[str, ToolCard] = {}
        self._sources: dict[int, QLabel] = {}
        self._suggestions: dict[int, SearchSuggestions] = {}
        self._code_cards: list[CodeCard] = []
        self._usage_notes: dict[int, QLabel] = {}
        self._follow = True
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._on_range_changed)
        bar.valueChanged.connect(self._on_scrolled)

    # ------------------------------------------------------------------ queries

    @property
    def is_following(self) -> bool:
        """Whether new content scrolls the view to the bottom."""
        return self._follow

    def line(self, turn_id: int, speaker: Speaker) -> MessageRow | None:
        """The row showing ``speaker``'s line of turn ``turn_id``."""
        return self._lines.get((turn_id, speaker))

    def lines(self) -> list[MessageRow]:
        """Every line, in order."""
        return list(self._lines.values())

    def tool_card(self, call_id: str) -> ToolCard | None:
        """The card of the call ``call_id``."""
        return self._cards.get(call_id)

    def tool_cards(self) -> list[ToolCard]:
        """Every tool card, in order."""
        return list(self._cards.values())

    def code_cards(self) -> list[CodeCard]:
        """Every card of code the model ran, in order."""
        return list(self._code_cards)

    def sources_line(self, turn_id: int) -> QLabel | None:
        """The "Sources:" line under the answer of turn ``turn_id``."""
        return self._sources.get(turn_id)

    def search_suggestions(self, turn_id: int) -> SearchSuggestions | None:
        """The Google Search suggestions under the answer of turn ``turn_id``."""
        return self._suggestions.get(turn_id)

    # ------------------------------------------------------------------ updates

    def update_line(self, event: TranscriptUpdated) -> None:
        """Show a line, or update it in place."""
        key = (event.turn_id, event.speaker)
        row = self._lines.get(key)
        if row is None:
            if not event.text.strip():
                return
            name = "You" if event.speaker is Speaker.USER else self._assistant_name
            row = MessageRow(event.speaker, name, self._content)
            self._lines[key] = row
            self._append(row)
        elif row.text != event.text:
            self._offer_jump()
        row.set_text(event.text, final=event.final)
        if event.final:
            self.setAccessibleDescription(f"{row.speaker_label.text()}: {event.text}")
            if event.speaker is Speaker.ASSISTANT:
                for card in self._code_cards:
                    if card.turn_id == event.turn_id:
                        card.no_result()

    def add_line(self, speaker: Speaker, text: str) -> MessageRow:
        """A finished line that never changes: a conversation read back from the history.

        Unlike :meth:`update_line` it is not keyed by its turn, so every line of a file
        shows, whatever turns it names.
        """
        name = "You" if speaker is Speaker.USER else self._assistant_name
        row = MessageRow(speaker, name, self._content)
        row.set_text(text, final=True)
        self._append(row)
        return row

    def show_turn_usage(self, turn_id: int, text: str, tooltip: str = "") -> QLabel:
        """The quiet line of what turn ``turn_id`` used, under its answer.

        A turn whose answer has no line (a tool's call only) gets the line at the end.
        """
        row = self._lines.get((turn_id, Speaker.ASSISTANT))
        if row is not None:
            label = row.show_usage(text, tooltip)
            self._offer_jump()
            return label
        note = self._usage_notes.get(turn_id)
        if note is None:
            note = QLabel(self._content)
            note.setObjectName("systemLine")
            self._usage_notes[turn_id] = note
            self._append(note)
        note.setText(text)
        note.setToolTip(tooltip)
        note.setAccessibleName(f"This turn used {text}")
        return note

    def show_widget(self, widget: QWidget) -> None:
        """Scroll so that ``widget`` (a line, a card) shows, and stop following the end.

        Again once the layout has settled: lines added just before are not placed yet.
        """
        self._follow = False
        self.jump_button.hide()
        layout = self._content.layout()
        if layout is not None:
            layout.activate()
        self.ensureWidgetVisible(widget, 0, 24)
        QTimer.singleShot(0, self, lambda: self._ensure_visible(widget))

    def _ensure_visible(self, widget: QWidget) -> None:
        try:
            shown = widget.parent() is self._content
        except RuntimeError:  # the view was emptied meanwhile
            return
        if shown and not self._follow:
            self.ensureWidgetVisible(widget, 0, 24)

    def mark_stopped(self, event: AnswerStopped) -> None:
        """The person silenced an answer: its bubble says so."""
        row = self._lines.get((event.turn_id, Speaker.ASSISTANT))
        if row is not None:
            row.mark_stopped()

    def add_tool_call(self, event: ToolCallStarted) -> ToolCard:
        """Show a card for a call that just started."""
        card = ToolCard(event, self._theme, self._content)
        self._append(card)
        # Calls without an id still get a card; they cannot be updated later anyway.
        self._cards[event.call_id or f"#{len(self._cards)}"] = card
        return card

    def finish_tool_call(self, event: ToolCallFinished) -> None:
        """A call succeeded."""
        card = self._cards.get(event.call_id)
        if card is not None:
            card.finish(event)

    def fail_tool_call(self, event: ToolCallFailed) -> None:
        """A call failed."""
        card = self._cards.get(event.call_id)
        if card is None:
            card = self.add_tool_call(
                ToolCallStarted(call_id=event.call_id, name=event.name, arguments={})
            )
        card.fail(event)

    def cancel_tool_call(self, event: ToolCallCancelled) -> None:
        """A call was cancelled."""
        card = self._cards.get(event.call_id)
        if card is not None:
            card.cancel(event)

    def progress_tool_call(self, event: ToolCallProgress) -> None:
        """A streaming call reported progress."""
        card = self._cards.get(event.call_id)
        if card is not None:
            card.show_progress(event)

    def show_sources(self, event: GroundingSourcesFound) -> QLabel:
        """Where an answer came from: the web pages as links, the searches as chips.

        One block per turn, under the answer: the "Sources:" line, then Google's Search
        suggestions (the queries the model ran), which the terms ask to show with a grounded
        answer. Returns the sources line.
        """
        links = []
        for source in event.sources:
            uri = source.uri.strip()
            if not uri.lower().startswith(("https://", "http://")):
                continue  # only web pages become links
            name = html.escape(source.domain or source.title or uri)
            title = html.escape(source.title or uri, quote=True)
            links.append(f'<a href="{html.escape(uri, quote=True)}" title="{title}">{name}</a>')
        label = self._sources.get(event.turn_id)
        suggestions = self._suggestions.get(event.turn_id)
        if label is None or suggestions is None:
            label, suggestions = self._add_grounding_block(event.turn_id)
        label.setText("Sources: " + (" · ".join(links) if links else "none given"))
        suggestions.add_queries(event.queries)
        # With searches to show and no page to link, "none given" would only be noise.
        label.setVisible(bool(links) or not suggestions.queries)
        return label

    def _add_grounding_block(self, turn_id: int) -> tuple[QLabel, SearchSuggestions]:
        block = QWidget(self._content)
        block.setObjectName("groundingBlock")
        column = QVBoxLayout(block)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        label = QLabel(block)
        label.setObjectName("sourcesLine")
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setOpenExternalLinks(True)
        label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction
            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        label.setAccessibleName("Sources of the answer")
        column.addWidget(label)
        suggestions = SearchSuggestions(self._open_url, block)
        suggestions.hide()
        column.addWidget(suggestions)
        self._append(block)
        self._sources[turn_id] = label
        self._suggestions[turn_id] = suggestions
        return label, suggestions

    def show_code_execution(self, event: CodeExecuted) -> CodeCard:
        """Code the model ran: a new card for the code, its result on that same card.

        A result finds its card by the service's code id; without one (or with an id no
        card has), the turn's last card still waiting for a result. A result with no card
        at all still gets one.
        """
        if event.outcome is None:
            card = self._code_card(event.code_id) if event.code_id else None
            if card is None:
                card = self._add_code_card(event)
            else:
                card.set_code(event)
            return card
        card = self._code_card(event.code_id) if event.code_id else None
        if card is None:
            waiting = [c for c in self._code_cards if c.turn_id == event.turn_id]
            waiting = [c for c in waiting if c.waiting_for_result]
            card = waiting[-1] if waiting else self._add_code_card(event)
        card.set_result(event)
        return card

    def _code_card(self, code_id: str) -> CodeCard | None:
        for card in reversed(self._code_cards):
            if card.code_id == code_id:
                return card
        return None

    def _add_code_card(self, event: CodeExecuted) -> CodeCard:
        card = CodeCard(event, self._theme, self._content)
        self._code_cards.append(card)
        self._append(card)
        return card

    def add_note(self, text: str) -> QLabel:
        """A quiet centred line (session started, ended, reconnected...)."""
        # Plain text: it may quote the model (endSession's reason).
        note = WrappingLabel(text, self._content)
        note.setObjectName("systemLine")
        note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._append(note)
        return note

    def set_invitation(self, text: str) -> None:
        """What the empty transcript invites the person to do; "" shows nothing.

        Decided with the talk control (:mod:`sammy_desktop.ui.talk_view`), so it never
        offers talking when no conversation can start. Once the conversation has its first
        line the invitation is gone for good.
        """
        if self.empty_hint.parent() is None:
            return
        self.empty_hint.setText(text)
        self.empty_hint.setVisible(bool(text))

    def scroll_to_end(self) -> None:
        """Jump to the newest line and follow again."""
        self._follow = True
        self.jump_button.hide()
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    # ------------------------------------------------------------------ internals

    def _append(self, widget: QWidget) -> None:
        self._remove_empty_hint()
        self._layout.insertWidget(self._layout.count() - 1, widget)
        self._fit_bubbles()
        self._offer_jump()

    def _offer_jump(self) -> None:
        """Something new came below while the person reads further up."""
        if not self._follow and not self.jump_button.isVisible():
            self._place_jump_button()
            self.jump_button.show()
            self.jump_button.raise_()

    def _place_jump_button(self) -> None:
        hint = self.jump_button.sizeHint()
        area = self.viewport().geometry()
        x = area.center().x() - hint.width() // 2
        y = area.bottom() - hint.height() - _JUMP_MARGIN_PX
        self.jump_button.setGeometry(x, y, hint.width(), hint.height())

    def _remove_empty_hint(self) -> None:
        if self.empty_hint.parent() is None:
            return
        # The hint sat between two stretches; keep one stretch at the end only.
        self._layout.removeWidget(self.empty_hint)
        self.empty_hint.hide()
        self.empty_hint.setParent(None)
        first = self._layout.itemAt(0)
        if first is not None and first.spacerItem() is not None:
            self._layout.takeAt(0)

    def _fit_bubbles(self) -> None:
        width = int(self.viewport().width() * _BUBBLE_WIDTH_SHARE)
        for row in self._lines.values():
            row.bubble.setMaximumWidth(max(120, width))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Bubbles take at most about four fifths of the width."""
        super().resizeEvent(event)
        self._fit_bubbles()
        self._place_jump_button()

    def _on_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(maximum)

    def _on_scrolled(self, value: int) -> None:
        self._follow = value >= self.verticalScrollBar().maximum() - _FOLLOW_SLACK_PX
        if self._follow:
            self.jump_button.hide()
