"""The desktop tool pack: time, timers, notes, clipboard, links and apps, web search.

Register it in the composition root with one line::

    ToolManager(bus, services, tools=desktop_tools(timers=..., clipboard=...))

The ports the UI implements (:class:`ClipboardPort`, :class:`DesktopNotifier`,
:class:`ApplicationLauncher`) keep Qt out of this package. Google Search is not a
function tool: :func:`search_tools` gives its declaration for the session setup.
"""

from sammy_desktop.tools.desktop.clipboard import clipboard_tools
from sammy_desktop.tools.desktop.code_execution import (
    CODE_EXECUTION_UNAVAILABLE,
    code_execution_available,
    code_execution_tools,
)
from sammy_desktop.tools.desktop.date_time import get_date_time, resolve_zone
from sammy_desktop.tools.desktop.events import (
    TimerCancelled,
    TimerFired,
    TimerInfo,
    TimersRunningAtQuit,
    TimerStarted,
    TimerStatus,
)
from sammy_desktop.tools.desktop.links import (
    ALLOWED_URL_SCHEMES,
    SubprocessLauncher,
    check_url,
    link_tools,
)
from sammy_desktop.tools.desktop.note_store import Note, NoteHit, NoteStore, notes_folder
from sammy_desktop.tools.desktop.notes import note_tools
from sammy_desktop.tools.desktop.pack import desktop_tools, service_tools
from sammy_desktop.tools.desktop.ports import (
    ApplicationLauncher,
    ClipboardPort,
    DesktopNotifier,
    Earcon,
)
from sammy_desktop.tools.desktop.timers import (
    TimerService,
    parse_duration,
    timer_tools,
)
from sammy_desktop.tools.desktop.web_search import search_tools

__all__ = [
    "ALLOWED_URL_SCHEMES",
    "CODE_EXECUTION_UNAVAILABLE",
    "ApplicationLauncher",
    "ClipboardPort",
    "DesktopNotifier",
    "Earcon",
    "Note",
    "NoteHit",
    "NoteStore",
    "SubprocessLauncher",
    "TimerCancelled",
    "TimerFired",
    "TimerInfo",
    "TimerService",
    "TimerStarted",
    "TimerStatus",
    "TimersRunningAtQuit",
    "check_url",
    "clipboard_tools",
    "code_execution_available",
    "code_execution_tools",
    "desktop_tools",
    "get_date_time",
    "link_tools",
    "note_tools",
    "notes_folder",
    "parse_duration",
    "resolve_zone",
    "search_tools",
    "service_tools",
    "timer_tools",
]
