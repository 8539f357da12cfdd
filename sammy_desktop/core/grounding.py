"""What the service says about answers grounded in a Google Search: sources and queries.

The Live API attaches ``groundingMetadata`` to the server content of a grounded answer
(web chunks with a title and an address, the searches the model ran). This is part of the
Live protocol, not of any tool pack: the pack only switches Google Search on in the setup.
:func:`grounding_sources` reads it out of one message; :class:`GroundingReporter` announces it
once per turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sammy_desktop.live_sdk import types

__all__ = ["GroundingReporter", "GroundingSource", "GroundingSummary", "grounding_sources"]


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
        queries: the web searches the model ran (the Search Suggestions to show).
        search_entry_point: the service's own Search Suggestions snippet (HTML), which the
            terms require to be shown with a grounded answer (docs/live-service.md R10).
    """

    sources: tuple[GroundingSource, ...]
    queries: tuple[str, ...]
    search_entry_point: str | None = None


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
    entry = metadata.search_entry_point
    rendered = entry.rendered_content if entry is not None else None
    if not sources and not queries and not rendered:
        return None
    return GroundingSummary(
        sources=tuple(sources.values()), queries=queries, search_entry_point=rendered or None
    )


class GroundingReporter:
    """Announces each turn's grounding once: the service repeats the metadata of a turn.

    Args:
        emit: called with ``(turn_id, summary)`` for each new summary.
    """

    def __init__(self, emit: Callable[[int, GroundingSummary], None]) -> None:
        self._emit = emit
        self._last: tuple[int, GroundingSummary] | None = None

    def reset(self) -> None:
        """A new session: nothing reported yet."""
        self._last = None

    def report(self, turn_id: int, content: types.LiveServerContent) -> None:
        """Announce the grounding in ``content`` unless it repeats the last one of the turn."""
        summary = grounding_sources(types.LiveServerMessage(server_content=content))
        if summary is None or self._last == (turn_id, summary):
            return
        self._last = (turn_id, summary)
        self._emit(turn_id, summary)
