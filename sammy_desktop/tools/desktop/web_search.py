"""Web search: the Live API's own Google Search grounding, and the sources it reports.

Google Search is not a function the app runs: it is declared as a ``googleSearch`` tool in
the session setup and the service searches by itself. :func:`search_tools` gives that
declaration when the person switched web search on in Settings (off by default: the
person's questions go to Google Search). When the model grounded an answer, the server's
content carries ``groundingMetadata``; :func:`grounding_sources` picks out the pages so the
transcript can show where the answer came from.
"""

from __future__ import annotations

from dataclasses import dataclass

from sammy_desktop.config import Settings
from sammy_desktop.live_sdk import types

__all__ = ["GroundingSource", "GroundingSummary", "grounding_sources", "search_tools"]


def search_tools(settings: Settings) -> list[types.Tool]:
    """The Google Search tool for the session setup, or nothing when it is switched off.

    The core adds these to ``LiveConnectConfig.tools`` beside the function declarations:
    ``config.tools = manager.declarations(model) + search_tools(settings)``.
    """
    if not settings.google_search:
        return []
    return [types.Tool(google_search=types.GoogleSearch())]


@dataclass(frozen=True, slots=True)
class GroundingSource:
    """One web page an answer was grounded in.

    Attributes:
        title: the page's title (or its domain when the service gives no title).
        uri: the address to open; for Google Search this is usually a redirect link.
        domain: the site's domain, when the service says.
    """

    title: str
    uri: str
    domain: str | None = None


@dataclass(frozen=True, slots=True)
class GroundingSummary:
    """What a server message says about a grounded answer.

    Attributes:
        sources: the pages, in the service's order, without duplicates.
        queries: the web searches the model ran.
    """

    sources: tuple[GroundingSource, ...]
    queries: tuple[str, ...]


def grounding_sources(message: types.LiveServerMessage) -> GroundingSummary | None:
    """The grounding sources and search queries in ``message``, None when it has none.

    Only web chunks with an address are kept; repeated addresses appear once.
    """
    content = message.server_content
    metadata = content.grounding_metadata if content is not None else None
    if metadata is None:
        return None
    sources: dict[str, GroundingSource] = {}
    for chunk in metadata.grounding_chunks or ():
        web = chunk.web
        if web is None or not web.uri or web.uri in sources:
            continue
        title = (web.title or web.domain or web.uri).strip()
        sources[web.uri] = GroundingSource(title=title, uri=web.uri, domain=web.domain)
    queries = tuple(query for query in metadata.web_search_queries or () if query)
    if not sources and not queries:
        return None
    return GroundingSummary(sources=tuple(sources.values()), queries=queries)
