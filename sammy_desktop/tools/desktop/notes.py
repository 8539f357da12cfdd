"""Notes: ``addNote``, ``searchNotes`` and ``deleteNote``, kept in SQLite under the data dir.

"Note that the wifi password is on the router" becomes a row in
``<data dir>/notes/notes.sqlite3`` with a full-text index; "where did I put the wifi
password?" finds it again, ranked by bm25. Deleting asks the person first, quoting the note,
and checks the id before asking, so nobody is asked about a note that does not exist.
A damaged notes file or note is mended by the store (see
:mod:`~sammy_desktop.tools.desktop.note_store`); the answer then says what happened, for
the model to tell the person, and the tool card shows it.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from sammy_desktop.tools.context import ToolContext
from sammy_desktop.tools.definition import ToolDefinition, tool
from sammy_desktop.tools.desktop.note_store import Note, NoteStore, NoteStoreError, search_terms
from sammy_desktop.tools.kinds import ToolBehavior, ToolCategory
from sammy_desktop.tools.results import ParameterFeedback, ToolErrorKind, ToolResult

__all__ = [
    "AddNoteInput",
    "DeleteNoteInput",
    "DeleteNoteOutput",
    "FoundNote",
    "NoteOutput",
    "SearchNotesInput",
    "SearchNotesOutput",
    "add_note",
    "delete_note",
    "note_tools",
    "search_notes",
]

_log = logging.getLogger(__name__)

MAX_NOTE_CHARS = 10_000
_CONFIRMATION_TIMEOUT_S = 60.0

Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


class AddNoteInput(BaseModel):
    """Arguments of addNote."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        min_length=1,
        max_length=MAX_NOTE_CHARS,
        description="What to note, as a complete sentence the person will understand later.",
    )
    tags: list[Tag] = Field(
        default_factory=list,
        max_length=10,
        description="Optional short labels such as 'home' or 'wifi'.",
    )

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the note is empty; say what to note")
        return value.strip()

    @field_validator("tags")
    @classmethod
    def _normalise_tags(cls, value: list[str]) -> list[str]:
        # One spelling per tag, so "Home" and "home" find the same notes.
        return list(dict.fromkeys(tag.lower() for tag in value))


class NoteOutput(BaseModel):
    """A stored note."""

    id: int = Field(description="The note's number; needed to delete it.")
    text: str = Field(description="What was noted.")
    tags: list[str] = Field(description="Its labels.")
    created_at: str = Field(description="When it was noted, ISO 8601.")

    @classmethod
    def of(cls, note: Note) -> NoteOutput:
        """The output form of a stored note."""
        return cls(id=note.id, text=note.text, tags=list(note.tags), created_at=note.created_at)


class SearchNotesInput(BaseModel):
    """Arguments of searchNotes."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        min_length=1,
        max_length=500,
        description="Words to look for, such as 'wifi password'. Notes with more of the words "
        "come first; a word also finds longer words starting with it.",
    )
    limit: int = Field(5, ge=1, le=20, description="How many notes to return at most.")


class FoundNote(NoteOutput):
    """A note found by searchNotes."""

    relevance: float = Field(description="How well it matches; higher is better.")


class SearchNotesOutput(BaseModel):
    """What searchNotes answers."""

    notes: list[FoundNote] = Field(description="Matching notes, best match first.")
    total_notes: int = Field(description="How many notes are stored in all.")


class DeleteNoteInput(BaseModel):
    """Arguments of deleteNote."""

    model_config = ConfigDict(extra="forbid")

    id: int = Field(ge=1, description="The note's number, from addNote or searchNotes.")


class DeleteNoteOutput(BaseModel):
    """What deleteNote answers."""

    deleted: NoteOutput = Field(description="The note that was deleted.")


def _store(context: ToolContext) -> NoteStore:
    return NoteStore.in_folder(context.services.paths)


def _mended(store: NoteStore, display: str | None) -> dict[str, Any]:
    """The feedback, instructions and display that tell what the store had to mend."""
    notices = store.notices()
    if not notices:
        return {"display": display}
    return {
        "feedback": notices,
        "instructions": ["Tell the person, in a sentence, what happened to their notes file."],
        "display": "\n".join([*([display] if display else []), *notices]),
    }


def _storage_failure(error: NoteStoreError) -> ToolResult[Any]:
    _log.error("notes: %s", error)
    return ToolResult.failure(
        "The notes could not be read or saved on this computer. Tell the person; do not retry.",
        display="Your notes could not be read or saved on this computer. The log file has "
        "the details.",
    )


@tool(
    name="addNote",
    title="Add a note",
    about="Keeps notes for you on this computer.",
    category=ToolCategory.ACTION,
    behavior=ToolBehavior.BLOCKING,
    timeout_s=10.0,
)
async def add_note(args: AddNoteInput, context: ToolContext) -> NoteOutput | ToolResult[NoteOutput]:
    """Save a note for the person, such as "the wifi password is on the router".

    Use it when they say "note that", "remember that" or "write down". The note is kept on
    this computer and can be found later with searchNotes.
    """
    created_at = context.services.clock().isoformat(timespec="seconds")
    store = _store(context)
    try:
        note = await store.add(args.text, args.tags, created_at)
    except NoteStoreError as error:
        return _storage_failure(error)
    return ToolResult.success(NoteOutput.of(note), **_mended(store, f"Noted: {_quoted(note.text)}"))


@tool(
    name="searchNotes",
    title="Search the notes",
    about="Finds your notes by the words in them.",
    category=ToolCategory.CONTEXT,
    behavior=ToolBehavior.BLOCKING,
    timeout_s=10.0,
)
async def search_notes(
    args: SearchNotesInput, context: ToolContext
) -> SearchNotesOutput | ToolResult[SearchNotesOutput]:
    """Find the person's notes by words they contain, best match first.

    Use it when they ask what they noted, or where they wrote something down. Each note
    has an id, needed to delete it.
    """
    if not search_terms(args.query):
        return ToolResult.failure(
            "The query has no words to search for.",
            display="There were no words to search the notes for.",
            validation={
                "query": ParameterFeedback.invalid("give at least one word, such as 'wifi'")
            },
        )
    store = _store(context)
    try:
        hits = await store.search(args.query, args.limit)
        total = await store.count()
    except NoteStoreError as error:
        return _storage_failure(error)
    found = [
        FoundNote(**NoteOutput.of(hit.note).model_dump(), relevance=hit.relevance) for hit in hits
    ]
    feedback = [] if found else [f"No note contains any of the words in {args.query!r}."]
    mended = _mended(store, _found_line(found, args.query))
    return ToolResult.success(
        SearchNotesOutput(notes=found, total_notes=total),
        feedback=[*feedback, *mended.pop("feedback", [])],
        **mended,
    )


def _quoted(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _found_line(found: list[FoundNote], query: str) -> str:
    """What a search found, as the card says it: "Found 2 notes", one note, or none."""
    if not found:
        return f"No note matches “{_quoted(query, 60)}”"
    if len(found) == 1:
        return f"Found a note: {_quoted(found[0].text)}"
    return f"Found {len(found)} notes"


@tool(
    name="deleteNote",
    title="Delete a note",
    about="Deletes one of your notes, after asking you.",
    confirms_in_handler=True,
    category=ToolCategory.ACTION,
    behavior=ToolBehavior.BLOCKING,
    # Includes the time the person takes to answer the question.
    timeout_s=_CONFIRMATION_TIMEOUT_S + 15.0,
    confirmation_timeout_s=_CONFIRMATION_TIMEOUT_S,
)
async def delete_note(
    args: DeleteNoteInput, context: ToolContext
) -> DeleteNoteOutput | ToolResult[DeleteNoteOutput]:
    """Delete one of the person's notes by its id. The person is asked to confirm first.

    Find the id with searchNotes. Only delete when the person asked for it.
    """
    store = _store(context)
    try:
        note = await store.get(args.id)
    except NoteStoreError as error:
        return _storage_failure(error)
    if note is None:
        return ToolResult.failure(
            f"There is no note with id {args.id}.",
            display=f"There is no note number {args.id}.",
            validation={
                "id": ParameterFeedback.invalid(
                    "no such note; find the right id with searchNotes first"
                )
            },
        )
    # Checked first, asked second: the person only ever sees questions about real notes.
    if not await context.confirm(f'Delete this note?\n\n"{_quoted(note.text)}"'):
        return ToolResult.failure(
            "The person did not allow deleting the note (they said no or did not answer); "
            "it is kept. Do not try again unless they ask.",
            error_kind=ToolErrorKind.DENIED,
            display="You did not allow deleting the note; it is kept.",
        )
    try:
        deleted = await store.delete(note.id)
    except NoteStoreError as error:
        return _storage_failure(error)
    if not deleted:  # removed by someone else while the person was deciding
        return ToolResult.failure(
            f"The note {note.id} was already gone.", display="That note was already deleted."
        )
    return ToolResult.success(
        DeleteNoteOutput(deleted=NoteOutput.of(note)),
        **_mended(store, f"Deleted the note “{_quoted(note.text, 60)}”"),
    )


def note_tools() -> list[ToolDefinition[Any, Any]]:
    """addNote, searchNotes and deleteNote."""
    return [add_note, search_notes, delete_note]
