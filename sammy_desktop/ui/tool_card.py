"""A tool call shown inline in the transcript: title, key argument, result, duration.

A card appears when a call starts (with a spinner), and turns into a result, a failure
(with a red edge and the reason) or "cancelled". Everything on it is in words for the
person, and comes on the tool events: the tool's title ("Open a web page"), and a line
saying what the call did ("Opened wikipedia.org") or what went wrong ("You did not allow
it"). What the model was told is written for the model and never shown here. "Details"
unfolds every argument as a ``Label: value`` line.

:class:`CodeCard` is the same card for the code the model ran on the service's side (the
Live API's code execution): the code in a monospace block, then the outcome and what it
printed. Every text on a card comes from a tool or the model, so it is shown as plain text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from sammy_desktop.core.events import CodeExecuted
from sammy_desktop.tools.events import (
    ToolCallCancelled,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
)
from sammy_desktop.tools.results import ToolResult
from sammy_desktop.tools.wording import argument_lines, default_summary, human_value
from sammy_desktop.ui.painted import Spinner
from sammy_desktop.ui.theme import Palette, ThemeController
from sammy_desktop.ui.wrapping import ElidedLabel, WrappingLabel

__all__ = [
    "CodeCard",
    "ToolCard",
    "format_duration",
    "key_argument",
    "restyle_card",
    "summarize_result",
]

_MAX_ARGUMENT_CHARS: Final = 40
_MAX_RESULT_CHARS: Final = 600
_NAME_KEEP_PX: Final = 120
"""How much of the tool's name a narrow card keeps before its argument gives way."""


def format_duration(seconds: float) -> str:
    """``12 ms`` below a second, ``1.4 s`` above."""
    if seconds < 1:
        return f"{max(0, round(seconds * 1000))} ms"
    return f"{seconds:.1f} s"


def _short(value: Any, limit: int) -> str:
    text = " ".join(human_value(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cut(text: str, limit: int = _MAX_RESULT_CHARS) -> str:
    """A result line kept to a readable length (its line breaks kept)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def key_argument(arguments: Mapping[str, Any]) -> str:
    """The argument worth showing on the card: the first short scalar one."""
    for value in arguments.values():
        if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value):
            return _short(str(value), _MAX_ARGUMENT_CHARS)
    return ""


def summarize_result(result: ToolResult[Any]) -> str:
    """The line for a result no tool worded: its ``display``, "Done", or the failure in words.

    Never the value itself: its field names and JSON are for the model.
    """
    return _cut(default_summary(result))


def restyle_card(card: QFrame) -> None:
    """Restyle a card and everything on it after its ``status`` property changed.

    A dynamic property only restyles the widget that is polished again, and the
    stylesheet's rules that read the card's status from a label on it
    (``QFrame#toolCard[status="failed"] QLabel#toolResult``) belong to the label: without
    polishing the labels too, a failed card's reason stayed in the normal colour until the
    theme changed and every widget was polished anew.
    """
    style = card.style()
    style.unpolish(card)
    style.polish(card)
    for child in card.findChildren(QWidget):
        child_style = child.style()
        child_style.unpolish(child)
        child_style.polish(child)
    card.update()


def _plain_label(text: str, parent: QWidget, name: str) -> WrappingLabel:
    """A label that shows ``text`` as it is: a tool's or the model's text is never markup.

    It wraps, long words (a URL, a path) included, so a card is never wider than the
    transcript.
    """
    label = WrappingLabel(text, parent)
    label.setObjectName(name)
    return label


def _title_first(card: QFrame, row: QHBoxLayout, title: ElidedLabel, argument: ElidedLabel) -> None:
    """The tool's title whole first: the argument shows only in the room left beside it.

    A box layout takes the same width from every label it has to shorten, which cut both
    ("Context from this c…", "you as…"); where the argument cannot have its few
    characters beside the whole title it goes (it stays in Details), and the title takes
    its stretch.
    """
    outer = card.layout()
    if outer is None:
        return
    margins = outer.contentsMargins()
    width = card.contentsRect().width() - margins.left() - margins.right()
    items = (row.itemAt(i) for i in range(row.count()))
    others = [item.widget() for item in items if item is not None]
    shown = [w for w in others if w is not None and w is not argument and not w.isHidden()]
    taken = sum(w.sizeHint().width() for w in shown) + row.spacing() * len(shown)
    fits = bool(argument.text()) and width - taken >= argument.minimumSizeHint().width()
    if fits != argument.isVisibleTo(card):
        argument.setVisible(fits)
        row.setStretchFactor(argument, 1 if fits else 0)
        row.setStretchFactor(title, 0 if fits else 1)


def _header_label(
    text: str, parent: QWidget, name: str, keep: int | None = None, *, modest: bool = False
) -> ElidedLabel:
    """One line of a card's header, as it is, cut with "…" where the card is narrow.

    The argument is ``modest``: the tool's title gets its whole width first.
    """
    label = ElidedLabel(text, parent, keep=keep, modest=modest)
    label.setObjectName(name)
    return label


class ToolCard(QFrame):
    """One tool call in the transcript.

    Args:
        started: the event that created the card.
        theme: colours and icons.
        parent: the Qt parent.
    """

    def __init__(
        self, started: ToolCallStarted, theme: ThemeController, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.call_id = started.call_id
        self.tool_name = started.name
        self.title = started.title
        """What the card calls the tool ("Open a web page")."""
        self._arguments = dict(started.arguments)
        self._status = "running"
        self.setObjectName("toolCard")
        self.setProperty("status", "running")

        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 8, 8, 8)
        outer.setSpacing(4)
        row = QHBoxLayout()
        row.setSpacing(8)
        self._header_row = row
        self._theme = theme
        self.icon_label = QLabel(self)
        row.addWidget(self.icon_label)
        self.name_label = _header_label(self.title, self, "toolName", _NAME_KEEP_PX)
        row.addWidget(self.name_label)
        self.argument_label = _header_label(
            key_argument(self._arguments), self, "toolArgument", modest=True
        )
        row.addWidget(self.argument_label, 1)
        self.spinner = Spinner(self)
        row.addWidget(self.spinner)
        self.duration_label = QLabel("", self)
        self.duration_label.setObjectName("toolDuration")
        row.addWidget(self.duration_label)
        self.details_button = QToolButton(self)
        self.details_button.setCheckable(True)
        self.details_button.setAccessibleName("Details")
        self.details_button.setToolTip("Show everything Sammy asked for")
        self.details_button.toggled.connect(self._on_details_toggled)
        row.addWidget(self.details_button)
        outer.addLayout(row)

        self.result_label = _plain_label("", self, "toolResult")
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result_label.setContentsMargins(24, 0, 0, 0)
        self.result_label.hide()
        outer.addWidget(self.result_label)

        self.details_label = _plain_label("", self, "toolDetails")
        self.details_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details_label.setContentsMargins(24, 0, 0, 0)
        self.details_label.hide()
        outer.addWidget(self.details_label)

        self.details_button.setVisible(bool(self._arguments))
        self._apply_palette(theme.palette)
        theme.palette_changed.connect(self._apply_palette)
        self.spinner.start()
        self._refresh_details()
        self._refresh_accessible()

    def _apply_palette(self, palette: Palette) -> None:
        assets = self._theme.assets
        self.icon_label.setPixmap(assets.pixmap("tool", palette.text_muted, 16))
        self.details_button.setIcon(assets.icon("chevron-down", palette.text_muted, 14))

    @property
    def status(self) -> str:
        """``running``, ``waiting`` (for a yes), ``finished``, ``failed`` or ``cancelled``."""
        return self._status

    def show_waiting_for_approval(self) -> None:
        """The call waits for the person's answer in the confirmation sheet."""
        self._set_result("Waiting for your approval…")
        self._set_status("waiting")

    def show_progress(self, event: ToolCallProgress) -> None:
        """A streaming tool reported progress."""
        self._set_result(_cut(event.summary) if event.result.ok else "Working…")

    def finish(self, event: ToolCallFinished) -> None:
        """The call succeeded: what it did, in the tool's words."""
        self._set_result(_cut(event.summary))
        self._end("finished", event.duration_s)

    def fail(self, event: ToolCallFailed) -> None:
        """The call failed: why, in words for the person (never what the model was told)."""
        self._set_result(_cut(event.summary))
        self._end("failed", event.duration_s)

    def cancel(self, event: ToolCallCancelled) -> None:
        """The call was cancelled (the model changed its mind, or the app is closing)."""
        self._set_result("Cancelled")
        self._end("cancelled", None)

    def _end(self, status: str, duration_s: float | None) -> None:
        self.spinner.stop()
        if duration_s is not None:
            self.duration_label.setText(format_duration(duration_s))
        self._set_status(status)
        self._refresh_details()
        _title_first(self, self._header_row, self.name_label, self.argument_label)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The title whole first, the argument in what room is left."""
        super().resizeEvent(event)
        _title_first(self, self._header_row, self.name_label, self.argument_label)

    def _set_result(self, text: str) -> None:
        self.result_label.setText(text)
        self.result_label.setVisible(bool(text))
        self._refresh_accessible()

    def _set_status(self, status: str) -> None:
        self._status = status
        self.setProperty("status", status)
        restyle_card(self)
        self._refresh_accessible()

    def _refresh_details(self) -> None:
        self.details_label.setText("\n".join(argument_lines(self._arguments)))

    def _refresh_accessible(self) -> None:
        words = {
            "running": "running",
            "waiting": "waiting for your approval",
            "finished": "done",
            "failed": "failed",
            "cancelled": "cancelled",
        }[self._status]
        duration = self.duration_label.text()
        summary = f"{self.title} {self.argument_label.text()}".strip() + f": {words}"
        if duration:
            summary += f" in {duration}"
        if self.result_label.text():
            summary += f". {self.result_label.text()}"
        self.setAccessibleName(summary)

    def _on_details_toggled(self, shown: bool) -> None:
        self.details_label.setVisible(shown)


_OUTCOMES: Final[dict[str, tuple[str, str]]] = {
    # outcome: (status, what the card says)
    "OUTCOME_OK": ("finished", "Ran without errors."),
    "OUTCOME_FAILED": ("failed", "The code failed."),
    "OUTCOME_DEADLINE_EXCEEDED": ("failed", "It took too long and was stopped."),
}
_NO_OUTCOME: Final = ("finished", "Finished; the service did not say how it went.")


class CodeCard(QFrame):
    """Code the model ran on the service's side: the code, then its outcome and output.

    Styled as a tool card (the same frame, edge colours and labels), so the transcript
    reads alike whichever side ran the tool.

    Args:
        event: the ``CodeExecuted`` that created the card: the code, or (when the code
            itself never came) its result.
        theme: colours and icons.
        parent: the Qt parent.
    """

    def __init__(
        self, event: CodeExecuted, theme: ThemeController, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.turn_id = event.turn_id
        self.code_id = event.code_id
        self._theme = theme
        self._status = "running"
        self.setObjectName("toolCard")
        self.setProperty("status", "running")

        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 8, 8, 8)
        outer.setSpacing(4)
        row = QHBoxLayout()
        row.setSpacing(8)
        self.icon_label = QLabel(self)
        row.addWidget(self.icon_label)
        self.name_label = _header_label("Code execution", self, "toolName", _NAME_KEEP_PX)
        row.addWidget(self.name_label)
        self.language_label = _header_label(
            _language_word(event.language), self, "toolArgument", modest=True
        )
        row.addWidget(self.language_label, 1)
        self.spinner = Spinner(self)
        row.addWidget(self.spinner)
        outer.addLayout(row)

        self.code_label = self._block("codeBlock")
        outer.addWidget(self.code_label)
        self.result_label = _plain_label("", self, "toolResult")
        self.result_label.setContentsMargins(24, 0, 0, 0)
        self.result_label.hide()
        outer.addWidget(self.result_label)
        self.output_label = self._block("codeOutput")
        outer.addWidget(self.output_label)

        self._apply_palette(theme.palette)
        theme.palette_changed.connect(self._apply_palette)
        self.spinner.start()
        if event.outcome is None:
            self.set_code(event)
        else:
            self.set_result(event)
        self._refresh_accessible()

    def _block(self, name: str) -> WrappingLabel:
        # The tool card's monospace text (toolDetails); the name says which block it is.
        label = _plain_label("", self, "toolDetails")
        label.setAccessibleName("Code" if name == "codeBlock" else "Output")
        label.setProperty("block", name)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setContentsMargins(24, 2, 0, 2)
        label.hide()
        return label

    def _apply_palette(self, palette: Palette) -> None:
        self.icon_label.setPixmap(self._theme.assets.pixmap("tool", palette.text_muted, 16))

    @property
    def status(self) -> str:
        """``running``, then ``finished`` or ``failed``; ``cancelled`` if no result came."""
        return self._status

    @property
    def waiting_for_result(self) -> bool:
        """Whether the code ran (or runs) and its result has not come yet."""
        return self._status == "running"

    @property
    def code(self) -> str:
        """The code shown."""
        return self.code_label.text()

    @property
    def output(self) -> str:
        """What the code printed (or its error), as shown."""
        return self.output_label.text()

    @property
    def outcome_text(self) -> str:
        """The sentence that says how it went ("" while it runs)."""
        return self.result_label.text()

    def set_code(self, event: CodeExecuted) -> None:
        """Show the code the model wrote (again, if the service repeats it)."""
        if event.language:
            self.language_label.setText(_language_word(event.language))
        self.code_label.setText(event.code.rstrip())
        self.code_label.setVisible(bool(event.code.strip()))
        if self.code_id is None:
            self.code_id = event.code_id
        self._refresh_accessible()

    def set_result(self, event: CodeExecuted) -> None:
        """The code's result came: its outcome and what it printed."""
        status, words = _OUTCOMES.get(event.outcome or "", _NO_OUTCOME)
        self._set_result(words)
        output = event.output.rstrip()
        self.output_label.setText(output)
        self.output_label.setVisible(bool(output))
        self._end(status)

    def no_result(self) -> None:
        """The answer ended and no result came for this code."""
        if self.waiting_for_result:
            self._set_result("No result came back.")
            self._end("cancelled")

    def _set_result(self, text: str) -> None:
        self.result_label.setText(text)
        self.result_label.setVisible(bool(text))

    def _end(self, status: str) -> None:
        self.spinner.stop()
        self._status = status
        self.setProperty("status", status)
        restyle_card(self)
        self._refresh_accessible()

    def _refresh_accessible(self) -> None:
        words = {
            "running": "running",
            "finished": "done",
            "failed": "failed",
            "cancelled": "no result",
        }[self._status]
        summary = f"Code execution ({self.language_label.text()}): {words}"
        if self.result_label.text():
            summary += f". {self.result_label.text()}"
        self.setAccessibleName(summary)


def _language_word(language: str) -> str:
    """``PYTHON`` -> ``Python``; nothing said means Python, the only language there is."""
    word = language.strip().removeprefix("LANGUAGE_")
    if not word or word == "UNSPECIFIED":
        return "Python"
    return word.capitalize()
