"""Keeping one Live connection up for a whole conversation.

:class:`ConnectionSupervisor` runs one task per session that connects, receives and sends
until the connection ends, then decides what comes next:

* on goAway, a reconnect at a quiet moment before the deadline, resuming with the newest
  resumable handle (and at the deadline whatever is happening);
* on an unexpected close, bounded exponential backoff with jitter, resuming too; a
  connection that stays up long enough resets the failure count;
* a refused key or setup stops at once, with the error for the person;
* after a quiet stretch the connection rests (:meth:`ConnectionSupervisor.rest`, asked by
  :mod:`~sammy_desktop.core.idle_rest`): closed, the handle kept, until input needs it;
* a refused resumption handle starts a fresh session; the conversation so far follows its
  setupComplete as quoted turns (:mod:`~sammy_desktop.core.replay`), before any realtime
  input.

Realtime input leaves through the :class:`~sammy_desktop.core.outbox.RealtimeOutbox` in
order, by one sender task; what was sent after the newest handle is re-sent on the next
connection. What the conversation does about a connection coming or going is its owner's
business (:class:`SupervisorHost`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
from collections.abc import Awaitable, Callable
from typing import Literal, Protocol

from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.events import (
    ConnectionLost,
    ErrorKind,
    GoAwayReceived,
    Reconnected,
    Reconnecting,
    ResumptionRefused,
)
from sammy_desktop.core.live import FailureKind, LiveConnection, LiveConnectionError
from sammy_desktop.core.outbox import RealtimeOutbox
from sammy_desktop.core.ports import ClientFactory
from sammy_desktop.core.replay import HistoryReplay
from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import genai, types

__all__ = ["ConnectionSupervisor", "SupervisorHost"]

_log = logging.getLogger(__name__)

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*s?\s*$")


def parse_time_left(value: str | None) -> float:
    """Seconds from a goAway ``timeLeft`` (``"50s"``, ``"0.5s"``); 0 when unreadable."""
    if not value:
        return 0.0
    match = _DURATION.match(value)
    return float(match.group(1)) if match else 0.0


class SupervisorHost(Protocol):
    """What the supervisor needs from the conversation it keeps connected."""

    def setup_for(
        self, handle: str | None, *, history: HistoryReplay | None
    ) -> types.LiveConnectConfig:
        """The setup for the next connection (``history``: the replay that will follow it)."""

    def earlier_conversation(self) -> HistoryReplay | None:
        """What a fresh session after a lost one is told of the conversation so far."""

    def model(self) -> str:
        """The model to connect to."""

    def is_quiet(self) -> bool:
        """Nobody speaks and nothing is pending: a reconnect now goes unnoticed."""

    async def input_allowed(self) -> None:
        """Return when realtime input may be sent (it waits while it must be held back)."""

    def on_message(self, message: types.LiveServerMessage) -> None:
        """One message from the service."""

    def on_connected(self, *, reconnected: bool) -> None:
        """A connection is up (after its events were emitted)."""

    def on_dropped(self) -> None:
        """The connection is going away (before it is closed)."""

    def on_reconnecting(self, reason: str) -> None:
        """A reconnection after a failure is about to be tried."""

    def on_context_update_refused(self) -> None:
        """The service closed a connection that had taken a context update."""

    async def give_up(self, kind: ErrorKind, message: str) -> None:
        """Stop the conversation with an error for the person."""

    async def rest(self) -> None:
        """The connection rests (closed on purpose): return when it is needed again."""


class ConnectionSupervisor:
    """Connects, resumes and reconnects for one conversation at a time.

    Args:
        bus: where connection events go.
        host: the conversation.
        outbox: the realtime input on its way to the service.
        client_factory: builds the genai client for a session.
        policy: backoff and timeout numbers.
        clock: monotonic seconds (for stability).
        rng: randomness for backoff jitter.
        before_connect: awaited before the first client of a session is built (whatever
            the factory needs that may still be on its way); may raise
            :class:`LiveConnectionError` like the factory.
    """

    def __init__(
        self,
        *,
        bus: EventBus,
        host: SupervisorHost,
        outbox: RealtimeOutbox,
        client_factory: ClientFactory,
        policy: ReconnectPolicy,
        clock: Callable[[], float],
        rng: random.Random,
        before_connect: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._bus = bus
        self._host = host
        self._outbox = outbox
        self._client_factory = client_factory
        self._policy = policy
        self._clock = clock
        self._rng = rng
        self._before_connect = before_connect

        self._client: genai.Client | None = None
        self._connection: LiveConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._handle: str | None = None
        self._was_connected = False
        self._reconnects = 0
        self._reconnect_now = asyncio.Event()
        self._reconnect_reason = ""
        self._reconnect_wanted = False
        self._go_away_received = False
        self._deadline_timer: asyncio.TimerHandle | None = None
        self._rest_wanted = False
        self._deadline_passed = False

    # ------------------------------------------------------------------ reading

    @property
    def connection(self) -> LiveConnection | None:
        """The open connection, or None."""
        return self._connection

    @property
    def handle(self) -> str | None:
        """The newest resumable handle the service gave, or None."""
        return self._handle

    @property
    def reconnect_count(self) -> int:
        """Reconnections in this session (planned and unplanned)."""
        return self._reconnects

    @property
    def was_connected(self) -> bool:
        """Whether this session has been connected at least once."""
        return self._was_connected

    @property
    def policy(self) -> ReconnectPolicy:
        """The backoff and timeout numbers."""
        return self._policy

    # ------------------------------------------------------------------ the session

    def start(self) -> None:
        """Begin supervising a new session (returns at once)."""
        self._handle = None
        self._was_connected = False
        self._reconnects = 0
        self._reconnect_now.clear()
        self._reconnect_wanted = False
        self._deadline_passed = False
        self._go_away_received = False
        self._rest_wanted = False
        self._task = asyncio.create_task(self._supervise(), name="agent-supervisor")

    def task(self) -> asyncio.Task[None] | None:
        """The supervising task while it runs."""
        task = self._task
        return task if task is not None and not task.done() else None

    async def close(self) -> None:
        """After the supervising task was stopped: close the connection and the client."""
        self._task = None
        await self.drop_connection()
        self._cancel_deadline()
        if self._client is not None:
            client, self._client = self._client, None
            with contextlib.suppress(Exception):
                await client.aio.aclose()
            with contextlib.suppress(Exception):
                client.close()

    async def drop_connection(self) -> None:
        """Close the connection now (the host hears ``on_dropped`` first)."""
        connection, self._connection = self._connection, None
        self._host.on_dropped()
        if connection is not None:
            await connection.close()

    # ------------------------------------------------------------------ reconnect wishes

    def rest(self) -> bool:
        """Close the connection quietly now, keeping the handle; reconnect when needed.

        Only at a quiet moment, with a connection up and a resumable handle (without one
        the wake would be a new session). The supervisor then waits on the host's
        :meth:`SupervisorHost.rest` (no goAway, no reconnect meanwhile) and resumes with the
        handle when it returns, without a "reconnecting" announcement.

        Returns:
            Whether the connection is going to rest.
        """
        if self._connection is None or self._handle is None or not self._host.is_quiet():
            return False
        self._rest_wanted = True
        self._reconnect_now.set()
        return True

    def request_reconnect(self, reason: str) -> None:
        """Reconnect (resuming) at the next quiet moment."""
        self._reconnect_wanted = True
        self._reconnect_reason = reason
        self.reconnect_if_quiet()

    def reconnect_if_quiet(self) -> None:
        """If a reconnect is wanted and now is a quiet moment, do it now."""
        if self._reconnect_wanted and self._host.is_quiet():
            self._reconnect_now.set()

    def on_resumption_update(self, update: types.LiveServerSessionResumptionUpdate) -> None:
        """A new handle: resumable ones are kept, and confirm everything sent so far."""
        if not update.resumable or not update.new_handle:
            return
        self._handle = update.new_handle
        # The service's state at this handle includes everything sent so far.
        self._outbox.confirm()

    def on_go_away(self, go_away: types.LiveServerGoAway) -> None:
        """The service will close soon: reconnect at a quiet moment, at the latest near the end."""
        time_left = parse_time_left(go_away.time_left)
        self._go_away_received = True
        self._bus.emit(GoAwayReceived(time_left_s=time_left))
        self.request_reconnect(f"the service asked to reconnect within {time_left:g} s")
        self._cancel_deadline()
        wait = max(0.0, time_left - self._policy.goaway_margin_s)
        self._deadline_timer = asyncio.get_running_loop().call_later(wait, self._deadline_reached)

    def _deadline_reached(self) -> None:
        self._deadline_timer = None
        self._deadline_passed = True
        self._reconnect_now.set()

    def _cancel_deadline(self) -> None:
        if self._deadline_timer is not None:
            self._deadline_timer.cancel()
            self._deadline_timer = None

    # ------------------------------------------------------------------ supervision

    async def _supervise(self) -> None:
        failures = 0
        planned = False
        refusal_resumed = False  # one quiet resume after a mid-session refusal
        try:
            while True:
                waking = self._rest_wanted
                if waking:
                    self._rest_wanted = False
                    self._cancel_deadline()
                    await self._host.rest()
                connection = await self._open_connection(
                    planned or waking, attempt=failures + 1, announce=not waking
                )
                if isinstance(connection, LiveConnectionError):
                    error, mid_session = connection, False
                else:
                    connected_at = self._clock()
                    try:
                        await self._run_connection(connection)
                    except LiveConnectionError as exc:
                        error, mid_session = exc, True
                    else:
                        planned, failures = True, 0
                        continue
                    finally:
                        await self.drop_connection()
                    if self._clock() - connected_at >= self._policy.stable_after_s:
                        failures, refusal_resumed = 0, False
                    if self._go_away_received and error.kind is FailureKind.TRANSIENT:
                        # The service closed as announced: resume without backoff.
                        planned = True
                        continue
                    if error.kind is FailureKind.REFUSED and not refusal_resumed:
                        # After a good setupComplete a refusal has been seen at random
                        # (live-service.md C5): resume once, quietly, before giving up.
                        _log.warning("the service refused mid-session (%s); resuming", error)
                        refusal_resumed = True
                        if connection.sent_context_update:
                            self._host.on_context_update_refused()
                        planned = True
                        continue
                    self._bus.emit(ConnectionLost(code=error.code, reason=error.reason))
                planned = False
                fatal = self._explain(error, mid_session=mid_session)
                if fatal is not None:
                    await self._host.give_up(*fatal)
                    return
                failures += 1
                if failures >= self._policy.max_attempts:
                    _log.warning("giving up after %d attempts: %s", failures, error)
                    await self._host.give_up(
                        ErrorKind.CONNECTION,
                        f"Sammy could not reach the service after {failures} tries.",
                    )
                    return
                delay = self._policy.delay(failures, self._rng)
                if self._was_connected:
                    self._host.on_reconnecting(error.reason)
                self._bus.emit(
                    Reconnecting(
                        attempt=failures,
                        max_attempts=self._policy.max_attempts,
                        delay_s=delay,
                        reason=error.reason,
                    )
                )
                await asyncio.sleep(delay)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a bug must become a visible error, not a dead task
            _log.exception("the agent supervisor failed")
            await self._host.give_up(
                ErrorKind.INTERNAL, "The assistant's connection manager failed."
            )

    def _explain(
        self, error: LiveConnectionError, *, mid_session: bool
    ) -> tuple[ErrorKind, str] | None:
        """The error to show for a failure that retrying cannot mend; None to retry.

        A close with a reason is never blamed on the network nor retried six times: only
        transient failures are (live-service.md C5). The message says what happened, for the
        person; the service's own reason (often advice for developers) goes to the log.
        """
        if error.kind is not FailureKind.TRANSIENT:
            _log.warning("the connection failed for good: %s", error)
        match error.kind:
            case FailureKind.AUTH:
                if error.code is None and not error.reason.startswith("HTTP"):
                    return ErrorKind.AUTH, error.reason  # said by the app (no key), not sent
                return ErrorKind.AUTH, "The service did not accept the API key."
            case FailureKind.MODEL:
                return (
                    ErrorKind.MODEL,
                    f"The service does not offer the model “{self._host.model()}” to this key.",
                )
            case FailureKind.QUOTA:
                return ErrorKind.QUOTA, "The API key's quota is used up."
            case FailureKind.REFUSED:
                when = "closed the conversation" if mid_session else "refused the session setup"
                return ErrorKind.CONFIGURATION, f"The service {when}."
            case FailureKind.CONFIGURATION:
                return (
                    ErrorKind.CONFIGURATION,
                    "Sammy could not connect to the endpoint: its certificate is not trusted.",
                )
            case FailureKind.TRANSIENT:
                return None

    async def _open_connection(
        self, planned: bool, *, attempt: int, announce: bool = True
    ) -> LiveConnection | LiveConnectionError:
        """Connect, resuming when there is a handle; falls back to a fresh session."""
        if self._client is None:
            try:
                if self._before_connect is not None:
                    await self._before_connect()
                self._client = self._client_factory()
            except LiveConnectionError as exc:  # no key, say: the factory explains
                return exc
        resuming = self._handle is not None
        if planned and announce:  # waking from a rest is no news: the state says Connecting
            self._bus.emit(
                Reconnecting(
                    attempt=1,
                    max_attempts=self._policy.max_attempts,
                    delay_s=0.0,
                    reason=self._reconnect_reason or "the service asked to reconnect",
                )
            )
        try:
            connection = await self._connect(self._handle)
        except LiveConnectionError as exc:
            if not (resuming and self._was_connected and exc.kind is not FailureKind.TRANSIENT):
                return exc
            # The handle was refused (expired, unknown). Start a fresh session and give
            # the model the transcript so far, so the conversation still reads as one.
            _log.warning("resumption refused (%s); starting a fresh session", exc)
            self._bus.emit(ResumptionRefused(code=exc.code, reason=exc.reason))
            self._handle = None
            try:
                connection = await self._connect(None)
            except LiveConnectionError as second:
                return second
        self._on_connected(
            connection, resumed=self._handle is not None, planned=planned, attempts=attempt
        )
        return connection

    async def _connect(self, handle: str | None) -> LiveConnection:
        assert self._client is not None
        # A fresh session (no handle) gets the conversation so far: after a lost one, or
        # the earlier conversation being continued (nothing, for a new one).
        history = self._host.earlier_conversation() if handle is None else None
        config = self._host.setup_for(handle, history=history)
        connection = LiveConnection(
            self._client, self._host.model(), connect_timeout_s=self._policy.connect_timeout_s
        )
        await connection.connect(config)
        if history is not None:
            # Before anything else goes: the sender task starts after this returns. Quoted
            # turns, never the system instruction (S7).
            try:
                await connection.send_history(history.turns, turn_complete=history.turn_complete)
            except LiveConnectionError:
                await connection.close()
                raise
        return connection

    def _on_connected(
        self, connection: LiveConnection, *, resumed: bool, planned: bool, attempts: int
    ) -> None:
        self._connection = connection
        self._go_away_received = False
        self._reconnect_wanted = False
        self._reconnect_now.clear()
        self._deadline_passed = False
        self._cancel_deadline()
        reconnected = self._was_connected
        if reconnected:
            self._reconnects += 1
            # What the service may not have seen (sent after the newest handle) goes first,
            # then what was captured while disconnected, in the original order.
            replayed = self._outbox.requeue_unconfirmed()
            self._bus.emit(
                Reconnected(
                    resumed=resumed,
                    attempts=attempts,
                    replayed_messages=replayed,
                    planned=planned,
                    dropped_audio_bytes=self._outbox.dropped_audio_bytes,
                )
            )
        self._was_connected = True
        self._host.on_connected(reconnected=reconnected)

    async def _run_connection(self, connection: LiveConnection) -> None:
        """Receive and send until the connection closes (raises) or a reconnect is due."""
        workers = {
            asyncio.create_task(self._receive(connection), name="live-receive"),
            asyncio.create_task(self._send_outbox(connection), name="live-send"),
        }
        due: asyncio.Task[Literal[True]] | None = None
        try:
            while True:
                due = asyncio.create_task(self._reconnect_now.wait(), name="live-reconnect-due")
                done, _ = await asyncio.wait({*workers, due}, return_when=asyncio.FIRST_COMPLETED)
                for task in done & workers:
                    exc = task.exception()
                    raise exc or LiveConnectionError(
                        FailureKind.TRANSIENT, None, "the connection ended"
                    )
                # Checked here, right before tearing down: the person may have started
                # talking since the quiet moment that asked for the reconnect.
                if self._deadline_passed or self._host.is_quiet():
                    return
                self._rest_wanted = False  # no longer quiet: no rest after all
                self._reconnect_now.clear()
        finally:
            for worker in workers:
                worker.cancel()
            if due is not None:
                due.cancel()
                await asyncio.gather(due, return_exceptions=True)
            await asyncio.gather(*workers, return_exceptions=True)

    async def _receive(self, connection: LiveConnection) -> None:
        async for message in connection.messages():
            self._host.on_message(message)

    async def _send_outbox(self, connection: LiveConnection) -> None:
        while True:
            item = await self._outbox.get()
            try:
                # Checked with the item in hand: a tool call may have come in while the
                # sender waited for something to send.
                await self._host.input_allowed()
                await connection.send_realtime(item)
            except BaseException:
                # Closed, or cancelled for a reconnect: the next connection sends it.
                self._outbox.unget(item)
                raise
            self._outbox.sent(item)
