"""The talk hotkey on Wayland, through the desktop portal's GlobalShortcuts.

Wayland lets no app see keys pressed in other windows; the desktop itself can, and where
it offers ``org.freedesktop.portal.GlobalShortcuts`` (KDE Plasma 6, GNOME 48 and later) an
app asks it for a shortcut and is told when it goes down and up. :class:`PortalShortcuts`
does that on the session bus with jeepney, on the app's asyncio loop: it registers the
app's id with the host registry where there is one (GNOME needs it for apps outside a
sandbox), checks that the interface is there (its ``version`` property), creates a
session, binds one shortcut ("talk", with the setting's keys as the preferred trigger, in
the XDG shortcuts spelling: :func:`xdg_trigger`), and then calls back on ``Activated``
(pressed) and ``Deactivated`` (released). The desktop may let the person pick other keys;
``ShortcutsChanged`` says which (``trigger_description``).

The portal answers most calls later, in a ``Response`` signal on a request object whose
path the app can know in advance (``.../request/SENDER/TOKEN``); each request's signal is
waited for from before the call, so a quick answer is not missed.

Nothing here raises out of the class or logs an error for what a desktop simply lacks: no
session bus, no portal, a portal without GlobalShortcuts, the person cancelling the
desktop's dialog, the bus or the portal going away later. Each is a :class:`PortalState`
whose :func:`status_sentence` the settings pane shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from sammy_desktop.lazy import lazy_module

__all__ = [
    "APP_ID",
    "TALK_DESCRIPTION",
    "TALK_SHORTCUT_ID",
    "PortalOutcome",
    "PortalShortcuts",
    "PortalState",
    "status_sentence",
    "wayland_session",
    "xdg_trigger",
]

_log = logging.getLogger(__name__)

# Imported on first use: jeepney is a dependency on Linux only, and only Wayland needs it.
# (_connect imports jeepney.io.asyncio by name, which is also how PyInstaller finds it.)
jeepney = lazy_module("jeepney")
Message = Any  # jeepney.Message (jeepney has no type hints)
DBusConnection = Any  # jeepney.io.asyncio.DBusConnection

PORTAL_NAME: Final = "org.freedesktop.portal.Desktop"
PORTAL_PATH: Final = "/org/freedesktop/portal/desktop"
SHORTCUTS_INTERFACE: Final = "org.freedesktop.portal.GlobalShortcuts"
REQUEST_INTERFACE: Final = "org.freedesktop.portal.Request"
SESSION_INTERFACE: Final = "org.freedesktop.portal.Session"
REGISTRY_INTERFACE: Final = "org.freedesktop.host.portal.Registry"
REQUEST_PATH_PREFIX: Final = f"{PORTAL_PATH}/request"

APP_ID: Final = "sammy-desktop"
"""The id the host registry learns (the name of the app's .desktop file)."""
TALK_SHORTCUT_ID: Final = "talk"
TALK_DESCRIPTION: Final = "Talk to Sammy (hold)"

CALL_TIMEOUT_S: Final = 10.0
"""How long a method's reply, or a request answered without the person, may take."""
BIND_TIMEOUT_S: Final = 300.0
"""How long the desktop's dialog for the shortcut may stay open before Sammy gives up."""

_NO_PORTAL_RUNS: Final = "no desktop portal is running, so it has no GlobalShortcuts."
_NO_SUCH_SERVICE: Final = frozenset(
    {"org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"}
)

# Settings spelling (config/settings.py normalizes to it) -> the XDG shortcuts spec: its
# modifiers are xkbcommon's CTRL, ALT, SHIFT, NUM and LOGO; its keys xkbcommon's keysym
# names (xkbcommon-keysyms.h without XKB_KEY_), which hold only letters, digits and _.
_XDG_MODIFIERS: Final = {"Ctrl": "CTRL", "Alt": "ALT", "Shift": "SHIFT", "Super": "LOGO"}
_XDG_KEYS: Final = {
    "Space": "space",
    "Tab": "Tab",
    "Enter": "Return",
    "Delete": "Delete",
    "Home": "Home",
    "End": "End",
    "PageUp": "Page_Up",
    "PageDown": "Page_Down",
    "Up": "Up",
    "Down": "Down",
    "Left": "Left",
    "Right": "Right",
    "Insert": "Insert",
    "Pause": "Pause",
    "ScrollLock": "Scroll_Lock",
    "PrintScreen": "Print",
    "Menu": "Menu",
    **{f"F{n}": f"F{n}" for n in range(1, 21)},
}
_XDG_SYMBOLS: Final = {
    "!": "exclam",
    '"': "quotedbl",
    "#": "numbersign",
    "$": "dollar",
    "%": "percent",
    "&": "ampersand",
    "'": "apostrophe",
    "(": "parenleft",
    ")": "parenright",
    "*": "asterisk",
    ",": "comma",
    "-": "minus",
    ".": "period",
    "/": "slash",
    ":": "colon",
    ";": "semicolon",
    "<": "less",
    "=": "equal",
    ">": "greater",
    "?": "question",
    "@": "at",
    "[": "bracketleft",
    "\\": "backslash",
    "]": "bracketright",
    "^": "asciicircum",
    "_": "underscore",
    "`": "grave",
    "{": "braceleft",
    "|": "bar",
    "}": "braceright",
    "~": "asciitilde",
}


def wayland_session(environ: Mapping[str, str], platform: str) -> bool:
    """Whether this is a Wayland session, where only the portal can give a global hotkey.

    Args:
        environ: the process environment (``os.environ``).
        platform: ``sys.platform``.
    """
    if platform in ("win32", "darwin"):
        return False
    return bool(environ.get("WAYLAND_DISPLAY")) or environ.get("XDG_SESSION_TYPE") == "wayland"


def xdg_trigger(keys: str) -> str | None:
    """``Ctrl+Alt+Space`` -> ``CTRL+ALT+space`` (the XDG shortcuts spec's spelling).

    None when a key has no name there that Sammy knows; the portal's preferred trigger is
    optional, and the desktop then lets the person pick the keys.
    """
    parts = []
    for part in keys.split("+"):
        if part in _XDG_MODIFIERS:
            parts.append(_XDG_MODIFIERS[part])
        elif part in _XDG_KEYS:
            parts.append(_XDG_KEYS[part])
        elif len(part) == 1 and part.isascii() and part.isalnum():
            parts.append(part.lower())
        elif part in _XDG_SYMBOLS:
            parts.append(_XDG_SYMBOLS[part])
        else:
            return None
    return "+".join(parts)


class PortalOutcome(enum.Enum):
    """Where asking the desktop for the shortcut ended."""

    BOUND = "bound"
    """The shortcut is there: its presses and releases arrive."""
    NO_PORTAL = "no portal"
    """No session bus, no portal on it, or a portal without GlobalShortcuts."""
    REFUSED = "refused"
    """The person cancelled the desktop's dialog, or the desktop kept the shortcut back."""
    FAILED = "failed"
    """The portal answered with an error, or not in time."""
    LOST = "lost"
    """It was bound, then the bus, the portal or the session went away."""


@dataclass(frozen=True, slots=True)
class PortalState:
    """The shortcut's state, as the settings pane tells it.

    Attributes:
        outcome: bound, or why not.
        trigger: the desktop's words for the keys it assigned ("" when it did not say).
        reason: why not, as the end of a sentence ("" when bound).
    """

    outcome: PortalOutcome
    trigger: str = ""
    reason: str = ""


def status_sentence(state: PortalState) -> str:
    """The settings pane's sentence for ``state``.

    Where the shortcut cannot work the pane also shows the command lines a desktop's
    keyboard settings can bind instead (``ui/settings/talk_commands.py``): the sentence
    points to them, and does not repeat them.
    """
    instead = "Hold Space in Sammy's window to talk instead."
    match state.outcome:
        case PortalOutcome.BOUND if state.trigger:
            return f"On: hold {state.trigger} in any window to talk (set in your desktop)."
        case PortalOutcome.BOUND:
            return "On: hold the keys your desktop gave Sammy's shortcut in any window to talk."
        case PortalOutcome.NO_PORTAL:
            return (
                f"Not available on this desktop: {state.reason} Bind a key to one of the "
                "commands below in your desktop's keyboard settings instead."
            )
        case PortalOutcome.REFUSED:
            return (
                f"The desktop did not give Sammy the shortcut: {state.reason} Switch the "
                f"hotkey off and on to be asked again. {instead}"
            )
        case PortalOutcome.FAILED:
            return f"The desktop could not set up the shortcut: {state.reason} {instead}"
        case PortalOutcome.LOST:
            return (
                f"The hotkey stopped: {state.reason} Switch it off and on to try again. {instead}"
            )


class _Unavailable(Exception):
    """Ends :meth:`PortalShortcuts.bind` early with this state."""

    def __init__(self, outcome: PortalOutcome, reason: str) -> None:
        super().__init__(reason)
        self.state = PortalState(outcome, reason=reason)


def _response_state(code: int, what: str) -> PortalState | None:
    """A request's non-zero response code as a state (None for 0, success)."""
    if code == 0:
        return None
    if code == 1:
        return PortalState(PortalOutcome.REFUSED, reason=f"{what} was cancelled.")
    return PortalState(PortalOutcome.FAILED, reason=f"{what} ended another way (code {code}).")


def _variant(value: Any) -> Any:
    """A ``v`` value's content (jeepney reads one as ``(signature, value)``)."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        return value[1]
    return value


class PortalShortcuts:
    """The "talk" shortcut through the desktop portal, for as long as it is bound.

    Build one per :meth:`bind`; :meth:`close` ends the session (also after a failure).
    The callbacks are called on the loop that called :meth:`bind`.

    Args:
        on_pressed: the shortcut went down.
        on_released: the shortcut came up.
        on_changed: after binding, the state changed: the desktop assigned other keys
            (``BOUND`` with the new ``trigger``) or the binding was lost (``LOST``).
        bus: ``"SESSION"`` (the session bus of ``DBUS_SESSION_BUS_ADDRESS``) or an address.
        app_id: the id the host registry learns.
    """

    def __init__(
        self,
        on_pressed: Callable[[], None],
        on_released: Callable[[], None],
        on_changed: Callable[[PortalState], None],
        *,
        bus: str = "SESSION",
        app_id: str = APP_ID,
    ) -> None:
        self._on_pressed = on_pressed
        self._on_released = on_released
        self._on_changed = on_changed
        self._bus = bus
        self._app_id = app_id
        self._conn: DBusConnection | None = None
        self._receiver: asyncio.Task[None] | None = None
        self._replies: dict[int, asyncio.Future[Any]] = {}
        self._requests: dict[str, asyncio.Future[tuple[int, dict[str, Any]]]] = {}
        self._early: dict[str, tuple[int, dict[str, Any]]] = {}
        self._portal_owner = ""
        self._session = ""
        self._state = PortalState(PortalOutcome.NO_PORTAL, reason="it was not asked yet.")
        self._bound = False
        self._closed = False

    @property
    def state(self) -> PortalState:
        """The shortcut's state now."""
        return self._state

    @property
    def bound(self) -> bool:
        """Whether presses and releases arrive now."""
        return self._bound

    async def bind(self, keys: str) -> PortalState:
        """Ask the desktop for the shortcut, ``keys`` (settings spelling) preferred.

        Returns once the desktop answered: bound, or why not (whatever the desktop, the
        bus or the person does, nothing is raised; a refusal closes what was opened). The
        desktop may show a dialog first.

        Raises:
            RuntimeError: this object was bound or closed already (a programming error).
        """
        if self._conn is not None or self._closed:
            raise RuntimeError("a PortalShortcuts binds once")
        try:
            trigger = await self._bind(keys)
        except asyncio.CancelledError:
            self._closed = True
            self._shut()
            if self._receiver is not None:
                self._receiver.cancel()
            raise
        except _Unavailable as exc:
            self._state = exc.state
        except TimeoutError:
            self._state = PortalState(
                PortalOutcome.FAILED, reason="the desktop portal did not answer in time."
            )
        except (EOFError, OSError) as exc:
            _log.info("the portal's connection closed while binding: %s", exc)
            self._state = PortalState(
                PortalOutcome.FAILED, reason="the connection to the desktop portal closed."
            )
        except jeepney.DBusErrorResponse as exc:
            _log.info("the portal's global shortcut could not be bound: %s", exc)
            self._state = PortalState(
                PortalOutcome.FAILED, reason="the desktop portal answered with an error."
            )
        else:
            self._bound = True
            self._state = PortalState(PortalOutcome.BOUND, trigger=trigger)
            _log.info("global hotkey on through the desktop portal: %s", trigger or keys)
            return self._state
        _log.info("portal global shortcut: %s", self._state)
        await self.close()
        return self._state

    async def close(self) -> None:
        """End the session and the connection (again is fine; never raises)."""
        if self._closed:
            return
        self._closed = True
        self._bound = False
        session, self._session = self._session, ""
        if session and self._conn is not None and self._receiver_running():
            close = jeepney.new_method_call(
                jeepney.DBusAddress(session, PORTAL_NAME, SESSION_INTERFACE), "Close"
            )
            with contextlib.suppress(jeepney.DBusErrorResponse, TimeoutError, EOFError, OSError):
                await self._call(close, timeout_s=2.0)
        self._shut()
        receiver = self._receiver
        if receiver is not None and not receiver.done():
            receiver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await receiver
        if self._conn is not None:
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(self._conn.writer.wait_closed(), 2.0)

    # ------------------------------------------------------------------ the steps

    async def _bind(self, keys: str) -> str:
        """The steps to a bound shortcut; returns its trigger description."""
        conn = await self._connect()
        sender = str(conn.unique_name).lstrip(":").replace(".", "_")
        for rule in self._match_rules(sender):
            await self._call(jeepney.message_bus.AddMatch(rule))
        await self._register()
        await self._check_interface()
        (self._portal_owner,) = await self._call(jeepney.message_bus.GetNameOwner(PORTAL_NAME))
        shortcuts = jeepney.DBusAddress(PORTAL_PATH, PORTAL_NAME, SHORTCUTS_INTERFACE)

        def create(options: dict[str, Any]) -> Message:
            options["session_handle_token"] = ("s", "sammy_" + secrets.token_hex(8))
            return jeepney.new_method_call(shortcuts, "CreateSession", "a{sv}", (options,))

        results = await self._request(sender, create, "creating the shortcut session")
        self._session = str(_variant(results.get("session_handle", "")))
        if not self._session:
            raise _Unavailable(PortalOutcome.FAILED, "the desktop gave no session.")
        wanted: dict[str, Any] = {"description": ("s", TALK_DESCRIPTION)}
        preferred = xdg_trigger(keys)
        if preferred is not None:
            wanted["preferred_trigger"] = ("s", preferred)

        def bind(options: dict[str, Any]) -> Message:
            body = (self._session, [(TALK_SHORTCUT_ID, wanted)], "", options)
            return jeepney.new_method_call(shortcuts, "BindShortcuts", "oa(sa{sv})sa{sv}", body)

        results = await self._request(sender, bind, "the shortcut request", BIND_TIMEOUT_S)
        trigger = self._talk_trigger(_variant(results.get("shortcuts", [])))
        if trigger is None:
            raise _Unavailable(PortalOutcome.REFUSED, "the desktop kept the shortcut back.")
        return trigger

    async def _connect(self) -> DBusConnection:
        try:
            from jeepney.io.asyncio import (  # type: ignore[import-untyped]
                open_dbus_connection,
            )
        except ImportError:
            raise _Unavailable(
                PortalOutcome.NO_PORTAL, "Sammy was installed without jeepney, its D-Bus library."
            ) from None
        try:
            conn = await asyncio.wait_for(open_dbus_connection(self._bus), CALL_TIMEOUT_S)
        except KeyError:  # no DBUS_SESSION_BUS_ADDRESS
            raise _Unavailable(PortalOutcome.NO_PORTAL, "there is no D-Bus session bus.") from None
        except (OSError, EOFError, RuntimeError, ValueError) as exc:
            _log.info("no D-Bus session bus for the portal: %s", exc)
            raise _Unavailable(
                PortalOutcome.NO_PORTAL, "the D-Bus session bus cannot be reached."
            ) from None
        self._conn = conn
        self._receiver = asyncio.get_running_loop().create_task(
            self._receive(conn), name="ui-portal-shortcuts"
        )
        return conn

    @staticmethod
    def _match_rules(sender: str) -> list[Any]:
        requests = jeepney.MatchRule(
            type="signal",
            sender=PORTAL_NAME,
            interface=REQUEST_INTERFACE,
            member="Response",
            path_namespace=f"{REQUEST_PATH_PREFIX}/{sender}",
        )
        shortcuts = jeepney.MatchRule(
            type="signal", sender=PORTAL_NAME, interface=SHORTCUTS_INTERFACE, path=PORTAL_PATH
        )
        session_closed = jeepney.MatchRule(
            type="signal", sender=PORTAL_NAME, interface=SESSION_INTERFACE, member="Closed"
        )
        owner = jeepney.MatchRule(
            type="signal",
            sender=jeepney.message_bus.bus_name,
            interface=jeepney.message_bus.interface,
            member="NameOwnerChanged",
        )
        owner.add_arg_condition(0, PORTAL_NAME)
        return [requests, shortcuts, session_closed, owner]

    async def _register(self) -> None:
        """Tell the host registry the app's id, where there is one (GNOME wants it)."""
        registry = jeepney.DBusAddress(PORTAL_PATH, PORTAL_NAME, REGISTRY_INTERFACE)
        try:
            await self._call(
                jeepney.new_method_call(registry, "Register", "sa{sv}", (self._app_id, {}))
            )
        except jeepney.DBusErrorResponse as exc:
            if exc.name in _NO_SUCH_SERVICE:
                raise _Unavailable(PortalOutcome.NO_PORTAL, _NO_PORTAL_RUNS) from None
            _log.debug("the portal's host registry did not take the app id: %s", exc)

    async def _check_interface(self) -> None:
        shortcuts = jeepney.DBusAddress(PORTAL_PATH, PORTAL_NAME, SHORTCUTS_INTERFACE)
        try:
            (version,) = await self._call(jeepney.Properties(shortcuts).get("version"))
        except jeepney.DBusErrorResponse as exc:
            _log.info("the desktop portal has no GlobalShortcuts: %s", exc)
            if exc.name in _NO_SUCH_SERVICE:
                reason = _NO_PORTAL_RUNS
            else:
                reason = (
                    "its desktop portal has no GlobalShortcuts (KDE Plasma 6 and GNOME 48 have "
                    "them)."
                )
            raise _Unavailable(PortalOutcome.NO_PORTAL, reason) from None
        _log.debug("portal GlobalShortcuts version %s", _variant(version))

    async def _request(
        self,
        sender: str,
        make: Callable[[dict[str, Any]], Message],
        what: str,
        timeout_s: float = CALL_TIMEOUT_S,
    ) -> dict[str, Any]:
        """Call a method answered by a Request's Response; its results on success.

        The response's path is waited for before the call: the portal may answer at once.
        """
        token = "sammy_" + secrets.token_hex(8)
        expected = f"{REQUEST_PATH_PREFIX}/{sender}/{token}"
        answer: asyncio.Future[tuple[int, dict[str, Any]]] = (
            asyncio.get_running_loop().create_future()
        )
        paths = [expected]
        self._requests[expected] = answer
        try:
            (handle,) = await self._call(make({"handle_token": ("s", token)}))
            if handle != expected:  # portals before version 0.9 chose their own path
                paths.append(handle)
                self._requests[handle] = answer
                if handle in self._early:
                    answer.set_result(self._early.pop(handle))
            code, results = await asyncio.wait_for(answer, timeout_s)
        finally:
            for path in paths:
                self._requests.pop(path, None)
        refusal = _response_state(code, what)
        if refusal is not None:
            raise _Unavailable(refusal.outcome, refusal.reason)
        return results

    @staticmethod
    def _talk_trigger(shortcuts: Any) -> str | None:
        """The talk shortcut's trigger description in a list of shortcuts; None if absent."""
        for item in shortcuts if isinstance(shortcuts, list) else []:
            if isinstance(item, tuple) and len(item) == 2 and item[0] == TALK_SHORTCUT_ID:
                details = item[1] if isinstance(item[1], dict) else {}
                return str(_variant(details.get("trigger_description", ("s", ""))))
        return None

    # ------------------------------------------------------------------ the connection

    async def _call(self, message: Message, timeout_s: float = CALL_TIMEOUT_S) -> Any:
        """Send a method call; its reply's body (raises DBusErrorResponse for an error)."""
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

    def _receiver_running(self) -> bool:
        return self._receiver is not None and not self._receiver.done()

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
        if self._bound and not self._closed:
            self._bound = False
            self._state = PortalState(PortalOutcome.LOST, reason=reason)
            _log.info("portal global shortcut lost: %s", reason)
            self._tell(self._on_changed, self._state)

    @staticmethod
    def _tell(callback: Callable[..., None], *args: Any) -> None:
        """Call back; a broken callback is logged, and the connection goes on."""
        try:
            callback(*args)
        except Exception:  # noqa: BLE001 - the receiver must outlive a listener's bug
            _log.exception("a portal shortcut callback failed")

    def _shut(self) -> None:
        if self._conn is not None:
            self._conn.writer.close()

    def _dispatch(self, message: Message) -> str:
        """Hand one message on; a reason when it ends the binding, else ""."""
        header = message.header
        fields: Mapping[Any, Any] = header.fields
        if header.message_type in (jeepney.MessageType.method_return, jeepney.MessageType.error):
            reply = self._replies.get(fields.get(jeepney.HeaderFields.reply_serial, -1))
            if reply is not None and not reply.done():
                reply.set_result(message)
            return ""
        if header.message_type is not jeepney.MessageType.signal:
            return ""
        interface, member = (
            fields.get(jeepney.HeaderFields.interface),
            fields.get(jeepney.HeaderFields.member),
        )
        sender, path = (
            fields.get(jeepney.HeaderFields.sender),
            fields.get(jeepney.HeaderFields.path),
        )
        if sender == jeepney.message_bus.bus_name and member == "NameOwnerChanged":
            name, _old, new = message.body
            if name == PORTAL_NAME and self._portal_owner and new != self._portal_owner:
                return "the desktop portal stopped."
            return ""
        if not self._portal_owner or sender != self._portal_owner:
            return ""  # only the portal's own signals count
        if interface == REQUEST_INTERFACE and member == "Response":
            self._on_response(str(path), message.body)
        elif interface == SESSION_INTERFACE and member == "Closed":
            if self._session and path == self._session:
                return "the desktop closed Sammy's shortcut session."
        elif interface == SHORTCUTS_INTERFACE and message.body[:1] == (self._session,):
            self._on_shortcut_signal(str(member), message.body)
        return ""

    def _on_response(self, path: str, body: tuple[Any, ...]) -> None:
        code, results = int(body[0]), body[1] if isinstance(body[1], dict) else {}
        answer = self._requests.get(path)
        if answer is None:
            if path.startswith(REQUEST_PATH_PREFIX) and len(self._early) < 8:
                self._early[path] = (code, results)  # before its call's reply named it
        elif not answer.done():
            answer.set_result((code, results))

    def _on_shortcut_signal(self, member: str, body: tuple[Any, ...]) -> None:
        if not self._bound:
            return
        if member == "ShortcutsChanged":
            trigger = self._talk_trigger(body[1])
            if trigger is not None and trigger != self._state.trigger:
                self._state = PortalState(PortalOutcome.BOUND, trigger=trigger)
                self._tell(self._on_changed, self._state)
        elif member in ("Activated", "Deactivated") and body[1] == TALK_SHORTCUT_ID:
            self._tell(self._on_pressed if member == "Activated" else self._on_released)
