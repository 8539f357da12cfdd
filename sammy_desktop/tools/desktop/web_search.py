"""Web search: the Live API's own Google Search grounding.

Google Search is not a function the app runs: it is declared as a ``googleSearch`` tool in
the session setup and the service searches by itself. :func:`search_tools` gives that
declaration when the person switched web search on in Settings (off by default: the
person's questions go to Google Search). What the service reports about a grounded answer
is part of the Live protocol and read by the core (``sammy_desktop.core.grounding``).
"""

from __future__ import annotations

from sammy_desktop.config import Settings
from sammy_desktop.live_sdk import types

__all__ = ["search_tools"]


def search_tools(settings: Settings) -> list[types.Tool]:
    """The Google Search tool for the session setup, or nothing when it is switched off.

    The core adds these to ``LiveConnectConfig.tools`` beside the function declarations:
    ``config.tools = manager.declarations(model) + search_tools(settings)``.
    """
    if not settings.google_search:
        return []
    return [types.Tool(google_search=types.GoogleSearch())]
