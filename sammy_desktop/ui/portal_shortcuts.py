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
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from sammy_desktop.ui.portal import (
    NO_SUCH_SERVICE,
    PORTAL_NAME,
    PORTAL_PATH,
    Message,
    PortalConnection,
    PortalMissing,
    PortalRefused,
    jeepney,
    new_token,
    variant,
)

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

SHORTCUTS_INTERFACE: Final = "org.freedesktop.portal.GlobalShortcuts"
SESSION_INTERFACE: Final = "org.freedesktop.portal.Session"
REGISTRY_INTERFACE: Final = "org.freedesktop.host.portal.Registry"

APP_ID: Final = "sammy-desktop"
"""The id the host registry learns (the name of the app's .desktop file)."""
TALK_SHORTCUT_ID: Final = "talk"
TALK_DESCRIPTION: Final = "Talk to Sammy (hold)"

BIND_TIMEOUT_S: Final = 300.0
"""How long the desktop's dialog for the shortcut may stay open before Sammy gives up."""

_NO_PORTAL_RUNS: Final = "no desktop portal is running, so it has no GlobalShortcuts."
_NO_SHORTCUTS: Final = (
    "its desktop portal has no GlobalShortcuts (KDE Plasma 6 and GNOME 48 have them)."
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
        self._app_id = app_id
        self._portal = PortalConnection(
            bus=bus, on_signal=self._on_signal, on_lost=self._on_lost, name="ui-portal-shortcuts"
        )
        self._session = ""
        self._state = PortalState(PortalOutcome.NO_PORTAL, reason="it was not asked yet.")
        self._bound = False
        self._used = False
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
        if self._used or self._closed:
            raise RuntimeError("a PortalShortcuts binds once")
        self._used = True
        try:
            trigger = await self._bind(keys)
        except asyncio.CancelledError:
            self._closed = True
            self._portal.abort()
            raise
        except PortalMissing as exc:
            self._state = PortalState(PortalOutcome.NO_PORTAL, reason=exc.reason)
        except PortalRefused as exc:
            outcome = PortalOutcome.REFUSED if exc.cancelled else PortalOutcome.FAILED
            self._state = PortalState(outcome, reason=exc.reason)
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
        if session and self._portal.open:
            close = jeepney.new_method_call(
                jeepney.DBusAddress(session, PORTAL_NAME, SESSION_INTERFACE), "Close"
            )
            with contextlib.suppress(jeepney.DBusErrorResponse, TimeoutError, EOFError, OSError):
                await self._portal.call(close, timeout_s=2.0)
        await self._portal.close()

    # ------------------------------------------------------------------ the steps

    async def _bind(self, keys: str) -> str:
        """The steps to a bound shortcut; returns its trigger description."""
        shortcuts_signals = jeepney.MatchRule(
            type="signal", sender=PORTAL_NAME, interface=SHORTCUTS_INTERFACE, path=PORTAL_PATH
        )
        session_closed = jeepney.MatchRule(
            type="signal", sender=PORTAL_NAME, interface=SESSION_INTERFACE, member="Closed"
        )
        await self._portal.connect([shortcuts_signals, session_closed])
        await self._register()
        version = await self._portal.interface_version(
            SHORTCUTS_INTERFACE, missing=_NO_SHORTCUTS, not_running=_NO_PORTAL_RUNS
        )
        _log.debug("portal GlobalShortcuts version %s", version)
        shortcuts = jeepney.DBusAddress(PORTAL_PATH, PORTAL_NAME, SHORTCUTS_INTERFACE)

        def create(options: dict[str, Any]) -> Message:
            options["session_handle_token"] = ("s", new_token())
            return jeepney.new_method_call(shortcuts, "CreateSession", "a{sv}", (options,))

        results = await self._portal.request(create, "creating the shortcut session")
        self._session = str(variant(results.get("session_handle", "")))
        if not self._session:
            raise _Unavailable(PortalOutcome.FAILED, "the desktop gave no session.")
        wanted: dict[str, Any] = {"description": ("s", TALK_DESCRIPTION)}
        preferred = xdg_trigger(keys)
        if preferred is not None:
            wanted["preferred_trigger"] = ("s", preferred)

        def bind(options: dict[str, Any]) -> Message:
            body = (self._session, [(TALK_SHORTCUT_ID, wanted)], "", options)
            return jeepney.new_method_call(shortcuts, "BindShortcuts", "oa(sa{sv})sa{sv}", body)

        results = await self._portal.request(bind, "the shortcut request", BIND_TIMEOUT_S)
        trigger = self._talk_trigger(variant(results.get("shortcuts", [])))
        if trigger is None:
            raise _Unavailable(PortalOutcome.REFUSED, "the desktop kept the shortcut back.")
        return trigger

    async def _register(self) -> None:
        """Tell the host registry the app's id, where there is one (GNOME wants it)."""
        registry = jeepney.DBusAddress(PORTAL_PATH, PORTAL_NAME, REGISTRY_INTERFACE)
        try:
            await self._portal.call(
                jeepney.new_method_call(registry, "Register", "sa{sv}", (self._app_id, {}))
            )
        except jeepney.DBusErrorResponse as exc:
            if exc.name in NO_SUCH_SERVICE:
                raise PortalMissing(_NO_PORTAL_RUNS) from None
            _log.debug("the portal's host registry did not take the app id: %s", exc)

    @staticmethod
    def _talk_trigger(shortcuts: Any) -> str | None:
        """The talk shortcut's trigger description in a list of shortcuts; None if absent."""
        for item in shortcuts if isinstance(shortcuts, list) else []:
            if isinstance(item, tuple) and len(item) == 2 and item[0] == TALK_SHORTCUT_ID:
                details = item[1] if isinstance(item[1], dict) else {}
                return str(variant(details.get("trigger_description", ("s", ""))))
        return None

    # ------------------------------------------------------------------ the portal's signals

    def _on_signal(self, message: Message) -> str:
        """A signal from the portal: the session closed, or the shortcut went down or up."""
        fields: Mapping[Any, Any] = message.header.fields
        interface = fields.get(jeepney.HeaderFields.interface)
        member = str(fields.get(jeepney.HeaderFields.member))
        if interface == SESSION_INTERFACE and member == "Closed":
            if self._session and fields.get(jeepney.HeaderFields.path) == self._session:
                return "the desktop closed Sammy's shortcut session."
        elif interface == SHORTCUTS_INTERFACE and message.body[:1] == (self._session,):
            self._on_shortcut_signal(member, message.body)
        return ""

    def _on_lost(self, reason: str) -> None:
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
