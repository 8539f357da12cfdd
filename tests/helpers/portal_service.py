"""A small desktop portal for the tests: org.freedesktop.portal.Desktop with GlobalShortcuts
and Screenshot.

:class:`PortalService` is a real D-Bus service on the session bus (the private one that
``scripts/with-test-services.sh`` starts: never a desktop's own). It owns
``org.freedesktop.portal.Desktop`` while it runs, in its own thread with jeepney's
thread-safe connection, and answers as xdg-desktop-portal does:

- ``org.freedesktop.DBus.Properties.Get`` of GlobalShortcuts' ``version`` (1);
- ``org.freedesktop.host.portal.Registry.Register`` (recorded; ``registry=False`` leaves
  the interface out, as on portals before 1.19);
- ``GlobalShortcuts.CreateSession``, ``BindShortcuts`` and ``ListShortcuts``, each answered
  by a ``org.freedesktop.portal.Request.Response`` signal on the request path the portal
  spec promises (``.../request/SENDER/TOKEN``). The signal goes out *before* the method's
  reply, the earliest a portal can answer: a client that subscribes only after its call
  returns misses it;
- ``org.freedesktop.portal.Session.Close`` on a session's path;
- with ``screenshot=`` (the picture's PNG bytes), ``Screenshot.Screenshot``: the picture
  written to a new file in ``screenshot_dir``, its ``file://`` URI in the response, as
  xdg-desktop-portal does (``screenshot_response=1`` answers as a person who declined).

``bind_response=1`` answers BindShortcuts as a person who cancelled the desktop's dialog,
``bind_response=None`` never answers it (the dialog left open);
``shortcuts=False`` is a portal without GlobalShortcuts. :meth:`PortalService.press` and
:meth:`PortalService.release` emit ``Activated`` and ``Deactivated`` for the bound shortcut;
:meth:`PortalService.assign` emits ``ShortcutsChanged`` as when the person picks other keys.
:meth:`PortalService.stop` releases the name (and closes the connection), so one test's
portal never answers the next test.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from jeepney import (  # type: ignore[import-untyped]
    DBusAddress,
    HeaderFields,
    Message,
    MessageType,
    message_bus,
    new_error,
    new_method_return,
    new_signal,
)
from jeepney.io.threading import (  # type: ignore[import-untyped]
    DBusConnection,
    ReceiveStopped,
    open_dbus_connection,
)

__all__ = ["BoundShortcut", "PortalService", "running_portal"]

PORTAL_NAME: Final = "org.freedesktop.portal.Desktop"
PORTAL_PATH: Final = "/org/freedesktop/portal/desktop"
SHORTCUTS: Final = "org.freedesktop.portal.GlobalShortcuts"
SCREENSHOT: Final = "org.freedesktop.portal.Screenshot"
REGISTRY: Final = "org.freedesktop.host.portal.Registry"
REQUEST: Final = "org.freedesktop.portal.Request"
SESSION: Final = "org.freedesktop.portal.Session"
PROPERTIES: Final = "org.freedesktop.DBus.Properties"
UNKNOWN_METHOD: Final = "org.freedesktop.DBus.Error.UnknownMethod"
UNKNOWN_INTERFACE: Final = "org.freedesktop.DBus.Error.UnknownInterface"
CALL_TIMEOUT_S: Final = 5.0
_PRIMARY_OWNER: Final = 1
_DO_NOT_QUEUE: Final = 4


@dataclass
class BoundShortcut:
    """One BindShortcuts call as the portal received it."""

    session: str
    shortcut_id: str
    description: str
    preferred_trigger: str | None


@dataclass
class _Records:
    calls: list[str] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    request_paths: list[str] = field(default_factory=list)
    bound: list[BoundShortcut] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)
    senders: list[str] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    screenshot_options: list[dict[str, Any]] = field(default_factory=list)


class PortalService:
    """The test portal; use :func:`running_portal` to run one for a block.

    Args:
        bind_response: BindShortcuts' response code (0 bound, 1 cancelled, 2 other), or
            None to leave it unanswered.
        shortcuts: whether GlobalShortcuts is there at all.
        registry: whether the host registry is there.
        assigned: the trigger description the "desktop" answers with; the preferred
            trigger when None.
        screenshot: the PNG a screenshot gives; None: no Screenshot interface.
        screenshot_dir: where the screenshots' files are written.
        screenshot_response: Screenshot's response code (0 taken, 1 declined, 2 other).
        bus: the bus to serve on.
    """

    def __init__(
        self,
        *,
        bind_response: int | None = 0,
        shortcuts: bool = True,
        registry: bool = True,
        assigned: str | None = None,
        screenshot: bytes | None = None,
        screenshot_dir: Path | None = None,
        screenshot_response: int = 0,
        bus: str = "SESSION",
    ) -> None:
        self.bind_response = bind_response
        self.screenshot = screenshot
        self.screenshot_dir = screenshot_dir
        self.screenshot_response = screenshot_response
        self.shortcuts = shortcuts
        self.registry = registry
        self.assigned = assigned
        self._bus = bus
        self._lock = threading.Lock()
        self._records = _Records()
        self._triggers: dict[str, str] = {}
        self._conn: DBusConnection | None = None
        self._thread: threading.Thread | None = None
        self.unique_name = ""

    # ------------------------------------------------------------------ what it saw

    @property
    def calls(self) -> list[str]:
        """The methods called, in order (``Interface.Method``, the interface's last part)."""
        with self._lock:
            return list(self._records.calls)

    @property
    def registered(self) -> list[str]:
        """The app ids given to Registry.Register."""
        with self._lock:
            return list(self._records.registered)

    @property
    def sessions(self) -> list[str]:
        """The session handles created."""
        with self._lock:
            return list(self._records.sessions)

    @property
    def request_paths(self) -> list[str]:
        """The request handles answered, in order."""
        with self._lock:
            return list(self._records.request_paths)

    @property
    def bound(self) -> list[BoundShortcut]:
        """The shortcuts asked for in BindShortcuts calls."""
        with self._lock:
            return list(self._records.bound)

    @property
    def closed(self) -> list[str]:
        """The sessions closed with Session.Close."""
        with self._lock:
            return list(self._records.closed)

    @property
    def screenshots(self) -> list[Path]:
        """The files the screenshots were written to, in order."""
        with self._lock:
            return list(self._records.screenshots)

    @property
    def screenshot_options(self) -> list[dict[str, Any]]:
        """The options of each Screenshot call (``interactive``...), variants unwrapped."""
        with self._lock:
            return list(self._records.screenshot_options)

    @property
    def senders(self) -> list[str]:
        """The unique names of the clients that created sessions."""
        with self._lock:
            return list(self._records.senders)

    # ------------------------------------------------------------------ running

    def start(self) -> None:
        """Own the portal's name and answer in a thread.

        Raises:
            RuntimeError: the name is taken (another portal still runs on this bus).
        """
        conn = open_dbus_connection(self._bus)
        self._conn = conn
        self.unique_name = conn.unique_name
        (result,) = self._call_direct(message_bus.RequestName(PORTAL_NAME, _DO_NOT_QUEUE))
        if result != _PRIMARY_OWNER:
            conn.close()
            raise RuntimeError(f"{PORTAL_NAME} is taken on this bus (RequestName: {result})")
        self._thread = threading.Thread(target=self._serve, name="test-portal", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop answering, release the name, close the connection."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        conn.interrupt()
        if self._thread is not None:
            self._thread.join(CALL_TIMEOUT_S)
            assert not self._thread.is_alive(), "the test portal's thread did not stop"
        conn.reset_interrupt()
        try:
            self._call_direct(message_bus.ReleaseName(PORTAL_NAME), conn)
        finally:
            conn.close()

    # ------------------------------------------------------------------ driving it

    def press(self, shortcut_id: str = "talk") -> None:
        """The person pressed the shortcut: ``Activated`` for the latest session."""
        self._shortcut_signal("Activated", shortcut_id)

    def release(self, shortcut_id: str = "talk") -> None:
        """The person let go: ``Deactivated``."""
        self._shortcut_signal("Deactivated", shortcut_id)

    def assign(self, trigger: str, shortcut_id: str = "talk") -> None:
        """The person gave the shortcut other keys: ``ShortcutsChanged``."""
        session = self.sessions[-1]
        self._triggers[shortcut_id] = trigger
        body = (session, self._shortcut_list())
        self._emit(new_signal(self._shortcuts_address(), "ShortcutsChanged", "oa(sa{sv})", body))

    # ------------------------------------------------------------------ inside

    def _shortcuts_address(self) -> DBusAddress:
        return DBusAddress(PORTAL_PATH, interface=SHORTCUTS)

    def _shortcut_signal(self, member: str, shortcut_id: str) -> None:
        session = self.sessions[-1]
        body: tuple[str, str, int, dict[str, Any]] = (session, shortcut_id, 1234, {})
        self._emit(new_signal(self._shortcuts_address(), member, "osta{sv}", body))

    def _emit(self, message: Message) -> None:
        conn = self._conn
        assert conn is not None, "the test portal is not running"
        conn.send(message)

    def _call_direct(self, message: Message, conn: DBusConnection | None = None) -> Any:
        """A call to the bus before the thread runs (or after it stopped)."""
        conn = conn or self._conn
        assert conn is not None
        serial = next(conn.outgoing_serial)
        conn.send(message, serial=serial)
        while True:
            reply = conn.receive(timeout=CALL_TIMEOUT_S)
            if reply.header.fields.get(HeaderFields.reply_serial) == serial:
                if reply.header.message_type is MessageType.error:
                    raise RuntimeError(f"{reply.header.fields.get(HeaderFields.error_name)}")
                return reply.body

    def _serve(self) -> None:
        conn = self._conn
        assert conn is not None
        while True:
            try:
                message = conn.receive()
            except (ReceiveStopped, OSError, EOFError):
                return
            if message.header.message_type is MessageType.method_call:
                for reply in self._answer(message):
                    conn.send(reply)

    def _answer(self, call: Message) -> list[Message]:
        """The messages to send for one method call, in order."""
        fields = call.header.fields
        interface = fields.get(HeaderFields.interface)
        member = fields.get(HeaderFields.member)
        path = fields.get(HeaderFields.path)
        sender = fields.get(HeaderFields.sender, "")
        with self._lock:
            self._records.calls.append(f"{str(interface).rsplit('.', 1)[-1]}.{member}")
        if interface == PROPERTIES and member == "Get":
            wanted_interface, name = call.body
            if wanted_interface == SHORTCUTS and self.shortcuts and name == "version":
                return [new_method_return(call, "v", (("u", 1),))]
            if wanted_interface == SCREENSHOT and self.screenshot is not None:
                return [new_method_return(call, "v", (("u", 2),))]
            return [new_error(call, UNKNOWN_INTERFACE, "s", (f"no {wanted_interface}",))]
        if interface == REGISTRY and self.registry and member == "Register":
            with self._lock:
                self._records.registered.append(call.body[0])
            return [new_method_return(call)]
        if interface == SHORTCUTS and self.shortcuts and path == PORTAL_PATH:
            if member == "CreateSession":
                return self._create_session(call, sender)
            if member == "BindShortcuts":
                return self._bind_shortcuts(call, sender)
            if member == "ListShortcuts":
                (_session, options) = call.body
                results = {"shortcuts": ("a(sa{sv})", self._shortcut_list())}
                return self._respond(call, sender, options, 0, results)
        if interface == SCREENSHOT and self.screenshot is not None and member == "Screenshot":
            return self._take_screenshot(call, sender)
        if interface == SESSION and member == "Close" and path in self.sessions:
            with self._lock:
                self._records.closed.append(path)
            return [new_method_return(call)]
        return [new_error(call, UNKNOWN_METHOD, "s", (f"no {interface}.{member} here",))]

    def _create_session(self, call: Message, sender: str) -> list[Message]:
        (options,) = call.body
        session_token = _variant(options.get("session_handle_token", ("s", "s1")))
        session = f"{PORTAL_PATH}/session/{_path_part(sender)}/{session_token}"
        with self._lock:
            self._records.sessions.append(session)
            self._records.senders.append(sender)
        return self._respond(call, sender, options, 0, {"session_handle": ("s", session)})

    def _bind_shortcuts(self, call: Message, sender: str) -> list[Message]:
        session, shortcuts, _parent_window, options = call.body
        for shortcut_id, details in shortcuts:
            preferred = details.get("preferred_trigger")
            bound = BoundShortcut(
                session,
                shortcut_id,
                _variant(details.get("description", ("s", ""))),
                None if preferred is None else _variant(preferred),
            )
            with self._lock:
                self._records.bound.append(bound)
            self._triggers[shortcut_id] = self.assigned or bound.preferred_trigger or ""
        if self.bind_response is None:
            return [new_method_return(call, "o", (_request_path_of(sender, options),))]
        if self.bind_response != 0:
            return self._respond(call, sender, options, self.bind_response, {})
        results = {"shortcuts": ("a(sa{sv})", self._shortcut_list())}
        return self._respond(call, sender, options, 0, results)

    def _take_screenshot(self, call: Message, sender: str) -> list[Message]:
        _parent_window, options = call.body
        with self._lock:
            self._records.screenshot_options.append(
                {key: _variant(value) for key, value in options.items()}
            )
        if self.screenshot_response != 0:
            return self._respond(call, sender, options, self.screenshot_response, {})
        folder = self.screenshot_dir or Path(tempfile.gettempdir())
        with tempfile.NamedTemporaryFile(
            dir=folder, prefix="Screenshot-", suffix=".png", delete=False
        ) as file:
            assert self.screenshot is not None
            file.write(self.screenshot)
        taken = Path(file.name)
        with self._lock:
            self._records.screenshots.append(taken)
        return self._respond(call, sender, options, 0, {"uri": ("s", taken.as_uri())})

    def _shortcut_list(self) -> list[tuple[str, dict[str, Any]]]:
        return [
            (shortcut_id, {"description": ("s", ""), "trigger_description": ("s", trigger)})
            for shortcut_id, trigger in self._triggers.items()
        ]

    def _respond(
        self,
        call: Message,
        sender: str,
        options: dict[str, Any],
        code: int,
        results: dict[str, Any],
    ) -> list[Message]:
        """The Response signal on the promised request path, then the method's reply."""
        handle = _request_path_of(sender, options)
        with self._lock:
            self._records.request_paths.append(handle)
        request = DBusAddress(handle, interface=REQUEST)
        response = new_signal(request, "Response", "ua{sv}", (code, results))
        response.header.fields[HeaderFields.destination] = sender
        return [response, new_method_return(call, "o", (handle,))]


def _request_path_of(sender: str, options: dict[str, Any]) -> str:
    token = _variant(options.get("handle_token", ("s", "t1")))
    return f"{PORTAL_PATH}/request/{_path_part(sender)}/{token}"


def _path_part(unique_name: str) -> str:
    return unique_name.lstrip(":").replace(".", "_")


def _variant(value: Any) -> Any:
    return value[1] if isinstance(value, tuple) and len(value) == 2 else value


@contextmanager
def running_portal(**options: Any) -> Iterator[PortalService]:
    """Run a :class:`PortalService` (its keyword arguments) for the block, released after."""
    portal = PortalService(**options)
    portal.start()
    try:
        yield portal
    finally:
        portal.stop()
