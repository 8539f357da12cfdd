"""readClipboard and writeClipboard through the real ToolManager and a fake clipboard."""

from __future__ import annotations

from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import (
    ConfirmationRequest,
    ConfirmationRequested,
    ToolCallFinished,
    ToolServices,
)
from sammy_desktop.tools.desktop import clipboard_tools
from sammy_desktop.tools.desktop.clipboard import MAX_READ_CHARS
from tests.helpers.events import EventLog
from tests.tools.conftest import ManagerFactory
from tests.tools.desktop.conftest import Call, error, output
from tests.tools.desktop.fakes import FakeClipboard
from tests.tools.fakes import ScriptedConfirmer


async def test_read_asks_first_then_reads(
    make_pack_manager: ManagerFactory, call: Call, clipboard: FakeClipboard, events: EventLog
) -> None:
    confirmer = ScriptedConfirmer(True)
    body = output(await call(make_pack_manager(confirmer=confirmer), "readClipboard"))
    assert body["value"] == {"has_text": True, "text": "a secret", "truncated": False, "length": 8}
    assert "passwords" in confirmer.requests[0].prompt
    assert events.one(ConfirmationRequested).name == "readClipboard"


async def test_read_denied_never_touches_the_clipboard(
    make_pack_manager: ManagerFactory, call: Call, clipboard: FakeClipboard
) -> None:
    body = error(await call(make_pack_manager(confirmer=ScriptedConfirmer(False)), "readClipboard"))
    assert "nothing was read" in body["problems"][0]
    assert clipboard.reads == 0


async def test_read_asks_every_time_without_a_standing_permission(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    confirmer = ScriptedConfirmer(True)
    manager = make_pack_manager(confirmer=confirmer)
    await call(manager, "readClipboard", {}, "r1")
    await call(manager, "readClipboard", {}, "r2")
    assert len(confirmer.requests) == 2


async def test_an_always_answer_is_the_confirmation_ports_choice(
    make_pack_manager: ManagerFactory, call: Call, clipboard: FakeClipboard
) -> None:
    """The tool asks on every call; a port that remembers "always" answers without a sheet."""

    class AlwaysThisSession(ScriptedConfirmer):
        async def confirm(self, request: ConfirmationRequest) -> bool:
            self.requests.append(request)
            return True

    confirmer = AlwaysThisSession(True)
    manager = make_pack_manager(confirmer=confirmer)
    for number in range(3):
        output(await call(manager, "readClipboard", {}, f"r{number}"))
    assert len(confirmer.requests) == 3
    assert clipboard.reads == 3


async def test_read_empty_non_text_and_long_clipboards(
    make_pack_manager: ManagerFactory, call: Call, clipboard: FakeClipboard
) -> None:
    manager = make_pack_manager(confirmer=ScriptedConfirmer(True))
    clipboard.text = ""
    empty = output(await call(manager, "readClipboard", {}, "r1"))
    assert empty["value"]["text"] == ""
    assert empty["feedback"] == ["The clipboard is empty."]
    clipboard.text = None
    image = output(await call(manager, "readClipboard", {}, "r2"))
    assert image["value"]["has_text"] is False
    clipboard.text = "x" * (MAX_READ_CHARS + 5)
    long = output(await call(manager, "readClipboard", {}, "r3"))
    assert long["value"]["truncated"] is True
    assert len(long["value"]["text"]) == MAX_READ_CHARS
    assert long["value"]["length"] == MAX_READ_CHARS + 5


async def test_write_on_an_empty_clipboard_needs_no_question(
    make_pack_manager: ManagerFactory, call: Call, clipboard: FakeClipboard
) -> None:
    clipboard.text = ""
    confirmer = ScriptedConfirmer(False)
    response = await call(
        make_pack_manager(confirmer=confirmer), "writeClipboard", {"text": "ls -la"}
    )
    assert output(response)["value"] == {"length": 6}
    assert clipboard.writes == ["ls -la"]
    assert confirmer.requests == []


async def test_replacing_what_the_person_copied_asks_first_and_shows_the_new_text(
    make_pack_manager: ManagerFactory, call: Call, clipboard: FakeClipboard, events: EventLog
) -> None:
    """Issue 18: writeClipboard replaced "a secret" silently; now the person is asked."""
    denied = error(
        await call(
            make_pack_manager(confirmer=ScriptedConfirmer(False)), "writeClipboard", {"text": "x"}
        )
    )
    assert "clipboard is unchanged" in denied["problems"][0]
    assert clipboard.text == "a secret" and clipboard.writes == []

    confirmer = ScriptedConfirmer(True)
    manager = make_pack_manager(confirmer=confirmer)
    output(await call(manager, "writeClipboard", {"text": "rm -rf build"}, "c2"))
    assert confirmer.requests[0].prompt == "Replace what you copied with this text?\n\nrm -rf build"
    assert clipboard.writes == ["rm -rf build"]
    finished = [e for e in events.of(ToolCallFinished) if e.name == "writeClipboard"]
    assert finished[-1].result.display == "Copied to the clipboard: rm -rf build"
    # Replacing what the assistant itself put there does not ask again.
    output(await call(manager, "writeClipboard", {"text": "make test"}, "c3"))
    assert len(confirmer.requests) == 1


async def test_write_empty_text_is_a_parameter_failure(
    make_pack_manager: ManagerFactory, call: Call, clipboard: FakeClipboard
) -> None:
    body = error(await call(make_pack_manager(), "writeClipboard", {"text": ""}))
    assert body["validation"]["text"]["valid"] is False
    assert clipboard.writes == []
    assert clipboard.text == "a secret"


async def test_without_a_clipboard_both_tools_say_so(
    bus: EventBus, services: ToolServices, make_manager: ManagerFactory, call: Call
) -> None:
    confirmer = ScriptedConfirmer(True)
    manager = make_manager(*clipboard_tools(None), confirmer=confirmer)
    read = error(await call(manager, "readClipboard", {}, "r"))
    write = error(await call(manager, "writeClipboard", {"text": "x"}, "w"))
    assert "no clipboard" in read["problems"][0]
    assert "no clipboard" in write["problems"][0]
    assert confirmer.requests == []
