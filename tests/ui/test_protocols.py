"""The real parts satisfy the Protocols the UI is written against (checked by mypy too)."""

from __future__ import annotations

from sammy_desktop.core.agent import AgentCore
from sammy_desktop.tools.context import ConfirmationPort, UrlOpener
from sammy_desktop.tools.manager import ToolManager
from sammy_desktop.ui.confirmation import QtConfirmationPort
from sammy_desktop.ui.controls import AgentControls
from sammy_desktop.ui.settings import ToolCatalog
from sammy_desktop.ui.url_opener import QtUrlOpener


def as_controls(core: AgentCore) -> AgentControls:
    return core  # mypy fails here if AgentCore drifts from what the window calls


def as_catalog(manager: ToolManager) -> ToolCatalog:
    return manager


def as_confirmation_port(port: QtConfirmationPort) -> ConfirmationPort:
    return port


def as_url_opener(opener: QtUrlOpener) -> UrlOpener:
    return opener


def test_agent_core_has_every_method_the_window_calls() -> None:
    for name in (
        "state",
        "start",
        "stop",
        "end_session",
        "begin_talk",
        "end_talk",
        "send_text",
        "set_talk_mode",
        "set_tool_enabled",
    ):
        assert hasattr(AgentCore, name), name
    for name in ("tools", "is_enabled"):
        assert hasattr(ToolManager, name), name
