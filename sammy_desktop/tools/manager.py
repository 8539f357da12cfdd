"""The :class:`ToolManager`: registers tools, declares them, runs calls, answers every one.

The core hands it each ``toolCall`` message from the Live API with a ``respond`` coroutine
(``session.send_tool_response``). All calls of one message run in parallel; each gets exactly
one well-formed ``FunctionResponse`` with its id and name, whatever goes wrong: a missing
name, an unknown or disabled tool, arguments that do not validate (with per-parameter
feedback), a denied confirmation, an exception, a timeout. Only calls the server cancels, and
calls without an id (which cannot be answered), get nothing. ``handle`` never raises for a
tool's problem, and each of its waits is bounded by a timeout (the tool's or the
confirmation's) unless a tool opts out with ``timeout_s=None``.
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint
from typing import Any, TypeAlias

from pydantic import BaseModel, ValidationError

from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import types
from sammy_desktop.tools import plugins
from sammy_desktop.tools.answers import checked_result, fit_to_frame, handler_error, model_output
from sammy_desktop.tools.builtins import builtin_tools
from sammy_desktop.tools.capabilities import ModelCapabilities, capabilities_for
from sammy_desktop.tools.context import (
    AgentStateSnapshot,
    ConfirmationPort,
    ConfirmationRequest,
    ToolContext,
    ToolServices,
)
from sammy_desktop.tools.definition import ToolDefinition
from sammy_desktop.tools.events import (
    ConfirmationRequested,
    ConfirmationResolved,
    ToolCallCancelled,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
    ToolEnabledChanged,
)
from sammy_desktop.tools.kinds import ResponseScheduling, ToolBehavior
from sammy_desktop.tools.results import ToolErrorKind, ToolResult, feedback_from_validation_error

__all__ = [
    "DEFAULT_FRAME_BUDGET_BYTES",
    "DuplicateToolError",
    "RegistrationProblem",
    "Respond",
    "ToolManager",
    "UnknownToolError",
]

_log = logging.getLogger(__name__)

Respond: TypeAlias = "Callable[[list[types.FunctionResponse]], Awaitable[None]]"
"""Sends function responses to the model (``session.send_tool_response``)."""

DEFAULT_FRAME_BUDGET_BYTES = 900_000
"""How much JSON one tool response message may carry. A websockets server refuses frames
over 1 MiB by default; the rest is headroom for the envelope."""

_MIN_CALL_BUDGET_BYTES = 4_096
_EARLY_CANCEL_MEMORY = 256
_SOURCE_BUILTIN = "built-in"
_SOURCE_APPLICATION = "the application"


class DuplicateToolError(ValueError):
    """A tool's name is already taken; the message names both sources."""


class UnknownToolError(LookupError):
    """No tool of that name is registered."""


@dataclass(frozen=True, slots=True)
class RegistrationProblem:
    """A tool or plugin that could not be registered, for the log and the settings pane.

    Attributes:
        source: where it came from (``built-in``, ``the application``, ``plugin ...``).
        message: what went wrong, in a sentence.
        tool_name: the tool concerned, when known.
    """

    source: str
    message: str
    tool_name: str | None = None


@dataclass(frozen=True, slots=True)
class _Registered:
    definition: ToolDefinition[Any, Any]
    source: str


@dataclass(frozen=True, slots=True)
class _RunningCall:
    name: str
    task: asyncio.Task[ToolResult[Any] | None]


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
        self._bus = bus
        self._services = services
        self._confirmer = confirmer
        self._state = state
        self._frame_budget = frame_budget_bytes
        self._overrides: dict[str, bool] = dict(enabled or {})
        self._registry: dict[str, _Registered] = {}
        self._problems: list[RegistrationProblem] = []
        self._running: dict[str, _RunningCall] = {}
        self._cancel_requested: set[str] = set()
        self._early_cancels: OrderedDict[str, None] = OrderedDict()
        self._declared_capabilities: ModelCapabilities | None = None
        self._closed = False

        if include_builtins:
            self._register_all(builtin_tools(), _SOURCE_BUILTIN)
        self._register_all(tools, _SOURCE_APPLICATION)
        if load_entry_points or plugin_entry_points is not None:
            self._load_plugins(
                plugins.discover() if plugin_entry_points is None else plugin_entry_points
            )

    # ------------------------------------------------------------------ registration

    def register(self, definition: ToolDefinition[Any, Any], *, source: str) -> None:
        """Add one tool.

        Args:
            definition: the tool.
            source: where it comes from, named in errors (``plugin foo``, ``built-in``).

        Raises:
            TypeError: ``definition`` is not a :class:`ToolDefinition`.
            DuplicateToolError: the name is taken; the message names both sources.
        """
        if not isinstance(definition, ToolDefinition):
            raise TypeError(f"{source} gave {type(definition).__name__}, not a ToolDefinition")
        existing = self._registry.get(definition.name)
        if existing is not None:
            raise DuplicateToolError(
                f"tool {definition.name!r} from {source} is refused: the name is already "
                f"taken by the tool from {existing.source}"
            )
        self._registry[definition.name] = _Registered(definition, source)

    def _register_all(self, definitions: Iterable[ToolDefinition[Any, Any]], source: str) -> None:
        for definition in definitions:
            try:
                self.register(definition, source=source)
            except (TypeError, DuplicateToolError) as error:
                self._report(RegistrationProblem(source, str(error), _name_of(definition)))

    def _load_plugins(self, entry_points: Iterable[EntryPoint]) -> None:
        for entry_point in entry_points:
            source = plugins.describe_entry_point(entry_point)
            try:
                definitions = plugins.load(entry_point)
            except plugins.PluginError as error:
                self._report(RegistrationProblem(source, str(error)))
                continue
            self._register_all(definitions, source)

    def _report(self, problem: RegistrationProblem) -> None:
        _log.error("tool registration problem: %s", problem.message)
        self._problems.append(problem)

    @property
    def registration_problems(self) -> tuple[RegistrationProblem, ...]:
        """Tools and plugins that were refused or broken, in the order found."""
        return tuple(self._problems)

    @property
    def tools(self) -> tuple[ToolDefinition[Any, Any], ...]:
        """Every registered tool (enabled or not), built-ins first."""
        return tuple(entry.definition for entry in self._registry.values())

    def get(self, name: str) -> ToolDefinition[Any, Any]:
        """The tool called ``name``.

        Raises:
            UnknownToolError: no such tool.
        """
        return self._lookup(name).definition

    def source_of(self, name: str) -> str:
        """Where the tool ``name`` came from (``built-in``, ``the application``, a plugin).

        Raises:
            UnknownToolError: no such tool.
        """
        return self._lookup(name).source

    def _lookup(self, name: str) -> _Registered:
        entry = self._registry.get(name)
        if entry is None:
            known = ", ".join(self._registry) or "none"
            raise UnknownToolError(f"no tool named {name!r} (registered: {known})")
        return entry

    # ------------------------------------------------------------------ enabled set

    def is_enabled(self, name: str) -> bool:
        """Whether the model may use ``name`` now; False for unknown names."""
        entry = self._registry.get(name)
        if entry is None:
            return False
        if name in self._overrides:
            return self._overrides[name]
        return self._services.settings().is_tool_enabled(name, entry.definition.enabled_by_default)

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Switch ``name`` on or off from now on; emits ``ToolEnabledChanged``.

        The new set reaches the model with the next :meth:`declarations` (the core sends a
        context update or reconnects). Calls to a disabled tool are refused meanwhile.

        Raises:
            UnknownToolError: no such tool.
        """
        self._lookup(name)
        changed = self.is_enabled(name) != enabled
        self._overrides[name] = enabled
        if changed:
            self._bus.emit(ToolEnabledChanged(name=name, enabled=enabled))

    def enabled_names(self) -> tuple[str, ...]:
        """Names of the tools the model may use now, in registration order."""
        return tuple(name for name in self._registry if self.is_enabled(name))

    # ------------------------------------------------------------------ declarations

    def declarations(self, model: str) -> list[types.Tool]:
        """The enabled tools, declared for ``model``, for ``LiveConnectConfig(tools=...)``.

        ``behavior`` is set only for models with asynchronous function calling (always
        explicitly, so a model whose default is NON_BLOCKING still blocks where the tool
        asks). The model given here also decides how :meth:`handle` shapes its answers
        (scheduling and ``will_continue`` only where the model supports them).

        Returns:
            One ``Tool`` holding every declaration, or an empty list when no tool is enabled.
        """
        capabilities = capabilities_for(model)
        self._declared_capabilities = capabilities
        declarations = [
            types.FunctionDeclaration(
                name=definition.name,
                description=definition.description,
                parameters_json_schema=definition.parameters_json_schema,
                behavior=(
                    definition.behavior.to_genai() if capabilities.async_function_calling else None
                ),
            )
            for definition in self.tools
            if self.is_enabled(definition.name)
        ]
        if not declarations:
            return []
        return [types.Tool(function_declarations=declarations)]

    def _capabilities(self) -> ModelCapabilities:
        if self._declared_capabilities is not None:
            return self._declared_capabilities
        try:
            model = self.snapshot().model
        except Exception:  # noqa: BLE001 - answering matters more; assume the safe default
            _log.exception("cannot tell the current model; answering as for a synchronous one")
            model = ""
        return capabilities_for(model)

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

    # ------------------------------------------------------------------ running calls

    async def handle(self, tool_call: types.LiveServerToolCall, respond: Respond) -> None:
        """Run every call of ``tool_call`` in parallel and answer them through ``respond``.

        Ordinary answers go out together in one ``respond`` call once every call is done.
        A streaming (async generator) tool on a NON_BLOCKING call answers on its own, one
        ``respond`` per item with ``will_continue=True`` and a final silent closing answer.
        A failing ``respond`` (the connection is gone) is logged; the receive loop notices
        the closed connection by itself.
        """
        calls = list(tool_call.function_calls or ())
        if not calls:
            return
        if self._closed:
            _log.warning("tool manager closed; %d call(s) not run", len(calls))
            return
        capabilities = self._capabilities()
        budget = max(_MIN_CALL_BUDGET_BYTES, self._frame_budget // len(calls))
        # Streaming calls (a timer, say) answer on their own and may stay open for
        # minutes: the ordinary answers of the same message must not wait for them.
        streaming = [self._streams(call, capabilities) for call in calls]
        async with asyncio.TaskGroup() as group:
            tasks = [
                group.create_task(
                    self._answer(call, respond, capabilities, budget),
                    name=f"tool-call:{call.name}:{call.id}",
                )
                for call in calls
            ]
            ordinary = [task for task, streams in zip(tasks, streaming, strict=True) if not streams]
            if ordinary:
                await asyncio.wait(ordinary)
                batch = [r for task in ordinary if (r := task.result()) is not None]
                if batch:
                    await _send(respond, batch)
        late = [
            r
            for task, streams in zip(tasks, streaming, strict=True)
            if streams and (r := task.result()) is not None
        ]
        if late:
            await _send(respond, late)

    def _streams(self, call: types.FunctionCall, capabilities: ModelCapabilities) -> bool:
        """Whether ``call`` goes to a progress-streaming NON_BLOCKING tool."""
        entry = self._registry.get(call.name or "")
        return (
            entry is not None
            and capabilities.async_function_calling
            and entry.definition.behavior is ToolBehavior.NON_BLOCKING
            and entry.definition.streams_progress
        )

    def cancel(self, ids: Iterable[str]) -> None:
        """Cancel the calls ``ids`` (the server's ``toolCallCancellation``); none is answered.

        An id that is not running yet is remembered, so a cancellation that overtakes its
        call still stops it.
        """
        for call_id in ids:
            running = self._running.get(call_id)
            if running is None:
                self._early_cancels[call_id] = None
                while len(self._early_cancels) > _EARLY_CANCEL_MEMORY:
                    self._early_cancels.popitem(last=False)
                continue
            self._cancel_requested.add(call_id)
            running.task.cancel()

    async def aclose(self, timeout_s: float = 5.0) -> None:
        """Cancel every running call and wait up to ``timeout_s`` for them to stop.

        Cancelled calls are not answered. Calls arriving later are ignored.
        """
        self._closed = True
        tasks = [running.task for running in self._running.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=timeout_s)
            for task in pending:
                _log.error("tool call task %s ignored cancellation", task.get_name())

    async def _answer(
        self,
        call: types.FunctionCall,
        respond: Respond,
        capabilities: ModelCapabilities,
        budget: int,
    ) -> types.FunctionResponse | None:
        """Run one call; return its answer, or None when nothing must be sent for it.

        A safety net around :meth:`_answer_call`: whatever escapes it (a bug here, or in
        app code such as the settings callable) still becomes an answer, so one bad call
        cannot cancel its siblings in the task group or leave the model waiting.
        """
        try:
            return await self._answer_call(call, respond, capabilities, budget)
        except Exception as error:  # noqa: BLE001 - the model must get an answer regardless
            _log.exception("internal error while answering tool call %s", call.id)
            result = ToolResult.failure(
                f"The app failed while running {call.name!r}: {type(error).__name__}.",
                error_kind=ToolErrorKind.HANDLER_ERROR,
            )
            payload = result.to_model_payload() if call.id else {}
            self._bus.emit(
                ToolCallFailed(
                    call_id=call.id or "",
                    name=call.name or "",
                    kind=ToolErrorKind.HANDLER_ERROR,
                    problems=result.problems,
                    duration_s=0.0,
                    result=result,
                    model_output=payload,
                )
            )
            if not call.id:
                return None
            return types.FunctionResponse(id=call.id, name=call.name or "", response=payload)

    async def _answer_call(
        self,
        call: types.FunctionCall,
        respond: Respond,
        capabilities: ModelCapabilities,
        budget: int,
    ) -> types.FunctionResponse | None:
        started = time.monotonic()
        call_id = call.id or ""
        name = call.name or ""
        arguments: dict[str, Any] = dict(call.args or {})
        self._bus.emit(ToolCallStarted(call_id=call_id, name=name, arguments=arguments))

        if not call_id:
            _log.error("tool call %r has no id; it cannot be answered and is not run", name)
            result = ToolResult.failure(
                "The call has no id, so it cannot be answered.",
                error_kind=ToolErrorKind.MISSING_ID,
            )
            self._emit_outcome(call_id, name, result, {}, started)
            return None
        if call_id in self._early_cancels:
            del self._early_cancels[call_id]
            self._bus.emit(ToolCallCancelled(call_id=call_id, name=name))
            return None

        entry = self._registry.get(name) if name else None
        if entry is None or not self.is_enabled(name):
            result = self._refusal(name, entry)
            definition = entry.definition if entry is not None else None
            return self._final_response(
                definition, call_id, name, result, capabilities, budget, started
            )

        definition = entry.definition
        task = asyncio.create_task(
            self._execute(definition, call_id, arguments, respond, capabilities, budget, started),
            name=f"tool:{name}:{call_id}",
        )
        self._running[call_id] = _RunningCall(name, task)
        try:
            outcome = await task
        except Exception as error:  # noqa: BLE001 - e.g. a validator raising a non-ValueError
            outcome = handler_error(definition, error)
        except asyncio.CancelledError:
            self._bus.emit(ToolCallCancelled(call_id=call_id, name=name))
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # handle() itself is being cancelled: let it stop.
            return None  # only the call was cancelled (server or aclose): answer nothing.
        finally:
            self._running.pop(call_id, None)
            cancel_requested = call_id in self._cancel_requested
            self._cancel_requested.discard(call_id)
        if cancel_requested:  # cancelled just as it finished: the server wants no answer
            self._bus.emit(ToolCallCancelled(call_id=call_id, name=name))
            return None
        if outcome is None:  # a stream that already sent its closing answer
            return None
        return self._final_response(
            definition, call_id, name, outcome, capabilities, budget, started
        )

    def _refusal(self, name: str, entry: _Registered | None) -> ToolResult[Any]:
        available = ", ".join(self.enabled_names()) or "none"
        if not name:
            return ToolResult.failure(
                f"The function call has no name. Available tools: {available}.",
                error_kind=ToolErrorKind.MISSING_NAME,
            )
        if entry is None:
            close = difflib.get_close_matches(name, self.enabled_names(), n=1)
            guess = f" Did you mean {close[0]!r}?" if close else ""
            return ToolResult.failure(
                f"There is no tool named {name!r}.{guess} Available tools: {available}.",
                error_kind=ToolErrorKind.UNKNOWN_TOOL,
            )
        return ToolResult.failure(
            f"The tool {name!r} is disabled by the user, so it was not run. Do not call it "
            "again; if the person wants it, they can switch it on in Settings.",
            error_kind=ToolErrorKind.DISABLED,
        )

    async def _execute(
        self,
        definition: ToolDefinition[Any, Any],
        call_id: str,
        raw_arguments: Mapping[str, Any],
        respond: Respond,
        capabilities: ModelCapabilities,
        budget: int,
        started: float,
    ) -> ToolResult[Any] | None:
        """Validate, confirm and run; None when a stream already sent its last answer."""
        name = definition.name
        try:
            arguments = definition.input_model.model_validate(raw_arguments)
        except ValidationError as error:
            feedback = feedback_from_validation_error(error, definition.parameters_json_schema)
            return ToolResult.failure(
                f"The arguments for {name!r} are not valid. Fix the parameters listed under "
                "'validation' and call again.",
                validation=feedback,
                error_kind=ToolErrorKind.INVALID_ARGUMENTS,
            )

        context = self._context_for(definition, call_id, arguments)
        if definition.requires_confirmation:
            approved = await context.confirm(definition.prompt_for(arguments))
            if not approved:
                return ToolResult.failure(
                    f"The person did not allow {name!r} to run (they said no or did not "
                    "answer). Do not call it again unless they ask for it.",
                    error_kind=ToolErrorKind.DENIED,
                )

        scope = asyncio.timeout(definition.timeout_s)
        try:
            async with scope:
                if definition.on_input_available is not None:
                    await definition.on_input_available(arguments, context)
                # Typed loosely on purpose: a hand-built definition may break the contract.
                produced: object = definition.handler(arguments, context)
                if isinstance(produced, AsyncIterator):
                    return await self._run_stream(
                        definition, call_id, produced, respond, capabilities, budget, started
                    )
                if not inspect.isawaitable(produced):
                    return ToolResult.failure(
                        f"The tool {name!r} is broken: its handler is not async (it returned "
                        f"{type(produced).__name__}); this is a bug in the tool.",
                        error_kind=ToolErrorKind.HANDLER_ERROR,
                    )
                return checked_result(definition, await produced)
        except TimeoutError as error:
            if not scope.expired():
                return handler_error(definition, error)
            _log.warning(
                "tool %s (call %s) timed out after %ss", name, call_id, definition.timeout_s
            )
            return ToolResult.failure(
                f"The tool {name!r} did not finish within {definition.timeout_s:g} seconds and "
                "was stopped. Tell the person it took too long; try again only if they ask.",
                error_kind=ToolErrorKind.TIMEOUT,
            )
        except Exception as error:  # noqa: BLE001 - any tool bug becomes an answer
            return handler_error(definition, error)

    async def _run_stream(
        self,
        definition: ToolDefinition[Any, Any],
        call_id: str,
        items: AsyncIterator[Any],
        respond: Respond,
        capabilities: ModelCapabilities,
        budget: int,
        started: float,
    ) -> ToolResult[Any] | None:
        """Send each item at once (NON_BLOCKING) or keep only the last (BLOCKING)."""
        streaming = (
            capabilities.async_function_calling and definition.behavior is ToolBehavior.NON_BLOCKING
        )
        last: ToolResult[Any] | None = None
        last_payload: dict[str, Any] = {}
        try:
            async for item in items:
                last = checked_result(definition, item)
                if not last.ok:
                    return last  # a failure ends the stream and is the final answer
                if not streaming:
                    continue
                response, last_payload = self._response_for(
                    definition,
                    call_id,
                    definition.name,
                    last,
                    capabilities,
                    budget,
                    will_continue=True,
                )
                self._bus.emit(
                    ToolCallProgress(
                        call_id=call_id,
                        name=definition.name,
                        result=last,
                        model_output=last_payload,
                    )
                )
                await _send(respond, [response])
        finally:
            aclose = getattr(items, "aclose", None)
            if aclose is not None:
                await aclose()
        if last is None:
            return ToolResult.failure(
                f"The tool {definition.name!r} finished without a result.",
                error_kind=ToolErrorKind.INVALID_OUTPUT,
            )
        if not streaming or not last.ok:
            return last
        closing = types.FunctionResponse(
            id=call_id,
            name=definition.name,
            response={},
            will_continue=False,
            scheduling=types.FunctionResponseScheduling.SILENT,
        )
        await _send(respond, [closing])
        self._emit_outcome(call_id, definition.name, last, last_payload, started)
        return None

    def _context_for(
        self, definition: ToolDefinition[Any, Any], call_id: str, arguments: BaseModel
    ) -> ToolContext:
        async def confirm(prompt: str, timeout_s: float | None) -> bool:
            return await self._confirm(
                definition,
                call_id,
                arguments,
                prompt,
                definition.confirmation_timeout_s if timeout_s is None else timeout_s,
            )

        return ToolContext(
            call_id=call_id,
            tool_name=definition.name,
            services=self._services,
            bus=self._bus,
            state=self.snapshot,
            confirm=confirm,
        )

    async def _confirm(
        self,
        definition: ToolDefinition[Any, Any],
        call_id: str,
        arguments: BaseModel,
        prompt: str,
        timeout_s: float,
    ) -> bool:
        shown = arguments.model_dump(mode="json")
        self._bus.emit(
            ConfirmationRequested(
                call_id=call_id,
                name=definition.name,
                prompt=prompt,
                arguments=shown,
                timeout_s=timeout_s,
            )
        )
        approved = False
        if self._confirmer is None:
            reason = "no confirmation available"
        else:
            request = ConfirmationRequest(
                call_id=call_id,
                tool_name=definition.name,
                prompt=prompt,
                arguments=shown,
                timeout_s=timeout_s,
            )
            scope = asyncio.timeout(timeout_s)
            try:
                async with scope:
                    approved = await self._confirmer.confirm(request) is True
                reason = "approved" if approved else "denied"
            except asyncio.CancelledError:
                # The call was cancelled while the question was open: tell the UI it is over.
                self._bus.emit(
                    ConfirmationResolved(
                        call_id=call_id, approved=False, reason="cancelled", name=definition.name
                    )
                )
                raise
            except TimeoutError:
                if scope.expired():
                    reason = "timed out"
                else:
                    _log.exception("confirmation for %s failed", definition.name)
                    reason = "confirmation failed"
            except Exception:  # noqa: BLE001 - a broken dialog must count as "no"
                _log.exception("confirmation for %s failed", definition.name)
                reason = "confirmation failed"
        self._bus.emit(
            ConfirmationResolved(
                call_id=call_id, approved=approved, reason=reason, name=definition.name
            )
        )
        return approved

    # ------------------------------------------------------------------ answers

    def _final_response(
        self,
        definition: ToolDefinition[Any, Any] | None,
        call_id: str,
        name: str,
        result: ToolResult[Any],
        capabilities: ModelCapabilities,
        budget: int,
        started: float,
    ) -> types.FunctionResponse:
        response, payload = self._response_for(
            definition, call_id, name, result, capabilities, budget, will_continue=None
        )
        self._emit_outcome(call_id, name, result, payload, started)
        return response

    def _emit_outcome(
        self,
        call_id: str,
        name: str,
        result: ToolResult[Any],
        payload: Mapping[str, Any],
        started: float,
    ) -> None:
        duration = time.monotonic() - started
        if result.ok:
            self._bus.emit(
                ToolCallFinished(
                    call_id=call_id,
                    name=name,
                    result=result,
                    model_output=payload,
                    duration_s=duration,
                )
            )
            return
        self._bus.emit(
            ToolCallFailed(
                call_id=call_id,
                name=name,
                kind=result.error_kind or ToolErrorKind.TOOL_FAILURE,
                problems=result.problems,
                duration_s=duration,
                result=result,
                model_output=payload,
            )
        )

    def _response_for(
        self,
        definition: ToolDefinition[Any, Any] | None,
        call_id: str,
        name: str,
        result: ToolResult[Any],
        capabilities: ModelCapabilities,
        budget: int,
        *,
        will_continue: bool | None,
    ) -> tuple[types.FunctionResponse, dict[str, Any]]:
        payload = fit_to_frame(model_output(definition, result), budget)
        scheduling: types.FunctionResponseScheduling | None = None
        if capabilities.async_function_calling:
            if definition is None:
                # Never declared, so its behavior is unknown: stay quiet, as for any error.
                scheduling = ResponseScheduling.SILENT.to_genai()
            elif definition.behavior is ToolBehavior.NON_BLOCKING:
                default = definition.scheduling if result.ok else definition.error_scheduling
                scheduling = (result.scheduling or default).to_genai()
            else:
                will_continue = None
        else:
            will_continue = None
        response = types.FunctionResponse(
            id=call_id,
            name=name,
            response=payload,
            scheduling=scheduling,
            will_continue=will_continue,
        )
        return response, payload


async def _send(respond: Respond, responses: list[types.FunctionResponse]) -> None:
    try:
        await respond(responses)
    except Exception:  # noqa: BLE001 - the receive loop handles a dead connection
        _log.exception(
            "sending %d tool response(s) failed (ids %s)",
            len(responses),
            ", ".join(str(response.id) for response in responses),
        )


def _name_of(definition: object) -> str | None:
    name = getattr(definition, "name", None)
    return name if isinstance(name, str) else None
