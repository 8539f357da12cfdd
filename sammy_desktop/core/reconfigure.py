"""Changing a running conversation's settings, talk mode or tools without losing it.

:class:`Reconfigurer` decides, for each change, the way the service is known to take it: a
reconnection that resumes the conversation with the new setup at the next quiet moment
(what the session setup carries: model, voice, language, system prompt, activity detection,
talk mode, and the tools). A mid-session ``contextUpdate`` is used for the tools only on
models whose capability entry says it works (none is proven: docs/live-service.md S4); if
the service closes on one, the conversation resumes with the new setup all the same and
context updates are not tried again. Without a session, everything simply applies at the
next connection.
"""

from __future__ import annotations

import asyncio
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
from sammy_desktop.tools.capabilities import capabilities_for
from sammy_desktop.tools.events import ToolSetChanged
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
        self._context_updates_refused = False
        self._changes: set[asyncio.Task[None]] = set()
        bus.subscribe(ToolSetChanged, self._on_tool_set_changed)

    def _on_tool_set_changed(self, event: ToolSetChanged) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: nothing runs, the next setup has the new set
            return
        task = loop.create_task(self.tool_set_changed(event.source), name="tool-set-changed")
        self._changes.add(task)
        task.add_done_callback(self._changes.discard)

    async def set_talk_mode(self, mode: TalkMode) -> None:
        """Push-to-talk / hands-free: the service's activity detection is in the setup."""
        if mode is self._conversation.talk_mode:
            return
        self._conversation.set_talk_mode(mode)
        self._bus.emit(TalkModeChanged(talk_mode=str(mode)))
        if self._state.state.is_running:
            self._supervisor.request_reconnect("talk mode changed")

    def context_update_refused(self) -> None:
        """The service closed right after a context update: do not send another."""
        self._context_updates_refused = True

    def reset(self) -> None:
        """A new session: context updates may be tried again where the model takes them."""
        self._context_updates_refused = False

    async def set_tool_enabled(self, name: str, on: bool) -> bool:
        """Switch one tool; True when the running session took the change in place."""
        self._tools.set_enabled(name, on)
        enabled, applied, later = await self._apply_tools("tools changed")
        self._bus.emit(
            ToolsChanged(
                enabled=enabled,
                applied_live=applied,
                tool=name,
                tool_enabled=on,
                after_this_answer=later,
            )
        )
        return applied

    async def tool_set_changed(self, source: str) -> None:
        """Tools of ``source`` came or went (an MCP server): declare the new set."""
        enabled, applied, later = await self._apply_tools(f"tools changed: {source}")
        if self._state.state.is_running:
            self._bus.emit(
                ToolsChanged(
                    enabled=enabled, applied_live=applied, after_this_answer=later, source=source
                )
            )

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
        enabled, applied, later = await self._apply_tools("settings changed: tools")
        self._bus.emit(SettingsApplied(fields=("tools",), applied_live=applied))
        self._bus.emit(ToolsChanged(enabled=enabled, applied_live=applied, after_this_answer=later))

    async def _apply_tools(self, reason: str) -> tuple[tuple[str, ...], bool, bool]:
        """The current tools to the running conversation: (names, applied now, after the answer).

        A context update where the model is known to take one, else (or when it cannot be
        sent) a quiet reconnect with the new setup at the next quiet moment.
        """
        settings = self._settings()
        tools = self._setup.tools_for(settings)
        names = declaration_names(tools)
        if not self._state.state.is_running:
            return names, False, False
        connection = self._supervisor.connection
        if (
            capabilities_for(settings.model).context_update
            and not self._context_updates_refused
            and connection is not None
            and connection.is_open
        ):
            try:
                await connection.send_context_update(tools)
            except LiveConnectionError as exc:
                _log.info("context update not sent (%s); reconnecting instead", exc)
            else:
                self._setup.applied_live(settings, self._conversation.talk_mode)
                return names, True, False
        self._supervisor.request_reconnect(reason)
        return names, False, True
