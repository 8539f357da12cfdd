"""What the check runs with: the options, the time limits, its own tool, and the plan.

:func:`prepare` reads what the app would read (the profile's settings, the key from the
keyring or ``GEMINI_API_KEY``, the endpoint and API version through
:mod:`sammy_desktop.core.endpoint`), builds the client, a real
:class:`~sammy_desktop.tools.ToolManager` with every tool the app declares plus the check's
own (:data:`CHECK_TOOL_NAME`), and the app's own session setup for push-to-talk. Nothing goes
on the network here; whatever cannot work is one :class:`~.report.CannotStart` line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

import pydantic
from pydantic import BaseModel, Field

from sammy_desktop.app_logging import RedactingFilter
from sammy_desktop.check_live.report import CannotStart
from sammy_desktop.config import AppPaths, Settings, TalkMode
from sammy_desktop.config.secrets import ENV_VAR, SecretStore
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.core.endpoint import client_options, resolve_api_base_url, resolve_api_version
from sammy_desktop.core.setup import SessionSetup
from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import genai, types
from sammy_desktop.tools import ToolContext, ToolManager, ToolServices, tool
from sammy_desktop.tools.capabilities import is_known_model
from sammy_desktop.tools.desktop import TimerService, desktop_tools, service_tools

__all__ = [
    "CHECK_TOOL_NAME",
    "CHECK_WORD",
    "CheckEchoInput",
    "CheckEchoOutput",
    "CheckOptions",
    "Plan",
    "Timeouts",
    "check_live_echo",
    "prepare",
]

CHECK_TOOL_NAME: Final = "checkLiveEcho"
"""The check's own tool: one required string argument, ``word``, echoed back."""

CHECK_WORD: Final = "marmalade"
"""The word the model is asked to pass to :data:`CHECK_TOOL_NAME`."""


@dataclass(frozen=True, slots=True)
class Timeouts:
    """The most each step may take, in seconds.

    Attributes:
        connect_s: TLS and the websocket upgrade at the Live URL.
        setup_s: the setup message until ``setupComplete``.
        turn_s: the typed turn until its ``turnComplete``.
        tool_s: the tool turn: the call, the answer and the model's follow-up.
        resumption_s: how long to wait, after the turns, for a resumable handle (one that
            arrived earlier counts at once).
        models_s: the models list.
    """

    connect_s: float = 15.0
    setup_s: float = 20.0
    turn_s: float = 30.0
    tool_s: float = 45.0
    resumption_s: float = 15.0
    models_s: float = 20.0


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What the command line asked the check for.

    Attributes:
        paths: the profile whose settings are used (``--config-dir`` or the standard folders).
        secrets: where the key comes from (the keyring, or ``GEMINI_API_KEY``).
        api_base_url: the ``--api-base-url`` flag, or None.
        model: the ``--model`` flag (a Live model id instead of the settings' one), or None.
        redactor: the app's log filter; it learns the key, and every report line goes
            through it. None makes a new one.
        environ: the environment for ``SAMMY_API_BASE_URL`` / ``SAMMY_API_VERSION``
            (``os.environ`` when None). ``SSL_CERT_FILE`` is read by the SDK from
            ``os.environ`` itself.
        timeouts: the steps' time limits.
    """

    paths: AppPaths
    secrets: SecretStore
    api_base_url: str | None = None
    model: str | None = None
    redactor: RedactingFilter | None = None
    environ: Mapping[str, str] | None = None
    timeouts: Timeouts = field(default_factory=Timeouts)


# ---------------------------------------------------------------- the check's own tool


class CheckEchoInput(BaseModel):
    """The arguments of the check's tool."""

    word: str = Field(min_length=1, description="The word to echo back, exactly as asked.")


class CheckEchoOutput(BaseModel):
    """What the check's tool answers."""

    echoed: str = Field(description="The word the tool was given.")


@tool(name=CHECK_TOOL_NAME, timeout_s=5.0)
async def check_live_echo(args: CheckEchoInput, context: ToolContext) -> CheckEchoOutput:
    """Echo a word back. Sammy's connection check asks for this tool by name; use it then."""
    return CheckEchoOutput(echoed=args.word)


class _NoLaunches:
    """The application launcher of the check: it starts nothing."""

    async def launch(self, argv: Sequence[str]) -> None:
        raise OSError("the connection check starts no applications")


# ---------------------------------------------------------------- preparing


@dataclass
class Plan:
    """Everything the session needs, built before anything goes on the network."""

    settings: Settings
    notices: list[str]
    key: str
    key_source: str
    base_url: str | None
    api_version: str
    client: genai.Client
    tools: ToolManager
    timers: TimerService
    config: types.LiveConnectConfig
    function_names: tuple[str, ...]


def prepare(options: CheckOptions, scratch: Path, redactor: RedactingFilter) -> Plan:
    """Read the settings and key, resolve the endpoint, build the client, tools and setup.

    Args:
        options: what the command line asked for.
        scratch: a throwaway folder, the tools' profile.
        redactor: learns the key as soon as it is read.

    Raises:
        CannotStart: no key, or something the person configured cannot work.
    """
    try:
        options.paths.ensure()
    except OSError as error:
        raise CannotStart(f"cannot create {error.filename}: {error.strerror}") from error
    loaded = SettingsStore(options.paths.settings_file).load()
    settings = loaded.settings
    if options.model is not None:
        try:
            settings = Settings.model_validate({**settings.model_dump(), "model": options.model})
        except pydantic.ValidationError as error:
            why = error.errors()[0]["msg"] if error.errors() else str(error)
            raise CannotStart(f"--model {options.model!r} is not a model id: {why}") from error
    key = options.secrets.get_api_key()
    if key is None:
        raise CannotStart(
            "no API key. Paste one in Settings > Account (it is kept in the keyring), or run "
            f"{ENV_VAR}=... sammy-desktop --check-live"
        )
    redactor.add_secret(key.reveal())
    environ = os.environ if options.environ is None else options.environ
    base_url = resolve_api_base_url(options.api_base_url, settings, environ)
    if base_url is not None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("https", "http", "wss", "ws") or not parts.hostname:
            raise CannotStart(f"the endpoint {base_url!r} is not an https:// address")
    version = resolve_api_version(settings, environ)
    try:
        client = genai.Client(
            api_key=key.reveal(),
            http_options=client_options(base_url=base_url, api_version=version),
        )
    except (OSError, ValueError) as error:
        # SSL_CERT_FILE naming a missing or unreadable file ends up here (an OSError).
        raise CannotStart(f"the client cannot be built: {error}") from error
    bus = EventBus()
    paths = AppPaths.profile(scratch)
    paths.ensure()
    timers = TimerService(bus, None)
    manager = ToolManager(
        bus,
        ToolServices(paths=paths, settings=lambda: settings, transcript=lambda: ()),
        tools=[
            *desktop_tools(timers=timers, clipboard=None, launcher=_NoLaunches()),
            check_live_echo,
        ],
    )
    notices = list(loaded.notices)
    if not is_known_model(settings.model):
        notices.append(
            f"the app does not know the features of {settings.model}; it is set up with the "
            "safest choices, as the app would"
        )
    notices += [f"tool registration: {problem}" for problem in manager.registration_problems]
    setup = SessionSetup(manager, service_tools)
    config = setup.config(settings, TalkMode.PUSH_TO_TALK, resume_handle=None)
    names = setup.enabled_names(settings)
    if CHECK_TOOL_NAME not in names:
        raise CannotStart(f"the check's own tool {CHECK_TOOL_NAME} was not declared")
    return Plan(
        settings=settings,
        notices=notices,
        key=key.reveal(),
        key_source=key.source.value,
        base_url=base_url,
        api_version=version,
        client=client,
        tools=manager,
        timers=timers,
        config=config,
        function_names=names,
    )
