"""The Qt URL opener opens only web pages and mail addresses."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QUrl

from sammy_desktop.tools.context import UrlOpener
from sammy_desktop.ui.url_opener import QtUrlOpener


def test_only_web_and_mail_urls_are_opened() -> None:
    opened: list[str] = []

    def record(url: QUrl) -> bool:
        opened.append(url.toString())
        return True

    opener = QtUrlOpener(record)
    assert isinstance(opener, UrlOpener)

    async def scenario() -> list[bool]:
        return [
            await opener.open_url("https://example.com/help"),
            await opener.open_url("mailto:help@example.com"),
            await opener.open_url("file:///etc/passwd"),
            await opener.open_url("javascript:alert(1)"),
            await opener.open_url("not a url at all"),
        ]

    assert asyncio.run(scenario()) == [True, True, False, False, False]
    assert opened == ["https://example.com/help", "mailto:help@example.com"]


def test_a_refusal_by_the_desktop_is_reported() -> None:
    opener = QtUrlOpener(lambda _url: False)
    assert asyncio.run(opener.open_url("https://example.com")) is False
