"""The conversation history as a person reads it again: sessions, search, export, delete.

No Qt: the History window (in ``ui/``) and ``sammy-desktop history`` both use
:class:`HistoryArchive`. The session files written by :mod:`sammy_desktop.core.history`
stay the source of truth; this package reads them (:mod:`.sessions`, :mod:`.records`),
keeps a full-text index beside them in step (:mod:`.index`), and writes them out as
Markdown, text or JSON (:mod:`.export`). It sits above ``core``'s file format and
``config``'s private folders, and below ``ui``; the core never imports it.
"""

from sammy_desktop.archive.export import (
    EXPORT_FORMATS,
    ExportFormat,
    copy_text,
    export_hits,
    export_session,
)
from sammy_desktop.archive.index import (
    INDEX_FILE_NAME,
    IndexUnavailable,
    SearchHit,
    SearchIndex,
    SnippetPart,
    SyncReport,
    search_expression,
)
from sammy_desktop.archive.sessions import (
    Entry,
    Session,
    SessionSummary,
    SpokenLine,
    ToolAnswer,
    ToolCard,
    ToolUse,
    read_session,
)
from sammy_desktop.archive.store import (
    LATEST,
    DeletionFailure,
    DeletionReport,
    HistoryArchive,
    SessionList,
    UnknownSession,
)

__all__ = [
    "EXPORT_FORMATS",
    "INDEX_FILE_NAME",
    "LATEST",
    "DeletionFailure",
    "DeletionReport",
    "Entry",
    "ExportFormat",
    "HistoryArchive",
    "IndexUnavailable",
    "SearchHit",
    "SearchIndex",
    "Session",
    "SessionList",
    "SessionSummary",
    "SnippetPart",
    "SpokenLine",
    "SyncReport",
    "ToolAnswer",
    "ToolCard",
    "ToolUse",
    "UnknownSession",
    "copy_text",
    "export_hits",
    "export_session",
    "read_session",
    "search_expression",
]
