"""``sammy-desktop --self-test``: prove that this install (frozen or not) has all its parts.

A frozen app most often breaks because something that is loaded by name at run time did not
make it into the bundle: the PortAudio library, keyring's backends (found through entry
points), the CA bundle, the echo canceller's native library, a Qt plugin. The self-test
loads each of them and then runs the app's real path end to end, headless: it starts the
embedded Live simulator on loopback, connects through the real google-genai SDK over TLS,
sends a push-to-talk turn of audio (activityStart, audio, activityEnd), decodes the answer
audio, and runs a tool call through the :class:`~sammy_desktop.tools.ToolManager`. SQLite's
full-text index (the notes tool) is checked too.

It prints one line per step (``ok`` or ``FAILED``, the time it took, and what it found) and
returns 0, or 1 with the names of the steps that failed. Nothing is written to the person's
settings or keyring; the tool services get a throwaway profile folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import logging
import math
import ssl
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from sammy_desktop import __version__
from sammy_desktop.core.endpoint import client_options
from sammy_desktop.wire_audio import (
    INPUT_MIME,
    INPUT_RATE,
    OUTPUT_MIME,
    OUTPUT_RATE,
    SAMPLE_WIDTH,
)

if TYPE_CHECKING:
    from google.genai import live, types

    from sammy_desktop.sim import LiveSimulator, Scenario
    from sammy_desktop.tools import ToolManager

__all__ = [
    "LOAD_CHECKS",
    "STEP_NAMES",
    "SelfTestFailure",
    "StepResult",
    "run_self_test",
    "run_steps",
]

_log = logging.getLogger(__name__)

STEP_TIMEOUT_S: Final = 20.0
SELF_TEST_KEY: Final = "sammy-self-test-key"  # the simulator accepts only this key
SPOKEN_SECONDS: Final = 0.5
TOOL_NAME: Final = "getCurrentContext"
TOOL_PROMPT: Final = "self-test: use a tool"
AFTER_TOOL_SECONDS: Final = 0.2

LOAD_CHECK_NAMES: Final = ("ca-bundle", "keyring", "portaudio", "echo-canceller", "qt", "sqlite")
END_TO_END_STEPS: Final = ("simulator", "connect", "push-to-talk", "tool-call")
STEP_NAMES: Final = LOAD_CHECK_NAMES + END_TO_END_STEPS
"""Every step, in the order they run and appear in the report."""


class SelfTestFailure(Exception):
    """A step found a problem; the message says what, for the report line."""


@dataclass(frozen=True, slots=True)
class StepResult:
    """The outcome of one step.

    Attributes:
        name: the step's name (one of :data:`STEP_NAMES`).
        ok: whether it passed.
        seconds: how long it took.
        detail: what it found, or what went wrong.
    """

    name: str
    ok: bool
    seconds: float
    detail: str

    def line(self) -> str:
        """The step's line in the report."""
        status = "ok" if self.ok else "FAILED"
        return f"  {status:<7}{self.name:<16}{self.seconds * 1000:7.0f} ms  {self.detail}"


@dataclass
class _Report:
    """Collects results and writes each line as soon as its step ends."""

    stream: TextIO
    results: list[StepResult] = field(default_factory=list)

    def add(self, result: StepResult) -> None:
        self.results.append(result)
        self.stream.write(result.line() + "\n")
        self.stream.flush()


def _record(report: _Report, name: str, started: float, outcome: BaseException | str) -> None:
    """Add a step's line to the report; a failure's traceback goes to the log file."""
    if isinstance(outcome, str):
        ok, detail = True, outcome
    elif isinstance(outcome, SelfTestFailure):
        ok, detail = False, str(outcome)
    else:
        ok, detail = False, f"{type(outcome).__name__}: {_last_line(str(outcome))}"
        # INFO, not ERROR: the report already says it on stdout; the log file keeps the
        # traceback for whoever reads the bug report.
        _log.info("self-test step %s failed", name, exc_info=outcome)
    report.add(StepResult(name, ok, time.perf_counter() - started, detail))


def _last_line(message: str) -> str:
    """The last non-empty line of a message: one line per step, and the cause is at the end.

    numpy's ImportError, for one, is a page of advice that ends in "Original error was: ...".
    """
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


def _run_check(report: _Report, name: str, check: Callable[[], str]) -> None:
    """Run one loading step (plain code that returns quickly or raises)."""
    started = time.perf_counter()
    try:
        outcome: BaseException | str = check()
    except Exception as exc:  # noqa: BLE001 - the report must name any failure, then go on
        outcome = exc
    _record(report, name, started, outcome)


async def _run_async_step(
    report: _Report, name: str, step: Callable[[], Awaitable[str]], timeout_s: float
) -> None:
    """Run one end-to-end step with a timeout."""
    started = time.perf_counter()
    try:
        outcome: BaseException | str = await asyncio.wait_for(step(), timeout_s)
    except TimeoutError:
        outcome = SelfTestFailure(f"no result within {timeout_s:g} s")
    except Exception as exc:  # noqa: BLE001 - the report must name any failure, then go on
        outcome = exc
    _record(report, name, started, outcome)


# ---------------------------------------------------------------- the steps that load things


def check_ca_bundle() -> str:
    """The CA bundle from certifi is present and loads (google-genai's HTTPS and wss use it)."""
    import certifi

    path = Path(certifi.where())
    if not path.is_file():
        raise SelfTestFailure(f"certifi's CA bundle is missing: {path}")
    context = ssl.create_default_context(cafile=str(path))
    count = len(context.get_ca_certs())
    if count < 10:
        raise SelfTestFailure(f"{path} holds only {count} CA certificates")
    return f"{count} CA certificates from {path}"


_NATIVE_KEYRING: Final = {"linux": "SecretService", "darwin": "macOS", "win32": "Windows"}


def check_keyring() -> str:
    """Keyring's backends are discoverable (entry points) and the platform's one imports.

    Whether a keyring daemon is running is the desktop's business, not the bundle's: the
    step passes when the native backend is found even if it is not usable here, and says so.
    """
    import keyring

    names = sorted({ep.name for ep in importlib.metadata.entry_points(group="keyring.backends")})
    if not names:
        raise SelfTestFailure(
            "keyring finds no backends: its entry-point metadata is not in this install"
        )
    native = _NATIVE_KEYRING.get(_platform_key())
    if native is not None and native not in names:
        raise SelfTestFailure(f"the {native} backend is not registered (found: {names})")
    backend = keyring.get_keyring()
    in_use = f"{type(backend).__module__}.{type(backend).__name__}"
    usable = type(backend).__module__ != "keyring.backends.fail" and backend.priority > 0
    state = f"in use: {in_use}" if usable else f"none usable here (got {in_use})"
    return f"backends {', '.join(names)}; {state}"


def check_portaudio() -> str:
    """PortAudio loads through sounddevice and can list devices (none are opened)."""
    import sounddevice

    library = str(getattr(sounddevice, "_libname", "?"))
    version = sounddevice.get_portaudio_version()[1]
    devices = sounddevice.query_devices()
    host_apis = ", ".join(api["name"] for api in sounddevice.query_hostapis())
    return f"{version}; {len(devices)} devices via {host_apis or 'no host API'}; {library}"


def check_echo_canceller() -> str:
    """WebRTC's audio processing module (livekit's native library) cancels a test echo."""
    import numpy as np

    from sammy_desktop.audio.echo import APM_RATE, EchoCanceller

    canceller = EchoCanceller(enabled=True)
    played_rate = 48_000
    seconds = 0.5
    render = _tone(440.0, seconds, played_rate)
    capture = _tone(440.0, seconds, APM_RATE)
    canceller.process_render(render, played_rate, len(render) // 2)
    out = canceller.process_capture(capture)
    if len(out) != len(capture):
        raise SelfTestFailure(f"processed {len(out)} of {len(capture)} bytes")
    if not np.isfinite(np.frombuffer(out, np.int16).astype(np.float64)).all():
        raise SelfTestFailure("the echo canceller returned garbage")
    from livekit import rtc

    library = Path(rtc.__file__).parent / "resources"
    return f"{canceller.frames_processed} frames of 10 ms processed; library in {library}"


# The platform plugins a window needs here; the offscreen one is what --self-test uses.
_NEEDED_QT_PLATFORMS: Final = {"linux": ("xcb",), "darwin": ("cocoa",), "win32": ("windows",)}
# Qt tries Wayland first on a Wayland session and falls back to xcb (XWayland) when the
# plugin cannot load (a system without libwayland-client, which we do not bundle): its
# failure is reported, not fatal.
_OPTIONAL_QT_PLATFORMS: Final = {"linux": ("wayland",)}


def _platform_key() -> str:
    return "linux" if sys.platform.startswith("linux") else sys.platform


def _load_platform_plugin(plugins_dir: Path, name: str) -> str | None:
    """Load one platform plugin; return None, or why it cannot be loaded."""
    from PySide6.QtCore import QPluginLoader

    candidates = sorted(plugins_dir.glob(f"*q{name}.*"))
    if not candidates:
        return f"not in {plugins_dir}"
    loader = QPluginLoader(str(candidates[0]))
    if not loader.load():
        return loader.errorString()
    return None


def check_qt() -> str:
    """Qt's platform plugins load, and the app icon renders from the shipped resources."""
    from PySide6.QtCore import QLibraryInfo
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    plugins_dir = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    loaded = []
    for name in (*_NEEDED_QT_PLATFORMS.get(_platform_key(), ()), "offscreen"):
        problem = _load_platform_plugin(plugins_dir, name)
        if problem is not None:
            raise SelfTestFailure(f"the Qt platform plugin {name!r} cannot load: {problem}")
        loaded.append(name)
    notes = []
    for name in _OPTIONAL_QT_PLATFORMS.get(_platform_key(), ()):
        problem = _load_platform_plugin(plugins_dir, name)
        if problem is None:
            loaded.append(name)
        else:
            notes.append(f"; {name} cannot load ({problem}), Qt will use xcb")
    # Qt needs an application object to render the icon. One made here is shut down again,
    # so a process that goes on (a test session) gets no left-over application.
    existing = QApplication.instance()
    app = existing or QApplication(
        [sys.argv[0] if sys.argv else "sammy-desktop", "-platform", "offscreen"]
    )
    try:
        icon_file = _resources_dir() / "icons" / "app.svg"
        if not icon_file.is_file():
            raise SelfTestFailure(f"the app icon is missing: {icon_file}")
        if QIcon(str(icon_file)).pixmap(64, 64).isNull():
            raise SelfTestFailure(
                f"the app icon does not render (SVG support missing): {icon_file}"
            )
    finally:
        if existing is None:
            app.shutdown()
    return (
        f"platform plugins {', '.join(loaded)} load{''.join(notes)}; "
        f"icon renders from {icon_file.parent}"
    )


def check_sqlite() -> str:
    """SQLite loads and has the FTS5 full-text index the notes tool searches with."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(":memory:")) as connection:
        try:
            connection.execute("CREATE VIRTUAL TABLE probe USING fts5(body)")
        except sqlite3.OperationalError as error:
            raise SelfTestFailure(
                f"SQLite {sqlite3.sqlite_version} has no FTS5: {error}"
            ) from error
        connection.execute("INSERT INTO probe (body) VALUES ('the wifi password is on the fridge')")
        hits = connection.execute("SELECT count(*) FROM probe WHERE probe MATCH 'wifi'").fetchone()
    if hits != (1,):
        raise SelfTestFailure(f"FTS5 found {hits} instead of (1,)")
    return f"SQLite {sqlite3.sqlite_version} with FTS5"


def _resources_dir() -> Path:
    """Where ``resources/`` is: inside the bundle when frozen, beside the package otherwise."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parents[1] / "resources"


def _tone(frequency_hz: float, seconds: float, rate: int) -> bytes:
    import numpy as np

    t = np.arange(round(seconds * rate)) / rate
    return (np.sin(2 * math.pi * frequency_hz * t) * 0.3 * 32767).astype("<i2").tobytes()


# ---------------------------------------------------------------- the end-to-end steps


def self_test_scenario() -> Scenario:
    """The simulated model's script: echo the spoken turn, then call one tool."""
    from sammy_desktop.sim import (
        CallTools,
        EchoAudio,
        FunctionCallSpec,
        OnActivityEnd,
        OnText,
        OnToolResponse,
        Scenario,
        Tone,
        Turn,
        TurnComplete,
    )

    return Scenario(
        name="self-test",
        turns=[
            Turn(OnActivityEnd(), [EchoAudio(trim=False), TurnComplete()]),
            Turn(
                OnText(contains="tool"),
                [
                    CallTools(
                        calls=(
                            FunctionCallSpec(
                                name=TOOL_NAME, args={"reason": "self-test"}, id="self-test-1"
                            ),
                        )
                    )
                ],
            ),
            Turn(OnToolResponse(), [Tone(duration_s=AFTER_TOOL_SECONDS), TurnComplete()]),
        ],
    )


class _EndToEnd:
    """The simulator, connection, push-to-talk and tool steps, sharing one session.

    Args:
        profile: a throwaway folder for the tool services' files.
        stack: closes what the steps open (session, tool manager, simulator), in reverse.
    """

    def __init__(self, profile: Path, stack: contextlib.AsyncExitStack) -> None:
        self._profile = profile
        self._stack = stack
        self._simulator: LiveSimulator | None = None
        self._session: live.AsyncSession | None = None
        self._tools: ToolManager | None = None

    async def start_simulator(self) -> str:
        from sammy_desktop.sim import LiveSimulator

        simulator = LiveSimulator(self_test_scenario(), api_keys=(SELF_TEST_KEY,))
        await self._stack.enter_async_context(simulator)
        self._simulator = simulator
        return f"listening on {simulator.base_url} with a throwaway TLS certificate"

    async def connect(self) -> str:
        from google import genai
        from google.genai import types
        from google.genai import version as sdk_version

        from sammy_desktop.config import AppPaths, Settings
        from sammy_desktop.eventbus import EventBus
        from sammy_desktop.tools import ToolManager, ToolServices

        simulator = self._require_simulator()
        settings = Settings()
        paths = AppPaths.profile(self._profile)
        paths.ensure()
        manager = ToolManager(
            EventBus(),
            ToolServices(paths=paths, settings=lambda: settings, transcript=lambda: ()),
            load_entry_points=False,
        )
        self._stack.push_async_callback(manager.aclose)
        self._tools = manager
        declarations = manager.declarations(settings.model)
        options = client_options(base_url=simulator.base_url, ssl_context=simulator.ssl_context)
        client = genai.Client(api_key=SELF_TEST_KEY, http_options=options)
        config = types.LiveConnectConfig(
            response_modalities=[types.Modality.AUDIO],
            realtime_input_config=types.RealtimeInputConfig(
                automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
            ),
            tools=declarations,  # type: ignore[arg-type]
        )
        session = await self._stack.enter_async_context(
            client.aio.live.connect(model=settings.model, config=config)
        )
        self._session = session
        declared = sum(len(t.function_declarations or ()) for t in declarations)
        return (
            f"google-genai {sdk_version.__version__} set up {settings.model} with {declared} tools"
        )

    async def push_to_talk(self) -> str:
        from google.genai import types

        session = self._require_session()
        spoken = _tone(440.0, SPOKEN_SECONDS, INPUT_RATE)
        await session.send_realtime_input(activity_start=types.ActivityStart())
        chunk = INPUT_RATE // 10 * SAMPLE_WIDTH  # 100 ms, as the app sends
        for start in range(0, len(spoken), chunk):
            await session.send_realtime_input(
                audio=types.Blob(data=spoken[start : start + chunk], mime_type=INPUT_MIME)
            )
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        answer = bytearray()
        rates = set()
        # The SDK's receive() ends after turnComplete: one turn.
        async for message in session.receive():
            for blob in _audio_blobs(message):
                answer += blob.data or b""
                rates.add(blob.mime_type or "")
        return _describe_answer(bytes(answer), rates, expected_s=SPOKEN_SECONDS)

    async def tool_call(self) -> str:
        from google.genai import types

        session = self._require_session()
        manager = self._tools
        if manager is None:
            raise SelfTestFailure("skipped: the tool manager was not built")
        sent: list[types.FunctionResponse] = []

        async def respond(responses: list[types.FunctionResponse]) -> None:
            sent.extend(responses)
            await session.send_tool_response(function_responses=responses)

        await session.send_client_content(
            turns=types.Content(role="user", parts=[types.Part(text=TOOL_PROMPT)]),
            turn_complete=True,
        )
        called = []
        after = bytearray()
        async for message in session.receive():
            if message.tool_call is not None:
                called += [c.name for c in message.tool_call.function_calls or ()]
                await manager.handle(message.tool_call, respond)
            for blob in _audio_blobs(message):
                after += blob.data or b""
        if called != [TOOL_NAME]:
            raise SelfTestFailure(f"expected one call of {TOOL_NAME}, the model made {called}")
        if len(sent) != 1 or sent[0].id != "self-test-1":
            raise SelfTestFailure(f"the tool call was not answered once: {sent}")
        payload = sent[0].response or {}
        output = payload.get("output")
        if not isinstance(output, dict) or output.get("ok") is not True:
            raise SelfTestFailure(f"{TOOL_NAME} failed: {payload}")
        if not after:
            raise SelfTestFailure("the model said nothing after the tool answer")
        shared = ", ".join(sorted(output.get("value", {})))
        return f"{TOOL_NAME} answered ({shared}); the model went on speaking"

    def _require_simulator(self) -> LiveSimulator:
        if self._simulator is None:
            raise SelfTestFailure("skipped: the simulator did not start")
        return self._simulator

    def _require_session(self) -> live.AsyncSession:
        if self._session is None:
            raise SelfTestFailure("skipped: there is no connection")
        return self._session


def _audio_blobs(message: types.LiveServerMessage) -> Iterator[types.Blob]:
    content = message.server_content
    if content is None or content.model_turn is None:
        return
    for part in content.model_turn.parts or ():
        if part.inline_data is not None and (part.inline_data.mime_type or "").startswith("audio/"):
            yield part.inline_data


def _describe_answer(pcm: bytes, mime_types: set[str], *, expected_s: float) -> str:
    import numpy as np

    if not pcm:
        raise SelfTestFailure("no answer audio arrived")
    if mime_types != {OUTPUT_MIME}:
        raise SelfTestFailure(f"answer audio is {sorted(mime_types)}, expected {OUTPUT_MIME}")
    if len(pcm) % 2:
        raise SelfTestFailure(f"answer audio has an odd length ({len(pcm)} bytes): not PCM16")
    samples = np.frombuffer(pcm, "<i2").astype(np.float64)
    seconds = len(samples) / OUTPUT_RATE
    rms = float(np.sqrt(np.mean(samples**2)))
    if abs(seconds - expected_s) > expected_s * 0.2:
        raise SelfTestFailure(f"answer audio lasts {seconds:.2f} s, expected {expected_s:.2f} s")
    if rms < 1000:
        raise SelfTestFailure(f"answer audio is silent (RMS {rms:.0f})")
    return f"{seconds:.2f} s of PCM16 at {OUTPUT_RATE} Hz decoded (RMS {rms:.0f})"


# ---------------------------------------------------------------- running it all


LOAD_CHECKS: Final[tuple[tuple[str, Callable[[], str]], ...]] = tuple(
    zip(
        LOAD_CHECK_NAMES,
        (
            check_ca_bundle,
            check_keyring,
            check_portaudio,
            check_echo_canceller,
            check_qt,
            check_sqlite,
        ),
        strict=True,
    )
)


async def _run_end_to_end(report: _Report, timeout_s: float) -> None:
    with tempfile.TemporaryDirectory(prefix="sammy-self-test-") as profile:
        async with contextlib.AsyncExitStack() as stack:
            end_to_end = _EndToEnd(Path(profile), stack)
            steps = (
                end_to_end.start_simulator,
                end_to_end.connect,
                end_to_end.push_to_talk,
                end_to_end.tool_call,
            )
            for name, step in zip(END_TO_END_STEPS, steps, strict=True):
                await _run_async_step(report, name, step, timeout_s)


def run_steps(
    stream: TextIO,
    *,
    timeout_s: float = STEP_TIMEOUT_S,
    checks: Sequence[tuple[str, Callable[[], str]]] = LOAD_CHECKS,
) -> list[StepResult]:
    """Run every step, writing each report line as it ends; return the results.

    The loading checks run first, on this thread (Qt wants the main thread); the
    end-to-end steps then run on a fresh asyncio loop, each within ``timeout_s``.

    Args:
        stream: where the report lines go.
        timeout_s: the most each end-to-end step may take.
        checks: the loading checks, as (name, function) pairs; the default is
            :data:`LOAD_CHECKS`.
    """
    report = _Report(stream)
    for name, check in checks:
        _run_check(report, name, check)
    asyncio.run(_run_end_to_end(report, timeout_s))
    return report.results


def run_self_test(
    stream: TextIO,
    *,
    timeout_s: float = STEP_TIMEOUT_S,
    checks: Sequence[tuple[str, Callable[[], str]]] = LOAD_CHECKS,
) -> int:
    """Run the self-test, print the report to ``stream``, return the process exit code.

    Args:
        stream: where the report goes (stdout for ``--self-test``).
        timeout_s: the most each end-to-end step may take.
        checks: the loading checks (tests pass their own).

    Returns:
        0 when every step passed, 1 when any failed (the last line names them).
    """
    frozen = "frozen" if getattr(sys, "frozen", False) else "not frozen"
    stream.write(f"sammy-desktop {__version__} self-test ({frozen}, {sys.platform})\n")
    started = time.perf_counter()
    results = run_steps(stream, timeout_s=timeout_s, checks=checks)
    elapsed = time.perf_counter() - started
    failed = [r.name for r in results if not r.ok]
    if failed:
        stream.write(f"self-test FAILED: {', '.join(failed)} ({elapsed:.2f} s)\n")
        stream.flush()
        return 1
    stream.write(f"self-test passed: {len(results)} steps in {elapsed:.2f} s\n")
    stream.flush()
    return 0
