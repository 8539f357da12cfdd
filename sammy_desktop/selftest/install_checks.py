"""The self-test's install checks: each part loaded by name at run time is there and works.

A frozen app most often breaks because something loaded by name at run time did not make it
into the bundle. Each check here loads one of them and returns what it found: the CA bundle
(certifi), keyring's backends (entry points), PortAudio (sounddevice), the WebRTC echo
canceller (livekit's native library), Qt's platform plugins and SVG support, and SQLite's
FTS5 full-text index (the notes tool). They run on the main thread, before the end-to-end
steps (Qt wants the main thread); :data:`LOAD_CHECKS` lists them in the report's order.

Two checks look past the bundle at what the app needs of this desktop, because an install
that cannot keep a key or has nothing to listen and speak with is not one that works: a
keyring that is only keyring's fail or null backend, and no microphone or no speaker, are
failures, each with what to do about it in words.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import math
import ssl
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from sammy_desktop.selftest.report import SelfTestFailure

if TYPE_CHECKING:
    from sammy_desktop.audio.devices import AudioDevice

__all__ = [
    "LOAD_CHECKS",
    "LOAD_CHECK_NAMES",
    "check_audio_devices",
    "check_ca_bundle",
    "check_echo_canceller",
    "check_keyring",
    "check_portaudio",
    "check_qt",
    "check_remote_control",
    "check_sqlite",
    "sine_tone",
]

LOAD_CHECK_NAMES: Final = (
    "ca-bundle",
    "keyring",
    "portaudio",
    "audio-devices",
    "echo-canceller",
    "qt",
    "remote-control",
    "sqlite",
)


def check_ca_bundle() -> str:
    """The CA bundle from certifi is present and loads (google-genai's HTTPS and wss use it)."""
    import certifi

    path = Path(certifi.where())
    if not path.is_file():
        raise SelfTestFailure(f"certifi's CA bundle is missing: {path}")
    context = ssl.create_default_context(cafile=str(path))
    count = len(context.get_ca_certs())
    if count < 10:
        raise SelfTestFailure(f"{path} holds only {count} CA certificates")
    return f"{count} CA certificates from {path}"


_NATIVE_KEYRING: Final = {"linux": "SecretService", "darwin": "macOS", "win32": "Windows"}

# What to do when no keyring backend is usable, per platform: the person's words, not ours.
_KEYRING_FIX: Final = {
    "linux": "Install gnome-keyring or KWallet and log in again",
    "darwin": "Log in to the desktop so the login keychain is unlocked, then try again",
    "win32": "Log in to Windows with your own account so Credential Manager is available",
}


def check_keyring() -> str:
    """Keyring's backends are discoverable (entry points) and one of them is usable here.

    Only keyring's fail and null backends (priority 0 or below) left means the app cannot
    keep an API key on this desktop: that is a failure, with the fix in words.
    """
    import keyring

    names = sorted({ep.name for ep in importlib.metadata.entry_points(group="keyring.backends")})
    if not names:
        raise SelfTestFailure(
            "keyring finds no backends: its entry-point metadata is not in this install"
        )
    native = _NATIVE_KEYRING.get(_platform_key())
    if native is not None and native not in names:
        raise SelfTestFailure(f"the {native} backend is not registered (found: {names})")
    backend = keyring.get_keyring()
    in_use = f"{type(backend).__module__}.{type(backend).__name__}"
    if type(backend).__module__ in ("keyring.backends.fail", "keyring.backends.null") or (
        backend.priority <= 0
    ):
        fix = _KEYRING_FIX.get(_platform_key(), "Set up the system's password store")
        raise SelfTestFailure(
            f"No password store is usable, so Sammy cannot keep an API key (keyring has "
            f"only {in_use}). {fix}."
        )
    return f"backends {', '.join(names)}; in use: {in_use}"


def check_portaudio() -> str:
    """PortAudio loads through sounddevice and can list devices (none are opened)."""
    import sounddevice

    library = str(getattr(sounddevice, "_libname", "?"))
    version = sounddevice.get_portaudio_version()[1]
    devices = sounddevice.query_devices()
    host_apis = ", ".join(api["name"] for api in sounddevice.query_hostapis())
    return f"{version}; {len(devices)} devices via {host_apis or 'no host API'}; {library}"


NO_MICROPHONE: Final = "No microphone found: connect one or check the sound settings"
NO_SPEAKER: Final = "No speaker found: connect speakers or headphones, or check the sound settings"


def check_audio_devices(
    list_devices: Callable[[], Sequence[AudioDevice]] | None = None,
) -> str:
    """There is a microphone and a speaker, as the app lists them.

    That is the sound server's own devices on Linux, PortAudio's elsewhere
    (:func:`sammy_desktop.audio.devices.list_devices`).

    Args:
        list_devices: the device lister (tests inject one); the app's own by default.
    """
    if list_devices is None:
        from sammy_desktop.audio.devices import list_devices as app_devices

        list_devices = app_devices
    devices = list_devices()
    inputs = [d for d in devices if d.supports("input")]
    outputs = [d for d in devices if d.supports("output")]
    wanted = ((inputs, NO_MICROPHONE), (outputs, NO_SPEAKER))
    missing = [text for found, text in wanted if not found]
    if missing:
        raise SelfTestFailure("; ".join(missing) + ".")
    return (
        f"{_count(len(inputs), 'microphone')} ({_names(inputs)}), "
        f"{_count(len(outputs), 'speaker')} ({_names(outputs)})"
    )


def _count(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _names(devices: Sequence[AudioDevice], most: int = 3) -> str:
    labels = [d.label for d in devices[:most]]
    more = len(devices) - most
    return ", ".join(labels) + (f" and {more} more" if more > 0 else "")


def check_echo_canceller() -> str:
    """WebRTC's audio processing module (livekit's native library) cancels a test echo."""
    import numpy as np

    from sammy_desktop.audio.echo import APM_RATE, EchoCanceller

    canceller = EchoCanceller(enabled=True)
    played_rate = 48_000
    seconds = 0.5
    render = sine_tone(440.0, seconds, played_rate)
    capture = sine_tone(440.0, seconds, APM_RATE)
    canceller.process_render(render, played_rate, len(render) // 2)
    out = canceller.process_capture(capture)
    if len(out) != len(capture):
        raise SelfTestFailure(f"processed {len(out)} of {len(capture)} bytes")
    if not np.isfinite(np.frombuffer(out, np.int16).astype(np.float64)).all():
        raise SelfTestFailure("the echo canceller returned garbage")
    from livekit import rtc

    library = Path(rtc.__file__).parent / "resources"
    return f"{canceller.frames_processed} frames of 10 ms processed; library in {library}"


# The platform plugins a window needs here; the offscreen one is what --self-test uses.
_NEEDED_QT_PLATFORMS: Final = {"linux": ("xcb",), "darwin": ("cocoa",), "win32": ("windows",)}
# Qt tries Wayland first on a Wayland session and falls back to xcb (XWayland) when the
# plugin cannot load (a system without libwayland-client, which we do not bundle): its
# failure is reported, not fatal.
_OPTIONAL_QT_PLATFORMS: Final = {"linux": ("wayland",)}


def _platform_key() -> str:
    return "linux" if sys.platform.startswith("linux") else sys.platform


def _load_platform_plugin(plugins_dir: Path, name: str) -> str | None:
    """Load one platform plugin; return None, or why it cannot be loaded."""
    from PySide6.QtCore import QPluginLoader

    candidates = sorted(plugins_dir.glob(f"*q{name}.*"))
    if not candidates:
        return f"not in {plugins_dir}"
    loader = QPluginLoader(str(candidates[0]))
    if not loader.load():
        return loader.errorString()
    return None


def check_qt() -> str:
    """Qt's platform plugins load, and the app icon renders from the shipped resources."""
    from PySide6.QtCore import QLibraryInfo
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    plugins_dir = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    loaded = []
    for name in (*_NEEDED_QT_PLATFORMS.get(_platform_key(), ()), "offscreen"):
        problem = _load_platform_plugin(plugins_dir, name)
        if problem is not None:
            raise SelfTestFailure(f"the Qt platform plugin {name!r} cannot load: {problem}")
        loaded.append(name)
    notes = []
    for name in _OPTIONAL_QT_PLATFORMS.get(_platform_key(), ()):
        problem = _load_platform_plugin(plugins_dir, name)
        if problem is None:
            loaded.append(name)
        else:
            notes.append(f"; {name} cannot load ({problem}), Qt will use xcb")
    # Qt needs an application object to render the icon. One made here is shut down again,
    # so a process that goes on (a test session) gets no left-over application.
    existing = QApplication.instance()
    app = existing or QApplication(
        [sys.argv[0] if sys.argv else "sammy-desktop", "-platform", "offscreen"]
    )
    try:
        icon_file = _resources_dir() / "icons" / "app.svg"
        if not icon_file.is_file():
            raise SelfTestFailure(f"the app icon is missing: {icon_file}")
        if QIcon(str(icon_file)).pixmap(64, 64).isNull():
            raise SelfTestFailure(
                f"the app icon does not render (SVG support missing): {icon_file}"
            )
    finally:
        if existing is None:
            app.shutdown()
    return (
        f"platform plugins {', '.join(loaded)} load{''.join(notes)}; "
        f"icon renders from {icon_file.parent}"
    )


def check_remote_control() -> str:
    """The remote commands' local socket library loads; on Linux the portal's D-Bus client.

    The first (QtNetwork) is how ``--toggle-talk`` and the other remote commands reach the
    app, the second (jeepney) how a Wayland desktop's shortcut talks and its screenshot
    portal shares the screen. Nothing listens here: a server needs a running Qt
    application, which the window's own start proves.
    """
    import importlib

    from PySide6.QtNetwork import QLocalServer

    server = QLocalServer()
    server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
    del server
    detail = "the control socket's library loads (QtNetwork)"
    if sys.platform.startswith("linux"):
        importlib.import_module("jeepney.io.asyncio")
        detail += f"; the portal's D-Bus client jeepney {importlib.metadata.version('jeepney')}"
    return detail


def check_sqlite() -> str:
    """SQLite loads and has the FTS5 full-text index the notes tool searches with."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(":memory:")) as connection:
        try:
            connection.execute("CREATE VIRTUAL TABLE probe USING fts5(body)")
        except sqlite3.OperationalError as error:
            raise SelfTestFailure(
                f"SQLite {sqlite3.sqlite_version} has no FTS5: {error}"
            ) from error
        connection.execute("INSERT INTO probe (body) VALUES ('the wifi password is on the fridge')")
        hits = connection.execute("SELECT count(*) FROM probe WHERE probe MATCH 'wifi'").fetchone()
    if hits != (1,):
        raise SelfTestFailure(f"FTS5 found {hits} instead of (1,)")
    return f"SQLite {sqlite3.sqlite_version} with FTS5"


def _resources_dir() -> Path:
    """Where ``resources/`` is: inside the bundle when frozen, beside the package otherwise."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parents[2] / "resources"


def sine_tone(frequency_hz: float, seconds: float, rate: int) -> bytes:
    """A PCM16 sine at 30 % of full scale: the echo check's signal, and the spoken turn's."""
    import numpy as np

    t = np.arange(round(seconds * rate)) / rate
    return (np.sin(2 * math.pi * frequency_hz * t) * 0.3 * 32767).astype("<i2").tobytes()


LOAD_CHECKS: Final[tuple[tuple[str, Callable[[], str]], ...]] = tuple(
    zip(
        LOAD_CHECK_NAMES,
        (
            check_ca_bundle,
            check_keyring,
            check_portaudio,
            check_audio_devices,
            check_echo_canceller,
            check_qt,
            check_remote_control,
            check_sqlite,
        ),
        strict=True,
    )
)
"""The install checks as (name, function) pairs, in the order they run and are reported."""
