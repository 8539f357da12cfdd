"""openUrl and openApplication through the real ToolManager: allow-lists, asking first."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from sammy_desktop.config import Settings
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import AgentStateSnapshot, ToolManager, ToolServices
from sammy_desktop.tools.desktop import (
    ALLOWED_URL_SCHEMES,
    SubprocessLauncher,
    TimerService,
    check_url,
    desktop_tools,
)
from tests.tools.conftest import ManagerFactory
from tests.tools.desktop.conftest import Call, error, output
from tests.tools.desktop.fakes import FakeClipboard, RecordingLauncher
from tests.tools.fakes import RecordingUrlOpener, ScriptedConfirmer

WAIT_S = 10.0


@pytest.fixture
def opener() -> RecordingUrlOpener:
    return RecordingUrlOpener()


@pytest.fixture
def services_with_opener(services: ToolServices, opener: RecordingUrlOpener) -> ToolServices:
    return ToolServices(
        paths=services.paths,
        settings=services.settings,
        transcript=services.transcript,
        url_opener=opener,
        clock=services.clock,
        platform_description=services.platform_description,
    )


@pytest.fixture
def url_manager(
    bus: EventBus,
    services_with_opener: ToolServices,
    snapshot: AgentStateSnapshot,
    timers: TimerService,
    clipboard: FakeClipboard,
    launcher: RecordingLauncher,
) -> ManagerFactory:
    """A manager with the pack whose services can open URLs (the UI's opener)."""

    def build(**options: Any) -> ToolManager:
        pack = desktop_tools(timers=timers, clipboard=clipboard, launcher=launcher)
        return ToolManager(
            bus,
            services_with_opener,
            tools=pack,
            load_entry_points=False,
            state=lambda: snapshot,
            **options,
        )

    return build


# -- openUrl --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://docs.python.org/3/",
        "http://localhost:8000/page?q=1#top",
        "mailto:help@example.org",
        "HTTPS://EXAMPLE.ORG",
    ],
)
def test_allowed_addresses(url: str) -> None:
    assert check_url(url).url == url


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("file:///etc/passwd", "the scheme file: is not allowed"),
        ("javascript:alert(1)", "the scheme javascript: is not allowed"),
        ("ftp://example.org/x", "the scheme ftp: is not allowed"),
        ("steam://run/440", "the scheme steam: is not allowed"),
        ("https://", "has no host name"),
        ("mailto:nobody", "needs an e-mail address"),
        ("https://exa mple.org", "spaces"),
        ("hello", "this is not an address"),
    ],
)
def test_refused_addresses(url: str, problem: str) -> None:
    verdict = check_url(url)
    assert verdict.url is None
    assert verdict.problem is not None
    assert problem in verdict.problem


def test_missing_scheme_suggests_https() -> None:
    verdict = check_url("docs.python.org/3/")
    assert verdict.url is None
    assert verdict.suggestion == "https://docs.python.org/3/"


async def test_open_url_asks_then_opens(
    url_manager: ManagerFactory, call: Call, opener: RecordingUrlOpener
) -> None:
    confirmer = ScriptedConfirmer(True)
    body = output(
        await call(
            url_manager(confirmer=confirmer), "openUrl", {"url": "https://docs.python.org/3/"}
        )
    )
    assert body["value"] == {"opened": "https://docs.python.org/3/"}
    assert opener.opened == ["https://docs.python.org/3/"]
    assert "https://docs.python.org/3/" in confirmer.requests[0].prompt


async def test_mailto_asks_about_the_e_mail(
    url_manager: ManagerFactory, call: Call, opener: RecordingUrlOpener
) -> None:
    confirmer = ScriptedConfirmer(True)
    output(await call(url_manager(confirmer=confirmer), "openUrl", {"url": "mailto:a@b.org"}))
    assert confirmer.requests[0].prompt == "Start an e-mail to a@b.org?"
    assert opener.opened == ["mailto:a@b.org"]


async def test_open_url_denied_opens_nothing(
    url_manager: ManagerFactory, call: Call, opener: RecordingUrlOpener
) -> None:
    body = error(
        await call(
            url_manager(confirmer=ScriptedConfirmer(False)), "openUrl", {"url": "https://x.org"}
        )
    )
    assert "nothing was opened" in body["problems"][0]
    assert opener.opened == []


async def test_refused_scheme_lists_the_allowed_ones_and_never_asks(
    url_manager: ManagerFactory, call: Call, opener: RecordingUrlOpener
) -> None:
    confirmer = ScriptedConfirmer(True)
    body = error(
        await call(url_manager(confirmer=confirmer), "openUrl", {"url": "file:///etc/passwd"})
    )
    for scheme in ALLOWED_URL_SCHEMES:
        assert f"{scheme}:" in body["problems"][0]
    assert body["validation"]["url"]["valid"] is False
    assert confirmer.requests == []
    assert opener.opened == []


async def test_missing_scheme_is_suggested_to_the_model(
    url_manager: ManagerFactory, call: Call
) -> None:
    body = error(
        await call(url_manager(confirmer=ScriptedConfirmer(True)), "openUrl", {"url": "python.org"})
    )
    assert body["validation"]["url"]["suggested_values"] == ["https://python.org"]


async def test_system_refusing_to_open_is_reported(
    url_manager: ManagerFactory, call: Call, opener: RecordingUrlOpener
) -> None:
    opener.result = False
    body = error(
        await call(
            url_manager(confirmer=ScriptedConfirmer(True)), "openUrl", {"url": "https://x.org"}
        )
    )
    assert "could not open" in body["problems"][0]


async def test_without_a_ui_links_cannot_be_opened(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    confirmer = ScriptedConfirmer(True)
    body = error(
        await call(make_pack_manager(confirmer=confirmer), "openUrl", {"url": "https://x.org"})
    )
    assert "cannot be opened" in body["problems"][0]
    assert confirmer.requests == []


# -- openApplication --------------------------------------------------------------------


@pytest.fixture
def allow_calculator(settings: Settings) -> None:
    settings.allowed_applications = {
        "Calculator": ["gnome-calculator"],
        "Text editor": ["gedit", "--new-window"],
    }


@pytest.mark.usefixtures("allow_calculator")
async def test_open_application_asks_then_starts_the_listed_command(
    make_pack_manager: ManagerFactory, call: Call, launcher: RecordingLauncher
) -> None:
    confirmer = ScriptedConfirmer(True)
    body = output(
        await call(
            make_pack_manager(confirmer=confirmer), "openApplication", {"name": "text EDITOR"}
        )
    )
    assert body["value"] == {"started": "Text editor"}
    assert launcher.launched == [["gedit", "--new-window"]]
    assert "gedit --new-window" in confirmer.requests[0].prompt


@pytest.mark.usefixtures("allow_calculator")
async def test_open_application_denied_starts_nothing(
    make_pack_manager: ManagerFactory, call: Call, launcher: RecordingLauncher
) -> None:
    body = error(
        await call(
            make_pack_manager(confirmer=ScriptedConfirmer(False)),
            "openApplication",
            {"name": "Calculator"},
        )
    )
    assert "nothing was started" in body["problems"][0]
    assert launcher.launched == []


@pytest.mark.usefixtures("allow_calculator")
async def test_unknown_application_lists_the_allowed_ones_without_asking(
    make_pack_manager: ManagerFactory, call: Call, launcher: RecordingLauncher
) -> None:
    confirmer = ScriptedConfirmer(True)
    body = error(
        await call(
            make_pack_manager(confirmer=confirmer), "openApplication", {"name": "Calculater"}
        )
    )
    assert body["validation"]["name"]["allowed_values"] == ["Calculator", "Text editor"]
    assert "Did you mean 'calculator'?" in body["problems"][0]
    assert confirmer.requests == []
    assert launcher.launched == []


async def test_no_allowed_applications_points_to_settings(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    body = error(
        await call(
            make_pack_manager(confirmer=ScriptedConfirmer(True)), "openApplication", {"name": "x"}
        )
    )
    assert "Settings" in body["problems"][0]


@pytest.mark.usefixtures("allow_calculator")
async def test_a_command_that_cannot_start_is_reported(
    make_pack_manager: ManagerFactory, call: Call, launcher: RecordingLauncher
) -> None:
    launcher.error = FileNotFoundError(2, "No such file or directory", "gnome-calculator")
    body = error(
        await call(
            make_pack_manager(confirmer=ScriptedConfirmer(True)),
            "openApplication",
            {"name": "Calculator"},
        )
    )
    assert "could not be started" in body["problems"][0]


async def test_subprocess_launcher_starts_a_real_program_without_a_shell(tmp_path: Path) -> None:
    """The child connects back to us: proof it ran, with its arguments passed verbatim."""
    received: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        received.set_result(await reader.read())
        writer.close()
        await writer.wait_closed()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    script = (
        "import socket, sys; s = socket.create_connection(('127.0.0.1', int(sys.argv[1]))); "
        "s.sendall(sys.argv[2].encode()); s.close()"
    )
    async with server:
        await SubprocessLauncher().launch(
            [sys.executable, "-c", script, str(port), "a; rm -rf $HOME"]
        )
        assert await asyncio.wait_for(received, WAIT_S) == b"a; rm -rf $HOME"


async def test_subprocess_launcher_reports_a_missing_program(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        await SubprocessLauncher().launch([str(tmp_path / "no-such-program")])
    with pytest.raises(ValueError, match="needs a command"):
        await SubprocessLauncher().launch([])


# ---------------------------------------------------------------- hostile addresses (issue 18)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        # Looks like Google, goes to evil.example: the part before @ is a user name.
        ("https://accounts.google.com@evil.example/login", "user name before its host"),
        ("https://user:secret@example.org/", "user name before its host"),
        ("https://exa\u200bmple.org/", "zero width space"),  # invisible
        ("https://example.org/\u202etxt.exe", "right-to-left override"),  # bidi
        ("https://example.org/\u00a0x", "no-break space"),
        ("mailto:a@b.org?attach=~/.ssh/id_rsa", "'attach' is not allowed"),
        ("mailto:a@b.org?Attachment=/etc/passwd", "'Attachment' is not allowed"),
        ("mailto:a@b.org?bcc=spy@evil.example", "'bcc' is not allowed"),
        ("mailto:a@b.org?x-mailer=evil", "'x-mailer' is not allowed"),
    ],
)
def test_addresses_that_hide_where_they_go_are_refused_before_asking(
    url: str, problem: str
) -> None:
    verdict = check_url(url)
    assert verdict.url is None
    assert problem in (verdict.problem or "").lower() or problem in (verdict.problem or "")


def test_the_question_shows_every_recipient_and_field_of_an_e_mail() -> None:
    verdict = check_url("mailto:a@b.org,c@d.org?cc=e@f.org&subject=Hello&body=Line%201")
    assert verdict.url is not None
    assert verdict.question.splitlines() == [
        "Start an e-mail to a@b.org, c@d.org?",
        "",
        "Cc: e@f.org",
        "Subject: Hello",
        "Body: Line 1",
    ]


def test_the_question_shows_the_site_on_its_own_line_with_punycode_beside_a_non_ascii_name() -> (
    None
):
    plain = check_url("https://en.wikipedia.org/wiki/Owl")
    assert plain.question.splitlines()[2] == "Site: en.wikipedia.org"
    cyrillic_a = "\u0430"  # looks like "a"
    lookalike = check_url(f"https://{cyrillic_a}pple.com/")
    assert lookalike.url is not None
    site = lookalike.question.splitlines()[2]
    assert site == f"Site: {cyrillic_a}pple.com (written xn--pple-43d.com)"
