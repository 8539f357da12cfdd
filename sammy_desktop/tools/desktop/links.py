"""Links and apps: ``openUrl`` and ``openApplication``, both asking the person first.

``openUrl`` opens web pages and e-mail drafts only (http:, https:, mailto:). Any other
scheme (file:, javascript:, a custom app handler ...) is refused before the person is
asked, with the allowed schemes named so the model can explain; so are addresses that hide
where they go (user@host, invisible characters) and e-mail fields the question cannot show
(attachments). The question shows the site on its own line, with its punycode form beside
a non-ASCII name, and every recipient and field of an e-mail. ``openApplication`` starts
only programs the person listed in Settings (a name and the command to run, as an argument
list); an unknown name is refused with the allowed names. Commands never go through a
shell, so nothing the model says can add arguments or chain commands.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
import subprocess
import sys
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from sammy_desktop.config.secrets import child_environment
from sammy_desktop.tools.context import ToolContext
from sammy_desktop.tools.definition import ToolDefinition, tool
from sammy_desktop.tools.desktop.ports import ApplicationLauncher
from sammy_desktop.tools.kinds import ToolBehavior, ToolCategory
from sammy_desktop.tools.results import ParameterFeedback, ToolErrorKind, ToolResult

__all__ = [
    "ALLOWED_URL_SCHEMES",
    "OpenApplicationInput",
    "OpenApplicationOutput",
    "OpenUrlInput",
    "OpenUrlOutput",
    "SubprocessLauncher",
    "UrlCheck",
    "check_url",
    "link_tools",
]

_log = logging.getLogger(__name__)

ALLOWED_URL_SCHEMES: tuple[str, ...] = ("http", "https", "mailto")
_CONFIRMATION_TIMEOUT_S = 60.0
_SCHEMES_TEXT = ", ".join(f"{scheme}:" for scheme in ALLOWED_URL_SCHEMES)


class OpenUrlInput(BaseModel):
    """Arguments of openUrl."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        min_length=1,
        max_length=2000,
        description="The full address, starting with https:// (or http://), or mailto: "
        "followed by an e-mail address.",
    )


class OpenUrlOutput(BaseModel):
    """What openUrl answers."""

    opened: str = Field(description="The address that was opened.")


class OpenApplicationInput(BaseModel):
    """Arguments of openApplication."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        min_length=1,
        max_length=100,
        description="The application's name exactly as the person listed it in Settings.",
    )


class OpenApplicationOutput(BaseModel):
    """What openApplication answers."""

    started: str = Field(description="The name of the application that was started.")


@dataclass(frozen=True, slots=True)
class UrlCheck:
    """The verdict on a URL.

    Attributes:
        url: the address to open, None when it must not be opened.
        problem: why not, as a phrase the model can repeat.
        suggestion: the address probably meant (the scheme was left out).
        question: what the person is asked, every part of the address they need to judge
            it on its own line (the site and its punycode form; each recipient and field of
            an e-mail).
        target: what an "always this session" yes covers: the site (its ASCII form) of a
            web address, the recipients of an e-mail.
        for_person: why not, in the person's words (the tool card says it).
    """

    url: str | None = None
    problem: str | None = None
    for_person: str = "it cannot be opened"
    suggestion: str | None = None
    question: str = ""
    target: str | None = None


# mailto: fields that can be shown and are harmless to prefill. Anything else (attach,
# attachment, bcc, unknown headers) is refused: it would ride along unseen.
_MAILTO_FIELDS = ("cc", "subject", "body")


def _hidden_character(text: str) -> str | None:
    """The first control, format (zero-width, bidi) or space character, described."""
    for char in text:
        category = unicodedata.category(char)
        if char.isspace() or category in ("Cc", "Cf"):
            name = unicodedata.name(char, f"U+{ord(char):04X}")
            return f"{name.lower()} (U+{ord(char):04X})"
    return None


def check_url(raw: str) -> UrlCheck:
    """Decide whether ``raw`` may be opened, before anyone is asked.

    Refused: other schemes than http:, https: and mailto:; spaces, control and invisible
    format characters (zero-width, bidi overrides) anywhere; a user name or password in a
    web address (``https://accounts.google.com@evil.example`` goes to evil.example); mailto:
    fields other than cc, subject and body (``attach=``, ``bcc=``).

    Returns:
        ``url`` and the ``question`` to ask when it may be opened; otherwise ``problem``
        says why, and ``suggestion`` holds the https: address the model probably meant
        when it left the scheme out.
    """
    url = raw.strip()
    hidden = _hidden_character(url)
    if hidden is not None:
        return UrlCheck(
            problem=f"the address contains spaces, control or invisible characters: {hidden}",
            for_person="it contains spaces or characters you cannot see",
        )
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if not scheme or (scheme not in ALLOWED_URL_SCHEMES and not parts.netloc and "." in scheme):
        # "docs.python.org/3" or "python.org:443": a host without a scheme.
        guess = urlsplit(f"https://{url}")
        if guess.hostname and "." in guess.hostname:
            return UrlCheck(
                problem=f"the address has no scheme; it must start with one of {_SCHEMES_TEXT}",
                suggestion=guess.geturl(),
                for_person="it is not a whole address (one starts with https://)",
            )
        return UrlCheck(
            problem=f"this is not an address; it must start with {_SCHEMES_TEXT}",
            for_person="it is not a web address",
        )
    if scheme not in ALLOWED_URL_SCHEMES:
        return UrlCheck(
            problem=f"the scheme {scheme}: is not allowed; only {_SCHEMES_TEXT} addresses can "
            "be opened",
            for_person="only web pages and e-mail addresses can be opened",
        )
    if scheme == "mailto":
        return _check_mailto(url, parts.path, parts.query)
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        return UrlCheck(
            problem="the address has a user name before its host (user@host), which hides "
            "where it really goes; such addresses are not opened",
            for_person="it hides where it really goes (a name stands before the site)",
        )
    host = parts.hostname
    if not host:
        return UrlCheck(
            problem=f"the {scheme}: address has no host name", for_person="it names no site"
        )
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        return UrlCheck(
            problem=f"the host name {host!r} is not a valid internet name",
            for_person="its site name is not a valid one",
        )
    site = host if ascii_host == host else f"{host} (written {ascii_host})"
    return UrlCheck(
        url=url,
        question=f"Open this page in your browser?\n\nSite: {site}\nAddress: {url}",
        target=ascii_host.lower(),
    )


def _check_mailto(url: str, path: str, query: str) -> UrlCheck:
    recipients = [unquote(address).strip() for address in path.split(",") if address.strip()]
    if not recipients or any(
        "@" not in address or address.startswith("@") or address.endswith("@")
        for address in recipients
    ):
        return UrlCheck(
            problem="a mailto: address needs an e-mail address after mailto:",
            for_person="it has no e-mail address to write to",
        )
    fields: dict[str, list[str]] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        key = name.strip().lower()
        if key not in _MAILTO_FIELDS:
            return UrlCheck(
                problem=f"the mailto: field {name!r} is not allowed (only "
                f"{', '.join(_MAILTO_FIELDS)}): it would go along unseen",
                for_person="it would add something to the e-mail that you could not see",
            )
        fields.setdefault(key, []).append(value)
    question = f"Start an e-mail to {', '.join(recipients)}?"
    lines = [
        f"{key.capitalize()}: {value}" for key in _MAILTO_FIELDS for value in fields.get(key, ())
    ]
    if lines:
        question += "\n\n" + "\n".join(lines)
    return UrlCheck(url=url, question=question, target="mailto:" + ",".join(recipients).lower())


class SubprocessLauncher:
    """Starts applications as detached child processes, without a shell.

    The UI may provide a Qt launcher instead (``QProcess.startDetached``); this one needs
    nothing but the standard library. Each started program gets a daemon thread that waits
    for it to exit, so it never lingers as a zombie, and the app never kills it at quit:
    the person's applications outlive the assistant.
    """

    async def launch(self, argv: Sequence[str]) -> None:
        """Start ``argv`` (program first); returns once it has started.

        Raises:
            OSError: the program does not exist or cannot be run.
            ValueError: ``argv`` is empty.
        """
        if not argv:
            raise ValueError("an application needs a command to run")
        # Popen forks and execs; off the event loop, it is quick but not free.
        process = await asyncio.to_thread(_spawn, list(argv))
        threading.Thread(target=process.wait, name=f"reap-app-{process.pid}", daemon=True).start()


def _spawn(argv: list[str]) -> subprocess.Popen[bytes]:
    """Start ``argv`` in its own session (process group), detached from our terminal.

    It gets our environment without any API key in it (``child_environment``).
    """
    streams: dict[str, Any] = {
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.DEVNULL,
        "env": child_environment(),
    }
    if sys.platform == "win32":
        return subprocess.Popen(
            argv, creationflags=subprocess.CREATE_NEW_PROCESS_GROUP, close_fds=True, **streams
        )
    return subprocess.Popen(argv, start_new_session=True, close_fds=True, **streams)


def _find_application(name: str, allowed: dict[str, list[str]]) -> str | None:
    wanted = name.strip().casefold()
    for listed in allowed:
        if listed.strip().casefold() == wanted:
            return listed
    return None


def _site_of(url: str) -> str:
    """What a person calls an address: ``wikipedia.org``, or the e-mail's recipients."""
    parts = urlsplit(url)
    if parts.scheme.lower() == "mailto":
        return ", ".join(unquote(a).strip() for a in parts.path.split(",") if a.strip())
    host = parts.hostname or url
    return host.removeprefix("www.")


def _launch_problem(error: OSError | ValueError) -> str:
    """Why a program did not start, in words (the errno text goes to the log only)."""
    if isinstance(error, FileNotFoundError):
        return "its program was not found"
    if isinstance(error, PermissionError):
        return "this computer does not allow running its program"
    if isinstance(error, ValueError):
        return "it has no command"
    return "the system refused to start it"


def link_tools(launcher: ApplicationLauncher | None = None) -> list[ToolDefinition[Any, Any]]:
    """The tools openUrl (via ``ToolServices.url_opener``) and openApplication (via ``launcher``).

    Args:
        launcher: starts allowed applications; a :class:`SubprocessLauncher` when None.
    """
    starter: ApplicationLauncher = launcher if launcher is not None else SubprocessLauncher()

    @tool(
        name="openUrl",
        title="Open a web page",
        about="Opens web pages in your browser and starts e-mails, after asking you.",
        confirms_in_handler=True,
        category=ToolCategory.ACTION,
        behavior=ToolBehavior.BLOCKING,
        timeout_s=_CONFIRMATION_TIMEOUT_S + 15.0,
        confirmation_timeout_s=_CONFIRMATION_TIMEOUT_S,
    )
    async def open_url(
        args: OpenUrlInput, context: ToolContext
    ) -> OpenUrlOutput | ToolResult[OpenUrlOutput]:
        """Open a web page in the person's browser, or start an e-mail with mailto:.

        Only http, https and mailto addresses can be opened. Use the full address, such as
        https://docs.python.org/3/. The person is asked to confirm first.
        """
        verdict = check_url(args.url)
        if verdict.url is None:
            problem = verdict.problem or "the address cannot be opened"
            return ToolResult.failure(
                f"{args.url!r} was not opened: {problem}. Allowed schemes: {_SCHEMES_TEXT}.",
                display=f"That address was not opened: {verdict.for_person}.",
                validation={
                    "url": ParameterFeedback.invalid(
                        problem,
                        suggested_values=None
                        if verdict.suggestion is None
                        else [verdict.suggestion],
                    )
                },
            )
        opener = context.services.url_opener
        if opener is None:
            return ToolResult.failure(
                "Links cannot be opened in this app right now (no desktop session). Read "
                "the address to the person instead.",
                display="Links cannot be opened in this app right now.",
            )
        url = verdict.url
        site = _site_of(url)
        if not await context.confirm(verdict.question, target=verdict.target):
            return ToolResult.failure(
                "The person did not allow opening the address (they said no or did not "
                "answer); nothing was opened. Do not try again unless they ask.",
                error_kind=ToolErrorKind.DENIED,
                display=f"You did not allow opening {site}.",
            )
        if not await opener.open_url(url):
            return ToolResult.failure(
                f"The system could not open {url}. Read the address to the person instead.",
                display=f"The system could not open {site}.",
            )
        mail = url.lower().startswith("mailto:")
        shown = f"Started an e-mail to {site}" if mail else f"Opened {site}"
        return ToolResult.success(OpenUrlOutput(opened=url), display=shown)

    @tool(
        name="openApplication",
        title="Open an application",
        about="Opens the applications you list under More, after asking you.",
        confirms_in_handler=True,
        category=ToolCategory.ACTION,
        behavior=ToolBehavior.BLOCKING,
        timeout_s=_CONFIRMATION_TIMEOUT_S + 15.0,
        confirmation_timeout_s=_CONFIRMATION_TIMEOUT_S,
    )
    async def open_application(
        args: OpenApplicationInput, context: ToolContext
    ) -> OpenApplicationOutput | ToolResult[OpenApplicationOutput]:
        """Start a desktop application the person allowed in Settings, by its name.

        Only the applications on the person's list can be started; if the name is not
        allowed, the answer lists the names that are. The person is asked to confirm first.
        """
        allowed = context.services.settings().allowed_applications
        if not allowed:
            return ToolResult.failure(
                "No applications are allowed yet. Tell the person they can add the "
                "applications the assistant may open under Settings, Tools.",
                display="No applications are allowed yet: add them in Settings > Tools.",
                validation={"name": ParameterFeedback.invalid("no applications are allowed")},
            )
        listed = _find_application(args.name, allowed)
        if listed is None:
            close = difflib.get_close_matches(
                args.name.casefold(), [name.casefold() for name in allowed], n=1, cutoff=0.6
            )
            hint = f" Did you mean {close[0]!r}?" if close else ""
            names = ", ".join(sorted(allowed))
            return ToolResult.failure(
                f"{args.name!r} is not on the person's list of applications.{hint} "
                f"Allowed: {names}. Others can be added in Settings, Tools.",
                display=f"“{args.name.strip()}” is not on your list of applications "
                "(Settings > Tools).",
                validation={
                    "name": ParameterFeedback.invalid(
                        "not an allowed application", allowed_values=sorted(allowed)
                    )
                },
            )
        command = allowed[listed]
        if not await context.confirm(
            f"Open {listed}?\n\nCommand: {' '.join(command)}", target=listed
        ):
            return ToolResult.failure(
                f"The person did not allow opening {listed} (they said no or did not "
                "answer); nothing was started. Do not try again unless they ask.",
                error_kind=ToolErrorKind.DENIED,
                display=f"You did not allow opening {listed}.",
            )
        try:
            await starter.launch(command)
        except (OSError, ValueError) as error:
            _log.warning("could not start %s (%s): %s", listed, command, error)
            return ToolResult.failure(
                f"{listed} could not be started on this computer ({error}). Tell the person "
                "to check its command in Settings, Tools.",
                display=f"{listed} could not be started: {_launch_problem(error)}. Check its "
                "command in Settings > Tools.",
            )
        return ToolResult.success(OpenApplicationOutput(started=listed), display=f"Opened {listed}")

    return [open_url, open_application]
