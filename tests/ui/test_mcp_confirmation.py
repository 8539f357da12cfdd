"""An MCP tool that may change things asks first on the window's sheet, naming its server;
no answer is no, and the server is never called; a yes runs it once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from google.genai import types
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import ToolManager, ToolServices
from sammy_desktop.tools.mcp import (
    McpConfigFile,
    McpServers,
    McpServerStatusChanged,
    ServerPolicy,
    ServerStatus,
)
from sammy_desktop.ui.confirmation import ConfirmationSheet, QtConfirmationPort
from sammy_desktop.ui.theme import ThemeController
from tests.helpers.mcp_servers import McpHttpServer, mcp_http_server_fixture  # noqa: F401
from tests.helpers.sheet import until_armed
from tests.tools.fakes import RecordingResponder


class NoSecrets:
    def get_secret(self, name: str) -> str | None:
        return None


def _response(responder: RecordingResponder) -> dict[str, Any]:
    [response] = responder.responses
    return dict(response.response or {})


def test_a_destructive_mcp_tool_asks_on_the_sheet_and_no_answer_is_no(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    theme: ThemeController,
    tmp_path: Path,
    mcp_http_server: McpHttpServer,
) -> None:
    bus = EventBus()
    port = QtConfirmationPort()
    host = QWidget()
    host.resize(420, 520)
    qtbot.addWidget(host)
    sheet = ConfirmationSheet(host, arm_delay_ms=0)
    port.attach(sheet)
    host.show()
    qtbot.waitExposed(host)
    settings = Settings()
    manager = ToolManager(
        bus,
        ToolServices(
            paths=AppPaths.profile(tmp_path / "profile"),
            settings=lambda: settings,
            transcript=list,
        ),
        load_entry_points=False,
        include_builtins=False,
        confirmer=port,
    )
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"files": {"url": mcp_http_server.url}}}))
    servers = McpServers(
        McpConfigFile(config),
        tools=manager,
        bus=bus,
        secrets=NoSecrets(),
        policy=ServerPolicy(confirm_timeout_s=0.5),
    )

    async def scenario() -> None:
        ready = asyncio.Event()
        bus.subscribe(
            McpServerStatusChanged,
            lambda e: ready.set() if e.status is ServerStatus.READY else None,
        )
        servers.start()
        try:
            await asyncio.wait_for(ready.wait(), 30)
            call = types.FunctionCall(
                id="c1", name="files__delete_file", args={"path": "/home/me/notes.txt"}
            )
            unanswered = RecordingResponder()
            handled = asyncio.ensure_future(
                manager.handle(types.LiveServerToolCall(function_calls=[call]), unanswered)
            )
            await until_armed(sheet)
            assert sheet.title_label.text() == "Delete a file (files)?"  # the server's title
            prompt = sheet.prompt_label.text()
            assert "The MCP server “files” wants to change things" in prompt
            assert "It may delete or overwrite things." in prompt
            assert "Path: /home/me/notes.txt" in sheet.arguments_label.text()
            await asyncio.wait_for(handled, 10)  # nobody answered within 0.5 s
            assert sheet.isHidden()
            error = _response(unanswered)["error"]
            assert "did not allow" in error["problems"][0]

            approved = RecordingResponder()
            again = types.FunctionCall(
                id="c2", name="files__delete_file", args={"path": "/home/me/notes.txt"}
            )
            handled = asyncio.ensure_future(
                manager.handle(types.LiveServerToolCall(function_calls=[again]), approved)
            )
            await until_armed(sheet)
            sheet.approve_button.click()
            await asyncio.wait_for(handled, 10)
            assert "deleted /home/me/notes.txt" in json.dumps(_response(approved))
        finally:
            await servers.aclose()
            await manager.aclose()

    qloop.run(scenario())
