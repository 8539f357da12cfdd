"""One google-genai Live connection: its setup, its handshake, its frames in and out.

:class:`LiveConnection` knows the wire and the SDK's quirks (see shared/LIVE_PROTOCOL.md):
``connect()`` runs under a timeout because the SDK waits for ``setupComplete`` forever;
:meth:`LiveConnection.messages` is the supervised ``while True: async for`` loop (the SDK's
``receive()`` ends at every turn boundary) that survives malformed frames and turns every
close into one :class:`~sammy_desktop.core.failures.LiveConnectionError` (classified by code
and reason in :mod:`sammy_desktop.core.failures`); every send failure becomes
the same error. What to do about a lost connection is the agent core's business.

What the handshake ended with is the connection's to tell: :class:`ConnectTimeout` when no
answer came in time; after it, :attr:`LiveConnection.setup_complete` (whether the first frame
was ``setupComplete``) and :attr:`LiveConnection.session_id`. ``sammy-desktop --check-live``
puts each ending on the line it is about.

Where the client connects is :mod:`sammy_desktop.core.endpoint`'s business; what it is set
up with is :mod:`sammy_desktop.core.setup`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import ssl
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pydantic
import websockets

from sammy_desktop.core.failures import FailureKind, LiveConnectionError
from sammy_desktop.live_sdk import build_message_models, errors, genai, types
from sammy_desktop.wire_audio import INPUT_MIME

if TYPE_CHECKING:
    from google.genai.live import AsyncSession

__all__ = [
    "ConnectTimeout",
    "FailureKind",
    "LiveConnection",
    "LiveConnectionError",
    "RealtimeInput",
    "RealtimeKind",
]

_log = logging.getLogger(__name__)

VIDEO_MIME = "image/jpeg"
"""Every frame of the shared screen is a JPEG (docs/live-service.md S6)."""


class RealtimeKind(enum.StrEnum):
    """The realtime inputs the core sends (one field per message, as the wire wants)."""

    AUDIO = "audio"
    ACTIVITY_START = "activity_start"
    ACTIVITY_END = "activity_end"
    AUDIO_STREAM_END = "audio_stream_end"
    TEXT = "text"
    """Bare ``realtime_input.text``: activity only while automatic activity detection is on."""
    TEXT_TURN = "text_turn"
    """A complete user turn of text, as ``client_content`` (docs/live-service.md S1, S2)."""
    VIDEO = "video"
    """One JPEG picture of the shared screen, ``realtime_input.video`` (S6): never re-sent."""


class ConnectTimeout(LiveConnectionError):
    """:meth:`LiveConnection.connect` had no answer within its timeout.

    What did not come may be the websocket or the reply to the setup. Transient, as every
    timeout; a caller that knows the websocket opens (``--check-live`` probes it first) can
    blame the setup.
    """

    def __init__(self, timeout_s: float) -> None:
        super().__init__(
            FailureKind.TRANSIENT, None, f"no answer from the service within {timeout_s:g} s"
        )
        self.timeout_s = timeout_s


@dataclass(frozen=True, slots=True)
class RealtimeInput:
    """One realtime input message, kept as data so it can be buffered and replayed."""

    kind: RealtimeKind
    audio: bytes = b""
    text: str = ""
    video: bytes = b""
    """A VIDEO item's JPEG bytes."""

    @property
    def size(self) -> int:
        """Bytes this message holds, for bounding buffers."""
        return len(self.audio) + len(self.text) + len(self.video)

    def __repr__(self) -> str:  # sizes, never the person's audio or screen
        return (
            f"RealtimeInput({self.kind}, audio={len(self.audio)} B, "
            f"text={len(self.text)} chars, video={len(self.video)} B)"
        )


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
        self._setup_complete = False
        self.session_id: str | None = None
        """The session id of the last ``setupComplete``, if it carried one."""
        self.malformed_frames = 0
        self.sent_context_update = False

    @property
    def is_open(self) -> bool:
        """True between a successful :meth:`connect` and :meth:`close`."""
        return self._session is not None

    @property
    def setup_complete(self) -> bool:
        """Whether the last :meth:`connect` was answered with ``setupComplete``.

        The SDK takes any first frame as the end of the handshake; the connection goes on
        either way (with a warning in the log), and this says which it was.
        """
        return self._setup_complete

    async def connect(self, config: types.LiveConnectConfig) -> None:
        """Open the websocket and complete the setup handshake within the timeout.

        Raises:
            ConnectTimeout: the timeout ran out.
            LiveConnectionError: the service refused (its close code decides the kind), or
                the endpoint could not be reached or trusted.
        """
        if self._session is not None:
            raise RuntimeError("LiveConnection.connect() called twice without close()")
        # Outside the timeout: the SDK's models, built on first use otherwise (inside the
        # first answer); at once after the first time.
        await asyncio.to_thread(build_message_models)
        stack = contextlib.AsyncExitStack()
        try:
            async with asyncio.timeout(self._connect_timeout_s):
                session = await stack.enter_async_context(
                    self._client.aio.live.connect(model=self._model, config=config)
                )
        except TimeoutError:
            await stack.aclose()
            raise ConnectTimeout(self._connect_timeout_s) from None
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
        self._setup_complete = session.setup_complete is not None
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
        # A plain try, not _translate_send_errors: this runs for every audio chunk, and an
        # async context manager costs a generator and two awaits per message.
        try:
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
                case RealtimeKind.VIDEO:
                    await session.send_realtime_input(
                        video=types.Blob(data=item.video, mime_type=VIDEO_MIME)
                    )
                case RealtimeKind.TEXT_TURN:
                    await session.send_client_content(
                        turns=types.Content(role="user", parts=[types.Part(text=item.text)]),
                        turn_complete=True,
                    )
        except (websockets.ConnectionClosed, OSError) as exc:
            raise _send_failure(exc) from exc

    async def send_history(self, turns: Sequence[types.Content], *, turn_complete: bool) -> None:
        """Send earlier turns as ``client_content`` (a fresh session's history, S7).

        Raises:
            LiveConnectionError: the connection is closed.
        """
        session = self._require_session()
        async with self._translate_send_errors():
            await session.send_client_content(turns=list(turns), turn_complete=turn_complete)

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
        self.sent_context_update = True

    @contextlib.asynccontextmanager
    async def _translate_send_errors(self) -> AsyncIterator[None]:
        try:
            yield
        except (websockets.ConnectionClosed, OSError) as exc:
            raise _send_failure(exc) from exc

    def _require_session(self) -> AsyncSession:
        if self._session is None:
            raise LiveConnectionError(FailureKind.TRANSIENT, None, "not connected")
        return self._session


def _send_failure(exc: websockets.ConnectionClosed | OSError) -> LiveConnectionError:
    """The error a failed send becomes: a close by its code and reason, else transient."""
    if isinstance(exc, websockets.ConnectionClosed):
        code = exc.rcvd.code if exc.rcvd is not None else 1006
        reason = exc.rcvd.reason if exc.rcvd is not None else "abnormal closure"
        return LiveConnectionError.from_close(code, reason)
    return LiveConnectionError(FailureKind.TRANSIENT, None, str(exc))
