"""The simulator's server: a TLS websocket on loopback, its connections and its test controls.

:class:`LiveSimulator` is started with ``async with``::

    async with LiveSimulator(scenario, api_keys=("test-key",)) as sim:
        client = genai.Client(api_key="test-key", http_options=sim.http_options())
        async with client.aio.live.connect(model="gemini-live-2.5-flash-preview") as session:
            ...
        await sim.recorder.wait_for(Received.ACTIVITY_END)

It makes a throwaway certificate authority (:mod:`sammy_desktop.sim.tls`), listens, reads
each connection's setup and lets it in or refuses it as the service does
(:mod:`sammy_desktop.sim.admission`), starts or resumes its session
(:mod:`sammy_desktop.sim.resumption`), and hands it to a
:class:`~sammy_desktop.sim.connection.SimulatedConnection` that plays the scenario. The same
port answers the models list (:mod:`sammy_desktop.sim.models_list`). Its test controls hang
the service, inject any action, send goAway, drop connections and expire handles at any time.

How strict it is comes from its service profiles (``sammy_desktop.sim.profiles``): a strict
profile refuses the API version ``v1``, unknown and retired models and the setup fields its
model family refuses, with the service's close codes and wording (docs/live-service.md C1,
C5, C6, M1-M3).
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from google.genai import types as genai_types
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from sammy_desktop.sim.actions import Action, GoAway
from sammy_desktop.sim.admission import (
    INVALID_HANDLE_REASON,
    INVALID_KEY_REASON,
    accepts_key,
    api_key_of,
    is_live_path,
    never_answered,
    setup_refusal,
)
from sammy_desktop.sim.clock import Clock, RealClock
from sammy_desktop.sim.connection import ConnectionLimits, SimulatedConnection
from sammy_desktop.sim.models_list import is_models_path, models_response
from sammy_desktop.sim.outbound import INTERNAL_ERROR_REASON, close_websocket, truncate_reason
from sammy_desktop.sim.profiles import Pacing, ProfileSet, ServiceProfile, resolve_profiles
from sammy_desktop.sim.recorder import Received, Recorder, RecordLimit
from sammy_desktop.sim.resumption import ResumptionHandles
from sammy_desktop.sim.scenario import Scenario
from sammy_desktop.sim.session import SessionState
from sammy_desktop.sim.tls import ThrowawayCertificateAuthority
from sammy_desktop.sim.wire import CloseCode, ProtocolError, parse_setup_frame

if TYPE_CHECKING:
    import ssl
    from pathlib import Path
    from types import TracebackType

    from websockets.asyncio.server import Server
    from websockets.http11 import Request, Response

__all__ = [
    "INVALID_HANDLE_REASON",
    "INVALID_KEY_REASON",
    "MAX_CLIENT_FRAME_BYTES",
    "MAX_SETUP_FRAME_BYTES",
    "LiveSimulator",
    "is_loopback_host",
]

_log = logging.getLogger(__name__)

_SETUP_TIMEOUT_S = 30.0
_STOP_TIMEOUT_S = 5.0
MAX_SETUP_FRAME_BYTES = 512 * 1024
"""The largest first frame (the setup) a connection may send, before anything is checked.

Until the setup is read nobody is known: the key is checked with it (C5). The app's largest
setup is its 20,000-character system prompt, which the SDK's ``json.dumps`` escapes to at most
240 KB, plus the tool declarations (about 8 KB): 512 KiB leaves room, and a stranger cannot
make the simulator hold more than that per connection.
"""

MAX_CLIENT_FRAME_BYTES = 16 * 1024 * 1024
"""The largest frame after a setup was let in.

No source gives the service's own limit on client frames (docs/live-service.md L1 is the
SDK's 1 MiB limit on what it receives). We accept more than that, so that a client bug (a
frame the service would refuse) shows up in the recorder rather than as a mysterious 1009.
"""


def is_loopback_host(host: str) -> bool:
    """Whether binding ``host`` keeps the simulator on this machine (127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False  # a name, or "" (every interface): other machines may reach it


class LiveSimulator:
    """A local Gemini Live-compatible endpoint for tests and the offline demo.

    Args:
        scenario: What the simulated model does (an empty scenario only sends setupComplete).
        api_keys: Keys accepted in ``x-goog-api-key``; None accepts any non-empty key.
        host: Interface to bind; loopback by default.
        port: TCP port; 0 picks a free one.
        realtime: Pace model audio at real time (the app), or send it as fast as possible
            (tests). Audio actions can override it.
        handle_ttl_s: How long a resumption handle stays valid (the service: 2 hours).
        limits: Connection lifetime: goAway, then a close, as the service does after about
            10 minutes. Off by default.
        profile: How strictly the service is imitated: a profile name (``"service"`` for
            every model family, ``"gemini-3.8-live"``, ``"gemini-3.1-flash-live"``,
            ``"gemini-2.5-flash-native-audio"``, ``"lenient"``), a
            :class:`~sammy_desktop.sim.profiles.ServiceProfile`, several, or None for
            :data:`~sammy_desktop.sim.profiles.DEFAULT_PROFILE` (the strict service;
            ``SAMMY_SIM_PROFILE`` overrides it).
        lenient: Shorthand for ``profile="lenient"``: the forgiving simulator, for any client.
        pacing: Answer audio pacing: ``"burst"`` (the service: faster than real time),
            ``"realtime"`` or ``"fast"``. None: ``"realtime"`` when ``realtime`` is set,
            else the profile's (burst for strict profiles, as fast as possible lenient).
        clock: The clock for pacing, playback waits and delays (a
            :class:`~sammy_desktop.sim.clock.VirtualClock` in exact timing tests).
        record_limit: Bound what the recorder keeps (the oldest events go first), for a
            simulator that runs for hours such as the app's offline demo; None (tests) keeps
            everything.
    """

    def __init__(
        self,
        scenario: Scenario | None = None,
        *,
        api_keys: Iterable[str] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        realtime: bool = False,
        handle_ttl_s: float = 2 * 60 * 60,
        limits: ConnectionLimits | None = None,
        profile: str | ServiceProfile | Iterable[ServiceProfile] | None = None,
        lenient: bool = False,
        pacing: Pacing | None = None,
        clock: Clock | None = None,
        record_limit: RecordLimit | None = None,
    ) -> None:
        self._scenario = scenario or Scenario()
        self._api_keys = frozenset(api_keys) if api_keys is not None else None
        self._host = host
        self._requested_port = port
        self._realtime = realtime
        self._limits = limits
        self.profiles: ProfileSet = resolve_profiles("lenient" if lenient else profile)
        self._pacing = pacing
        self.clock: Clock = clock or RealClock()
        self.recorder = Recorder(self.clock.monotonic, limit=record_limit)
        self._authority: ThrowawayCertificateAuthority | None = None
        self._client_context: ssl.SSLContext | None = None
        self._server: Server | None = None
        self._port = 0
        self._connection_ids = itertools.count(1)
        self._session_ids = itertools.count(1)
        self._connection_count = 0
        self._connections: dict[int, SimulatedConnection] = {}
        self._sockets: set[ServerConnection] = set()
        self._sessions: list[SessionState] = []
        self._handles = ResumptionHandles(handle_ttl_s)
        self._running = asyncio.Event()
        self._running.set()

    # ------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> LiveSimulator:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    async def start(self) -> None:
        """Make the certificate authority and start listening."""
        if self._server is not None:
            raise RuntimeError("the simulator is already running")
        if not is_loopback_host(self._host):
            _log.warning(
                "NOT LOOPBACK: the Live simulator listens on %r, which other machines may "
                "reach. It is a test double with a throwaway certificate%s; bind 127.0.0.1 "
                "unless that is what you want.",
                self._host,
                ", and it accepts any non-empty API key" if self._api_keys is None else "",
            )
        # Making keys takes a moment of CPU; keep it off the event loop.
        self._authority = await asyncio.to_thread(ThrowawayCertificateAuthority, self._host)
        self._client_context = self._authority.client_context()
        self._server = await serve(
            self._serve_connection,
            self._host,
            self._requested_port,
            ssl=self._authority.server_context(),
            process_request=self._check_path,
            # Until a setup is let in, frames are small (raised in _serve_setup).
            max_size=MAX_SETUP_FRAME_BYTES,
        )
        self._port = self._server.sockets[0].getsockname()[1] if self._server.sockets else 0
        _log.info(
            "Live simulator listening on %s (scenario %r, profile %s)",
            self.base_url,
            self._scenario.name,
            self.profiles.name,
        )

    async def stop(self) -> None:
        """Close every connection (1001) and stop listening; calling it twice is harmless."""
        server, self._server = self._server, None
        if server is not None:
            self._running.set()
            server.close(close_connections=True)
            try:
                await asyncio.wait_for(server.wait_closed(), _STOP_TIMEOUT_S)
            except TimeoutError:
                _log.warning(
                    "Live simulator connections did not close within %s s", _STOP_TIMEOUT_S
                )
        if self._authority is not None:
            self._authority.remove_files()

    # ------------------------------------------------------------ how to reach it

    @property
    def port(self) -> int:
        """The TCP port (known after start)."""
        return self._port

    @property
    def base_url(self) -> str:
        """``https://HOST:PORT``; the SDK rewrites the scheme to ``wss``."""
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"https://{host}:{self._port}"

    @property
    def ssl_context(self) -> ssl.SSLContext:
        """A client context trusting the simulator's throwaway CA."""
        if self._client_context is None:
            raise RuntimeError("start the simulator first")
        return self._client_context

    @property
    def ca_pem_path(self) -> Path:
        """The CA as a PEM file, for ``SSL_CERT_FILE``."""
        if self._authority is None:
            raise RuntimeError("start the simulator first")
        return self._authority.ca_pem_path

    def http_options(self, api_version: str | None = None) -> genai_types.HttpOptions:
        """Options that point a ``genai.Client`` at this simulator and trust its CA.

        Args:
            api_version: e.g. ``"v1beta"``; None keeps the SDK's default.
        """
        # "ssl" is the websocket's (and aiohttp's) argument, "verify" httpx's (REST calls
        # such as models.list); the sync client takes only "verify".
        return genai_types.HttpOptions(
            base_url=self.base_url,
            api_version=api_version,
            client_args={"verify": self.ssl_context},
            async_client_args={"ssl": self.ssl_context, "verify": self.ssl_context},
        )

    # ------------------------------------------------------------ state for tests

    @property
    def connection_count(self) -> int:
        """Websocket connections accepted so far.

        Connections later refused for a bad key, frame or handle are included; requests
        for an unknown path (HTTP 404) never become connections and are not.
        """
        return self._connection_count

    @property
    def open_connection_count(self) -> int:
        """Connections currently open and set up."""
        return len(self._connections)

    @property
    def sessions(self) -> tuple[SessionState, ...]:
        """Every Live session so far, oldest first (resumed connections share one)."""
        return tuple(self._sessions)

    @property
    def stalled(self) -> bool:
        """True while :meth:`set_stalled` holds every outbound frame back."""
        return not self._running.is_set()

    # ------------------------------------------------------------ test controls

    def set_stalled(self, stalled: bool) -> None:
        """Hang (True) or resume (False) the simulated service.

        While stalled, nothing is sent (not even setupComplete), input is still read and
        recorded, turns still fire and play once the stall ends. Test controls
        (:meth:`inject`, :meth:`send_go_away`, :meth:`drop_connections`) still work.
        """
        if stalled:
            self._running.clear()
        else:
            self._running.set()
            for connection in self._connections.values():
                connection.wake()

    async def inject(self, action: Action, *, connection_id: int | None = None) -> None:
        """Carry out ``action`` now on every open connection (or one), beside the scenario."""
        targets = [
            connection
            for connection in list(self._connections.values())
            if connection_id is None or connection.connection_id == connection_id
        ]
        await asyncio.gather(*(connection.perform_now(action) for connection in targets))

    async def send_go_away(self, time_left_s: float = 50.0) -> None:
        """Send goAway to every open connection.

        The connections stay open; close them with :meth:`drop_connections`, or use
        :class:`~sammy_desktop.sim.connection.ConnectionLimits` for the service's goAway-then-close.
        """
        await self.inject(GoAway(time_left_s=time_left_s))

    async def drop_connections(
        self, code: int | None = CloseCode.INTERNAL, reason: str = INTERNAL_ERROR_REASON
    ) -> None:
        """Close every open websocket: with ``code``, or abruptly (TCP reset) when None/1006.

        The client sees ``APIError`` with that code (1006 for an abrupt close).
        """
        await asyncio.gather(
            *(close_websocket(websocket, code, reason) for websocket in list(self._sockets))
        )

    def expire_resumption_handles(self) -> None:
        """Forget every handle issued so far, as if they had all expired."""
        self._handles.clear()

    # ------------------------------------------------------------ serving

    def _check_path(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if is_live_path(path):
            return None
        if is_models_path(path):
            self.recorder.record(Received.HTTP, connection_id=0, data={"path": request.path})
            return models_response(request, self.profiles, accepts_key=self._accepts_key)
        self.recorder.record(
            Received.REFUSED,
            connection_id=0,
            data={"code": 404, "reason": f"unknown path {request.path}"},
        )
        return connection.respond(404, f"Not Found: {request.path}\n")

    def issue_handle(self, state: SessionState) -> str:
        """Give out a new resumption handle for ``state``."""
        return self._handles.issue(state)

    async def _refuse(
        self, websocket: ServerConnection, connection_id: int, code: int, reason: str
    ) -> None:
        reason = truncate_reason(reason)
        _log.info("Live simulator refused connection %d: %d %s", connection_id, code, reason)
        self.recorder.record(
            Received.REFUSED, connection_id=connection_id, data={"code": code, "reason": reason}
        )
        await websocket.close(code, reason)

    async def _serve_connection(self, websocket: ServerConnection) -> None:
        connection_id = next(self._connection_ids)
        self._connection_count += 1
        self._sockets.add(websocket)
        path = websocket.request.path if websocket.request is not None else ""
        self.recorder.record(Received.CONNECT, connection_id=connection_id, data={"path": path})
        try:
            await self._serve_setup(websocket, connection_id)
        finally:
            self._sockets.discard(websocket)
            self._connections.pop(connection_id, None)
            self.recorder.record(
                Received.DISCONNECT,
                connection_id=connection_id,
                data={"code": websocket.close_code, "reason": websocket.close_reason},
            )

    async def _serve_setup(self, websocket: ServerConnection, connection_id: int) -> None:
        try:
            frame = await asyncio.wait_for(websocket.recv(), _SETUP_TIMEOUT_S)
        except TimeoutError:
            return
        except ConnectionClosed as closed:
            if closed.sent is not None and closed.sent.code == CloseCode.MESSAGE_TOO_BIG:
                # The websocket closed it (1009) before reading a byte more than the cap.
                self.recorder.record(
                    Received.REFUSED,
                    connection_id=connection_id,
                    data={"code": closed.sent.code, "reason": closed.sent.reason},
                )
            return
        try:
            setup = parse_setup_frame(frame)
        except ProtocolError as error:
            await self._refuse(websocket, connection_id, CloseCode.INVALID_ARGUMENT, str(error))
            return
        headers = websocket.request.headers if websocket.request is not None else None
        if not self._accepts_key(api_key_of(headers)):
            # C5: a bad key is 1007 on the service (the lenient profile keeps 1008).
            code = self.profiles.profiles[0].bad_key_code
            await self._refuse(websocket, connection_id, code, INVALID_KEY_REASON)
            return
        path = websocket.request.path if websocket.request is not None else ""
        refusal = setup_refusal(setup, path, self.profiles)
        if isinstance(refusal, tuple):
            await self._refuse(websocket, connection_id, *refusal)
            return
        profile = refusal
        if never_answered(setup, profile):
            # M3: on 3.1 "the server never sends setupComplete" for these fields.
            self.recorder.record(Received.SETUP, connection_id=connection_id, data=dict(setup.raw))
            self.recorder.record(
                Received.IGNORED,
                connection_id=connection_id,
                data={"what": "setup", "why": "a field this model family never answers"},
            )
            await websocket.wait_closed()
            return
        if setup.resumption_handle is not None:
            resumed = self._handles.resolve(setup.resumption_handle)
            if resumed is None:
                await self._refuse(
                    websocket, connection_id, CloseCode.INVALID_ARGUMENT, INVALID_HANDLE_REASON
                )
                return
            state = resumed
        else:
            state = SessionState(f"sim-session-{next(self._session_ids)}", self._scenario)
            self._sessions.append(state)
        # Let in: frames up to the client limit from now on (before setupComplete goes).
        websocket.protocol.max_message_size = MAX_CLIENT_FRAME_BYTES
        state.function_names = setup.function_names
        state.declarations = setup.declarations
        state.profile = profile.name
        setup_data: dict[str, Any] = dict(setup.raw)
        self.recorder.record(
            Received.SETUP,
            connection_id=connection_id,
            session_id=state.session_id,
            data=setup_data,
        )
        connection = SimulatedConnection(
            websocket=websocket,
            connection_id=connection_id,
            state=state,
            setup=setup,
            recorder=self.recorder,
            issue_handle=self.issue_handle,
            running=self._running,
            realtime=self._realtime,
            limits=self._limits,
            profile=profile,
            clock=self.clock,
            pacing=self._pacing,
        )
        self._connections[connection_id] = connection
        await connection.run()

    def _accepts_key(self, key: str) -> bool:
        return accepts_key(self._api_keys, key)
