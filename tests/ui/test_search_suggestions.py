"""Google Search suggestions (R10): the searches behind a grounded answer, as chips under it.

Driven through the real bus and bridge into the main window; the browser is a recorder.
"""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from sammy_desktop.core.events import GroundingSourcesFound, Speaker, TranscriptUpdated
from sammy_desktop.core.grounding import GroundingSource
from sammy_desktop.eventbus import EventBus
from sammy_desktop.ui.main_window import MainWindow
from sammy_desktop.ui.search_suggestions import SearchSuggestions, google_search_url

from .conftest import MakeWindow

ENTRY_POINT = '<style>.chip{}</style><div class="chip"><a href="x">tokyo weather</a></div>'
TOKYO = GroundingSource("Weather in Tokyo", "https://example.com/tokyo", "example.com")


class Browser:
    """Stands in for QDesktopServices.openUrl: keeps what it was asked to open."""

    def __init__(self) -> None:
        self.opened: list[QUrl] = []

    def open_url(self, url: QUrl) -> bool:
        self.opened.append(url)
        return True


@pytest.fixture
def browser() -> Browser:
    return Browser()


@pytest.fixture
def window(qtbot: QtBot, make_window: MakeWindow, browser: Browser) -> MainWindow:
    window = make_window(open_url=browser.open_url)
    window.show()
    qtbot.waitExposed(window)
    return window


def _grounded(
    turn_id: int, *queries: str, sources: tuple[GroundingSource, ...] = (TOKYO,)
) -> GroundingSourcesFound:
    return GroundingSourcesFound(
        turn_id=turn_id, sources=sources, queries=queries, search_entry_point=ENTRY_POINT
    )


def _suggestions(window: MainWindow, turn_id: int) -> SearchSuggestions:
    suggestions = window.transcript.search_suggestions(turn_id)
    assert suggestions is not None
    return suggestions


def test_the_searches_show_as_chips_under_the_answer_beside_the_sources(
    qtbot: QtBot, window: MainWindow, bus: EventBus, browser: Browser
) -> None:
    bus.emit(TranscriptUpdated(Speaker.ASSISTANT, "It's 12 degrees.", final=True, turn_id=3))
    bus.emit(_grounded(3, "tokyo weather", "tokyo weather tomorrow"))
    suggestions = _suggestions(window, 3)
    qtbot.waitUntil(suggestions.isVisible)
    assert suggestions.title.text() == "Google Search suggestions"
    assert [chip.text() for chip in suggestions.chips()] == [
        "tokyo weather",
        "tokyo weather tomorrow",
    ]
    # Under the answer, in one block with the sources line.
    sources = window.transcript.sources_line(3)
    assert sources is not None and not sources.isHidden() and ">example.com</a>" in sources.text()
    assert sources.parent() is suggestions.parent()
    answer = window.transcript.line(3, Speaker.ASSISTANT)
    assert answer is not None
    block = suggestions.parentWidget()
    assert block is not None
    assert (
        block.mapTo(window, block.rect().topLeft()).y()
        > answer.mapTo(window, answer.rect().topLeft()).y()
    )

    suggestions.chips()[1].click()
    (url,) = browser.opened
    assert url.toString(QUrl.ComponentFormattingOption.FullyEncoded) == (
        "https://www.google.com/search?q=tokyo+weather+tomorrow"
    )


def test_a_query_opens_exactly_its_search_and_shows_as_written(
    qtbot: QtBot, window: MainWindow, bus: EventBus, browser: Browser
) -> None:
    query = "c++ & rust <b>#1</b>"
    bus.emit(_grounded(1, query))
    (chip,) = _suggestions(window, 1).chips()
    # A button reads "&" as a mnemonic; doubled, it shows as one "&" and makes no shortcut.
    assert chip.text() == "c++ && rust <b>#1</b>"
    assert chip.accessibleName() == f"Search Google for {query}"
    chip.click()
    (url,) = browser.opened
    assert (url.scheme(), url.host(), url.path()) == ("https", "www.google.com", "/search")
    assert parse_qs(url.query(QUrl.ComponentFormattingOption.FullyEncoded)) == {"q": [query]}
    assert google_search_url(query) == url


def test_repeated_grounding_adds_only_new_searches_and_each_turn_has_its_own(
    window: MainWindow, bus: EventBus
) -> None:
    bus.emit(_grounded(1, "tokyo weather"))
    bus.emit(_grounded(1, "tokyo weather", "tokyo rain"))
    bus.emit(_grounded(2, "paris weather"))
    assert _suggestions(window, 1).queries == ["tokyo weather", "tokyo rain"]
    assert _suggestions(window, 2).queries == ["paris weather"]
    assert window.transcript.sources_line(1) is not window.transcript.sources_line(2)
    assert len(window.transcript.findChildren(QPushButton, "searchSuggestion")) == 3


def test_searches_without_a_page_show_no_empty_sources_line(
    qtbot: QtBot, window: MainWindow, bus: EventBus
) -> None:
    bus.emit(_grounded(1, "tokyo weather", sources=()))
    suggestions = _suggestions(window, 1)
    qtbot.waitUntil(suggestions.isVisible)
    sources = window.transcript.sources_line(1)
    assert sources is not None and sources.isHidden()
    # Pages without searches: the sources line alone, no empty suggestions row.
    bus.emit(GroundingSourcesFound(turn_id=2, sources=(TOKYO,), queries=()))
    assert _suggestions(window, 2).isHidden()
    assert _suggestions(window, 2).chips() == []


def test_many_searches_wrap_into_rows_within_the_transcript(
    qtbot: QtBot, window: MainWindow, bus: EventBus
) -> None:
    queries = [f"weather in city number {n} this weekend" for n in range(6)]
    bus.emit(_grounded(1, *queries))
    suggestions = _suggestions(window, 1)
    chips = suggestions.chips()

    def wrapped() -> bool:
        return suggestions.isVisible() and len({chip.y() for chip in chips}) > 1

    qtbot.waitUntil(wrapped)
    area = chips[0].parentWidget()
    assert area is not None
    for chip in chips:
        assert chip.isVisible()
        assert chip.x() >= 0 and chip.geometry().right() <= area.width()
    # The rows do not overlap: the block is tall enough for all of them.
    assert max(chip.geometry().bottom() for chip in chips) <= area.height()
