"""The desktop tool pack in one call: :func:`desktop_tools` for the composition root.

Wiring, in the app's composition root (the UI objects implement the ports)::

    timers = TimerService(bus, notifier=tray_notifier)         # once, for the app's life
    manager = ToolManager(
        bus, services, confirmer=dialogs, state=agent.snapshot,
        tools=desktop_tools(timers=timers, clipboard=qt_clipboard),
    )
    agent = AgentCore(
        ..., tools=manager,
        extra_tools=service_tools,  # Google Search, code execution, beside the functions
    )
    # at quit: timers.shutdown() first (the core records TimersRunningAtQuit in the
    # session's history), then await agent.stop()

"Always this session" (readClipboard) is the confirmation port's memory: call
``QtConfirmationPort.forget_session()`` when a new conversation starts. A timer that ends
with no call open emits ``AnnouncementPending``; the core tells the model at the next quiet
moment.
"""

from __future__ import annotations

from typing import Any

from sammy_desktop.config import Settings
from sammy_desktop.live_sdk import types
from sammy_desktop.tools.definition import ToolDefinition
from sammy_desktop.tools.desktop.clipboard import clipboard_tools
from sammy_desktop.tools.desktop.code_execution import code_execution_tools
from sammy_desktop.tools.desktop.date_time import get_date_time
from sammy_desktop.tools.desktop.links import link_tools
from sammy_desktop.tools.desktop.notes import note_tools
from sammy_desktop.tools.desktop.ports import ApplicationLauncher, ClipboardPort
from sammy_desktop.tools.desktop.timers import TimerService, timer_tools
from sammy_desktop.tools.desktop.web_search import search_tools

__all__ = ["desktop_tools", "service_tools"]


def desktop_tools(
    *,
    timers: TimerService,
    clipboard: ClipboardPort | None,
    launcher: ApplicationLauncher | None = None,
) -> list[ToolDefinition[Any, Any]]:
    """Every tool of the pack, in the order the settings pane lists them.

    Args:
        timers: the app's timer service (created once; it outlives sessions).
        clipboard: the UI's clipboard; None makes the clipboard tools say it is missing.
        launcher: starts allowed applications; a subprocess launcher when None.

    Returns:
        getDateTime, setTimer, listTimers, cancelTimer, addNote, searchNotes, deleteNote,
        readClipboard, writeClipboard, openUrl, openApplication.
    """
    return [
        get_date_time,
        *timer_tools(timers),
        *note_tools(),
        *clipboard_tools(clipboard),
        *link_tools(launcher),
    ]


def service_tools(settings: Settings) -> list[types.Tool]:
    """The service's own tools for the setup, beside the functions.

    Google Search and code execution, each only when switched on, and code execution only
    where the model offers it.
    """
    return [*search_tools(settings), *code_execution_tools(settings)]
