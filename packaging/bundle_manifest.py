"""What goes into the PyInstaller bundle, in one place the spec, the hooks and the tests read.

Everything here is a plain constant so that a person can see, without running PyInstaller,
which resource files ship, which Qt modules and plugins are kept and which Python packages
are left out. ``tests/packaging/test_bundle_manifest.py`` checks the list against resources/
so a new icon or stylesheet cannot be forgotten silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath
from typing import Final

APP_NAME: Final = "sammy-desktop"
DISPLAY_NAME: Final = "Sammy Desktop"
BUNDLE_ID: Final = "org.sammy.SammyDesktop"
COMPANY: Final = "Sammy Desktop developers"
DESCRIPTION: Final = "Desktop voice assistant on the Gemini Live API"
MIC_USAGE: Final = (
    "Sammy listens to your microphone only while you hold the talk button (or, if you turned "
    "it on, while hands-free listening is active) and sends that audio to the Gemini Live API."
)

# Files under resources/ that ship, relative to resources/. They land in the bundle under
# ``resources/`` with the same relative path (``sys._MEIPASS/resources/...``), where
# sammy_desktop.ui.assets looks for them. Scripts that make resources (``*.py``) stay out.
RESOURCE_FILES: Final[tuple[str, ...]] = (
    "icons/alert.svg",
    "icons/app.svg",
    "icons/arrow-down-dark.svg",
    "icons/arrow-down-light.svg",
    "icons/arrow-up-dark.svg",
    "icons/arrow-up-light.svg",
    "icons/check.svg",
    "icons/chevron-down.svg",
    "icons/clock.svg",
    "icons/close.svg",
    "icons/eye.svg",
    "icons/flag.svg",
    "icons/info.svg",
    "icons/key.svg",
    "icons/leave.svg",
    "icons/mic-off.svg",
    "icons/mic.svg",
    "icons/monitor.svg",
    "icons/palette.svg",
    "icons/power.svg",
    "icons/refresh.svg",
    "icons/send.svg",
    "icons/settings.svg",
    "icons/share-screen.svg",
    "icons/shield.svg",
    "icons/sliders.svg",
    "icons/speaker.svg",
    "icons/stop.svg",
    "icons/tool.svg",
    "icons/tray-error.svg",
    "icons/tray-idle.svg",
    "icons/tray-listening.svg",
    "icons/tray-speaking.svg",
    "icons/tray-thinking.svg",
    "icons/user.svg",
    "icons/voice.svg",
    "sounds/listen_start.wav",
    "sounds/listen_stop.wav",
    "sounds/test_tone.wav",
    "sounds/timer_done.wav",
    "style/app.qss",
)
# The app icon's source; packaging/make_icons.py renders the PNG (Linux .desktop), ICO
# (Windows) and ICNS (macOS) from it at build time into build/icons/.
ICON_SOURCE: Final = "icons/app.svg"
ICON_BASENAME: Final = "sammy-desktop"

# The Qt modules the app imports. Every other PySide6 module is excluded outright. QtNetwork
# is the local socket remote commands reach the running app on (its TLS plugins stay out).
QT_MODULES_USED: Final[frozenset[str]] = frozenset(
    {"QtCore", "QtGui", "QtWidgets", "QtSvg", "QtNetwork"}
)

# Qt plugins kept, per plugin folder, by file stem without the "lib" prefix (the same stem on
# Linux, Windows and macOS). ``None`` keeps the whole folder; a folder missing here is dropped.
QT_PLUGINS_KEPT: Final[dict[str, frozenset[str] | None]] = {
    # xcb and wayland for Linux desktops, windows/cocoa for the others, offscreen for the
    # headless --self-test. eglfs, linuxfb, vnc, minimal are for kiosks and embedded boards.
    "platforms": frozenset({"qxcb", "qwayland", "qwindows", "qcocoa", "qoffscreen"}),
    # The portal theme gives native file dialogs through xdg-desktop-portal; the GTK3 theme
    # would drag GTK, GDK, cairo, pango and friends (about 20 MB) into the bundle.
    "platformthemes": frozenset({"qxdgdesktopportal"}),
    # Dead keys and IBus (CJK input) in text fields; the virtual keyboard is for kiosks.
    "platforminputcontexts": frozenset(
        {"composeplatforminputcontextplugin", "ibusplatforminputcontextplugin"}
    ),
    # PNG and BMP are built into QtGui; SVG for our icons, ICO for Windows icons.
    "imageformats": frozenset({"qsvg", "qico"}),
    "iconengines": frozenset({"qsvgicon"}),
    "xcbglintegrations": None,
    "wayland-decoration-client": None,
    "wayland-graphics-integration-client": None,
    "wayland-shell-integration": None,
    "styles": None,
    "accessiblebridge": None,
}

# Python packages that can be imported by something we use but are never needed at run time.
EXCLUDED_MODULES: Final[tuple[str, ...]] = (
    "tkinter",
    "_tkinter",
    "PyQt5",
    "PyQt6",
    "PySide2",
    "IPython",
    "matplotlib",
    # Pillow: google-genai imports it optionally (image parts); the app sends no images.
    # It is in the venv only as a benchmark dependency (matplotlib's).
    "PIL",
    "pytest",
    "_pytest",
    "pytestqt",
    "mypy",
    "ruff",
    "importlinter",
    "grimp",
    "pydoc_data",
    "lib2to3",
    "setuptools",
    "pkg_resources",
    "pip",
    # httpx2's command-line client (imported lazily by httpx2 for its CLI) and what it
    # brings: rich, pygments, markdown_it, click. pydantic uses rich only in a debug helper,
    # mcp only for its server's log handler (imported under try/except ImportError), and
    # click is also uvicorn's command line (uvicorn is left out below).
    "httpx2._main",
    "rich",
    "pygments",
    "markdown_it",
    "mdurl",
    "click",
    # A GUI app has no interactive prompt; it would bring libreadline and libtinfo.
    "readline",
    # numpy's optional subpackages (numpy imports them lazily, on first attribute access);
    # nothing in the app or its libraries uses them. numpy.random alone is 2.5 MB.
    "numpy.random",
    "numpy.fft",
    "numpy.polynomial",
    "numpy.ma",
    "numpy.ctypeslib",
    "numpy.f2py",
    "numpy.testing",
    "numpy.distutils",
    # HTTP through requests is only google-auth's and google-genai's way to fetch
    # Application Default Credentials (Vertex AI, service accounts, the metadata server) and
    # google-genai's local tokenizer; the app always passes an API key, and its HTTP and
    # websocket traffic goes through httpx2 and websockets. With them go urllib3 and
    # charset_normalizer (0.5 MB of native code): 1.0 MB.
    "requests",
    "urllib3",
    "charset_normalizer",
    # google-auth's signer for keys of the "rsa" package, which is not installed; its
    # cryptography signer is the one it uses. 0.2 MB.
    "pyasn1",
    "pyasn1_modules",
    # pydantic's v1 compatibility package (only `import pydantic.v1` loads it) and its mypy
    # plugin: 0.3 MB.
    "pydantic.v1",
    "pydantic.mypy",
    # pydoc is imported only by numpy's np.info(); _pydecimal only when the C _decimal
    # module is missing, and it ships.
    "pydoc",
    "_pydecimal",
    # websockets' trio client needs trio, which is not installed.
    "websockets.trio",
    # The MCP SDK's server-side packages that its client never loads. `from mcp import Client`
    # does import mcp's server side (mcp.client.client names Server and MCPServer at module
    # level), and with it starlette, sse-starlette and cryptography; opentelemetry-api is the
    # client's own (mcp.shared.jsonrpc_dispatcher), jsonschema checks tools' structured
    # results (imported on the first call of a tool with an output schema) and, in the app,
    # their arguments, httpx2 is the streamable HTTP transport: all of those ship. Left out
    # (tests/packaging/test_mcp_bundle.py runs a client session with these unimportable):
    # uvicorn, the ASGI server: mcp imports it only inside MCPServer's run_sse_async and
    # run_streamable_http_async (serving HTTP), sse-starlette only under try/except
    # ImportError (to hook uvicorn's shutdown); without click (above) `import uvicorn` fails
    # anyway. pyinstaller-hooks-contrib collects all 45 of its modules: 0.2 MB.
    "uvicorn",
    # python-multipart (and `multipart`, its old name, which it also installs): starlette's
    # form parser, imported under try/except ImportError; only an MCP server's OAuth
    # endpoints read forms. 0.04 MB.
    "python_multipart",
    "multipart",
    # PyJWT: only mcp.client.auth.extensions.client_credentials (OAuth's private_key_jwt
    # client authentication) imports it, which the app does not use; nothing collects it
    # today, and this keeps it so. pyjwt[crypto]'s other half, cryptography, ships.
    "jwt",
)

# Linux system libraries left out of the bundle: every desktop has them, and a bundled copy
# fights the system's own plugins and configuration: ALSA's pulse/pipewire plugins are built
# against the system's libasound, Mesa's GL drivers need the system's newest libstdc++, an
# older bundled fontconfig cannot read a newer /etc/fonts. The rest are their dependencies.
# libffi, OpenSSL and the xcb-util libraries stay in: their versions differ between
# distributions, or they are missing on some (libxcb-cursor).
LINUX_SYSTEM_LIBRARIES: Final[tuple[str, ...]] = (
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "libasound.so.2",
    "libfontconfig.so.1",
    "libfreetype.so.6",
    "libpng16.so.16",
    "libbrotlicommon.so.1",
    "libbrotlidec.so.1",
    "libexpat.so.1",
    "libz.so.1",
    "libglib-2.0.so.0",
    "libgthread-2.0.so.0",
    "libpcre2-8.so.0",
    "libdbus-1.so.3",
    "libsystemd.so.0",
    "libgcrypt.so.20",
    "libgpg-error.so.0",
    "libcap.so.2",
    "liblz4.so.1",
    "libzstd.so.1",
    "liblzma.so.5",
    "libbsd.so.0",
    "libmd.so.0",
    "libuuid.so.1",
    # Xlib itself (1.3 MB): on manylinux's list of libraries every Linux desktop has, and
    # the system's libxcb, which PyInstaller never bundles, comes with it.
    "libX11.so.6",
)

# ICU data (Qt's libicudata, 32 MB on Linux) left out by packaging/icu_data.py. QtCore calls
# only ICU's case mapping, converters (ucnv_*: QStringConverter's non-UTF encodings),
# collation (ucol_*: QCollator) and calendars/time zones (ucal_*: QTimeZone's names); those
# read the locale data (``*.res`` at the top), ``cnv``, ``coll``, ``zone`` and the
# normalization and property files, which all stay. The rest is read only by ICU services
# QtCore never calls. ``tree/`` drops a tree, ``*.ext`` every item with that extension.
ICU_DATA_DROPPED: Final[tuple[str, ...]] = (
    # Display names of languages, regions, currencies and units (uloc_getDisplayName,
    # ucurr_getName, MeasureFormat): 10.1 MB. Qt has its own CLDR data for those.
    "lang/",
    "region/",
    "curr/",
    "unit/",
    # Transliterators (utrans) 1.1 MB, spelled-out numbers (RBNF) 0.6 MB.
    "translit/",
    "rbnf/",
    # Break iterators (ubrk) and their CJK, Thai, Lao, Khmer and Burmese dictionaries:
    # 3.4 MB. Qt finds text boundaries with its own Unicode tables: no Qt library imports a
    # ubrk_ function.
    "brkitr/",
    # StringPrep profiles (IDNA2003), character names (u_charName), spoof checking: 0.5 MB.
    "*.spp",
    "unames.icu",
    "*.cfu",
)

# Qt's own translations are only used when the app installs a QTranslator, which it does
# not (the UI is English only for now): none are shipped.
SHIP_QT_TRANSLATIONS: Final = False


def is_excluded_module(name: str) -> bool:
    """Whether the module ``name`` is left out (it or a package above it is excluded)."""
    return any(name == excluded or name.startswith(f"{excluded}.") for excluded in EXCLUDED_MODULES)


def plugin_stem(file_name: str) -> str:
    """The platform-neutral name of a Qt plugin file (``libqxcb.so`` -> ``qxcb``)."""
    stem = file_name.split(".", 1)[0]
    return stem.removeprefix("lib")


def keep_qt_plugin(plugin_type: str, file_name: str) -> bool:
    """Whether the Qt plugin ``plugin_type/file_name`` ships."""
    if plugin_type not in QT_PLUGINS_KEPT:
        return False
    kept = QT_PLUGINS_KEPT[plugin_type]
    return kept is None or plugin_stem(file_name) in kept


def _plugin_location(dest_dir: str) -> str | None:
    """The plugin folder (``platforms``) of a destination like ``PySide6/Qt/plugins/platforms``."""
    parts = PurePath(dest_dir.replace("\\", "/")).parts
    if "plugins" in parts[:-1]:
        return parts[parts.index("plugins") + 1]
    return None


def _is_translation(dest_dir: str) -> bool:
    return PurePath(dest_dir.replace("\\", "/")).name == "translations"


def filter_qt_collection(
    hiddenimports: Iterable[str],
    binaries: Iterable[tuple[str, str]],
    datas: Iterable[tuple[str, str]],
) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
    """Narrow what PyInstaller's PySide6 hooks collect to what the app uses.

    Runs inside our overrides of those hooks (packaging/hooks/), before PyInstaller analyses
    the binaries' own dependencies, so a dropped plugin's libraries are never collected.
    """
    kept_imports = [
        name
        for name in hiddenimports
        if not name.startswith("PySide6.Qt") or name.split(".")[1] in QT_MODULES_USED
    ]
    kept_binaries = []
    for source, dest in binaries:
        plugin_type = _plugin_location(dest)
        if plugin_type is None or keep_qt_plugin(plugin_type, PurePath(source).name):
            kept_binaries.append((source, dest))
    kept_datas = [
        (source, dest)
        for source, dest in datas
        if SHIP_QT_TRANSLATIONS or not _is_translation(dest)
    ]
    return kept_imports, kept_binaries, kept_datas
