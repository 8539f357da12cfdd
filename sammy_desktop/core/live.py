"""One google-genai Live connection: its setup, its handshake, its frames in and out.

:class:`LiveConnection` knows the wire and the SDK's quirks (see shared/LIVE_PROTOCOL.md):
``connect()`` runs under a timeout because the SDK waits for ``setupComplete`` forever;
:meth:`LiveConnection.messages` is the supervised ``while True: async for`` loop (the SDK's
``receive()`` ends at every turn boundary) that survives malformed frames and turns every
close into one :class:`LiveConnectionError` with the close code; every send failure becomes
the same error. What to do about a lost connection is the agent core's business.

:func:`resolve_api_base_url` and :func:`make_client_factory` decide where the client
connects; what it is set up with is :mod:`sammy_desktop.core.setup`'s business.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import os
import ssl
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pydantic
import websockets

from sammy_desktop.config import Settings
from sammy_desktop.core.ports import ClientFactory
from sammy_desktop.live_sdk import errors, genai, types
from sammy_desktop.wire_audio import INPUT_MIME

if TYPE_CHECKING:
    from google.genai.live import AsyncSession

__all__ = [
    "API_BASE_URL_ENV",
    "FailureKind",
    "LiveConnection",
    "LiveConnectionError",
    "RealtimeInput",
    "RealtimeKind",
    "make_client_factory",
    "resolve_api_base_url",
]

_log = logging.getLogger(__name__)

API_BASE_URL_ENV = "SAMMY_API_BASE_URL"
"""Environment variable naming the Live endpoint (proxies, gateways, the simulator)."""


class FailureKind(enum.StrEnum):
    """How the core should react to a failed or closed connection."""

    AUTH = "auth"
    """The key was refused: stop at once, retrying cannot help."""
    CONFIGURATION = "configuration"
    """The setup was rejected, or the endpoint cannot be trusted: stop."""
    TRANSIENT = "transient"
    """Network trouble, a server restart, a timeout: reconnect with backoff."""


class LiveConnectionError(Exception):
    """The connection failed or closed. ``code`` is the websocket close code when known."""

    def __init__(self, kind: FailureKind, code: int | None, reason: str) -> None:
        super().__init__(f"{code} {reason}" if code is not None else reason)
        self.kind = kind
        self.code = code
        self.reason = reason

    @classmethod
    def from_close(cls, code: int | None, reason: str) -> LiveConnectionError:
        """Classify a close code: 1008 is the service refusing the key, 1007 a bad setup."""
        if code == 1008:
            return cls(FailureKind.AUTH, code, reason or "API key not valid")
        if code == 1007:
            return cls(FailureKind.CONFIGURATION, code, reason or "invalid argument")
        return cls(FailureKind.TRANSIENT, code, reason or "connection closed")

    @classmethod
    def from_api_error(cls, exc: errors.APIError) -> LiveConnectionError:
        """Wrap the SDK's close error (``APIError(code, reason)``)."""
        reason = exc.details if isinstance(exc.details, str) else str(exc.message or exc)
        return cls.from_close(exc.code, reason)


class RealtimeKind(enum.StrEnum):
    """The realtime inputs the core sends (one field per message, as the wire wants)."""

    AUDIO = "audio"
    ACTIVITY_START = "activity_start"
    ACTIVITY_END = "activity_end"
    AUDIO_STREAM_END = "audio_stream_end"
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class RealtimeInput:
    """One realtime input message, kept as data so it can be buffered and replayed."""

    kind: RealtimeKind
    audio: bytes = b""
    text: str = ""

    @property
    def size(self) -> int:
        """Bytes this message holds, for bounding buffers."""
        return len(self.audio) + len(self.text)


def resolve_api_base_url(
    explicit: str | None,
    settings: Settings,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """Where to connect: ``--api-base-url`` beats ``SAMMY_API_BASE_URL`` beats the settings.

    Args:
        explicit: the command-line value, or None when not given.
        settings: the settings; ``api_base_url`` is used when nothing else is set.
        environ: the environment (``os.environ`` when None).

    Returns:
        The base URL without a trailing slash, or None for Google's own endpoint.
    """
    env = os.environ if environ is None else environ
    for candidate in (explicit, env.get(API_BASE_URL_ENV), settings.api_base_url):
        if candidate and candidate.strip():
            return candidate.strip().rstrip("/")
    return None


def make_client_factory(
    api_key: Callable[[], str],
    *,
    base_url: str | None = None,
    ssl_context: ssl.SSLContext | None = None,
    api_version: str | None = None,
) -> ClientFactory:
    """A :data:`ClientFactory` for the real service or any compatible endpoint.

    Args:
        api_key: returns the key at connection time (so a key changed in Settings is used
            on the next connection without rebuilding the core).
        base_url: the endpoint; None for Google's.
        ssl_context: trust for a private endpoint. When None the SDK builds its own, which
            honours ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``, so a proxy with its own CA works by
            setting that variable.
        api_version: override the SDK's default API version.
    """

    def factory() -> genai.Client:
        options = types.HttpOptions(
            base_url=base_url,
            api_version=api_version,
            async_client_args={"ssl": ssl_context} if ssl_context is not None else None,
        )
        return genai.Client(api_key=api_key(), http_options=options)

    return factory


class LiveConnection:
    """One Live API websocket session at a time, opened and closed by its owner.

    Args:
        client: the genai client to connect with.
        model: the model name (with or without ``models/``).
        connect_timeout_s: limit for the TLS handshake plus the ``setupComplete`` reply.
    """

    def __init__(self, client: genai.Client, model: str, *, connect_timeout_s: float) -> None:
        self._client = client
        self._model = model
        self._connect_timeout_s = connect_timeout_s
        self._stack: contextlib.AsyncExitStack | None = None
        self._session: AsyncSession | None = None
        self.session_id: str | None = None
        self.malformed_frames = 0

    @property
    def is_open(self) -> bool:
        """True between a successful :meth:`connect` and :meth:`close`."""
        return self._session is not None

    async def connect(self, config: types.LiveConnectConfig) -> None:
        """Open the websocket and complete the setup handshake within the timeout.

        Raises:
            LiveConnectionError: the service refused (its close code decides the kind), or
                the endpoint could not be reached or trusted, or the timeout ran out.
        """
        if self._session is not None:
            raise RuntimeError("LiveConnection.connect() called twice without close()")
        stack = contextlib.AsyncExitStack()
        try:
            async with asyncio.timeout(self._connect_timeout_s):
                session = await stack.enter_async_context(
                    self._client.aio.live.connect(model=self._model, config=config)
                )
        except TimeoutError:
            await stack.aclose()
            raise LiveConnectionError(
                FailureKind.TRANSIENT,
                None,
                f"no answer from the service within {self._connect_timeout_s:g} s",
            ) from None
        except errors.APIError as exc:
            await stack.aclose()
            raise LiveConnectionError.from_api_error(exc) from exc
        except ssl.SSLCertVerificationError as exc:
            await stack.aclose()
            raise LiveConnectionError(
                FailureKind.CONFIGURATION, None, f"the endpoint's certificate is not trusted: {exc}"
            ) from exc
        except websockets.InvalidStatus as exc:
            await stack.aclose()
            status = exc.response.status_code
            kind = FailureKind.AUTH if status in (401, 403) else FailureKind.TRANSIENT
            raise LiveConnectionError(kind, None, f"HTTP {status} from the endpoint") from exc
        except (OSError, websockets.WebSocketException) as exc:
            await stack.aclose()
            raise LiveConnectionError(FailureKind.TRANSIENT, None, str(exc) or repr(exc)) from exc
        except BaseException:
            await stack.aclose()
            raise
        if session.setup_complete is None:
            _log.warning("the service's first frame was not setupComplete; continuing")
        self._stack = stack
        self._session = session
        self.session_id = session.session_id

    async def close(self) -> None:
        """Close the websocket (idempotent, never raises for an already-dead connection)."""
        stack, self._stack, self._session = self._stack, None, None
        if stack is None:
            return
        try:
            await stack.aclose()
        except (errors.APIError, OSError, websockets.WebSocketException) as exc:
            _log.debug("closing an already-broken connection: %s", exc)

    async def messages(self) -> AsyncIterator[types.LiveServerMessage]:
        """Every server message, across turn boundaries, until the connection closes.

        A frame the SDK cannot parse is logged, counted in :attr:`malformed_frames` and
        skipped: one bad frame never ends a conversation.

        Raises:
            LiveConnectionError: when the connection closes, for whatever reason.
        """
        session = self._require_session()
        while True:
            try:
                async for message in session.receive():
                    yield message
            except errors.APIError as exc:
                if isinstance(exc.code, int) and exc.code >= 1000:
                    raise LiveConnectionError.from_api_error(exc) from exc
                # An error frame (not a close): the service said something we cannot use.
                self.malformed_frames += 1
                _log.warning("the service sent an error frame, ignored: %s", exc)
            except (TypeError, ValueError, KeyError, pydantic.ValidationError) as exc:
                # The SDK raises these for frames with no known key or broken JSON; the
                # websocket itself is still fine, so keep receiving.
                self.malformed_frames += 1
                _log.warning("malformed frame from the service, ignored: %r", exc)

    async def send_realtime(self, item: RealtimeInput) -> None:
        """Send one realtime input.

        Raises:
            LiveConnectionError: the connection is closed.
        """
        session = self._require_session()
        async with self._translate_send_errors():
            match item.kind:
                case RealtimeKind.AUDIO:
                    await session.send_realtime_input(
                        audio=types.Blob(data=item.audio, mime_type=INPUT_MIME)
                    )
                case RealtimeKind.ACTIVITY_START:
                    await session.send_realtime_input(activity_start=types.ActivityStart())
                case RealtimeKind.ACTIVITY_END:
                    await session.send_realtime_input(activity_end=types.ActivityEnd())
                case RealtimeKind.AUDIO_STREAM_END:
                    await session.send_realtime_input(audio_stream_end=True)
                case RealtimeKind.TEXT:
                    await session.send_realtime_input(text=item.text)

    async def send_tool_response(self, responses: Sequence[types.FunctionResponse]) -> None:
        """Answer tool calls.

        Raises:
            LiveConnectionError: the connection is closed.
        """
        session = self._require_session()
        async with self._translate_send_errors():
            await session.send_tool_response(function_responses=list(responses))

    async def send_context_update(self, tools: Sequence[types.Tool]) -> None:
        """Replace the tools the model may use, in the running session.

        Raises:
            LiveConnectionError: the connection is closed.
        """
        session = self._require_session()
        async with self._translate_send_errors():
            await session.send_context_update(tools=list(tools))

    @contextlib.asynccontextmanager
    async def _translate_send_errors(self) -> AsyncIterator[None]:
        try:
            yield
        except websockets.ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else 1006
            reason = exc.rcvd.reason if exc.rcvd is not None else "abnormal closure"
            raise LiveConnectionError.from_close(code, reason) from exc
        except OSError as exc:
            raise LiveConnectionError(FailureKind.TRANSIENT, None, str(exc)) from exc

    def _require_session(self) -> AsyncSession:
        if self._session is None:
            raise LiveConnectionError(FailureKind.TRANSIENT, None, "not connected")
        return self._session
