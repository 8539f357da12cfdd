"""The :class:`ToolManager`: the tool system as the app and plugins see it, in one object.

It composes the three parts that do the work, each in its own module:

* :class:`~sammy_desktop.tools.registry.ToolRegistry`: definitions, sources, the enabled
  set, the declarations per model;
* :class:`~sammy_desktop.tools.runner.ToolCallRunner`: running each call message in
  parallel with timeouts and cancellation, and answering every call (its
  :class:`~sammy_desktop.tools.calls.ToolCallLedger` is the one record of calls in flight);
* :class:`~sammy_desktop.tools.confirmations.Confirmations`: asking the person first.

The agent core uses it through its ``ToolRunner`` port; the settings pane reads the
registry through it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.metadata import EntryPoint
from typing import Any

from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import types
from sammy_desktop.tools import plugins
from sammy_desktop.tools.builtins import builtin_tools
from sammy_desktop.tools.calls import Respond, ToolCallLedger
from sammy_desktop.tools.confirmations import Confirmations
from sammy_desktop.tools.context import AgentStateSnapshot, ConfirmationPort, ToolServices
from sammy_desktop.tools.definition import ToolDefinition
from sammy_desktop.tools.registry import (
    SOURCE_APPLICATION,
    SOURCE_BUILTIN,
    DuplicateToolError,
    RegistrationProblem,
    ToolRegistry,
    UnknownToolError,
)
from sammy_desktop.tools.runner import (
    DEFAULT_FRAME_BUDGET_BYTES,
    MAX_CALLS_PER_MESSAGE,
    ToolCallRunner,
)

__all__ = [
    "DEFAULT_FRAME_BUDGET_BYTES",
    "MAX_CALLS_PER_MESSAGE",
    "DuplicateToolError",
    "RegistrationProblem",
    "Respond",
    "ToolManager",
    "UnknownToolError",
]

_log = logging.getLogger(__name__)


class ToolManager:
    """Registers tools, declares them for a model, runs calls and answers each of them.

    Args:
        bus: where tool events go.
        services: what tools may use.
        tools: tools of the application, registered after the built-ins.
        enabled: tool name -> on/off, overriding ``settings().enabled_tools`` and the tools'
            own defaults; :meth:`set_enabled` changes it at run time.
        load_entry_points: also register tools from installed plugins.
        confirmer: asks the person for a yes (the UI's dialog); None means every
            confirmation is denied.
        state: returns the agent's state; None gives a snapshot built from the settings.
        plugin_entry_points: the entry points to load instead of the installed ones.
        include_builtins: register endSession, getCurrentContext and escalate.
        frame_budget_bytes: the most JSON one response message may carry; larger answers
            are cut with a note.
    """

    def __init__(
        self,
        bus: EventBus,
        services: ToolServices,
        *,
        tools: Sequence[ToolDefinition[Any, Any]] = (),
        enabled: Mapping[str, bool] | None = None,
        load_entry_points: bool = True,
        confirmer: ConfirmationPort | None = None,
        state: Callable[[], AgentStateSnapshot] | None = None,
        plugin_entry_points: Iterable[EntryPoint] | None = None,
        include_builtins: bool = True,
        frame_budget_bytes: int = DEFAULT_FRAME_BUDGET_BYTES,
    ) -> None:
        self._services = services
        self._state = state
        self.registry = ToolRegistry(bus, services.settings, enabled=enabled)
        if include_builtins:
            self.registry.register_all(builtin_tools(), SOURCE_BUILTIN)
        self.registry.register_all(tools, SOURCE_APPLICATION)
        if load_entry_points or plugin_entry_points is not None:
            self.registry.load_plugins(
                plugins.discover() if plugin_entry_points is None else plugin_entry_points
            )
        self.runner = ToolCallRunner(
            bus,
            services,
            self.registry,
            Confirmations(bus, confirmer),
            self.snapshot,
            frame_budget_bytes=frame_budget_bytes,
        )

    # ------------------------------------------------------------------ the registry

    def register(self, definition: ToolDefinition[Any, Any], *, source: str) -> None:
        """Add one tool (see :meth:`ToolRegistry.register`)."""
        self.registry.register(definition, source=source)

    def replace_source(
        self, source: str, definitions: Iterable[ToolDefinition[Any, Any]]
    ) -> tuple[RegistrationProblem, ...]:
        """Set the tools of a source that changes at run time (`ToolRegistry.replace_source`)."""
        return self.registry.replace_source(source, definitions)

    def remove_source(self, source: str) -> None:
        """Remove every tool of ``source``."""
        self.registry.remove_source(source)

    @property
    def registration_problems(self) -> tuple[RegistrationProblem, ...]:
        """Tools and plugins that were refused or broken, in the order found."""
        return self.registry.problems

    @property
    def tools(self) -> tuple[ToolDefinition[Any, Any], ...]:
        """Every registered tool (enabled or not), built-ins first."""
        return self.registry.tools

    def get(self, name: str) -> ToolDefinition[Any, Any]:
        """The tool called ``name``.

        Raises:
            UnknownToolError: no such tool.
        """
        return self.registry.get(name)

    def source_of(self, name: str) -> str:
        """Where the tool ``name`` came from (``built-in``, ``the application``, a plugin).

        Raises:
            UnknownToolError: no such tool.
        """
        return self.registry.source_of(name)

    def plugin_of(self, name: str) -> str | None:
        """The package that installed the tool ``name``, or None when it is not a plugin's.

        Raises:
            UnknownToolError: no such tool.
        """
        return self.registry.plugin_of(name)

    def is_enabled(self, name: str) -> bool:
        """Whether the model may use ``name`` now; False for unknown names."""
        return self.registry.is_enabled(name)

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Switch ``name`` on or off from now on; emits ``ToolEnabledChanged``.

        The new set reaches the model with the next :meth:`declarations` (the core sends a
        context update or reconnects). Calls to a disabled tool are refused meanwhile.

        Raises:
            UnknownToolError: no such tool.
        """
        self.registry.set_enabled(name, enabled)

    def enabled_names(self) -> tuple[str, ...]:
        """Names of the tools the model may use now, in registration order."""
        return self.registry.enabled_names()

    def declarations(self, model: str) -> list[types.Tool]:
        """The enabled tools, declared for ``model`` (see :meth:`ToolRegistry.declarations`)."""
        return self.registry.declarations(model)

    def snapshot(self) -> AgentStateSnapshot:
        """The agent's state as tools see it (from the core, or built from the settings)."""
        if self._state is not None:
            return self._state()
        settings = self._services.settings()
        return AgentStateSnapshot(
            state="unknown",
            talk_mode=str(settings.talk_mode.value),
            model=settings.model,
            session_started_at=None,
            enabled_tools=self.enabled_names(),
            demo_mode=False,
            reconnects=0,
        )

    # ------------------------------------------------------------------ the runner

    @property
    def calls(self) -> ToolCallLedger:
        """The calls in flight."""
        return self.runner.calls

    async def handle(self, tool_call: types.LiveServerToolCall, respond: Respond) -> None:
        """Run every call of ``tool_call`` and answer each (see :meth:`ToolCallRunner.handle`)."""
        await self.runner.handle(tool_call, respond)

    def cancel(self, ids: Iterable[str]) -> None:
        """Cancel the calls ``ids`` (the server's ``toolCallCancellation``); none is answered."""
        self.runner.cancel(ids)

    async def aclose(self, timeout_s: float = 5.0) -> None:
        """Cancel every running call and wait up to ``timeout_s`` for them to stop."""
        await self.runner.aclose(timeout_s)
