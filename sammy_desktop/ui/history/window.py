"""The History window: every conversation kept, searched, read again, exported, continued.

On the left, a search box over everything either side said and every tool call, and under
it the conversations, newest first (or, while searching, what the search found, the words
searched for in bold); on the right, the conversation opened, with its actions
(:class:`~sammy_desktop.ui.history.session_view.SessionView`).

Every call of the archive waits on the disk, so each runs on a worker thread
(``asyncio.to_thread``) in a task the window owns; the newest answer wins when several are
on their way (a search typed on, a list refreshed twice). The search waits for a pause in
the typing (150 ms). The list is read again when the window shows and when a conversation
ends; the conversation going on now can be read but not deleted.

Keyboard: Tab goes from the search box to the list, the actions and the transcript; Down
in the search box goes to the list, Enter there opens the first; Enter opens the selected
row; Delete asks to delete it; Esc closes the window; Ctrl+F goes back to the search box.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QEvent, QObject, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QGuiApplication,
    QIcon,
    QKeyEvent,
    QKeySequence,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QAbstractButton,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.archive import (
    EXPORT_FORMATS,
    ExportFormat,
    HistoryArchive,
    IndexUnavailable,
    SearchHit,
    Session,
    SessionList,
    SessionSummary,
    UnknownSession,
    export_hits,
)
from sammy_desktop.config.private_data import open_private
from sammy_desktop.core.events import Speaker
from sammy_desktop.os_errors import os_error_reason
from sammy_desktop.ui.history.search_results import SearchResults
from sammy_desktop.ui.history.session_list import SessionList as SessionListView
from sammy_desktop.ui.history.session_view import PLACEHOLDER, SessionView
from sammy_desktop.ui.history.style import history_stylesheet
from sammy_desktop.ui.history.wording import EMPTY_HISTORY, session_moment

if TYPE_CHECKING:
    from sammy_desktop.config import Settings
    from sammy_desktop.core.events import SessionEnded, SessionStarted
    from sammy_desktop.ui.bridge import EventBridge
    from sammy_desktop.ui.controls import ConversationControls, UiTasks
    from sammy_desktop.ui.settings_state import SettingsState
    from sammy_desktop.ui.theme import Palette, ThemeController

__all__ = ["SEARCH_DELAY_MS", "HistoryWindow"]

_log = logging.getLogger(__name__)

SEARCH_DELAY_MS: Final = 150
"""The pause in typing after which the search runs."""

_QUESTION_TEXT_WIDTH: Final = 340
"""A question's explanation wraps at about this width (Qt's own is narrow)."""

_FILTERS: Final[dict[ExportFormat, str]] = {
    "md": "Markdown (*.md)",
    "txt": "Plain text (*.txt)",
    "json": "JSON (*.json)",
}


def _write_export(path: Path, text: str) -> None:
    """Write an export (it holds what was said: readable by its owner only, ``0600``)."""
    with open_private(path, "w") as handle:
        handle.write(text)


def format_for(path: Path, chosen_filter: str = "") -> tuple[Path, ExportFormat]:
    """The format a file name asks for (its suffix), else the filter chosen; the suffix added."""
    suffix = path.suffix.lower().lstrip(".")
    for fmt in EXPORT_FORMATS:
        if suffix == fmt or (fmt == "md" and suffix == "markdown"):
            return path, fmt
    for fmt, name in _FILTERS.items():
        if chosen_filter == name:
            return path.with_name(f"{path.name}.{fmt}"), fmt
    return path.with_name(f"{path.name}.md"), "md"


class HistoryWindow(QWidget):
    """The conversations kept on this computer.

    Args:
        archive: the history folder's archive (``HistoryArchive.for_paths``).
        theme: colours and icons.
        tasks: runs the archive's calls (on worker threads) and the agent's coroutines.
        controls: the agent, to continue a conversation; without it Continue is disabled.
        settings_state: the settings in use (the person's token prices); None prices with
            Sammy's table only.
        live_history: the file of the conversation going on now, or None (the app's
            ``ConversationHistory.path`` while a session runs); the bridge's session
            events keep it up to date afterwards.
        bridge: the event bridge: the list is read again when a conversation ends.
        tz: the clock times are said on (the computer's own when None).
        now: the time "Today" and "Yesterday" are counted from (tests pass theirs).
        parent: the Qt parent.
    """

    continued = Signal(str)
    """A conversation was continued; the argument is when it was, in words."""

    sessions_shown = Signal()
    """The list was read and shown (tests and screenshots wait on it)."""

    results_shown = Signal()
    """A search's results were shown."""

    session_opened = Signal(str)
    """A conversation was opened; the argument is its id."""

    def __init__(
        self,
        archive: HistoryArchive,
        theme: ThemeController,
        tasks: UiTasks,
        *,
        controls: ConversationControls | None = None,
        settings_state: SettingsState | None = None,
        live_history: Callable[[], Path | None] | None = None,
        bridge: EventBridge | None = None,
        tz: tzinfo | None = None,
        now: Callable[[], datetime] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self._archive = archive
        self._theme = theme
        self._tasks = tasks
        self._controls = controls
        self._settings_state = settings_state
        self._live_history = live_history
        self._live_name: str | None = None
        self._tz = tz
        self._now = now
        self._summaries: dict[str, SessionSummary] = {}
        self._listing_shown = SessionList(sessions=())
        self._listing = 0
        self._searching = 0
        self._opening = 0
        self._query = ""
        self.delete_question: QMessageBox | None = None
        """The question "Delete this conversation?" while it is asked."""
        self.delete_all_question: QMessageBox | None = None
        """The question "Delete all N conversations?" while it is asked."""
        self.file_dialog: QFileDialog | None = None
        """The Export… file chooser while it is open."""

        self.setObjectName("historyWindow")
        self.setWindowTitle("Sammy: conversation history")
        self.setAccessibleName("Conversation history")
        self.resize(920, 620)
        # The list, and beside it a conversation's four actions in one row.
        self.setMinimumSize(860, 460)
        self._build()
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._connect_signals(bridge)
        self.on_palette_changed(theme.palette)

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)

        self.sidebar = QWidget(self)
        self.sidebar.setObjectName("historySidebar")
        self.sidebar.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.sidebar.setFixedWidth(340)
        side = QVBoxLayout(self.sidebar)
        side.setContentsMargins(12, 14, 12, 12)
        side.setSpacing(8)
        self.search_box = QLineEdit(self.sidebar)
        self.search_box.setObjectName("historySearch")
        self.search_box.setPlaceholderText("Search conversations")
        self.search_box.setAccessibleName("Search the conversations")
        self.search_box.setAccessibleDescription(
            "Finds words either of you said and the tools Sammy used, as you type."
        )
        self.search_box.setClearButtonEnabled(True)
        self.search_box.installEventFilter(self)
        side.addWidget(self.search_box)

        self.lists = QStackedWidget(self.sidebar)
        self.session_list = SessionListView(self.lists)
        self.results = SearchResults(self.lists)
        self.empty_label = QLabel(EMPTY_HISTORY, self.lists)
        self.empty_label.setObjectName("emptyHint")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setContentsMargins(12, 12, 12, 12)
        self.no_match_label = QLabel("", self.lists)
        self.no_match_label.setObjectName("emptyHint")
        self.no_match_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.no_match_label.setWordWrap(True)
        self.no_match_label.setContentsMargins(12, 12, 12, 12)
        for page in (self.session_list, self.results, self.empty_label, self.no_match_label):
            self.lists.addWidget(page)
        side.addWidget(self.lists, 1)

        self.notice = QLabel("", self.sidebar)
        self.notice.setObjectName("historyNotice")
        self.notice.setWordWrap(True)
        self.notice.hide()
        side.addWidget(self.notice)

        bottom = QHBoxLayout()
        bottom.setSpacing(8)
        self.export_results_button = QPushButton("Export results…", self.sidebar)
        self.export_results_button.setToolTip("Save what the search found to a file")
        self.export_results_button.hide()
        self.delete_all_button = QPushButton("Delete all…", self.sidebar)
        self.delete_all_button.setObjectName("dangerButton")
        self.delete_all_button.setToolTip("Delete every conversation kept (asks first)")
        self.delete_all_button.setEnabled(False)
        for button in (self.export_results_button, self.delete_all_button):
            button.setAutoDefault(False)
            button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        bottom.addWidget(self.export_results_button)
        bottom.addStretch(1)
        bottom.addWidget(self.delete_all_button)
        side.addLayout(bottom)

        self.view = SessionView(self._theme, self)
        layout.addWidget(self.sidebar)
        layout.addWidget(self.view, 1)
        self.view.clear()
        self.lists.setCurrentWidget(self.session_list)
        self._order_tabs()

    def _order_tabs(self) -> None:
        view = self.view
        chain: list[QWidget] = [
            self.search_box,
            self.session_list,
            self.results,
            view.continue_button,
            view.export_button,
            view.copy_button,
            view.delete_button,
            view.transcript,
            self.export_results_button,
            self.delete_all_button,
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    def _connect_signals(self, bridge: EventBridge | None) -> None:
        self._theme.palette_changed.connect(self.on_palette_changed)
        self.search_box.textChanged.connect(self.on_search_text_changed)
        self.search_box.returnPressed.connect(self.on_search_return)
        self._search_timer.timeout.connect(self._run_search)
        self.session_list.opened.connect(self.on_session_picked)
        self.session_list.delete_requested.connect(self.ask_delete)
        self.results.opened.connect(self.on_hit_picked)
        self.results.delete_requested.connect(
            lambda hit: self.ask_delete(hit.session_id) if isinstance(hit, SearchHit) else None
        )
        self.view.continue_clicked.connect(self.continue_session)
        self.view.export_clicked.connect(self.choose_export_file)
        self.view.copy_clicked.connect(self.copy_session)
        self.view.delete_clicked.connect(self.ask_delete)
        self.export_results_button.clicked.connect(self.choose_results_file)
        self.delete_all_button.clicked.connect(self.ask_delete_all)
        if self._settings_state is not None:
            self._settings_state.changed.connect(self.on_settings_changed)
        if bridge is not None:
            bridge.session_started.connect(self.on_session_started)
            bridge.session_ended.connect(self.on_session_ended)
        escape = QShortcut(QKeySequence("Esc"), self)
        escape.activated.connect(self.close)
        close = QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self)
        close.activated.connect(self.close)
        find = QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self)
        find.activated.connect(self.focus_search)

    # ------------------------------------------------------------------ queries

    @property
    def archive(self) -> HistoryArchive:
        """The archive the window reads."""
        return self._archive

    @property
    def summaries(self) -> list[SessionSummary]:
        """The conversations listed, newest first."""
        return [self._summaries[i] for i in self.session_list.session_ids()]

    @property
    def current_session(self) -> Session | None:
        """The conversation opened, or None."""
        return self.view.session

    @property
    def live_name(self) -> str | None:
        """The file name of the conversation going on now, or None."""
        self._follow_live_history()
        return self._live_name

    def is_live(self, session_id: str) -> bool:
        """Whether ``session_id`` is the conversation going on now."""
        name = self.live_name
        summary = self._summaries.get(session_id)
        if name is None:
            return False
        if summary is not None:
            return summary.path.name == name
        return name.startswith(session_id)

    def _settings(self) -> Settings | None:
        return self._settings_state.settings if self._settings_state is not None else None

    def _follow_live_history(self) -> None:
        if self._live_history is not None and self._live_name is None:
            path = self._live_history()
            self._live_name = path.name if path is not None else None

    # ------------------------------------------------------------------ the list

    def refresh(self) -> None:
        """Read the list again (in the background); the search too while one is shown."""
        self._tasks.run(self.reload(), "ui-history-list")
        if self._query:
            self._run_search()

    async def reload(self) -> SessionList:
        """Read the conversations and show them; returns what was read."""
        self._listing += 1
        mine = self._listing
        listing = await asyncio.to_thread(self._archive.sessions)
        if mine == self._listing:
            self._show_list(listing)
        return listing

    def _show_list(self, listing: SessionList) -> None:
        self._listing_shown = listing
        settings = self._settings()
        custom = settings.token_prices if settings is not None else None
        self._summaries = {summary.id: summary for summary in listing.sessions}
        now = self._now() if self._now is not None else None
        self.session_list.show_sessions(
            listing.sessions, custom, live_name=self.live_name, now=now, tz=self._tz
        )
        self._show_problems(listing.problems)
        deletable = [s for s in listing.sessions if not self.is_live(s.id)]
        self.delete_all_button.setEnabled(bool(deletable))
        if not self._query:
            self._show_list_page()
        opened = self.view.session
        if opened is not None:
            if opened.id not in self._summaries:
                self.view.clear()
            else:
                self._refresh_live_actions()
        self.sessions_shown.emit()

    def _show_list_page(self) -> None:
        self.export_results_button.hide()
        page = self.session_list if self._summaries else self.empty_label
        self.lists.setCurrentWidget(page)
        # With nothing to choose, the right says nothing: the list's sentence is enough.
        self.view.placeholder.setText(PLACEHOLDER if self._summaries else "")

    def _show_problems(self, problems: Sequence[str]) -> None:
        if not problems:
            self.notice.hide()
            self.notice.setText("")
            return
        first = problems[0]
        text = first[0].upper() + first[1:]
        if len(problems) > 1:
            text += f" (and {len(problems) - 1} more)"
        self.notice.setText(text)
        self.notice.setToolTip("\n".join(problems))
        self.notice.show()

    # ------------------------------------------------------------------ searching

    def focus_search(self) -> None:
        """Ctrl+F: the search box, its text selected."""
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def on_search_text_changed(self, text: str) -> None:
        """The search runs once the typing pauses; an empty box shows the list again."""
        self._query = text.strip()
        if not self._query:
            self._search_timer.stop()
            self._searching += 1  # whatever search is on its way is no longer wanted
            self.results.show_hits([])
            self._show_list_page()
            return
        self._search_timer.start()

    def on_search_return(self) -> None:
        """Enter in the search box opens the first result (or conversation)."""
        if self._search_timer.isActive():
            self._search_timer.stop()
            self._run_search(then_open=True)
            return
        current = self.lists.currentWidget()
        if isinstance(current, SearchResults | SessionListView):
            current.setFocus(Qt.FocusReason.TabFocusReason)
            current.open_current()

    def _run_search(self, *, then_open: bool = False) -> None:
        self._tasks.run(self.search(self._query, then_open=then_open), "ui-history-search")

    async def search(self, text: str, *, then_open: bool = False) -> list[SearchHit]:
        """Search for ``text`` now and show what was found; returns the hits."""
        self._searching += 1
        mine = self._searching
        try:
            hits = await asyncio.to_thread(self._archive.search, text)
        except IndexUnavailable as error:
            _log.warning("the history search failed: %s", error)
            if mine == self._searching:
                self.no_match_label.setText(f"The search cannot be used now. {error}")
                self.lists.setCurrentWidget(self.no_match_label)
            return []
        if mine != self._searching or text != self._query:
            return hits
        self.results.show_hits(hits, self._tz)
        if hits:
            self.lists.setCurrentWidget(self.results)
        else:
            self.no_match_label.setText(f"Nothing said matches “{text}”.")
            self.lists.setCurrentWidget(self.no_match_label)
        self.export_results_button.setVisible(bool(hits))
        self.results_shown.emit()
        if then_open and hits:
            self.results.setFocus(Qt.FocusReason.TabFocusReason)
            self.results.open_current()
        return hits

    # ------------------------------------------------------------------ opening

    def on_session_picked(self, session_id: object) -> None:
        """A conversation of the list was clicked, or Enter pressed on it."""
        if isinstance(session_id, str):
            self.open_session(session_id)

    def on_hit_picked(self, hit: object) -> None:
        """A search result was clicked: its conversation, at its line."""
        if isinstance(hit, SearchHit):
            self.open_session(hit.session_id, line=hit.line, words=hit.matched_words)

    def open_session(
        self, session_id: str, *, line: int | None = None, words: Sequence[str] = ()
    ) -> None:
        """Open ``session_id`` (in the background), scrolled to ``line`` when given."""
        self._tasks.run(self.show_session(session_id, line=line, words=words), "ui-history-open")

    async def show_session(
        self, session_id: str, *, line: int | None = None, words: Sequence[str] = ()
    ) -> Session | None:
        """Read ``session_id`` and show it; returns it, or None when it cannot be read."""
        opened = self.view.session
        if opened is not None and opened.id == session_id and line is None:
            return opened  # a double click: it is open already
        self._opening += 1
        mine = self._opening
        try:
            session = await asyncio.to_thread(self._archive.session, session_id)
        except UnknownSession:
            if mine == self._opening:
                self.view.clear()
                self.view.placeholder.setText("That conversation is no longer kept.")
                self.refresh()
            return None
        except OSError as error:
            if mine == self._opening:
                self.view.clear()
                self.view.placeholder.setText(
                    f"That conversation could not be read: {os_error_reason(error)}."
                )
            return None
        if mine != self._opening:
            return None
        settings = self._settings()
        self.view.show_session(
            session,
            custom=settings.token_prices if settings is not None else None,
            live=self.is_live(session_id),
            can_continue=self._controls is not None,
            tz=self._tz,
        )
        self.view.placeholder.setText(PLACEHOLDER)
        self._order_tabs()
        if line is not None:
            self.view.show_line(line, words)
        self.session_list.select_value(session_id)
        self.session_opened.emit(session_id)
        return session

    def _refresh_live_actions(self) -> None:
        session = self.view.session
        if session is not None:
            self.view.set_live(self.is_live(session.id), can_continue=self._controls is not None)

    # ------------------------------------------------------------------ copy and export

    def copy_session(self) -> None:
        """Copy: the conversation as plain text on the clipboard."""
        self._tasks.run(self.copy_to_clipboard(), "ui-history-copy")

    async def copy_to_clipboard(self) -> str:
        """Put the open conversation on the clipboard as text; returns the text."""
        session = self.view.session
        if session is None:
            return ""
        try:
            text = await asyncio.to_thread(self._archive.copy_text, session.id, tz=self._tz)
        except (UnknownSession, OSError) as error:
            self.view.show_status(f"It could not be copied: {_reason(error)}", error=True)
            return ""
        QGuiApplication.clipboard().setText(text)
        self.view.show_status("Copied to the clipboard as text.")
        return text

    def choose_export_file(self) -> None:
        """Export…: ask where to save the open conversation, and in which format."""
        session = self.view.session
        if session is None:
            return
        started = session.summary.started
        stamp = f"{started.astimezone(self._tz):%Y-%m-%d %H%M}" if started else session.id
        self._ask_file(
            "Export the conversation",
            f"Sammy conversation {stamp}.md",
            lambda path, fmt: self._tasks.run(
                self.export_session_to(path, fmt), "ui-history-export"
            ),
        )

    def choose_results_file(self) -> None:
        """Export results…: ask where to save what the search found."""
        if not self.results.hits:
            return
        self._ask_file(
            "Export the search results",
            "Sammy search results.md",
            lambda path, fmt: self._tasks.run(self.export_results_to(path, fmt), "ui-export"),
        )

    def _ask_file(
        self, title: str, name: str, then: Callable[[Path, ExportFormat], object]
    ) -> None:
        folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        dialog = QFileDialog(self, title, str(Path(folder or Path.home()) / name))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
        dialog.setNameFilters(list(_FILTERS.values()))
        dialog.selectNameFilter(_FILTERS["md"])
        dialog.setDefaultSuffix("")

        def chosen(selected: str) -> None:
            path, fmt = format_for(Path(selected), dialog.selectedNameFilter())
            then(path, fmt)

        dialog.fileSelected.connect(chosen)
        dialog.finished.connect(lambda _result: self._forget_dialog(dialog))
        self.file_dialog = dialog
        dialog.open()  # not exec(): the loop goes on

    def _forget_dialog(self, dialog: QFileDialog) -> None:
        if self.file_dialog is dialog:
            self.file_dialog = None
        dialog.deleteLater()

    async def export_session_to(self, path: Path, fmt: ExportFormat) -> bool:
        """Write the open conversation to ``path`` as ``fmt``; True when it was written."""
        session = self.view.session
        if session is None:
            return False
        try:
            text = await asyncio.to_thread(
                self._archive.export_session, session.id, fmt, tz=self._tz
            )
            await asyncio.to_thread(_write_export, path, text)
        except (UnknownSession, OSError) as error:
            self.view.show_status(f"It could not be saved: {_reason(error)}", error=True)
            return False
        self.view.show_status(f"Saved to {path}")
        return True

    async def export_results_to(self, path: Path, fmt: ExportFormat) -> bool:
        """Write the search's results to ``path`` as ``fmt``; True when written."""
        hits = self.results.hits
        text = export_hits(hits, self._query, fmt, tz=self._tz)
        try:
            await asyncio.to_thread(_write_export, path, text)
        except OSError as error:
            self._show_problems([f"The results could not be saved: {os_error_reason(error)}."])
            return False
        self.notice.setText(f"The results were saved to {path}")
        self.notice.setToolTip("")
        self.notice.show()
        return True

    # ------------------------------------------------------------------ deleting

    def ask_delete(self, session_id: object = None) -> None:
        """Delete… (or the Delete key): ask first; the conversation going on now is kept."""
        if not isinstance(session_id, str):
            session = self.view.session
            session_id = session.id if session is not None else self.session_list.current_value()
        if not isinstance(session_id, str) or self.delete_question is not None:
            return
        if self.is_live(session_id):
            self.view.show_status(
                "This conversation is going on now; end it in the main window to delete it.",
                error=True,
            )
            return
        summary = self._summaries.get(session_id)
        when = session_moment(summary.started if summary else None, self._tz)
        question = self._question(
            "Delete the conversation",
            "Delete this conversation?",
            f"The conversation of {when} is deleted from this computer, and from the search. "
            "This cannot be undone.",
            "Delete",
        )
        self.delete_question = question
        question.buttonClicked.connect(
            lambda button: self._on_delete_answered(question, button, session_id)
        )
        question.open()

    def ask_delete_all(self) -> None:
        """Delete all…: ask first, saying how many; the conversation going on now is kept."""
        if self.delete_all_question is not None:
            return
        doomed = [i for i in self._summaries if not self.is_live(i)]
        if not doomed:
            return
        count = len(doomed)
        words = "the conversation" if count == 1 else f"all {count} conversations"
        details = (
            "Every conversation kept on this computer is deleted, with the search index. "
            "This cannot be undone."
        )
        if len(doomed) < len(self._summaries):
            details += " The conversation going on now is kept."
        question = self._question(
            "Delete all conversations",
            f"Delete {words}?",
            details,
            "Delete all" if count > 1 else "Delete",
        )
        self.delete_all_question = question
        question.buttonClicked.connect(
            lambda button: self._on_delete_all_answered(question, button, doomed)
        )
        question.open()

    def _question(self, title: str, text: str, details: str, action: str) -> QMessageBox:
        question = QMessageBox(
            QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.NoButton, self
        )
        question.setInformativeText(details)
        delete = QPushButton(action, question)
        delete.setObjectName("dangerButton")
        question.addButton(delete, QMessageBox.ButtonRole.DestructiveRole)
        keep = question.addButton(QMessageBox.StandardButton.No)
        keep.setText("Keep")
        keep.setIcon(QIcon())  # the style's red "no" sign reads as the dangerous one
        for label in question.findChildren(QLabel, "qt_msgbox_informativelabel"):
            label.setMinimumWidth(_QUESTION_TEXT_WIDTH)
        question.setDefaultButton(keep)
        question.setEscapeButton(keep)
        question.setProperty("deleteButton", delete)
        return question

    @staticmethod
    def delete_button_of(question: QMessageBox) -> QAbstractButton:
        """The question's Delete button (tests press it)."""
        button = question.property("deleteButton")
        assert isinstance(button, QAbstractButton)
        return button

    def _on_delete_answered(
        self, question: QMessageBox, button: QAbstractButton, session_id: str
    ) -> None:
        self.delete_question = None
        question.deleteLater()
        if button is self.delete_button_of(question):
            self._tasks.run(self.delete_sessions([session_id]), "ui-history-delete")

    def _on_delete_all_answered(
        self, question: QMessageBox, button: QAbstractButton, doomed: list[str]
    ) -> None:
        self.delete_all_question = None
        question.deleteLater()
        if button is self.delete_button_of(question):
            every = len(doomed) == len(self._summaries)
            self._tasks.run(self.delete_sessions(doomed, every=every), "ui-history-delete-all")

    async def delete_sessions(self, session_ids: Sequence[str], *, every: bool = False) -> int:
        """Delete the conversations (all of them, the index too, when ``every``).

        The conversation going on now is never deleted. Returns how many were.
        """
        wanted = [i for i in session_ids if not self.is_live(i)]
        failures: list[str] = []
        deleted = 0
        if every and len(wanted) == len(session_ids):
            report = await asyncio.to_thread(self._archive.delete_all)
            deleted = len(report.sessions)
            failures += [failure.message for failure in report.failed]
        else:
            for session_id in wanted:
                one = await asyncio.to_thread(self._archive.delete_session, session_id)
                deleted += len(one.sessions)
                failures += [failure.message for failure in one.failed]
        opened = self.view.session
        if opened is not None and opened.id in wanted:
            self.view.clear()
        await self.reload()
        if self._query:
            await self.search(self._query)
        if failures:
            self._show_problems(failures)
        return deleted

    # ------------------------------------------------------------------ continuing

    def continue_session(self) -> None:
        """Continue this conversation: a new one in the main window that hears this one."""
        session = self.view.session
        controls = self._controls
        if session is None or controls is None or self.is_live(session.id):
            return
        self._tasks.run(self.continue_now(session), "ui-history-continue")

    async def continue_now(self, session: Session) -> None:
        """End the conversation running, start one that continues ``session``."""
        controls = self._controls
        if controls is None:
            return
        earlier = [
            (Speaker.USER if line.speaker == "user" else Speaker.ASSISTANT, line.text)
            for line in session.lines
            if line.text.strip()
        ]
        self.view.continue_button.setEnabled(False)
        try:
            await controls.continue_conversation(earlier, continues=session.id)
        finally:
            self._refresh_live_actions()
        self.continued.emit(session_moment(session.summary.started, self._tz))

    # ------------------------------------------------------------------ slots

    def on_session_started(self, event: SessionStarted) -> None:
        """A conversation began: it is the one that cannot be deleted now."""
        path = event.history_file
        self._live_name = path.name if path is not None else None
        self._refresh_live_actions()
        if self.isVisible():
            self.refresh()

    def on_session_ended(self, event: SessionEnded) -> None:
        """A conversation ended: it can be deleted now, and the list has it whole."""
        ended = event.history_file.name if event.history_file is not None else None
        if ended is None or ended == self._live_name:
            self._live_name = None
        self._live_history = None  # from here on the bridge says which one is live
        self._refresh_live_actions()
        if self.isVisible():
            self.refresh()

    def on_settings_changed(self, settings: Settings, names: frozenset[str]) -> None:
        """The person's token prices changed: the estimates again."""
        if "token_prices" in names:
            self.view.refresh_prices(settings.token_prices)
            self._show_list(self._listing_shown)  # the same conversations, priced anew

    def on_palette_changed(self, palette: Palette) -> None:
        """The window's own rules in the new theme's colours."""
        self.setStyleSheet(history_stylesheet(palette))

    def open_window(self) -> None:
        """Show the window (read the list again) and bring it to the front."""
        if self.isVisible():
            self.refresh()  # showing it again would not
        self.show()
        self.raise_()
        self.activateWindow()
        self.search_box.setFocus(Qt.FocusReason.OtherFocusReason)

    def showEvent(self, event: QShowEvent) -> None:
        """Shown: the list read again, so it has every conversation up to now."""
        super().showEvent(event)
        self.refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Down in the search box goes to the list."""
        if (
            watched is self.search_box
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Down
        ):
            current = self.lists.currentWidget()
            if isinstance(current, SearchResults | SessionListView) and current.count():
                current.setFocus(Qt.FocusReason.TabFocusReason)
                if current.currentRow() < 0:
                    current.setCurrentRow(0)
                return True
        return super().eventFilter(watched, event)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing only hides the window; nothing is lost."""
        event.accept()


def _reason(error: Exception) -> str:
    if isinstance(error, OSError):
        return os_error_reason(error) + "."
    return str(error)
