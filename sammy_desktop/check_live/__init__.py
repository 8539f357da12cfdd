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
  tool of the check's own with a required argument (:data:`CHECK_TOOL_NAME`);
* the app's own connection (:class:`~sammy_desktop.core.live.LiveConnection`): its
  handshake, its typed ``client_content`` turn, its reading of frames.

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

The parts: :mod:`.report` (the lines, the exit codes, a step run into its line),
:mod:`.plan` (the options, the time limits, the check's tool, everything built before the
network), :mod:`.connect` (the probe, lines ``connect`` and ``setup``), :mod:`.session` (the
session read and written through the app's connection, line ``resumption``), :mod:`.turns`
(lines ``typed-turn`` and ``tool-call``), :mod:`.models_list` (line ``models-list``); this
module runs them in order and writes the report's first and last lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final, TextIO

from sammy_desktop import __version__
from sammy_desktop.app_logging import RedactingFilter
from sammy_desktop.check_live.connect import open_session
from sammy_desktop.check_live.models_list import ModelsList
from sammy_desktop.check_live.plan import (
    CHECK_TOOL_NAME,
    CHECK_WORD,
    CheckOptions,
    Plan,
    Timeouts,
    prepare,
)
from sammy_desktop.check_live.plan import (
    CheckEchoInput as CheckEchoInput,  # the check's tool, public as before the split
)
from sammy_desktop.check_live.plan import (
    CheckEchoOutput as CheckEchoOutput,
)
from sammy_desktop.check_live.plan import (
    check_live_echo as check_live_echo,
)
from sammy_desktop.check_live.report import (
    EXIT_CANNOT_START,
    EXIT_FAILED,
    EXIT_OK,
    STEP_NAMES,
    CannotStart,
    LineResult,
    Report,
    Status,
    count,
    one_line,
    run_step,
)
from sammy_desktop.check_live.session import Session, resumption
from sammy_desktop.check_live.turns import TOOL_PROMPT, TYPED_PROMPT, tool_call, typed_turn

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

_CLOSE_TIMEOUT_S: Final = 5.0


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
            plan = prepare(options, Path(scratch), redactor)
        except CannotStart as problem:
            stream = err if err is not None else sys.stderr
            line = one_line(f"sammy-desktop --check-live: {problem}")
            stream.write(redactor.redact(line) + "\n")
            stream.flush()
            return EXIT_CANNOT_START
        report = Report(out, redactor)
        _write_header(report, plan)
        started = time.perf_counter()
        try:
            await _run(plan, report, options.timeouts)
        finally:
            plan.timers.shutdown()
            with contextlib.suppress(Exception):
                await plan.tools.aclose(_CLOSE_TIMEOUT_S)
    return _write_verdict(report, time.perf_counter() - started)


def run_check_live(options: CheckOptions, out: TextIO, err: TextIO | None = None) -> int:
    """:func:`check_live` on a fresh event loop, for ``sammy-desktop --check-live``."""
    return asyncio.run(check_live(options, out, err))


async def _run(plan: Plan, report: Report, timeouts: Timeouts) -> None:
    """Every line in order; the models list is fetched beside the session from the start."""
    models = ModelsList(plan.client, plan.settings.model, timeouts.models_s)
    try:
        async with contextlib.AsyncExitStack() as stack:
            connection = await open_session(plan, report, timeouts, models)
            if connection is not None:
                stack.push_async_callback(connection.close)
                session = Session(connection, plan.tools)
                reader = asyncio.create_task(session.read(), name="check-live reader")
                stack.push_async_callback(_cancel, reader)
                await _session_steps(session, report, timeouts)
        await models.write_line(report)
    finally:
        await models.cancel()


async def _session_steps(session: Session, report: Report, timeouts: Timeouts) -> None:
    turn_ok = await run_step(report, "typed-turn", lambda: typed_turn(session, timeouts.turn_s))
    if session.closed is not None and not turn_ok:
        report.skip(["tool-call"], "the connection closed")
    else:
        await run_step(report, "tool-call", lambda: tool_call(session, timeouts.tool_s))
    await run_step(report, "resumption", lambda: resumption(session, timeouts.resumption_s))
    if session.malformed_frames:
        report.write(
            f"  note: {count(session.malformed_frames, 'frame')} the SDK could not read were "
            "skipped, as the app skips them"
        )


async def _cancel(task: asyncio.Task[Any]) -> None:
    if not task.done():
        task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


def _write_header(report: Report, plan: Plan) -> None:
    from google.genai import version as sdk_version

    endpoint = plan.base_url or "Google's endpoint"
    report.write(
        f"sammy-desktop {__version__} check-live: {plan.settings.model} at {endpoint}, "
        f"API {plan.api_version}, key from the {plan.key_source}, "
        f"google-genai {sdk_version.__version__}"
    )
    for notice in plan.notices:
        report.write(f"  note: {one_line(notice)}")


def _write_verdict(report: Report, elapsed: float) -> int:
    failed = [r.name for r in report.results if r.status is Status.FAILED]
    if failed:
        report.write(
            f"check-live FAILED: {', '.join(failed)} ({elapsed:.2f} s). Please open an issue "
            "with this whole output (it contains no key)."
        )
        return EXIT_FAILED
    report.write(f"check-live passed: {len(report.results)} behaviours in {elapsed:.2f} s")
    return EXIT_OK
