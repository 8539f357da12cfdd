"""The conversation history as a person reads it again: sessions, search, export, delete.

No Qt: the History window (in ``ui/``) and ``sammy-desktop history`` both use
:class:`HistoryArchive`. The session files written by :mod:`sammy_desktop.core.history`
stay the source of truth; this package reads them (:mod:`.sessions`, :mod:`.records`),
keeps a full-text index beside them in step (:mod:`.index`), and writes them out as
Markdown, text or JSON (:mod:`.export`). It sits above ``core``'s file format and
``config``'s private folders, and below ``ui``; the core never imports it.
"""

from typing import TYPE_CHECKING

from sammy_desktop.lazy import lazy_attributes

if TYPE_CHECKING:
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

# Each name is imported on first use (see lazy_attributes).
__getattr__ = lazy_attributes(
    __name__,
    {
        "EXPORT_FORMATS": "sammy_desktop.archive.export",
        "ExportFormat": "sammy_desktop.archive.export",
        "copy_text": "sammy_desktop.archive.export",
        "export_hits": "sammy_desktop.archive.export",
        "export_session": "sammy_desktop.archive.export",
        "INDEX_FILE_NAME": "sammy_desktop.archive.index",
        "IndexUnavailable": "sammy_desktop.archive.index",
        "SearchHit": "sammy_desktop.archive.index",
        "SearchIndex": "sammy_desktop.archive.index",
        "SnippetPart": "sammy_desktop.archive.index",
        "SyncReport": "sammy_desktop.archive.index",
        "search_expression": "sammy_desktop.archive.index",
        "Entry": "sammy_desktop.archive.sessions",
        "Session": "sammy_desktop.archive.sessions",
        "SessionSummary": "sammy_desktop.archive.sessions",
        "SpokenLine": "sammy_desktop.archive.sessions",
        "ToolAnswer": "sammy_desktop.archive.sessions",
        "ToolCard": "sammy_desktop.archive.sessions",
        "ToolUse": "sammy_desktop.archive.sessions",
        "read_session": "sammy_desktop.archive.sessions",
        "LATEST": "sammy_desktop.archive.store",
        "DeletionFailure": "sammy_desktop.archive.store",
        "DeletionReport": "sammy_desktop.archive.store",
        "HistoryArchive": "sammy_desktop.archive.store",
        "SessionList": "sammy_desktop.archive.store",
        "UnknownSession": "sammy_desktop.archive.store",
    },
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
