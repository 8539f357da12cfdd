"""Changing a running conversation's settings, talk mode or tools without losing it.

:class:`Reconfigurer` decides, for each change, the gentlest way the service allows: read
live (echo cancellation), sent to the running session as a context update (the tools), or
a reconnection that resumes the conversation at the next quiet moment (what only the
session setup carries: model, voice, language, system prompt, activity detection, talk
mode). Without a session, everything simply applies at the next connection.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sammy_desktop.config import Settings, TalkMode
from sammy_desktop.core.conversation import Conversation
from sammy_desktop.core.events import SettingsApplied, TalkModeChanged, ToolsChanged
from sammy_desktop.core.live import LiveConnectionError
from sammy_desktop.core.ports import ToolRunner
from sammy_desktop.core.setup import SessionSetup
from sammy_desktop.core.state import AgentStateMachine
from sammy_desktop.core.supervisor import ConnectionSupervisor
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.registry import declaration_names

__all__ = ["Reconfigurer"]

_log = logging.getLogger(__name__)


class Reconfigurer:
    """Applies changes to the running conversation, each the gentlest way it can.

    Args:
        bus: where the outcome of each change is announced.
        state: the agent's state (is a session running?).
        settings: returns the settings in use (after the change).
        tools: the tool runner (switches tools on and off).
        setup: what the setup is built from.
        conversation: holds the talk mode.
        supervisor: the connection (context updates, reconnects).
    """

    def __init__(
        self,
        *,
        bus: EventBus,
        state: AgentStateMachine,
        settings: Callable[[], Settings],
        tools: ToolRunner,
        setup: SessionSetup,
        conversation: Conversation,
        supervisor: ConnectionSupervisor,
    ) -> None:
        self._bus = bus
        self._state = state
        self._settings = settings
        self._tools = tools
        self._setup = setup
        self._conversation = conversation
        self._supervisor = supervisor

    async def set_talk_mode(self, mode: TalkMode) -> None:
        """Push-to-talk / hands-free: the service's activity detection is in the setup."""
        if mode is self._conversation.talk_mode:
            return
        self._conversation.set_talk_mode(mode)
        self._bus.emit(TalkModeChanged(talk_mode=str(mode)))
        if self._state.state.is_running:
            self._supervisor.request_reconnect("talk mode changed")

    async def set_tool_enabled(self, name: str, on: bool) -> bool:
        """Switch one tool; True when the running session took the change in place."""
        self._tools.set_enabled(name, on)
        enabled, applied = await self._send_tools()
        self._bus.emit(
            ToolsChanged(enabled=enabled, applied_live=applied, tool=name, tool_enabled=on)
        )
        return applied

    async def settings_changed(self, old: Settings, new: Settings) -> None:
        """``new`` replaced ``old`` (the settings getter already returns ``new``)."""
        if not self._state.state.is_running:
            if new.talk_mode is not old.talk_mode:
                self._conversation.set_talk_mode(new.talk_mode)
            return
        if new.talk_mode is not old.talk_mode:
            await self.set_talk_mode(new.talk_mode)
        changed = self._setup.changed_setup_fields(old, new)
        if changed:
            self._bus.emit(SettingsApplied(fields=tuple(changed), applied_live=False))
            self._supervisor.request_reconnect(f"settings changed: {', '.join(changed)}")
            return
        if not self._setup.extra_tools_changed(old, new):
            return
        enabled, applied = await self._send_tools()
        self._bus.emit(SettingsApplied(fields=("tools",), applied_live=applied))
        self._bus.emit(ToolsChanged(enabled=enabled, applied_live=applied))

    async def _send_tools(self) -> tuple[tuple[str, ...], bool]:
        """Send the current tools to the running session; (enabled names, sent or not)."""
        tools = self._setup.tools_for(self._settings())
        applied = False
        connection = self._supervisor.connection
        if connection is not None and connection.is_open:
            try:
                await connection.send_context_update(tools)
                applied = True
            except LiveConnectionError as exc:
                _log.info("context update not sent (%s); it applies on reconnection", exc)
        return declaration_names(tools), applied
