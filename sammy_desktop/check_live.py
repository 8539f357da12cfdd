"""``sammy-desktop --check-live``: what the app relies on, tried against the real Live service.

Nobody who builds Sammy can reach Google, so the app has only met simulators written from the
same notes as the app (issue 16). This is the one command a person with a real API key runs
to prove those notes against the service. It uses what the app would use:

* the key from the keyring, or ``GEMINI_API_KEY`` (:class:`~sammy_desktop.config.secrets.
  SecretStore`); it is never printed, and every line is redacted with the app's log filter;
* the settings of the profile (``--config-dir``), the endpoint (``--api-base-url``,
  ``SAMMY_API_BASE_URL``, the setting) and the API version (``SAMMY_API_VERSION``, the
  setting, else ``v1beta``), through :mod:`sammy_desktop.core.endpoint`; a private CA is
  trusted through ``SSL_CERT_FILE``, as the app's is;
* the app's own session setup (:class:`~sammy_desktop.core.setup.SessionSetup`) for
  push-to-talk, with a real :class:`~sammy_desktop.tools.ToolManager` declaring every tool
  the app would declare (``parameters`` from ``ToolDefinition.live_parameters``), plus one
  tool of the check's own with a required argument (:data:`CHECK_TOOL_NAME`).

Then it runs a short scripted session and prints one line per behaviour, in this order
(:data:`STEP_NAMES`), each ``ok``, ``FAILED`` (with what it saw) or ``skipped`` (an earlier
step failed, so this one could not run):

1. ``connect``: the URL the SDK dials names the API version, its websocket opens (TLS
   trusted, upgrade accepted), and the service does not refuse that version (C1);
2. ``setup``: the setup is answered with ``setupComplete`` (C4, M3, T2);
3. ``typed-turn``: a typed turn, sent as the app sends it (``client_content`` with
   ``turn_complete=True``, activity detection off), is answered with audio and an output
   transcription (S1, R3);
4. ``tool-call``: the check's tool is called with its required argument, not ``args={}`` (T1),
   the app's answer is taken, and the model goes on (T3);
5. ``resumption``: a ``sessionResumptionUpdate`` with ``resumable=true`` and a handle (R9);
6. ``models-list``: ``models.list()`` works and lists the configured model with
   ``bidiGenerateContent`` (:func:`~sammy_desktop.core.models.live_models`, C6).

The ids are docs/live-service.md's. Every step has its own time limit (:class:`Timeouts`).
The exit code is 0 when every step passed, 1 when one failed (the last line names it), and 2
when the check could not start (no key, a bad setting or endpoint). Nothing changes in the
person's keyring, settings or data: the tools run in a throwaway folder, any confirmation a
tool asks for is answered no, and no application is started (the settings are loaded as the
app loads them, so a file it cannot read is set aside, as at every start).

The check knows nothing of the simulator: its tests point it at one exactly as a gateway user
points the app at a gateway (an endpoint and ``SSL_CERT_FILE``). No Qt is imported.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
import logging
import os
import ssl
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO
from urllib.parse import urlsplit

import pydantic
import websockets
from pydantic import BaseModel, Field
from websockets.asyncio.client import connect as ws_connect

from sammy_desktop import __version__
from sammy_desktop.app_logging import RedactingFilter
from sammy_desktop.config import AppPaths, Settings, TalkMode
from sammy_desktop.config.secrets import ENV_VAR, SecretStore
from sammy_desktop.config.store import SettingsStore
from sammy_desktop.core.endpoint import (
    client_options,
    live_url,
    resolve_api_base_url,
    resolve_api_version,
)
from sammy_desktop.core.failures import FailureKind, LiveConnectionError
from sammy_desktop.core.models import LIVE_METHOD, ModelListError, live_models
from sammy_desktop.core.setup import SessionSetup
from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import errors, genai, types
from sammy_desktop.tools import ToolContext, ToolManager, ToolServices, tool
from sammy_desktop.tools.capabilities import is_known_model
from sammy_desktop.tools.desktop import TimerService, desktop_tools, service_tools
from sammy_desktop.wire_audio import OUTPUT_RATE, SAMPLE_WIDTH

if TYPE_CHECKING:
    from google.genai.live import AsyncSession

    from sammy_desktop.core.models import LiveModel

__all__ = [
    "CHECK_TOOL_NAME",
    "CHECK_WORD",
    "EXIT_CANNOT_START",
    "EXIT_FAILED",
    "EXIT_OK",
    "STEP_NAMES",
    "TOOL_PROMPT",
    "TYPED_PROMPT",
    "CheckOptions",
    "LineResult",
    "Status",
    "Timeouts",
    "check_live",
    "run_check_live",
]

_log = logging.getLogger(__name__)

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_CANNOT_START: Final = 2

STEP_NAMES: Final = ("connect", "setup", "typed-turn", "tool-call", "resumption", "models-list")
"""Every line of the report, in the order it is printed."""

CHECK_TOOL_NAME: Final = "checkLiveEcho"
"""The check's own tool: one required string argument, ``word``, echoed back."""

CHECK_WORD: Final = "marmalade"
"""The word the model is asked to pass to :data:`CHECK_TOOL_NAME`."""

TYPED_PROMPT: Final = (
    "This is Sammy's connection check, typed. Please answer in one short sentence: say hello."
)
"""The typed turn of step ``typed-turn``."""

TOOL_PROMPT: Final = (
    f"This is Sammy's connection check. Call the tool {CHECK_TOOL_NAME} with the word "
    f'"{CHECK_WORD}", then say in a few words what it answered.'
)
"""The typed turn of step ``tool-call``."""

_LATE_CALL_GRACE_S: Final = 5.0
_CLOSE_TIMEOUT_S: Final = 5.0
_DETAIL_CHARS: Final = 70


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


class Status(enum.StrEnum):
    """The outcome of one line."""

    OK = "ok"
    FAILED = "FAILED"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class LineResult:
    """One line of the report.

    Attributes:
        name: one of :data:`STEP_NAMES`.
        status: ok, FAILED or skipped.
        seconds: how long the step took.
        detail: what it saw.
    """

    name: str
    status: Status
    seconds: float
    detail: str

    def line(self) -> str:
        """The line as printed (before redaction)."""
        return (
            f"  {self.status.value:<8}{self.name:<13}{self.seconds * 1000:7.0f} ms  {self.detail}"
        )


class _CannotStart(Exception):
    """The check cannot run at all; the message is the one line the person reads."""


class _Finding(Exception):
    """A step saw the service do something other than what the app relies on."""


@dataclass
class _Report:
    """Writes each line as soon as it is known, redacted."""

    stream: TextIO
    redactor: RedactingFilter
    results: list[LineResult] = field(default_factory=list)

    def write(self, text: str) -> None:
        self.stream.write(self.redactor.redact(text) + "\n")
        self.stream.flush()

    def add(self, name: str, status: Status, started: float, detail: str) -> None:
        result = LineResult(name, status, time.perf_counter() - started, _one_line(detail))
        self.results.append(result)
        self.write(result.line())

    def skip(self, names: Sequence[str], why: str) -> None:
        for name in names:
            if all(result.name != name for result in self.results):
                self.add(name, Status.SKIPPED, time.perf_counter(), why)


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "(no detail)"


def _quoted(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _DETAIL_CHARS:
        text = text[: _DETAIL_CHARS - 3].rstrip() + "..."
    return f'"{text}"'


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
class _Plan:
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


def _prepare(options: CheckOptions, scratch: Path, redactor: RedactingFilter) -> _Plan:
    """Read the settings and key, resolve the endpoint, build the client, tools and setup.

    Raises:
        _CannotStart: no key, or something the person configured cannot work.
    """
    try:
        options.paths.ensure()
    except OSError as error:
        raise _CannotStart(f"cannot create {error.filename}: {error.strerror}") from error
    loaded = SettingsStore(options.paths.settings_file).load()
    settings = loaded.settings
    if options.model is not None:
        try:
            settings = Settings.model_validate({**settings.model_dump(), "model": options.model})
        except pydantic.ValidationError as error:
            why = error.errors()[0]["msg"] if error.errors() else str(error)
            raise _CannotStart(f"--model {options.model!r} is not a model id: {why}") from error
    key = options.secrets.get_api_key()
    if key is None:
        raise _CannotStart(
            "no API key. Paste one in Settings > Account (it is kept in the keyring), or run "
            f"{ENV_VAR}=... sammy-desktop --check-live"
        )
    redactor.add_secret(key.reveal())
    environ = os.environ if options.environ is None else options.environ
    base_url = resolve_api_base_url(options.api_base_url, settings, environ)
    if base_url is not None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("https", "http", "wss", "ws") or not parts.hostname:
            raise _CannotStart(f"the endpoint {base_url!r} is not an https:// address")
    version = resolve_api_version(settings, environ)
    try:
        client = genai.Client(
            api_key=key.reveal(),
            http_options=client_options(base_url=base_url, api_version=version),
        )
    except (OSError, ValueError) as error:
        # SSL_CERT_FILE naming a missing or unreadable file ends up here (an OSError).
        raise _CannotStart(f"the client cannot be built: {error}") from error
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
        raise _CannotStart(f"the check's own tool {CHECK_TOOL_NAME} was not declared")
    return _Plan(
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


# ---------------------------------------------------------------- what a turn sent


@dataclass
class _Heard:
    """What the model sent in one turn: audio, its transcription, the end of the turn."""

    audio_bytes: int = 0
    mime_types: set[str] = field(default_factory=set)
    transcript: list[str] = field(default_factory=list)
    turn_complete: bool = False

    def add(self, content: types.LiveServerContent) -> None:
        parts = (content.model_turn.parts or ()) if content.model_turn is not None else ()
        for part in parts:
            blob = part.inline_data
            if blob is not None and blob.data and (blob.mime_type or "").startswith("audio/"):
                self.audio_bytes += len(blob.data)
                self.mime_types.add(blob.mime_type or "")
        if content.output_transcription is not None and content.output_transcription.text:
            self.transcript.append(content.output_transcription.text)
        if content.turn_complete:
            self.turn_complete = True

    @property
    def text(self) -> str:
        return "".join(self.transcript).strip()

    def said(self) -> str:
        return _quoted(self.text) if self.text else "no output transcription"

    def describe(self) -> str:
        if not self.audio_bytes:
            return f"no audio, {self.said()}"
        seconds = self.audio_bytes / (OUTPUT_RATE * SAMPLE_WIDTH)
        return f"{seconds:.1f} s of {', '.join(sorted(self.mime_types))} audio, {self.said()}"

    def audio_problem(self) -> str | None:
        """Why the app could not play this audio, or None."""
        for mime in self.mime_types:
            kind, _, params = mime.partition(";")
            rate = params.strip().removeprefix("rate=") if params else str(OUTPUT_RATE)
            if kind.strip() != "audio/pcm" or rate != str(OUTPUT_RATE):
                return f"{mime} audio, while the app plays PCM16 at {OUTPUT_RATE} Hz"
        return None


class _Closed:
    """Put in the message queue when the connection ended."""

    def __init__(self, error: LiveConnectionError) -> None:
        self.error = error


# ---------------------------------------------------------------- the session


class _Check:
    """Runs the steps in order and writes their lines."""

    def __init__(self, plan: _Plan, report: _Report, timeouts: Timeouts) -> None:
        self._plan = plan
        self._report = report
        self._timeouts = timeouts
        self._session: AsyncSession | None = None
        self._queue: asyncio.Queue[types.LiveServerMessage | _Closed] = asyncio.Queue()
        self._closed: LiveConnectionError | None = None
        self._resumable = asyncio.Event()
        self._resumption_updates = 0
        self._handle_chars = 0
        self._malformed = 0
        self._other_calls: list[str] = []
        self._models_seconds = 0.0

    # ------------------------------------------------------------ running

    async def run(self) -> None:
        models = asyncio.create_task(self._models(), name="check-live models list")
        try:
            async with contextlib.AsyncExitStack() as stack:
                if await self._open(stack, models):
                    reader = asyncio.create_task(self._read(), name="check-live reader")
                    stack.push_async_callback(_cancel, reader)
                    await self._session_steps()
            await self._models_line(models)
        finally:
            await _cancel(models)

    async def _session_steps(self) -> None:
        turn_ok = await self._step("typed-turn", self._typed_turn)
        if self._closed is not None and not turn_ok:
            self._report.skip(["tool-call"], "the connection closed")
        else:
            await self._step("tool-call", self._tool_call)
        await self._step("resumption", self._resumption)
        if self._malformed:
            self._report.write(
                f"  note: {_count(self._malformed, 'frame')} the SDK could not read were skipped, "
                "as the app skips them"
            )

    async def _step(self, name: str, body: Callable[[], Awaitable[str]]) -> bool:
        started = time.perf_counter()
        try:
            detail = await body()
        except _Finding as finding:
            self._report.add(name, Status.FAILED, started, str(finding))
            return False
        except Exception as error:  # noqa: BLE001 - any failure is the line's, then go on
            _log.info("check-live step %s failed", name, exc_info=error)
            self._report.add(name, Status.FAILED, started, f"{type(error).__name__}: {error}")
            return False
        self._report.add(name, Status.OK, started, detail)
        return True

    # ------------------------------------------------------------ 1 and 2: connect, setup

    async def _open(self, stack: contextlib.AsyncExitStack, models: asyncio.Task[Any]) -> bool:
        """Lines ``connect`` and ``setup``; True when there is a session to go on with."""
        plan = self._plan
        rest = STEP_NAMES[1:5]
        started = time.perf_counter()
        url = live_url(plan.client)
        if f".{plan.api_version}." not in url:
            self._report.add(
                "connect",
                Status.FAILED,
                started,
                f"the SDK dials {url}, not API {plan.api_version}",
            )
            self._report.skip(rest, "no connection")
            return False
        problem = await self._probe(url)
        if problem is not None:
            self._report.add("connect", Status.FAILED, started, f"{url}: {problem}")
            self._report.skip(rest, "no connection")
            return False
        probed = time.perf_counter()
        opened = f"{url}: the websocket opens and the service takes API {plan.api_version}"
        if plan.api_version != "v1beta":
            opened += " (the app's default is v1beta; SAMMY_API_VERSION or the setting chose this)"
        setup_started = time.perf_counter()
        try:
            async with asyncio.timeout(self._timeouts.setup_s):
                session = await stack.enter_async_context(
                    plan.client.aio.live.connect(model=plan.settings.model, config=plan.config)
                )
        except TimeoutError:
            # The websocket opened, but with no answer to the setup the version is not proven.
            unanswered = f"{url}: the websocket opens (the setup had no answer: see setup)"
            self._add_at("connect", Status.OK, started, probed, unanswered)
            self._report.add(
                "setup",
                Status.FAILED,
                setup_started,
                f"no setupComplete within {self._timeouts.setup_s:g} s",
            )
            self._report.skip(STEP_NAMES[2:5], "no session")
            return False
        except errors.APIError as error:
            await self._refused(
                LiveConnectionError.from_api_error(error), models, (started, probed), opened
            )
            return False
        except (OSError, websockets.WebSocketException) as error:
            self._report.add(
                "connect",
                Status.FAILED,
                started,
                f"the probe reached {url}, but the SDK's own connection failed: "
                f"{type(error).__name__}: {error}",
            )
            self._report.skip(rest, "no connection")
            return False
        except Exception as error:  # noqa: BLE001 - e.g. a first frame the SDK cannot parse
            _log.info("check-live: the setup failed", exc_info=error)
            self._add_at("connect", Status.OK, started, probed, opened)
            self._report.add(
                "setup", Status.FAILED, setup_started, f"{type(error).__name__}: {error}"
            )
            self._report.skip(STEP_NAMES[2:5], "no session")
            return False
        self._add_at("connect", Status.OK, started, probed, opened)
        self._session = session
        declared = len(plan.function_names)
        detail = (
            f"{plan.settings.model}, push-to-talk (activity detection off), {declared} functions "
            f"declared with `parameters` (with {CHECK_TOOL_NAME}, 'word' required), "
            "resumption and both transcriptions on"
        )
        if session.setup_complete is None:
            self._report.add(
                "setup",
                Status.FAILED,
                setup_started,
                f"the service's first frame was not setupComplete ({detail})",
            )
        else:
            self._report.add("setup", Status.OK, setup_started, f"setupComplete for {detail}")
        return True

    def _add_at(self, name: str, status: Status, started: float, ended: float, detail: str) -> None:
        result = LineResult(name, status, ended - started, _one_line(detail))
        self._report.results.append(result)
        self._report.write(result.line())

    async def _refused(
        self,
        failure: LiveConnectionError,
        models: asyncio.Task[Any],
        times: tuple[float, float],
        opened: str,
    ) -> None:
        """The setup was answered with a close: put it on the line it is about.

        Args:
            failure: the close, classified as the app classifies it.
            models: the models list on its way.
            times: when the connect step began and when its probe ended.
            opened: the connect line's detail when the websocket opened.
        """
        plan = self._plan
        started, probed = times
        refused = time.perf_counter()
        closed = f"closed {failure.code}: {failure.reason}"
        if failure.kind is FailureKind.MODEL and "for API version" in failure.reason:
            # The service words a version it does not serve and a model it does not serve the
            # same way (C1, C6); the models list tells which.
            if await self._is_listed(models) is False:
                self._add_at("connect", Status.OK, started, probed, opened)
                self._add_at(
                    "setup",
                    Status.FAILED,
                    probed,
                    refused,
                    f"the service does not serve {plan.settings.model} to this key ({closed}); "
                    "see models-list",
                )
                self._report.skip(STEP_NAMES[2:5], "no session")
                return
            self._add_at(
                "connect",
                Status.FAILED,
                started,
                refused,
                f"the service refused API {plan.api_version} ({closed})",
            )
            self._report.skip(STEP_NAMES[1:5], "no session")
            return
        self._add_at("connect", Status.OK, started, probed, opened)
        self._add_at("setup", Status.FAILED, probed, refused, f"the setup was refused: {closed}")
        self._report.skip(STEP_NAMES[2:5], "no session")

    async def _probe(self, url: str) -> str | None:
        """Open (and close) the websocket the SDK would open; None, or what went wrong."""
        headers, dial = _sdk_dial_arguments(self._plan.client)
        try:
            async with (
                asyncio.timeout(self._timeouts.connect_s),
                ws_connect(url, additional_headers=headers, **dial) as websocket,
            ):
                await websocket.close()
        except TimeoutError:
            return f"no websocket within {self._timeouts.connect_s:g} s"
        except websockets.InvalidStatus as error:
            return f"the upgrade was refused with HTTP {error.response.status_code}"
        except ssl.SSLCertVerificationError as error:
            return (
                f"the endpoint's certificate is not trusted ({error.verify_message}); a private "
                "CA goes in SSL_CERT_FILE"
            )
        except (OSError, websockets.WebSocketException) as error:
            return f"cannot reach it: {type(error).__name__}: {error}"
        return None

    # ------------------------------------------------------------ reading

    async def _read(self) -> None:
        """Every server message into the queue, across turns, until the connection ends."""
        session = self._require_session()
        while True:
            try:
                async for message in session.receive():
                    self._note(message)
                    self._queue.put_nowait(message)
            except errors.APIError as error:
                if isinstance(error.code, int) and error.code >= 1000:
                    self._end(LiveConnectionError.from_api_error(error))
                    return
                self._malformed += 1
                _log.warning("check-live: the service sent an error frame: %s", error)
            except (TypeError, ValueError, KeyError, pydantic.ValidationError) as error:
                self._malformed += 1
                _log.warning("check-live: a frame the SDK could not read: %r", error)
            except (OSError, websockets.WebSocketException) as error:
                self._end(LiveConnectionError(FailureKind.TRANSIENT, None, str(error)))
                return

    def _note(self, message: types.LiveServerMessage) -> None:
        update = message.session_resumption_update
        if update is None:
            return
        self._resumption_updates += 1
        if update.resumable and update.new_handle:
            self._handle_chars = len(update.new_handle)
            self._resumable.set()

    def _end(self, error: LiveConnectionError) -> None:
        self._closed = error
        self._queue.put_nowait(_Closed(error))

    async def _next(self) -> types.LiveServerMessage:
        item = await self._queue.get()
        if isinstance(item, _Closed):
            self._queue.put_nowait(item)  # every later read sees the close too
            raise _Finding(f"the service closed the connection: {item.error}")
        return item

    async def _answer_other(self, tool_call: types.LiveServerToolCall) -> None:
        """A call the check did not ask for: answered by the app's tool system all the same."""
        self._other_calls += [call.name or "?" for call in tool_call.function_calls or ()]
        await self._plan.tools.handle(tool_call, self._send_responses)

    async def _send_responses(self, responses: list[types.FunctionResponse]) -> None:
        try:
            await self._require_session().send_tool_response(function_responses=responses)
        except (OSError, websockets.ConnectionClosed, errors.APIError) as error:
            # The reader reports the close on the step's line; the runner need not log it.
            _log.info("check-live: the tool answer could not be sent: %s", error)

    def _require_session(self) -> AsyncSession:
        if self._session is None:
            raise _Finding("there is no session")
        return self._session

    async def _send_text_turn(self, text: str) -> None:
        # As the app sends typed text with activity detection off (core/live.py,
        # RealtimeKind.TEXT_TURN; docs/live-service.md S1).
        try:
            await self._require_session().send_client_content(
                turns=types.Content(role="user", parts=[types.Part(text=text)]),
                turn_complete=True,
            )
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else 1006
            reason = closed.rcvd.reason if closed.rcvd is not None else "abnormal closure"
            raise _Finding(
                f"the service closed the connection: {LiveConnectionError.from_close(code, reason)}"
            ) from closed

    # ------------------------------------------------------------ 3: a typed turn

    async def _typed_turn(self) -> str:
        await self._send_text_turn(TYPED_PROMPT)
        heard = _Heard()
        limit = self._timeouts.turn_s
        try:
            async with asyncio.timeout(limit):
                while not heard.turn_complete:
                    message = await self._next()
                    if message.tool_call is not None:
                        await self._answer_other(message.tool_call)
                    if message.server_content is not None:
                        heard.add(message.server_content)
        except TimeoutError:
            raise _Finding(f"no turnComplete within {limit:g} s ({heard.describe()})") from None
        if not heard.audio_bytes:
            raise _Finding(f"the answer had no audio ({heard.said()})")
        problem = heard.audio_problem()
        if problem is not None:
            raise _Finding(f"the answer came as {problem} ({heard.describe()})")
        if not heard.text:
            raise _Finding(f"the answer had no output transcription ({heard.describe()})")
        return f"client_content turn answered: {heard.describe()}"

    # ------------------------------------------------------------ 4: a tool call

    async def _tool_call(self) -> str:
        await self._send_text_turn(TOOL_PROMPT)
        limit = self._timeouts.tool_s
        first_args: dict[str, Any] | None = None
        answers: list[types.FunctionResponse] = []
        answered = False
        after = _Heard()

        async def respond(responses: list[types.FunctionResponse]) -> None:
            answers.extend(r for r in responses if r.name == CHECK_TOOL_NAME)
            await self._send_responses(responses)

        try:
            async with asyncio.timeout(limit) as deadline:
                while True:
                    message = await self._next()
                    if message.tool_call is not None:
                        calls = message.tool_call.function_calls or ()
                        ours = [c for c in calls if c.name == CHECK_TOOL_NAME]
                        if not ours:
                            await self._answer_other(message.tool_call)
                            continue
                        if first_args is None:
                            first_args = dict(ours[0].args or {})
                        await self._plan.tools.handle(message.tool_call, respond)
                        answered = True
                        after = _Heard()
                        continue
                    if message.server_content is None:
                        continue
                    after.add(message.server_content)
                    if not after.turn_complete:
                        continue
                    if answered:
                        break
                    # The turn ended with no call: give a late call a moment, then stop.
                    if first_args is None:
                        loop = asyncio.get_running_loop()
                        deadline.reschedule(
                            min(deadline.when() or loop.time(), loop.time() + _LATE_CALL_GRACE_S)
                        )
                    after = _Heard()
        except TimeoutError:
            if first_args is None:
                others = f" (it called {', '.join(self._other_calls)})" if self._other_calls else ""
                raise _Finding(
                    f"the model did not call {CHECK_TOOL_NAME} within {limit:g} s{others}"
                ) from None
            if not answered:
                raise _Finding(f"{CHECK_TOOL_NAME} was called but not answered") from None
            verdict = _arguments_problem(first_args)
            if verdict is not None:
                raise _Finding(verdict) from None
            raise _Finding(
                f"{CHECK_TOOL_NAME}({_args_text(first_args)}) was answered, but the model did not "
                f"finish its turn within {limit:g} s ({after.describe()})"
            ) from None
        assert first_args is not None
        verdict = _arguments_problem(first_args)
        if verdict is not None:
            raise _Finding(f"{verdict}; the model went on: {after.describe()}")
        problem = _answer_problem(answers)
        if problem is not None:
            raise _Finding(problem)
        if not after.audio_bytes and not after.text:
            raise _Finding(
                f"{CHECK_TOOL_NAME}({_args_text(first_args)}) was answered, and the model ended "
                "its turn without saying anything"
            )
        return (
            f"{CHECK_TOOL_NAME}({_args_text(first_args)}) answered; the model went on: "
            f"{after.describe()}"
        )

    # ------------------------------------------------------------ 5: resumption

    async def _resumption(self) -> str:
        limit = self._timeouts.resumption_s
        if not self._resumable.is_set() and self._closed is None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(limit):
                    await self._resumable.wait()
        if not self._resumable.is_set():
            how = "and the connection closed" if self._closed is not None else f"in {limit:g} s"
            raise _Finding(
                f"no sessionResumptionUpdate with resumable=true and a handle {how} "
                f"({self._resumption_updates} updates, none resumable)"
            )
        return (
            f"sessionResumptionUpdate resumable=true with a handle of {self._handle_chars} "
            f"characters ({self._resumption_updates} updates)"
        )

    # ------------------------------------------------------------ 6: the models list

    async def _models(self) -> list[LiveModel]:
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self._timeouts.models_s):
                return await live_models(self._plan.client)
        finally:
            self._models_seconds = time.perf_counter() - started

    async def _is_listed(self, models: asyncio.Task[list[LiveModel]]) -> bool | None:
        """Whether the models list names the configured model; None when it failed."""
        with contextlib.suppress(Exception):
            found = await asyncio.shield(models)
            return any(m.model_id == _bare(self._plan.settings.model) for m in found)
        return None

    async def _models_line(self, models: asyncio.Task[list[LiveModel]]) -> None:
        status, detail = await self._models_verdict(models)
        # The list was fetched beside the session: its line shows how long the fetch took.
        self._add_at("models-list", status, 0.0, self._models_seconds, detail)

    async def _models_verdict(self, models: asyncio.Task[list[LiveModel]]) -> tuple[Status, str]:
        model = _bare(self._plan.settings.model)
        try:
            found = await models
        except TimeoutError:
            return Status.FAILED, f"no models list within {self._timeouts.models_s:g} s"
        except ModelListError as error:
            return Status.FAILED, str(error)
        except Exception as error:  # noqa: BLE001 - the line says what went wrong
            _log.info("check-live: the models list failed", exc_info=error)
            return Status.FAILED, f"{type(error).__name__}: {error}"
        ids = [m.model_id for m in found]
        if model in ids:
            return Status.OK, (
                f"{_count(len(ids), 'Live model')} for this key, {model} among them with "
                f"{LIVE_METHOD}"
            )
        elsewhere = await self._listed_without_live(model)
        return Status.FAILED, (
            f"{model} is not among the {_count(len(ids), 'model')} with {LIVE_METHOD} "
            f"({', '.join(ids) or 'none'}){elsewhere}"
        )

    async def _listed_without_live(self, model: str) -> str:
        """Say what the service lists for ``model`` when it is not a Live model."""
        try:
            async with asyncio.timeout(self._timeouts.models_s):
                entry = await self._plan.client.aio.models.get(model=model)
        except Exception:  # noqa: BLE001 - only a better sentence is at stake
            return ""
        methods = ", ".join(entry.supported_actions or ()) or "none"
        return f"; it is listed with {methods} only"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _bare(model: str) -> str:
    return model.strip().removeprefix("models/")


def _args_text(args: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={json.dumps(value)}" for name, value in args.items()) or ""


def _arguments_problem(args: Mapping[str, Any]) -> str | None:
    """Why the first call of the check's tool is not what the app relies on, or None."""
    word = args.get("word")
    if isinstance(word, str) and word.strip():
        return None
    return (
        f"{CHECK_TOOL_NAME} was called with args={json.dumps(dict(args))}: its required argument "
        "'word' is missing (docs/live-service.md T1)"
    )


def _answer_problem(answers: Sequence[types.FunctionResponse]) -> str | None:
    """Why the app's answer to the check's tool was not a success, or None."""
    if not answers:
        return f"the app sent no answer for {CHECK_TOOL_NAME}"
    payload = answers[0].response or {}
    output = payload.get("output")
    if isinstance(output, dict) and output.get("ok") is True:
        return None
    return f"the app answered {CHECK_TOOL_NAME} with a failure: {json.dumps(payload)[:200]}"


def _sdk_dial_arguments(client: genai.Client) -> tuple[dict[str, str], dict[str, Any]]:
    """The headers and TLS arguments the SDK dials the Live websocket with.

    The SDK's own (``live.py`` ``AsyncLive.connect``): its HTTP options' headers, which carry
    ``x-goog-api-key`` (C2), and ``_websocket_ssl_ctx``, which honours ``SSL_CERT_FILE``.
    """
    api_client = client.aio.live._api_client
    headers = dict(api_client._http_options.headers or {})
    dial = dict(getattr(api_client, "_websocket_ssl_ctx", None) or {})
    if "ssl" not in dial:
        import certifi

        dial["ssl"] = ssl.create_default_context(
            cafile=os.environ.get("SSL_CERT_FILE", certifi.where()),
            capath=os.environ.get("SSL_CERT_DIR"),
        )
    return headers, dial


async def _cancel(task: asyncio.Task[Any]) -> None:
    if not task.done():
        task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


# ---------------------------------------------------------------- the whole run


async def check_live(options: CheckOptions, out: TextIO, err: TextIO | None = None) -> int:
    """Run the check, write its report to ``out``, and return the exit code.

    Args:
        options: the profile, key store, endpoint and model to check with.
        out: where the report goes, one line per behaviour as each ends.
        err: where the one line goes when the check cannot start (``sys.stderr`` when None).

    Returns:
        :data:`EXIT_OK` when every line passed, :data:`EXIT_FAILED` when one failed (the last
        line names it), :data:`EXIT_CANNOT_START` when the check could not run.
    """
    redactor = options.redactor or RedactingFilter()
    with tempfile.TemporaryDirectory(prefix="sammy-check-live-") as scratch:
        try:
            plan = _prepare(options, Path(scratch), redactor)
        except _CannotStart as problem:
            stream = err if err is not None else sys.stderr
            line = _one_line(f"sammy-desktop --check-live: {problem}")
            stream.write(redactor.redact(line) + "\n")
            stream.flush()
            return EXIT_CANNOT_START
        report = _Report(out, redactor)
        _write_header(report, plan)
        started = time.perf_counter()
        try:
            await _Check(plan, report, options.timeouts).run()
        finally:
            plan.timers.shutdown()
            with contextlib.suppress(Exception):
                await plan.tools.aclose(_CLOSE_TIMEOUT_S)
    return _write_verdict(report, time.perf_counter() - started)


def _write_header(report: _Report, plan: _Plan) -> None:
    from google.genai import version as sdk_version

    endpoint = plan.base_url or "Google's endpoint"
    report.write(
        f"sammy-desktop {__version__} check-live: {plan.settings.model} at {endpoint}, "
        f"API {plan.api_version}, key from the {plan.key_source}, "
        f"google-genai {sdk_version.__version__}"
    )
    for notice in plan.notices:
        report.write(f"  note: {_one_line(notice)}")


def _write_verdict(report: _Report, elapsed: float) -> int:
    failed = [r.name for r in report.results if r.status is Status.FAILED]
    if failed:
        report.write(
            f"check-live FAILED: {', '.join(failed)} ({elapsed:.2f} s). Please open an issue "
            "with this whole output (it contains no key)."
        )
        return EXIT_FAILED
    report.write(f"check-live passed: {len(report.results)} behaviours in {elapsed:.2f} s")
    return EXIT_OK


def run_check_live(options: CheckOptions, out: TextIO, err: TextIO | None = None) -> int:
    """:func:`check_live` on a fresh event loop, for ``sammy-desktop --check-live``."""
    return asyncio.run(check_live(options, out, err))
