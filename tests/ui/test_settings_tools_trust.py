"""Settings > Tools, what the person trusts (issue 18): where each tool comes from (a
plugin's start off), the session's "always" answers with Revoke, and tool text as written."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from sammy_desktop.config import AppPaths
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import (
    ENTRY_POINT_GROUP,
    ConfirmationRequest,
    ToolContext,
    ToolManager,
    ToolServices,
    tool,
)
from sammy_desktop.ui.confirmation import ConfirmationSheet, Grant, QtConfirmationPort
from sammy_desktop.ui.settings.session_grants import NO_GRANTS
from sammy_desktop.ui.settings_state import SettingsState
from tests.helpers.sheet import until_armed
from tests.ui.conftest import MakeSettingsWindow


class Nothing(BaseModel):
    pass


@tool(
    name="markupTool",
    description="<b>Bold</b> claim<!-- hidden part --> about what it does.\nMore lines.",
)
async def markup_tool(args: Nothing, context: ToolContext) -> Nothing:
    return Nothing()


@pytest.fixture
def manager(bus: EventBus, settings_state: SettingsState, tmp_path: Path) -> ToolManager:
    services = ToolServices(
        paths=AppPaths.profile(tmp_path / "profile"),
        settings=lambda: settings_state.settings,
        transcript=lambda: (),
    )
    plugin = EntryPoint(
        name="convert_units", value="sammy_example_plugin:convert_units", group=ENTRY_POINT_GROUP
    )
    return ToolManager(bus, services, tools=[markup_tool], plugin_entry_points=[plugin])


@pytest.fixture
def port(qtbot: QtBot) -> Iterator[QtConfirmationPort]:
    port = QtConfirmationPort()
    yield port
    port.forget_session()


def _build(make: MakeSettingsWindow, **options: Any) -> Any:
    return make(list_devices=list, on_test_tone=lambda: None, **options)


def test_a_plugins_tool_says_where_it_comes_from_and_starts_off(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow, manager: ToolManager
) -> None:
    window = _build(make_settings_window, tools=manager)
    page = window.tools_page
    assert page.plugin_labels["convertUnits"].text() == "from plugin unknown package"
    assert "markupTool" not in page.plugin_labels  # the application's own tools say nothing
    assert not page.tool_switches["convertUnits"].isChecked()
    assert page.tool_switches["markupTool"].isChecked()


def test_tool_names_and_descriptions_are_shown_as_written(
    qloop: asyncio.Runner, make_settings_window: MakeSettingsWindow, manager: ToolManager
) -> None:
    window = _build(make_settings_window, tools=manager)
    shown = [
        label
        for label in window.tools_page.findChildren(QLabel)
        if "<b>" in label.text() or "<!--" in label.text()
    ]
    assert shown, "the description should be on the page"
    for label in shown:
        assert label.textFormat() is Qt.TextFormat.PlainText


def test_the_sessions_always_answers_are_listed_and_revoked(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    manager: ToolManager,
    port: QtConfirmationPort,
) -> None:
    window = _build(make_settings_window, tools=manager, confirmations=port)
    grants = window.tools_page.session_grants
    assert grants is not None
    assert grants.empty_label.text() == NO_GRANTS and not grants.empty_label.isHidden()

    sheet = ConfirmationSheet(window, arm_delay_ms=0)
    port.attach(sheet)
    request = ConfirmationRequest(
        call_id="c1",
        tool_name="openUrl",
        prompt="Open this page?",
        arguments={},
        timeout_s=30,
        target="example.com",
        title="Open a web page",
    )

    async def scenario() -> None:
        pending = asyncio.ensure_future(port.confirm(request))
        await until_armed(sheet)
        sheet.always_button.click()
        assert await pending is True

    qloop.run(scenario())
    grant = Grant("openUrl", "example.com")
    assert list(grants.revoke_buttons) == [grant]
    assert grants.empty_label.isHidden()
    labels = [label.text() for label in grants.findChildren(QLabel)]
    assert "Open a web page: example.com" in labels

    grants.revoke_buttons[grant].click()
    assert port.grants == ()
    qtbot.waitUntil(lambda: not grants.empty_label.isHidden(), timeout=2000)
    assert grants.revoke_buttons == {}
