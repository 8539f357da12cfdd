"""Notes through the real ToolManager and a real SQLite file: add, search (bm25), delete."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from sammy_desktop.tools import ConfirmationResolved, ToolErrorKind, ToolManager, ToolServices
from sammy_desktop.tools.desktop import NoteStore, notes_folder
from tests.helpers.events import EventLog
from tests.tools.conftest import ManagerFactory
from tests.tools.desktop.conftest import Call, error, output
from tests.tools.fakes import ScriptedConfirmer

CORPUS = [
    ("The wifi password is on the router", ["home", "wifi"]),
    ("Buy milk and bread", ["shopping"]),
    ("Call the dentist about the appointment", []),
    ("The router admin password is in the drawer", ["home"]),
    ("Wifi at the office: ask reception", ["office"]),
]


def database(services: ToolServices) -> Path:
    return notes_folder(services.paths) / "notes.sqlite3"


def stored_texts(services: ToolServices) -> list[str]:
    path = database(services)
    if not path.exists():
        return []
    with closing(sqlite3.connect(path)) as db:
        return [row[0] for row in db.execute("SELECT text FROM notes ORDER BY id")]


async def add_corpus(manager: ToolManager, call: Call) -> list[int]:
    ids = []
    for number, (text, tags) in enumerate(CORPUS):
        body = output(await call(manager, "addNote", {"text": text, "tags": tags}, f"add-{number}"))
        ids.append(body["value"]["id"])
    return ids


async def test_add_then_search_round_trip(
    make_pack_manager: ManagerFactory, call: Call, services: ToolServices
) -> None:
    manager = make_pack_manager()
    added = output(
        await call(
            manager,
            "addNote",
            {"text": "  Note that the wifi password is on the router ", "tags": ["Home", "home"]},
        )
    )
    assert added["value"] == {
        "id": 1,
        "text": "Note that the wifi password is on the router",
        "tags": ["home"],
        "created_at": "2026-11-30T09:15:00+01:00",
    }
    assert database(services).is_file()
    found = output(await call(manager, "searchNotes", {"query": "wifi password"}, "fc-2"))
    assert [note["id"] for note in found["value"]["notes"]] == [1]
    assert found["value"]["total_notes"] == 1


async def test_search_ranks_notes_with_more_and_rarer_words_first(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    manager = make_pack_manager()
    ids = await add_corpus(manager, call)
    body = output(await call(manager, "searchNotes", {"query": "wifi password"}, "search"))
    texts = [note["text"] for note in body["value"]["notes"]]
    # Both words first, then the notes with one of them; unrelated notes are not found.
    assert texts[0] == "The wifi password is on the router"
    assert set(texts[1:]) == {
        "The router admin password is in the drawer",
        "Wifi at the office: ask reception",
    }
    relevance = [note["relevance"] for note in body["value"]["notes"]]
    assert relevance == sorted(relevance, reverse=True)
    assert body["value"]["notes"][0]["id"] == ids[0]


async def test_search_finds_words_by_prefix_and_by_tag(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    manager = make_pack_manager()
    await add_corpus(manager, call)
    prefix = output(await call(manager, "searchNotes", {"query": "dent"}, "s1"))
    assert [n["text"] for n in prefix["value"]["notes"]] == [
        "Call the dentist about the appointment"
    ]
    by_tag = output(await call(manager, "searchNotes", {"query": "shopping"}, "s2"))
    assert [n["text"] for n in by_tag["value"]["notes"]] == ["Buy milk and bread"]


async def test_search_operators_in_the_query_are_plain_words(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    manager = make_pack_manager()
    await add_corpus(manager, call)
    body = output(await call(manager, "searchNotes", {"query": 'milk" OR NEAR(* "'}, "s"))
    assert [n["text"] for n in body["value"]["notes"]] == ["Buy milk and bread"]


async def test_search_limit_and_nothing_found(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    manager = make_pack_manager()
    await add_corpus(manager, call)
    limited = output(await call(manager, "searchNotes", {"query": "the", "limit": 2}, "s1"))
    assert len(limited["value"]["notes"]) == 2
    none = output(await call(manager, "searchNotes", {"query": "volcano"}, "s2"))
    assert none["value"] == {"notes": [], "total_notes": len(CORPUS)}
    assert none["feedback"] == ["No note contains any of the words in 'volcano'."]


async def test_search_without_words_is_a_parameter_failure(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    body = error(await call(make_pack_manager(), "searchNotes", {"query": "?!"}))
    assert body["validation"]["query"]["valid"] is False


async def test_add_rejects_blank_text_and_too_many_tags(
    make_pack_manager: ManagerFactory, call: Call, services: ToolServices
) -> None:
    manager = make_pack_manager()
    blank = error(await call(manager, "addNote", {"text": "   "}, "a1"))
    assert "empty" in blank["validation"]["text"]["problems"][0]
    tags = error(await call(manager, "addNote", {"text": "x", "tags": ["t"] * 11}, "a2"))
    assert tags["validation"]["tags"]["valid"] is False
    assert stored_texts(services) == []


async def test_delete_asks_first_quoting_the_note_then_deletes(
    make_pack_manager: ManagerFactory, call: Call, services: ToolServices
) -> None:
    confirmer = ScriptedConfirmer(True)
    manager = make_pack_manager(confirmer=confirmer)
    ids = await add_corpus(manager, call)
    body = output(await call(manager, "deleteNote", {"id": ids[1]}, "del"))
    assert body["value"]["deleted"]["text"] == "Buy milk and bread"
    assert len(confirmer.requests) == 1
    assert "Buy milk and bread" in confirmer.requests[0].prompt
    assert "Buy milk and bread" not in stored_texts(services)
    again = output(await call(manager, "searchNotes", {"query": "milk"}, "s"))
    assert again["value"]["notes"] == []


async def test_delete_denied_keeps_the_note(
    make_pack_manager: ManagerFactory, call: Call, services: ToolServices, events: EventLog
) -> None:
    manager = make_pack_manager(confirmer=ScriptedConfirmer(False))
    ids = await add_corpus(manager, call)
    response = await call(manager, "deleteNote", {"id": ids[0]}, "del")
    body = error(response)
    assert "did not allow" in body["problems"][0]
    assert stored_texts(services) == [text for text, _ in CORPUS]
    assert events.one(ConfirmationResolved).approved is False
    found = output(await call(manager, "searchNotes", {"query": "router"}, "s"))
    assert len(found["value"]["notes"]) == 2


async def test_delete_without_a_way_to_ask_is_denied(
    make_pack_manager: ManagerFactory, call: Call, services: ToolServices, events: EventLog
) -> None:
    manager = make_pack_manager()  # no confirmer: the app has no UI
    ids = await add_corpus(manager, call)
    error(await call(manager, "deleteNote", {"id": ids[0]}, "del"))
    assert stored_texts(services) == [text for text, _ in CORPUS]
    failed = [e for e in events.all if getattr(e, "kind", None) is ToolErrorKind.DENIED]
    assert len(failed) == 1


async def test_delete_unknown_id_fails_without_asking(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    confirmer = ScriptedConfirmer(True)
    manager = make_pack_manager(confirmer=confirmer)
    body = error(await call(manager, "deleteNote", {"id": 42}))
    assert "searchNotes" in body["validation"]["id"]["problems"][0]
    assert confirmer.requests == []


async def test_delete_id_must_be_a_positive_number(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    manager = make_pack_manager(confirmer=ScriptedConfirmer(True))
    body = error(await call(manager, "deleteNote", {"id": "seven"}, "d1"))
    assert body["validation"]["id"]["valid"] is False
    zero = error(await call(manager, "deleteNote", {"id": 0}, "d2"))
    assert zero["validation"]["id"]["valid"] is False


@pytest.mark.logs_errors("the notes database .* failed")
async def test_unwritable_notes_folder_is_a_failure_the_model_can_explain(
    make_pack_manager: ManagerFactory, call: Call, services: ToolServices
) -> None:
    # A file where the notes folder should be: the database cannot be created.
    services.paths.data_dir.mkdir(parents=True)
    notes_folder(services.paths).write_text("not a folder")
    body = error(await call(make_pack_manager(), "addNote", {"text": "hello"}))
    assert "could not be read or saved" in body["problems"][0]


async def test_store_survives_reopening(services: ToolServices) -> None:
    store = NoteStore.in_folder(services.paths)
    note = await store.add("Plant the tulips", ("garden",), "2026-11-30T09:15:00+01:00")
    reopened = NoteStore(store.path)
    assert await reopened.get(note.id) == note
    assert await reopened.count() == 1
    assert await reopened.delete(note.id) is True
    assert await reopened.delete(note.id) is False
    assert await reopened.search("tulips", 5) == []
