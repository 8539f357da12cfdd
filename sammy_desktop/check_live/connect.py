"""Lines ``connect`` and ``setup``: the websocket the SDK dials, then the app's own handshake.

``connect`` first reads what the SDK would dial (:func:`~sammy_desktop.core.endpoint.
live_dial`: its URL must name the API version, C1) and opens that websocket itself, with the
same headers and TLS, so an endpoint that cannot be reached or trusted, or an upgrade that
is refused, is told apart from a setup that is. Then the session opens as the app opens it,
through :class:`~sammy_desktop.core.live.LiveConnection` under the setup's time limit, and
each way the handshake can end is put on the line it is about:

* no answer in time (:class:`~sammy_desktop.core.live.ConnectTimeout`): the websocket opened,
  so ``setup`` failed;
* a close with a code: the service refused the setup, or the API version (C1) when the
  models list still names the model (C6);
* any other failure of the connection: ``connect``, since the probe got through;
* a first frame that is not ``setupComplete`` (:attr:`~sammy_desktop.core.live.
  LiveConnection.setup_complete`): ``setup`` (C4, M3, T2).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time

import websockets
from websockets.asyncio.client import connect as ws_connect

from sammy_desktop.check_live.models_list import ModelsList
from sammy_desktop.check_live.plan import CHECK_TOOL_NAME, Plan, Timeouts
from sammy_desktop.check_live.report import STEP_NAMES, Report, Status
from sammy_desktop.core.endpoint import LiveDial, live_dial
from sammy_desktop.core.failures import FailureKind, LiveConnectionError
from sammy_desktop.core.live import ConnectTimeout, LiveConnection

__all__ = ["open_session", "probe"]

_log = logging.getLogger(__name__)

_SESSION_STEPS = STEP_NAMES[2:5]
"""The lines that need a session: typed-turn, tool-call, resumption."""


async def open_session(
    plan: Plan, report: Report, timeouts: Timeouts, models: ModelsList
) -> LiveConnection | None:
    """Write lines ``connect`` and ``setup``; the open connection, or None (the rest skipped).

    Args:
        plan: the client, model and setup to connect with.
        report: where the lines go.
        timeouts: ``connect_s`` for the probe, ``setup_s`` for the handshake.
        models: the models list on its way, asked when a refusal is about the model or the
            version.
    """
    rest = STEP_NAMES[1:5]
    started = time.perf_counter()
    dial = live_dial(plan.client)
    url = dial.url
    if f".{plan.api_version}." not in url:
        report.add(
            "connect", Status.FAILED, started, f"the SDK dials {url}, not API {plan.api_version}"
        )
        report.skip(rest, "no connection")
        return None
    problem = await probe(dial, timeouts.connect_s)
    if problem is not None:
        report.add("connect", Status.FAILED, started, f"{url}: {problem}")
        report.skip(rest, "no connection")
        return None
    probed = time.perf_counter()
    opened = f"{url}: the websocket opens and the service takes API {plan.api_version}"
    if plan.api_version != "v1beta":
        opened += " (the app's default is v1beta; SAMMY_API_VERSION or the setting chose this)"
    setup_started = time.perf_counter()
    connection = LiveConnection(
        plan.client, plan.settings.model, connect_timeout_s=timeouts.setup_s
    )
    try:
        await connection.connect(plan.config)
    except ConnectTimeout:
        # The websocket opened, but with no answer to the setup the version is not proven.
        unanswered = f"{url}: the websocket opens (the setup had no answer: see setup)"
        report.add_at("connect", Status.OK, started, probed, unanswered)
        report.add(
            "setup", Status.FAILED, setup_started, f"no setupComplete within {timeouts.setup_s:g} s"
        )
        report.skip(_SESSION_STEPS, "no session")
        return None
    except LiveConnectionError as failure:
        if failure.code is not None:
            # The service answered the setup with a close.
            await _refused(plan, report, failure, models, (started, probed), opened)
            return None
        # The connection itself failed (TLS, the upgrade, the network), though the probe's
        # got through: the error LiveConnection was given says what.
        cause = failure.__cause__ if failure.__cause__ is not None else failure
        report.add(
            "connect",
            Status.FAILED,
            started,
            f"the probe reached {url}, but the SDK's own connection failed: "
            f"{type(cause).__name__}: {cause}",
        )
        report.skip(rest, "no connection")
        return None
    except Exception as error:  # noqa: BLE001 - e.g. a first frame the SDK cannot parse
        _log.info("check-live: the setup failed", exc_info=error)
        report.add_at("connect", Status.OK, started, probed, opened)
        report.add("setup", Status.FAILED, setup_started, f"{type(error).__name__}: {error}")
        report.skip(_SESSION_STEPS, "no session")
        return None
    report.add_at("connect", Status.OK, started, probed, opened)
    detail = (
        f"{plan.settings.model}, push-to-talk (activity detection off), "
        f"{len(plan.function_names)} functions declared with `parameters` (with "
        f"{CHECK_TOOL_NAME}, 'word' required), resumption and both transcriptions on"
    )
    if connection.setup_complete:
        report.add("setup", Status.OK, setup_started, f"setupComplete for {detail}")
    else:
        report.add(
            "setup",
            Status.FAILED,
            setup_started,
            f"the service's first frame was not setupComplete ({detail})",
        )
    return connection


async def _refused(
    plan: Plan,
    report: Report,
    failure: LiveConnectionError,
    models: ModelsList,
    times: tuple[float, float],
    opened: str,
) -> None:
    """The setup was answered with a close: put it on the line it is about.

    Args:
        plan: what was connected with.
        report: where the lines go.
        failure: the close, classified as the app classifies it.
        models: the models list on its way.
        times: when the connect step began and when its probe ended.
        opened: the connect line's detail when the websocket opened.
    """
    started, probed = times
    refused = time.perf_counter()
    closed = f"closed {failure.code}: {failure.reason}"
    if failure.kind is FailureKind.MODEL and "for API version" in failure.reason:
        # The service words a version it does not serve and a model it does not serve the
        # same way (C1, C6); the models list tells which.
        if await models.is_listed() is False:
            report.add_at("connect", Status.OK, started, probed, opened)
            report.add_at(
                "setup",
                Status.FAILED,
                probed,
                refused,
                f"the service does not serve {plan.settings.model} to this key ({closed}); "
                "see models-list",
            )
            report.skip(_SESSION_STEPS, "no session")
            return
        report.add_at(
            "connect",
            Status.FAILED,
            started,
            refused,
            f"the service refused API {plan.api_version} ({closed})",
        )
        report.skip(STEP_NAMES[1:5], "no session")
        return
    report.add_at("connect", Status.OK, started, probed, opened)
    report.add_at("setup", Status.FAILED, probed, refused, f"the setup was refused: {closed}")
    report.skip(_SESSION_STEPS, "no session")


async def probe(dial: LiveDial, limit_s: float) -> str | None:
    """Open (and close) the websocket the SDK would open; None, or what went wrong."""
    try:
        async with (
            asyncio.timeout(limit_s),
            ws_connect(dial.url, additional_headers=dict(dial.headers), **dial.tls) as websocket,
        ):
            await websocket.close()
    except TimeoutError:
        return f"no websocket within {limit_s:g} s"
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
