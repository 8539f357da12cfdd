"""One connection to the desktop portal on the session bus: calls, requests, its signals.

The portals (``org.freedesktop.portal.Desktop``) are how a Wayland app asks the desktop for
what it may not do itself: a global shortcut (:mod:`.portal_shortcuts`), a screenshot
(:mod:`.screen.wayland`). :class:`PortalConnection` is what they share, with jeepney on the
app's asyncio loop: the connection and its receiver task, method calls with a time limit,
and the portal's request pattern. Most portal methods answer later, in a ``Response``
signal on a request object whose path the app can know in advance
(``.../request/SENDER/TOKEN``): each request's answer is waited for from before the call,
so a quick answer is not missed.

Only signals from the portal's own bus connection count (its unique name, learnt once it
answered); the portal stopping (its name changing owner) or the bus closing ends the
connection, and ``on_lost`` says why. Nothing here logs an error for what a desktop simply
lacks: :class:`PortalMissing` (no bus, no portal, no such interface) and
:class:`PortalRefused` (the person cancelled, or the desktop declined) carry a sentence's end.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from sammy_desktop.lazy import lazy_module

__all__ = [
    "CALL_TIMEOUT_S",
    "NO_PORTAL_RUNS",
    "PORTAL_NAME",
    "PORTAL_PATH",
    "PortalConnection",
    "PortalError",
    "PortalMissing",
    "PortalRefused",
    "variant",
]

_log = logging.getLogger(__name__)

# Imported on first use: jeepney is a dependency on Linux only, and only Wayland needs it.
# (PortalConnection.open imports jeepney.io.asyncio by name: that is how PyInstaller finds it.)
jeepney = lazy_module("jeepney")
Message = Any  # jeepney.Message (jeepney has no type hints)
DBusConnection = Any  # jeepney.io.asyncio.DBusConnection
MatchRule = Any  # jeepney.MatchRule

PORTAL_NAME: Final = "org.freedesktop.portal.Desktop"
PORTAL_PATH: Final = "/org/freedesktop/portal/desktop"
REQUEST_INTERFACE: Final = "org.freedesktop.portal.Request"
REQUEST_PATH_PREFIX: Final = f"{PORTAL_PATH}/request"

CALL_TIMEOUT_S: Final = 10.0
"""How long a method's reply, or a request answered without the person, may take."""

NO_PORTAL_RUNS: Final = "no desktop portal is running."
NO_SUCH_SERVICE: Final = frozenset(
    {"org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"}
)


class PortalError(Exception):
    """The portal cannot do it; ``reason`` is the end of a sentence for people."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PortalMissing(PortalError):
    """No session bus, no portal on it, or a portal without the interface."""


class PortalRefused(PortalError):
    """A request's response was not a success.

    ``cancelled``: the person cancelled (code 1); else the desktop ended it another way.
    """

    def __init__(self, reason: str, *, cancelled: bool) -> None:
        super().__init__(reason)
        self.cancelled = cancelled


def variant(value: Any) -> Any:
    """A ``v`` value's content (jeepney reads one as ``(signature, value)``)."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        return value[1]
    return value


def new_token() -> str:
    """A fresh handle token for a request or a session."""
    return "sammy_" + secrets.token_hex(8)


class PortalConnection:
    """The app's connection to the desktop portal, until :meth:`close` or the bus ends it.

    Args:
        bus: ``"SESSION"`` (the session bus of ``DBUS_SESSION_BUS_ADDRESS``) or an address.
        on_signal: called with each signal from the portal that is not a request's
            response; it returns a reason when the signal ends the connection's use (the
            desktop closed a session), else "".
        on_lost: called once with the reason when the bus or the portal went away (not
            after :meth:`close`).
        name: the receiver task's name.
    """

    def __init__(
        self,
        *,
        bus: str = "SESSION",
        on_signal: Callable[[Message], str] | None = None,
        on_lost: Callable[[str], None] | None = None,
        name: str = "ui-portal",
    ) -> None:
        self._bus = bus
        self._on_signal = on_signal
        self._on_lost = on_lost
        self._name = name
        self._conn: DBusConnection | None = None
        self._receiver: asyncio.Task[None] | None = None
        self._replies: dict[int, asyncio.Future[Any]] = {}
        self._requests: dict[str, asyncio.Future[tuple[int, dict[str, Any]]]] = {}
        self._early: dict[str, tuple[int, dict[str, Any]]] = {}
        self._owner = ""
        self._closed = False

    @property
    def sender(self) -> str:
        """This connection's unique name as request paths spell it (``1_42``)."""
        if self._conn is None:
            raise RuntimeError("the portal connection is not open")
        return str(self._conn.unique_name).lstrip(":").replace(".", "_")

    @property
    def open(self) -> bool:
        """Whether calls can be made now."""
        return self._conn is not None and self._receiver_running() and not self._closed

    async def connect(self, match_rules: Sequence[MatchRule] = ()) -> None:
        """Open the bus connection and listen for requests' responses and ``match_rules``.

        Raises:
            PortalMissing: no jeepney, no session bus, or it cannot be reached.
        """
        if self._conn is not None or self._closed:
            raise RuntimeError("a PortalConnection connects once")
        try:
            from jeepney.io.asyncio import (  # type: ignore[import-untyped]
                open_dbus_connection,
            )
        except ImportError:
            raise PortalMissing("Sammy was installed without jeepney, its D-Bus library.") from None
        try:
            conn = await asyncio.wait_for(open_dbus_connection(self._bus), CALL_TIMEOUT_S)
        except KeyError:  # no DBUS_SESSION_BUS_ADDRESS
            raise PortalMissing("there is no D-Bus session bus.") from None
        except (OSError, EOFError, RuntimeError, ValueError, TimeoutError) as exc:
            _log.info("no D-Bus session bus for the portal: %s", exc)
            raise PortalMissing("the D-Bus session bus cannot be reached.") from None
        self._conn = conn
        self._receiver = asyncio.get_running_loop().create_task(
            self._receive(conn), name=self._name
        )
        requests = jeepney.MatchRule(
            type="signal",
            sender=PORTAL_NAME,
            interface=REQUEST_INTERFACE,
            member="Response",
            path_namespace=f"{REQUEST_PATH_PREFIX}/{self.sender}",
        )
        owner = jeepney.MatchRule(
            type="signal",
            sender=jeepney.message_bus.bus_name,
            interface=jeepney.message_bus.interface,
            member="NameOwnerChanged",
        )
        owner.add_arg_condition(0, PORTAL_NAME)
        for rule in (requests, owner, *match_rules):
            await self.call(jeepney.message_bus.AddMatch(rule))

    async def interface_version(
        self, interface: str, *, missing: str, not_running: str = NO_PORTAL_RUNS
    ) -> int:
        """The portal's ``version`` of ``interface``; learns the portal's bus name too.

        Reading the property starts a portal that is started on demand (D-Bus activation).

        Raises:
            PortalMissing: no portal runs (``not_running``), or it has no such interface
                (``missing``).
        """
        address = jeepney.DBusAddress(PORTAL_PATH, PORTAL_NAME, interface)
        try:
            (version,) = await self.call(jeepney.Properties(address).get("version"))
        except jeepney.DBusErrorResponse as exc:
            _log.info("the desktop portal has no %s: %s", interface, exc)
            raise PortalMissing(not_running if exc.name in NO_SUCH_SERVICE else missing) from None
        try:
            (self._owner,) = await self.call(jeepney.message_bus.GetNameOwner(PORTAL_NAME))
        except jeepney.DBusErrorResponse:
            raise PortalMissing(not_running) from None
        return int(variant(version))

    async def call(self, message: Message, timeout_s: float = CALL_TIMEOUT_S) -> Any:
        """Send a method call; its reply's body.

        Raises:
            jeepney.DBusErrorResponse: the reply is an error.
            EOFError: the connection is closed.
            TimeoutError: no reply within ``timeout_s``.
        """
        conn = self._conn
        if conn is None or not self._receiver_running():
            raise EOFError("the D-Bus connection is closed")
        serial = next(conn.outgoing_serial)
        reply: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._replies[serial] = reply
        try:
            await conn.send(message, serial=serial)
            answer = await asyncio.wait_for(reply, timeout_s)
            if answer.header.message_type is jeepney.MessageType.error:
                raise jeepney.DBusErrorResponse(answer)
            return answer.body
        finally:
            self._replies.pop(serial, None)

    async def request(
        self,
        make: Callable[[dict[str, Any]], Message],
        what: str,
        timeout_s: float = CALL_TIMEOUT_S,
    ) -> dict[str, Any]:
        """Call a method answered by a Request's Response; its results on success.

        Args:
            make: builds the call from its options (``handle_token`` already in them).
            what: the request in words ("the screenshot"), for a refusal's sentence.
            timeout_s: how long the answer may take (a dialog the person answers: long).

        Raises:
            PortalRefused: the response was not a success.
            TimeoutError, EOFError, jeepney.DBusErrorResponse: as :meth:`call`.
        """
        token = new_token()
        expected = f"{REQUEST_PATH_PREFIX}/{self.sender}/{token}"
        answer: asyncio.Future[tuple[int, dict[str, Any]]] = (
            asyncio.get_running_loop().create_future()
        )
        paths = [expected]
        self._requests[expected] = answer
        try:
            (handle,) = await self.call(make({"handle_token": ("s", token)}))
            if handle != expected:  # portals before version 0.9 chose their own path
                paths.append(handle)
                self._requests[handle] = answer
                if handle in self._early:
                    answer.set_result(self._early.pop(handle))
            code, results = await asyncio.wait_for(answer, timeout_s)
        finally:
            for path in paths:
                self._requests.pop(path, None)
        if code == 1:
            raise PortalRefused(f"{what} was cancelled.", cancelled=True)
        if code != 0:
            raise PortalRefused(f"{what} ended another way (code {code}).", cancelled=False)
        return results

    async def close(self) -> None:
        """End the connection (again is fine; never raises)."""
        self._closed = True
        self._shut()
        receiver = self._receiver
        if receiver is not None and not receiver.done():
            receiver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await receiver
        if self._conn is not None:
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(self._conn.writer.wait_closed(), 2.0)

    def abort(self) -> None:
        """End the connection now, from code that cannot wait (a cancelled call)."""
        self._closed = True
        self._shut()
        if self._receiver is not None:
            self._receiver.cancel()

    # ------------------------------------------------------------------ receiving

    def _receiver_running(self) -> bool:
        return self._receiver is not None and not self._receiver.done()

    def _shut(self) -> None:
        if self._conn is not None:
            self._conn.writer.close()

    async def _receive(self, conn: DBusConnection) -> None:
        reason = "the D-Bus session bus closed."
        try:
            while True:
                message = await conn.receive()
                try:
                    lost = self._dispatch(message)
                except (ValueError, TypeError, IndexError, KeyError) as exc:
                    _log.debug("a D-Bus message the portal client did not expect: %s", exc)
                    continue
                if lost:
                    reason = lost
                    break
        except (EOFError, OSError, ValueError) as exc:
            _log.info("the portal's D-Bus connection ended: %s", exc)
        finally:
            for future in itertools.chain(self._replies.values(), self._requests.values()):
                if not future.done():
                    future.set_exception(EOFError("the D-Bus connection closed"))
            self._shut()
        if not self._closed and self._on_lost is not None:
            _tell(self._on_lost, reason)

    def _dispatch(self, message: Message) -> str:
        """Hand one message on; a reason when it ends the connection's use, else ""."""
        header = message.header
        fields: Mapping[Any, Any] = header.fields
        if header.message_type in (jeepney.MessageType.method_return, jeepney.MessageType.error):
            reply = self._replies.get(fields.get(jeepney.HeaderFields.reply_serial, -1))
            if reply is not None and not reply.done():
                reply.set_result(message)
            return ""
        if header.message_type is not jeepney.MessageType.signal:
            return ""
        sender = fields.get(jeepney.HeaderFields.sender)
        member = fields.get(jeepney.HeaderFields.member)
        if sender == jeepney.message_bus.bus_name and member == "NameOwnerChanged":
            name, _old, new = message.body
            if name == PORTAL_NAME and self._owner and new != self._owner:
                return "the desktop portal stopped."
            return ""
        if not self._owner or sender != self._owner:
            return ""  # only the portal's own signals count
        if fields.get(jeepney.HeaderFields.interface) == REQUEST_INTERFACE:
            if member == "Response":
                self._on_response(str(fields.get(jeepney.HeaderFields.path)), message.body)
            return ""
        if self._on_signal is None:
            return ""
        try:
            return self._on_signal(message)
        except Exception:  # noqa: BLE001 - the receiver must outlive a listener's bug
            _log.exception("a portal signal's listener failed")
            return ""

    def _on_response(self, path: str, body: tuple[Any, ...]) -> None:
        code, results = int(body[0]), body[1] if isinstance(body[1], dict) else {}
        answer = self._requests.get(path)
        if answer is None:
            if path.startswith(REQUEST_PATH_PREFIX) and len(self._early) < 8:
                self._early[path] = (code, results)  # before its call's reply named it
        elif not answer.done():
            answer.set_result((code, results))


def _tell(callback: Callable[..., None], *args: Any) -> None:
    """Call back; a broken callback is logged, and the app goes on."""
    try:
        callback(*args)
    except Exception:  # noqa: BLE001 - a listener's bug must not end the receiver
        _log.exception("a portal callback failed")
