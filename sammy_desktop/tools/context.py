"""What a tool handler may use: its :class:`ToolContext` and the :class:`ToolServices`.

Tools never reach for globals. Everything they may touch comes in here: the app's folders
and settings, the transcript so far, a way to open a URL (the UI provides it), a clock,
the agent's state as a read-only snapshot, the event bus, and a way to ask the person for
a yes or no. The UI-facing parts are :class:`typing.Protocol` ports so this layer never
imports Qt: the UI implements :class:`UrlOpener` with ``QDesktopServices.openUrl`` and
:class:`ConfirmationPort` with a dialog.
"""

from __future__ import annotations

import platform
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.eventbus import Event, EventBus
from sammy_desktop.tools.wording import title_from_name

__all__ = [
    "AgentStateSnapshot",
    "ConfirmationPort",
    "ConfirmationRequest",
    "ToolContext",
    "ToolServices",
    "TranscriptLine",
    "UrlOpener",
    "describe_platform",
    "local_now",
]


@dataclass(frozen=True, slots=True)
class AgentStateSnapshot:
    """The agent's state at one moment, as the core reports it. Read-only for tools.

    Attributes:
        state: the agent's state name (``idle``, ``listening``, ``speaking`` ...).
        talk_mode: ``push_to_talk`` or ``hands_free``.
        model: the Live model in use.
        session_started_at: when the current session began (aware), None without one.
        enabled_tools: names of the tools the model may call now.
        demo_mode: True when talking to the offline simulator instead of Google.
        reconnects: how many times the current session has reconnected.
    """

    state: str
    talk_mode: str
    model: str
    session_started_at: datetime | None
    enabled_tools: tuple[str, ...]
    demo_mode: bool
    reconnects: int


@dataclass(frozen=True, slots=True)
class TranscriptLine:
    """One line of the conversation so far."""

    role: Literal["user", "assistant", "tool", "system"]
    text: str
    at: datetime


@runtime_checkable
class UrlOpener(Protocol):
    """Opens a URL (https: page or mailto: address) in the person's default application."""

    async def open_url(self, url: str) -> bool:
        """Open ``url``; return False when the system could not open it."""
        ...


@dataclass(frozen=True, slots=True)
class ConfirmationRequest:
    """A question to the person before a tool runs.

    Attributes:
        call_id: the tool call waiting for the answer.
        tool_name: the tool that wants to run.
        prompt: the question, one or two plain sentences.
        arguments: the validated arguments, for the dialog to show.
        timeout_s: after this many seconds without an answer the call is denied.
        target: what an "always this session" yes covers besides the tool (the site of a
            link, the application's name); None when a yes can only cover the whole tool.
        token: this question's own key, made by the app: what the dialog answers and
            withdraws by. Never the call id, which the service (or an injected prompt)
            chooses and may repeat.
        title: the tool's title for the person ("Open a web page"); made from
            ``tool_name`` when not given.
        argument_titles: the human labels of the arguments that declare one.
    """

    call_id: str
    tool_name: str
    prompt: str
    arguments: Mapping[str, Any]
    timeout_s: float
    target: str | None = None
    token: str = field(default_factory=lambda: secrets.token_hex(8))
    title: str = ""
    argument_titles: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.title:
            object.__setattr__(self, "title", title_from_name(self.tool_name))


@runtime_checkable
class ConfirmationPort(Protocol):
    """Asks the person yes or no. The UI implements it with a dialog."""

    async def confirm(self, request: ConfirmationRequest) -> bool:
        """Show ``request`` and return True only if the person approved.

        The tool manager applies the timeout (by cancelling this coroutine) and treats a
        timeout or an exception as a no.
        """
        ...


def local_now() -> datetime:
    """The local wall-clock time, time-zone aware."""
    return datetime.now().astimezone()


def describe_platform() -> str:
    """A short description of the operating system, such as ``Linux-6.1-x86_64``."""
    return platform.platform(terse=True)


@dataclass(frozen=True, slots=True)
class ToolServices:
    """The typed container of everything tools may use. The app builds one at start.

    Attributes:
        paths: the app's folders; tools write under ``paths.data_dir``.
        settings: returns the current settings (read it on each use: they change).
        transcript: returns the conversation so far, oldest line first.
        url_opener: opens pages and mailto: links; None when there is no UI (tests, CLI).
        clock: returns the current local time, aware; tests pass a fixed clock.
        platform_description: the operating system, as shown to the model.
    """

    paths: AppPaths
    settings: Callable[[], Settings]
    transcript: Callable[[], Sequence[TranscriptLine]]
    url_opener: UrlOpener | None = None
    clock: Callable[[], datetime] = local_now
    platform_description: str = field(default_factory=describe_platform)


class ToolContext:
    """Handed to every handler call: who is calling, and what the handler may use.

    Built by the :class:`~sammy_desktop.tools.manager.ToolManager` for each call; handlers
    never construct one, tests may.
    """

    def __init__(
        self,
        *,
        call_id: str,
        tool_name: str,
        services: ToolServices,
        bus: EventBus,
        state: Callable[[], AgentStateSnapshot],
        confirm: Callable[[str, float | None, str | None], Awaitable[bool]],
    ) -> None:
        self._call_id = call_id
        self._tool_name = tool_name
        self._services = services
        self._bus = bus
        self._state = state
        self._confirm = confirm

    @property
    def call_id(self) -> str:
        """The id of the function call being answered."""
        return self._call_id

    @property
    def tool_name(self) -> str:
        """The name of the tool being run."""
        return self._tool_name

    @property
    def services(self) -> ToolServices:
        """What tools may use: folders, settings, transcript, URL opener, clock."""
        return self._services

    def emit(self, event: Event) -> None:
        """Publish ``event`` on the app's event bus (the UI and the core listen)."""
        self._bus.emit(event)

    def state(self) -> AgentStateSnapshot:
        """A read-only snapshot of the agent's state right now."""
        return self._state()

    async def confirm(
        self, prompt: str, *, timeout_s: float | None = None, target: str | None = None
    ) -> bool:
        """Ask the person ``prompt``; True only if they approve in time.

        Emits ``ConfirmationRequested`` and ``ConfirmationResolved``. Without a way to ask
        (no UI), or when the person does not answer within ``timeout_s`` (the tool's
        ``confirmation_timeout_s`` when None), the answer is no. ``target`` names what the
        question is about (a site, an application): an "always this session" yes then
        covers this tool for that target only.
        """
        return await self._confirm(prompt, timeout_s, target)
