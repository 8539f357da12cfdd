"""Settings > Tools, MCP servers (issue 19): a group per server of mcp.json with its status,
its tools' switches, its confirm policy, Restart and Remove; Add server; Import from Claude
Desktop; the file's problems, with the other servers still shown.

Real parts: a real ``McpServers`` over a real ``mcp.json`` in ``tmp_path``, a real
``ToolManager``, the real bus and bridge; the server that becomes ready is the official
``mcp-server-time`` over stdio, the one that fails a program that does not exist. Statuses
no real server can be made to show on demand (restarting in 4 s) are emitted on the bus.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import keyring
import pytest
from pydantic import BaseModel
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit
from pytestqt.qtbot import QtBot

from sammy_desktop.config import AppPaths, Theme
from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import ToolContext, ToolManager, ToolServices, tool
from sammy_desktop.tools.mcp import (
    ConfirmPolicy,
    McpConfigFile,
    McpServers,
    McpServerStatusChanged,
    ServerPolicy,
    ServerStatus,
)
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import UiTasks
from sammy_desktop.ui.settings import SettingsSection, SettingsWindow
from sammy_desktop.ui.settings.mcp_add_dialog import (
    AddServerDialog,
    describe_command,
    split_command_line,
)
from sammy_desktop.ui.settings.mcp_import import ClashChoice, ImportClashDialog
from sammy_desktop.ui.settings.mcp_servers import (
    MCP_INVITATION,
    McpSection,
    McpServerCard,
    McpServerGroup,
)
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.theme import ThemeController
from tests.helpers.events import EventLog

from .conftest import FakeAgent, MakeSettingsWindow, Picture, wait_until

TIME_SERVER: dict[str, Any] = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
"""The official time server from PyPI, over stdio: get_current_time and convert_time."""

MISSING_PROGRAM: dict[str, Any] = {"command": "sammy-no-such-mcp-server"}
"""A server whose program does not exist: it fails at once, for good."""

FAST = ServerPolicy(
    start_timeout_s=20.0,
    ping_every_s=5.0,
    ping_timeout_s=5.0,
    first_retry_s=0.05,
    max_retry_s=0.2,
    attempts_before_failed=2,
    stop_timeout_s=6.0,
)


class Nothing(BaseModel):
    pass


@tool(name="ownTool", description="A tool of Sammy's own.")
async def own_tool(args: Nothing, context: ToolContext) -> Nothing:
    return Nothing()


class Secrets(dict[str, str]):
    """Secrets by name, the shape ``SecretStore.get_secret`` has (the real one: keyring tests)."""

    def get_secret(self, name: str) -> str | None:
        return self.get(name)


@pytest.fixture
def events(bus: EventBus) -> EventLog:
    return EventLog(bus)


@pytest.fixture
def manager(bus: EventBus, settings_state: SettingsState, tmp_path: Path) -> ToolManager:
    services = ToolServices(
        paths=AppPaths.profile(tmp_path / "profile"),
        settings=lambda: settings_state.settings,
        transcript=lambda: (),
    )
    return ToolManager(bus, services, tools=[own_tool])


@pytest.fixture
def mcp_file(tmp_path: Path) -> Path:
    path = tmp_path / "config" / "mcp.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


MakeServers = Callable[..., McpServers]


@pytest.fixture
def make_servers(
    qloop: asyncio.Runner, bus: EventBus, manager: ToolManager, mcp_file: Path
) -> Iterator[MakeServers]:
    """``make_servers({"time": TIME_SERVER}, raw=None, secrets=None)``: mcp.json written and
    the servers object over it (not started); every one made is stopped at the end."""
    made: list[McpServers] = []

    def make(
        servers: Mapping[str, Any] | None = None,
        *,
        raw: str | None = None,
        secrets: Any = None,
    ) -> McpServers:
        if raw is not None:
            mcp_file.write_text(raw, encoding="utf-8")
        elif servers is not None:
            mcp_file.write_text(json.dumps({"mcpServers": dict(servers)}), encoding="utf-8")
        running = McpServers(
            McpConfigFile(mcp_file),
            tools=manager,
            bus=bus,
            secrets=secrets if secrets is not None else Secrets(),
            policy=FAST,
        )
        made.append(running)
        return running

    yield make
    for running in made:
        qloop.run(running.aclose())


def _window(
    make: MakeSettingsWindow,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    servers: McpServers,
    **options: Any,
) -> SettingsWindow:
    window = make(
        tools=manager,
        controls=agent,
        bridge=bridge,
        mcp=servers,
        list_devices=list,
        on_test_tone=lambda: None,
        **options,
    )
    window.show_section(SettingsSection.TOOLS)
    return window


def _section(window: SettingsWindow) -> McpSection:
    section = window.tools_page.mcp
    assert section is not None
    return section


def _file(path: Path, *, missing_ok: bool = False) -> dict[str, Any]:
    """The ``mcpServers`` of ``mcp.json`` (none when there is no file and that is fine)."""
    if missing_ok and not path.exists():
        return {}
    servers = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]
    assert isinstance(servers, dict)
    return servers


def _policy(group: McpServerGroup) -> ConfirmPolicy:
    """What its list shows, read through a call so mypy does not narrow it between steps."""
    return group.card.confirm_policy


def _asking(card: McpServerCard) -> bool:
    """Whether it asks "Remove …?" now (read through a call, as :func:`_policy`)."""
    return card.asking_to_remove


async def _until(events: EventLog, server: str, status: ServerStatus) -> McpServerStatusChanged:
    return await events.wait_for(
        McpServerStatusChanged,
        lambda e: e.server == server and e.status is status,
        within_s=30,
    )


# ---------------------------------------------------------------------------------- statuses


def test_each_server_is_a_group_with_its_status_where_it_runs_and_its_tools(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    events: EventLog,
) -> None:
    servers = make_servers({"time": TIME_SERVER, "broken": MISSING_PROGRAM})
    window = _window(make_settings_window, manager, agent, bridge, servers)
    section = _section(window)

    async def scenario() -> None:
        servers.start()
        await _until(events, "time", ServerStatus.READY)
        await _until(events, "broken", ServerStatus.FAILED)

    qloop.run(scenario())
    assert list(section.groups) == ["time", "broken"]
    time_group, broken_group = section.groups["time"], section.groups["broken"]
    assert time_group.title.text() == "MCP server “time”"
    assert time_group.card.status_text == "Ready with 2 tools"
    assert time_group.card.dot.tone == "speaking"
    assert time_group.card.where_label.text() == f"Runs {sys.executable} -m mcp_server_time"
    assert time_group.card.failure_label.isHidden()
    assert set(time_group.tool_cards) == {"time__get_current_time", "time__convert_time"}
    assert all(switch.isChecked() for switch in time_group.tool_switches.values())
    titles = [label.text() for label in time_group.findChildren(QLabel, "fieldTitle")]
    assert "Get current time" in titles  # the group names the server; the title does not
    # The server's tools are its group's, not repeated among Sammy's own by category.
    assert "ownTool" in window.tools_page.tool_switches
    assert not any(name.startswith("time__") for name in window.tools_page.tool_switches)

    assert broken_group.card.status_text == "Failed"
    assert broken_group.card.dot.tone == "error"
    reason = broken_group.card.failure_label.text()
    assert not broken_group.card.failure_label.isHidden()
    assert reason.startswith("The program 'sammy-no-such-mcp-server' was not found")
    assert broken_group.tool_cards == {}
    assert section.invitation.isHidden()
    assert section.problems_card.isHidden()


def test_the_status_follows_the_servers_events(
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    bus: EventBus,
) -> None:
    servers = make_servers({"home": {"url": "https://home.example/mcp"}})
    servers.reload()  # read, not started: the statuses below come from the bus
    window = _window(make_settings_window, manager, agent, bridge, servers)
    card = _section(window).groups["home"].card
    assert card.status_text == "Waiting to start"
    assert card.where_label.text() == "At https://home.example/mcp"
    assert not card.restart_button.isEnabled()  # nothing runs yet to restart

    where = "https://home.example/mcp"
    bus.emit(McpServerStatusChanged("home", ServerStatus.STARTING, where=where))
    assert card.status_text == "Starting…"
    assert card.dot.tone == "thinking"
    bus.emit(
        McpServerStatusChanged(
            "home",
            ServerStatus.RESTARTING,
            detail="it stopped answering (no answer to a ping in 10 s)",
            retry_in_s=4.0,
            where=where,
        )
    )
    assert card.status_text == "Restarting in 4 s"
    assert card.reason_label.text() == "It stopped answering (no answer to a ping in 10 s)."
    assert not card.reason_label.isHidden() and card.failure_label.isHidden()
    assert "Restarting in 4 s" in card.accessibleName()
    bus.emit(McpServerStatusChanged("home", ServerStatus.READY, tools=("home__a",), where=where))
    assert card.status_text == "Ready with 1 tool"
    assert card.reason_label.isHidden()
    bus.emit(McpServerStatusChanged("home", ServerStatus.STOPPED, where=where))
    assert card.status_text == "Stopped"
    assert card.dot.tone == "idle"


# ---------------------------------------------------------------------------------- changes


def test_a_tool_switch_is_saved_and_reaches_the_conversation(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    events: EventLog,
    settings_state: SettingsState,
    tasks: UiTasks,
) -> None:
    servers = make_servers({"time": TIME_SERVER})
    window = _window(make_settings_window, manager, agent, bridge, servers)

    async def scenario() -> None:
        servers.start()
        await _until(events, "time", ServerStatus.READY)
        switch = _section(window).groups["time"].tool_switches["time__convert_time"]
        switch.click()
        await tasks.join()

    qloop.run(scenario())
    assert agent.tool_switches == [("time__convert_time", False)]
    assert settings_state.settings.enabled_tools["time__convert_time"] is False
    assert not manager.is_enabled("time__convert_time")
    assert manager.is_enabled("time__get_current_time")


def test_restart_starts_the_server_again(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    events: EventLog,
) -> None:
    servers = make_servers({"time": TIME_SERVER})
    window = _window(make_settings_window, manager, agent, bridge, servers)
    shown: list[str] = []

    async def scenario() -> None:
        servers.start()
        await _until(events, "time", ServerStatus.READY)
        card = _section(window).groups["time"].card
        bridge.mcp_server_status_changed.connect(lambda _event: shown.append(card.status_text))
        assert card.restart_button.isEnabled()
        card.restart_button.click()
        await _until(events, "time", ServerStatus.RESTARTING)
        await events.wait_for(
            McpServerStatusChanged,
            lambda e: e.server == "time" and e.status is ServerStatus.READY,
            count=2,
            within_s=30,
        )

    qloop.run(scenario())
    assert shown[0].startswith("Restarting")
    assert shown[-1] == "Ready with 2 tools"
    assert _section(window).groups["time"].card.reason_label.isHidden()


def test_the_confirm_list_writes_mcp_json_and_the_tools_follow(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    events: EventLog,
    mcp_file: Path,
) -> None:
    servers = make_servers({"time": TIME_SERVER})
    window = _window(make_settings_window, manager, agent, bridge, servers)

    async def scenario() -> None:
        servers.start()
        await _until(events, "time", ServerStatus.READY)
        group = _section(window).groups["time"]
        combo = group.card.confirm_combo
        words = [combo.itemText(i) for i in range(combo.count())]
        assert words == [
            "Ask before anything that may change things",
            "Always ask",
            "Never ask",
        ]
        assert _policy(group) is ConfirmPolicy.UNLESS_READ_ONLY
        # mcp-server-time marks its tools read-only: nothing asks first by default.
        assert all(card.asks_first_label is None for card in group.tool_cards.values())

        combo.setCurrentIndex(words.index("Always ask"))
        assert _file(mcp_file)["time"]["confirm"] == "always"
        assert _policy(group) is ConfirmPolicy.ALWAYS
        assert all(card.asks_first_label is not None for card in group.tool_cards.values())
        assert all(tool.asks_first for tool in servers.tools_of("time"))

        combo.setCurrentIndex(words.index("Ask before anything that may change things"))
        assert "confirm" not in _file(mcp_file)["time"]  # the default is left out
        assert not any(tool.asks_first for tool in servers.tools_of("time"))

    qloop.run(scenario())


def test_remove_asks_first_then_the_server_and_its_tools_go(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    events: EventLog,
    mcp_file: Path,
) -> None:
    servers = make_servers({"time": TIME_SERVER, "other": {"url": "https://other.example/mcp"}})
    servers.reload()
    window = _window(make_settings_window, manager, agent, bridge, servers)
    section = _section(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)

    async def scenario() -> None:
        servers.start()
        await _until(events, "time", ServerStatus.READY)
        card = section.groups["time"].card
        card.remove_button.click()
        assert _asking(card)
        assert "Remove “time” from mcp.json?" in card.remove_question.text()
        # Cancel has the focus: Space or Enter does not remove it by accident.
        assert QApplication.focusWidget() is card.cancel_remove_button
        card.cancel_remove_button.click()
        assert not _asking(card)
        assert QApplication.focusWidget() is card.remove_button
        assert set(_file(mcp_file)) == {"time", "other"}

        card.remove_button.click()
        card.confirm_remove_button.click()
        await _until(events, "time", ServerStatus.STOPPED)

    qloop.run(scenario())
    assert set(_file(mcp_file)) == {"other"}
    assert list(section.groups) == ["other"]
    assert not any(tool.name.startswith("time__") for tool in manager.tools)
    assert section.note.text() == "Removed “time”."


def test_tab_goes_through_the_groups_in_the_order_they_show(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    events: EventLog,
) -> None:
    servers = make_servers({"time": TIME_SERVER})
    window = _window(make_settings_window, manager, agent, bridge, servers)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    section = _section(window)

    async def scenario() -> None:
        servers.start()
        await _until(events, "time", ServerStatus.READY)

    qloop.run(scenario())  # the group and its tools came after the page was built
    group = section.groups["time"]
    expected = [
        section.add_button,
        section.import_button,
        group.card.restart_button,
        group.card.remove_button,
        group.card.confirm_combo,
        *group.tool_switches.values(),
    ]
    section.add_button.setFocus(Qt.FocusReason.TabFocusReason)
    reached = [QApplication.focusWidget()]
    for _ in expected[1:]:
        focused = QApplication.focusWidget()
        assert focused is not None
        QTest.keyClick(focused, Qt.Key.Key_Tab)
        reached.append(QApplication.focusWidget())
    assert reached == expected


# ---------------------------------------------------------------------------------- add server


def test_the_command_line_is_split_as_a_shell_does_and_shown() -> None:
    words = split_command_line('uvx mcp-server-time --local-timezone "Europe/Paris" "a b"')
    assert words == ["uvx", "mcp-server-time", "--local-timezone", "Europe/Paris", "a b"]
    assert describe_command(["uvx"]) == "Sammy starts “uvx” with no arguments."
    assert (
        describe_command(["npx", "-y", "a b"]) == "Sammy starts “npx” with 2 arguments: “-y”  “a b”"
    )
    assert split_command_line(r'"C:\Program Files\x.exe" --flag', windows=True) == [
        r"C:\Program Files\x.exe",
        "--flag",
    ]


def _open_add(window: SettingsWindow) -> AddServerDialog:
    dialog = _section(window).open_add_dialog()
    assert dialog.isVisible()
    return dialog


def test_add_server_says_whats_wrong_on_the_field_and_keeps_what_was_typed(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    tasks: UiTasks,
    mcp_file: Path,
) -> None:
    servers = make_servers({})
    servers.reload()  # not started: an added server is written, not launched
    window = _window(make_settings_window, manager, agent, bridge, servers)
    section = _section(window)
    assert not section.invitation.isHidden()
    assert section.invitation.text() == MCP_INVITATION

    async def scenario() -> None:
        dialog = _open_add(window)
        # A program: what Sammy will start is shown as it is typed.
        dialog.command_edit.setText('python -m server "my notes"')
        assert dialog.parsed_label.text() == (
            "Sammy starts “python” with 3 arguments: “-m”  “server”  “my notes”"
        )
        dialog.command_edit.setText('python -m "server')
        assert "quotation mark" in dialog.error_for("command")
        dialog.save_button.click()  # no name, a broken command line: both said, nothing saved
        assert "name" in dialog.error_for("name")
        assert dialog.command_edit.property("invalid") is True
        assert dialog.isVisible()

        # A web server with an address that is not http(s).
        dialog.kind_combo.setCurrentIndex(dialog.kind_combo.findData("web"))
        dialog.name_edit.setText("home")
        dialog.url_edit.setText("ftp://home.example/mcp")
        dialog.save_button.click()
        await tasks.join()
        message = dialog.error_for("url")
        assert '"url"' in message and "https://" in message
        assert dialog.url_edit.property("invalid") is True
        assert dialog.url_edit.text() == "ftp://home.example/mcp"  # nothing typed is lost
        assert dialog.name_edit.text() == "home"
        assert dialog.isVisible()
        assert "home" not in _file(mcp_file, missing_ok=True)

        dialog.url_edit.setText("https://home.example/mcp")
        dialog.header_rows.add_row("X-Team", "blue")
        dialog.save_button.click()
        await tasks.join()
        await wait_until(lambda: section.add_dialog is None)  # closed once saved

    qloop.run(scenario())
    assert _file(mcp_file) == {
        "home": {"url": "https://home.example/mcp", "headers": {"X-Team": "blue"}}
    }
    assert list(section.groups) == ["home"]
    assert section.invitation.isHidden()
    assert "Added “home”" in section.note.text()


def test_add_server_refuses_a_name_already_taken(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    mcp_file: Path,
) -> None:
    servers = make_servers({"time": {"url": "https://time.example/mcp"}})
    servers.reload()
    window = _window(make_settings_window, manager, agent, bridge, servers)

    async def scenario() -> None:
        dialog = _open_add(window)
        dialog.name_edit.setText("time")
        dialog.command_edit.setText("uvx mcp-server-time")
        dialog.save_button.click()
        assert "already a server called “time”" in dialog.error_for("name")
        dialog.reject()

    qloop.run(scenario())
    assert _file(mcp_file) == {"time": {"url": "https://time.example/mcp"}}


@pytest.mark.keyring
def test_keep_in_the_keyring_stores_the_value_there_and_names_it_in_the_file(
    qloop: asyncio.Runner,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    tasks: UiTasks,
    mcp_file: Path,
) -> None:
    store = SecretStore(environ={})
    assert store.backend_available(), keyring.get_keyring()
    token = "Bearer s3cret-token-for-the-test"
    servers = make_servers({}, secrets=store)
    servers.reload()
    window = _window(make_settings_window, manager, agent, bridge, servers, secrets=store)

    async def scenario() -> None:
        dialog = _open_add(window)
        dialog.name_edit.setText("home")
        dialog.kind_combo.setCurrentIndex(dialog.kind_combo.findData("web"))
        dialog.url_edit.setText("https://home.example/mcp")
        row = dialog.header_rows.add_row("Authorization", token)
        row.keyring_box.click()
        assert row.value_edit.echoMode() is QLineEdit.EchoMode.Password
        dialog.env_rows.add_row("IGNORED", "a program's, not a web server's")
        dialog.save_button.click()
        await tasks.join()
        await wait_until(lambda: _section(window).add_dialog is None)  # closed once saved

    try:
        qloop.run(scenario())
        assert _file(mcp_file) == {
            "home": {
                "url": "https://home.example/mcp",
                "headers": {"Authorization": "keyring:home-Authorization"},
            }
        }
        assert store.get_secret("home-Authorization") == token
        assert "s3cret" not in mcp_file.read_text(encoding="utf-8")
    finally:
        store.delete_secret("home-Authorization")


# ---------------------------------------------------------------------------------- import


def _claude_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str | None, *, replace: bool = False
) -> Path:
    """Claude Desktop's settings where it keeps them on Linux, under a private XDG folder."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = tmp_path / "xdg" / "Claude" / "claude_desktop_config.json"
    if text is not None:
        path.parent.mkdir(parents=True, exist_ok=replace)
        path.write_text(text, encoding="utf-8")
    return path


def test_import_merges_claude_desktops_servers_and_asks_about_a_clash(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    mcp_file: Path,
) -> None:
    ours = {"time": {"url": "https://time.example/mcp"}, "same": {"command": "same-server"}}
    theirs = {
        "time": {"command": "uvx", "args": ["mcp-server-time"]},
        "same": {"command": "same-server"},  # the same entry twice is no clash
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"]},
    }
    _claude_file(monkeypatch, tmp_path, json.dumps({"mcpServers": theirs, "other": 1}))
    servers = make_servers(ours)
    servers.reload()
    window = _window(make_settings_window, manager, agent, bridge, servers)
    section = _section(window)

    section.import_button.click()
    dialog = section.import_dialog
    assert isinstance(dialog, ImportClashDialog)
    assert list(dialog.choice_lists) == ["time"]
    choices = dialog.choice_lists["time"]
    assert [choices.itemText(i) for i in range(choices.count())] == [
        "Keep Sammy's",
        "Take Claude Desktop's",
        "Keep both (Claude Desktop's as “time-2”)",
    ]
    texts = [label.text() for label in dialog.findChildren(QLabel)]
    assert "Sammy's: https://time.example/mcp" in texts
    assert "Claude Desktop's: uvx mcp-server-time" in texts
    dialog.choose("time", ClashChoice.KEEP_BOTH)
    dialog.import_button.click()

    assert _file(mcp_file) == {
        "time": ours["time"],
        "same": ours["same"],
        "files": theirs["files"],
        "time-2": theirs["time"],
    }
    assert list(section.groups) == ["time", "same", "files", "time-2"]
    assert section.note.text() == "Added 2 servers from Claude Desktop: files, time-2."
    qtbot.waitUntil(lambda: section.import_dialog is None, timeout=2000)

    # Again, taking theirs: the clash is replaced, and nothing else is new.
    section.import_button.click()
    dialog = section.import_dialog
    assert isinstance(dialog, ImportClashDialog)
    dialog.choose("time", ClashChoice.TAKE_THEIRS)
    dialog.import_button.click()
    assert _file(mcp_file)["time"] == theirs["time"]
    assert section.note.text() == "Took Claude Desktop's “time” in place of Sammy's."
    qtbot.waitUntil(lambda: section.import_dialog is None, timeout=2000)

    # Once more with a new clash, cancelled: nothing is written.
    theirs["files"] = {"command": "npx", "args": ["-y", "another-server"]}
    _claude_file(monkeypatch, tmp_path, json.dumps({"mcpServers": theirs}), replace=True)
    before = mcp_file.read_text(encoding="utf-8")
    section.import_button.click()
    dialog = section.import_dialog
    assert isinstance(dialog, ImportClashDialog)
    assert list(dialog.choice_lists) == ["files"]
    dialog.cancel_button.click()
    assert mcp_file.read_text(encoding="utf-8") == before
    assert section.note.text() == "Nothing was imported."


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (None, "Claude Desktop's settings were not found: there is no "),
        ('{"mcpServers": {', "is not valid JSON (line 1), so nothing was imported"),
        ('{"mcpServers": {}}', "Claude Desktop has no MCP servers to import"),
    ],
    ids=["no-file", "not-json", "no-servers"],
)
def test_import_says_why_there_is_nothing_to_import(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    text: str | None,
    words: str,
) -> None:
    path = _claude_file(monkeypatch, tmp_path, text)
    servers = make_servers({})
    servers.reload()
    window = _window(make_settings_window, manager, agent, bridge, servers)
    section = _section(window)
    section.import_button.click()
    assert section.import_dialog is None
    assert not section.error.isHidden()
    assert words in section.error.text()
    if text is None:
        assert str(path) in section.error.text()


# ---------------------------------------------------------------------------------- problems


def test_a_broken_entry_is_named_and_the_other_servers_still_show(
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    mcp_file: Path,
) -> None:
    opened: list[Path] = []

    def open_folder(path: Path) -> bool:
        opened.append(path)
        return True

    servers = make_servers({"good": {"url": "https://good.example/mcp"}, "bad": {"command": 5}})
    servers.reload()
    window = _window(make_settings_window, manager, agent, bridge, servers, open_folder=open_folder)
    section = _section(window)
    card = section.problems_card
    assert not card.isHidden()
    (problem,) = [label.text() for label in card.problem_labels]
    assert problem.startswith('mcp.json, server "bad": "command"')
    assert list(section.groups) == ["good"]
    assert section.invitation.isHidden()
    card.open_button.click()
    assert opened == [mcp_file]


def test_a_file_that_is_not_json_is_said_and_open_shows_it(
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    bus: EventBus,
    mcp_file: Path,
) -> None:
    servers = make_servers(raw='{"mcpServers": {"time": ')
    window = _window(make_settings_window, manager, agent, bridge, servers)
    section = _section(window)
    # Read when the servers were made: shown before any server starts.
    assert not section.problems_card.isHidden()
    (problem,) = [label.text() for label in section.problems_card.problem_labels]
    assert "mcp.json is not valid JSON" in problem
    assert section.groups == {}

    # Fixed in an editor and read again: the problem goes, the server comes.
    mcp_file.write_text(json.dumps({"mcpServers": {"time": TIME_SERVER}}), encoding="utf-8")
    section.problems_card.reload_button.click()
    assert section.problems_card.isHidden()
    assert list(section.groups) == ["time"]


def test_without_mcp_the_tools_page_has_no_mcp_section(
    make_settings_window: MakeSettingsWindow, manager: ToolManager
) -> None:
    window = make_settings_window(tools=manager, list_devices=list, on_test_tone=lambda: None)
    assert window.tools_page.mcp is None


# ---------------------------------------------------------------------------------- looks


@pytest.mark.xvfb
@pytest.mark.parametrize("theme_name", [Theme.LIGHT, Theme.DARK], ids=["light", "dark"])
def test_mcp_section_screenshot(
    qloop: asyncio.Runner,
    qtbot: QtBot,
    theme: ThemeController,
    make_settings_window: MakeSettingsWindow,
    make_servers: MakeServers,
    manager: ToolManager,
    agent: FakeAgent,
    bridge: EventBridge,
    events: EventLog,
    test_output_dir: Path,
    theme_name: Theme,
) -> None:
    theme.set_theme(theme_name)
    servers = make_servers({"time": TIME_SERVER, "notes": MISSING_PROGRAM})
    window = _window(make_settings_window, manager, agent, bridge, servers)
    window.resize(780, 720)
    window.show()
    qtbot.waitExposed(window)
    folder = test_output_dir / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)

    async def scenario() -> None:
        servers.start()
        await _until(events, "time", ServerStatus.READY)
        await _until(events, "notes", ServerStatus.FAILED)
        page = window.tools_page
        section = _section(window)
        content = page.widget()
        assert content is not None
        top = section.mapTo(content, QPoint(0, 0)).y()
        page.verticalScrollBar().setValue(top - 12)
        picture = Picture(window)
        await wait_until(picture.settled)
        assert picture.pixmap.save(str(folder / f"settings-mcp-{theme_name.value}.png"))

        dialog = section.open_add_dialog()
        dialog.name_edit.setText("home")
        dialog.kind_combo.setCurrentIndex(dialog.kind_combo.findData("web"))
        dialog.url_edit.setText("ftp://home.example/mcp")
        dialog.header_rows.add_row("Authorization", "Bearer abc", keyring=True)
        dialog.save_button.click()
        shot = Picture(dialog)
        await wait_until(shot.settled)
        assert shot.pixmap.save(str(folder / f"settings-mcp-add-{theme_name.value}.png"))
        dialog.reject()

    qloop.run(scenario())
