"""Running tool calls: every call of a message in parallel, each answered exactly once.

:class:`ToolCallRunner` takes each ``toolCall`` message from the Live API with a
:data:`~sammy_desktop.tools.calls.Respond`. All calls of one message run in parallel; each
gets exactly one well-formed ``FunctionResponse`` with its id and name, whatever goes
wrong: a missing name, an unknown or disabled tool, a duplicate id, arguments that do not
validate (with per-parameter feedback), a denied confirmation, an exception, a timeout.
Only calls the server cancels, and calls without an id (which cannot be answered), get
nothing. :meth:`ToolCallRunner.handle` never raises for a tool's problem, and each of its
waits is bounded by a timeout (the tool's or the confirmation's) unless a tool opts out
with ``timeout_s=None``. This is the one place that guarantees an answer per call: the
per-call safety net in :meth:`ToolCallRunner._answer` catches what the ordinary path
cannot.

What the runner knows about calls in flight lives in its
:class:`~sammy_desktop.tools.calls.ToolCallLedger`.
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from sammy_desktop.eventbus import EventBus
from sammy_desktop.live_sdk import types
from sammy_desktop.tools.answers import (
    checked_result,
    function_response,
    handler_error,
    outcome_event,
)
from sammy_desktop.tools.calls import Respond, ToolCallLedger
from sammy_desktop.tools.capabilities import ModelCapabilities, capabilities_for
from sammy_desktop.tools.confirmations import Confirmations
from sammy_desktop.tools.context import AgentStateSnapshot, ToolContext, ToolServices
from sammy_desktop.tools.definition import ToolDefinition
from sammy_desktop.tools.events import (
    ToolCallCancelled,
    ToolCallProgress,
    ToolCallStarted,
)
from sammy_desktop.tools.kinds import ToolBehavior
from sammy_desktop.tools.registry import ToolRegistry
from sammy_desktop.tools.results import ToolErrorKind, ToolResult, feedback_from_validation_error
from sammy_desktop.tools.wording import invalid_arguments_sentence

__all__ = ["DEFAULT_FRAME_BUDGET_BYTES", "MAX_CALLS_PER_MESSAGE", "ToolCallRunner"]

_log = logging.getLogger(__name__)

DEFAULT_FRAME_BUDGET_BYTES = 900_000
"""How much JSON one tool response message may carry. A websockets server refuses frames
over 1 MiB by default; the rest is headroom for the envelope."""

_MIN_CALL_BUDGET_BYTES = 4_096
_ENVELOPE_BYTES = 64  # {"toolResponse": {"functionResponses": [...]}} around the answers

MAX_CALLS_PER_MESSAGE = 32
"""The most calls of one message that run; the rest are answered with a refusal. A model
asks for a handful at a time; hundreds mean a prompt injection or a loop, and each would
open a task and perhaps a question to the person."""


class ToolCallRunner:
    """Runs the calls of each tool call message and answers each of them.

    Args:
        bus: where tool events go.
        services: what tools may use.
        registry: the tools (definitions, enabled set, declared capabilities).
        confirmations: how tools ask the person.
        state: returns the agent's state as tools see it.
        frame_budget_bytes: the most JSON one response message may carry; larger answers
            are cut with a note.
    """

    def __init__(
        self,
        bus: EventBus,
        services: ToolServices,
        registry: ToolRegistry,
        confirmations: Confirmations,
        state: Callable[[], AgentStateSnapshot],
        *,
        frame_budget_bytes: int = DEFAULT_FRAME_BUDGET_BYTES,
    ) -> None:
        self._bus = bus
        self._services = services
        self._registry = registry
        self._confirmations = confirmations
        self._state = state
        self._frame_budget = frame_budget_bytes
        self._ledger = ToolCallLedger()
        self._closed = False

    @property
    def calls(self) -> ToolCallLedger:
        """The calls in flight (read it; the runner writes it)."""
        return self._ledger

    # ------------------------------------------------------------------ the message

    async def handle(self, tool_call: types.LiveServerToolCall, respond: Respond) -> None:
        """Run every call of ``tool_call`` in parallel and answer them through ``respond``.

        Ordinary answers go out together once every call is done, in one ``respond`` call,
        or in several when together they would not fit in one frame. A streaming (async
        generator) tool on a NON_BLOCKING call answers on its own, one ``respond`` per item
        with ``will_continue=True`` and a final silent closing answer. A failing
        ``respond`` (the connection is gone) is logged; the receive loop notices the closed
        connection by itself.

        Calls past :data:`MAX_CALLS_PER_MESSAGE`, and every call whose id is repeated in the
        message, are answered with a refusal and not run.
        """
        calls = list(tool_call.function_calls or ())
        if not calls:
            return
        if self._closed:
            _log.warning("tool runner closed; %d call(s) not run", len(calls))
            return
        capabilities = self._capabilities()
        refusals = self._message_refusals(calls)
        running = len(calls) - len(refusals)
        budget = max(_MIN_CALL_BUDGET_BYTES, self._frame_budget // max(1, running))
        # Streaming calls (a timer, say) answer on their own and may stay open for
        # minutes: the ordinary answers of the same message must not wait for them.
        streaming = [
            index not in refusals and self._streams(call, capabilities)
            for index, call in enumerate(calls)
        ]
        async with asyncio.TaskGroup() as group:
            tasks = [
                group.create_task(
                    self._answer(call, respond, capabilities, budget, refusals.get(index)),
                    name=f"tool-call:{call.name}:{call.id}",
                )
                for index, call in enumerate(calls)
            ]
            ordinary = [task for task, streams in zip(tasks, streaming, strict=True) if not streams]
            if ordinary:
                await asyncio.wait(ordinary)
                batch = [r for task in ordinary if (r := task.result()) is not None]
                if batch:
                    await self._send(respond, batch)
        late = [
            r
            for task, streams in zip(tasks, streaming, strict=True)
            if streams and (r := task.result()) is not None
        ]
        if late:
            await self._send(respond, late)

    def _message_refusals(self, calls: list[types.FunctionCall]) -> dict[int, ToolResult[Any]]:
        """The calls of one message that must not run, by position, with their refusal.

        A repeated id makes every call carrying it ambiguous (an answer, or a yes to a
        question, could not say which of them it is for), so none of them runs. Calls past
        :data:`MAX_CALLS_PER_MESSAGE` are refused too.
        """
        counts = Counter(call.id for call in calls if call.id)
        refusals: dict[int, ToolResult[Any]] = {}
        for index, call in enumerate(calls):
            if call.id and counts[call.id] > 1:
                names = sorted({str(c.name) for c in calls if c.id == call.id})
                refusals[index] = ToolResult.failure(
                    f"{counts[call.id]} calls in this message share the id {call.id!r} "
                    f"({', '.join(names)}), so none of them was run: an answer could not "
                    "say which call it is for. Give every call its own id.",
                    error_kind=ToolErrorKind.DUPLICATE_ID,
                )
        if len(calls) > MAX_CALLS_PER_MESSAGE:
            _log.warning(
                "a tool call message has %d calls; only the first %d run",
                len(calls),
                MAX_CALLS_PER_MESSAGE,
            )
            for index in range(MAX_CALLS_PER_MESSAGE, len(calls)):
                refusals.setdefault(
                    index,
                    ToolResult.failure(
                        f"This message asked for {len(calls)} tool calls; at most "
                        f"{MAX_CALLS_PER_MESSAGE} run per message, so this one (number "
                        f"{index + 1}) was not run. Ask for fewer at a time.",
                        error_kind=ToolErrorKind.TOO_MANY_CALLS,
                    ),
                )
        return refusals

    def _streams(self, call: types.FunctionCall, capabilities: ModelCapabilities) -> bool:
        """Whether ``call`` goes to a progress-streaming NON_BLOCKING tool."""
        definition = self._registry.find(call.name or "")
        return (
            definition is not None
            and capabilities.async_function_calling
            and definition.behavior is ToolBehavior.NON_BLOCKING
            and definition.streams_progress
        )

    def cancel(self, ids: Iterable[str]) -> None:
        """Cancel the calls ``ids`` (the server's ``toolCallCancellation``); none is answered.

        An id that is not running yet is remembered, so a cancellation that overtakes its
        call still stops it.
        """
        self._ledger.cancel(ids)

    async def aclose(self, timeout_s: float = 5.0) -> None:
        """Cancel every running call and wait up to ``timeout_s`` for them to stop.

        Cancelled calls are not answered. Calls arriving later are ignored.
        """
        self._closed = True
        tasks = self._ledger.tasks()
        for task in tasks:
            task.cancel()
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=timeout_s)
            for task in pending:
                _log.error("tool call task %s ignored cancellation", task.get_name())

    async def _send(self, respond: Respond, responses: list[types.FunctionResponse]) -> None:
        """Hand ``responses`` to ``respond``, in as many messages as the frame budget needs."""
        for batch in self._frames(responses):
            try:
                await respond(batch)
            except Exception:  # noqa: BLE001 - the receive loop handles a dead connection
                _log.exception(
                    "sending %d tool response(s) failed (ids %s)",
                    len(batch),
                    ", ".join(str(response.id) for response in batch),
                )
            for response in batch:
                self._ledger.answered(response.id or "", will_continue=bool(response.will_continue))

    def _frames(
        self, responses: list[types.FunctionResponse]
    ) -> list[list[types.FunctionResponse]]:
        """``responses`` in order, grouped so no group's JSON exceeds the frame budget.

        One group when they fit (a synchronous model answers once it has them all); each
        answer is already cut to its share of the budget, so a group of one always fits.
        """
        frames: list[list[types.FunctionResponse]] = [[]]
        used = _ENVELOPE_BYTES
        for response in responses:
            size = len(response.model_dump_json(exclude_none=True, by_alias=True)) + 1  # ","
            if frames[-1] and used + size > self._frame_budget:
                frames.append([])
                used = _ENVELOPE_BYTES
            frames[-1].append(response)
            used += size
        return frames

    # ------------------------------------------------------------------ one call

    async def _answer(
        self,
        call: types.FunctionCall,
        respond: Respond,
        capabilities: ModelCapabilities,
        budget: int,
        refusal: ToolResult[Any] | None = None,
    ) -> types.FunctionResponse | None:
        """Run one call; return its answer, or None when nothing must be sent for it.

        The safety net around :meth:`_answer_call`: whatever escapes it (a bug here, or in
        app code such as the settings callable or a tool's ``to_model_output``), even a
        ``KeyboardInterrupt``, still becomes an answer, so one bad call cannot cancel its
        siblings in the task group, stop the loop, or leave the model waiting.
        """
        try:
            return await self._answer_call(call, respond, capabilities, budget, refusal)
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # noqa: BLE001 - the model must get an answer regardless
            _log.exception("internal error while answering tool call %s", call.id)
            result = ToolResult.failure(
                f"The app failed while running {call.name!r}: {type(error).__name__}.",
                error_kind=ToolErrorKind.HANDLER_ERROR,
            )
            payload = result.to_model_payload() if call.id else {}
            self._bus.emit(outcome_event(call.id or "", call.name or "", result, payload, 0.0))
            if not call.id:
                return None
            return types.FunctionResponse(id=call.id, name=call.name or "", response=payload)

    async def _answer_call(
        self,
        call: types.FunctionCall,
        respond: Respond,
        capabilities: ModelCapabilities,
        budget: int,
        refusal: ToolResult[Any] | None,
    ) -> types.FunctionResponse | None:
        started = time.monotonic()
        call_id = call.id or ""
        name = call.name or ""
        arguments: dict[str, Any] = dict(call.args or {})
        definition = self._registry.find(name) if name else None
        title = definition.title if definition is not None else ""
        self._bus.emit(
            ToolCallStarted(call_id=call_id, name=name, arguments=arguments, title=title)
        )

        if not call_id:
            _log.error("tool call %r has no id; it cannot be answered and is not run", name)
            result = ToolResult.failure(
                "The call has no id, so it cannot be answered.",
                error_kind=ToolErrorKind.MISSING_ID,
            )
            self._bus.emit(
                outcome_event(
                    call_id, name, result, {}, time.monotonic() - started, definition=definition
                )
            )
            return None
        if self._ledger.take_early_cancel(call_id):
            self._bus.emit(ToolCallCancelled(call_id=call_id, name=name, title=title))
            return None
        arrived = self._ledger.arrive(call_id, name)  # a refused call is owed an answer too
        if refusal is not None:
            return self._final_response(
                definition, call_id, name, refusal, capabilities, budget, started
            )
        if not arrived:
            _log.warning("tool call id %r is already in use; %s refused", call_id, name)
            result = ToolResult.failure(
                f"Another call with the id {call_id!r} is already running, so this call of "
                f"{name!r} was not run. Give every call its own id.",
                error_kind=ToolErrorKind.DUPLICATE_ID,
            )
            return self._final_response(
                definition, call_id, name, result, capabilities, budget, started
            )
        if definition is None or not self._registry.is_enabled(name):
            result = self._refusal(name, definition)
            return self._final_response(
                definition, call_id, name, result, capabilities, budget, started
            )

        task = asyncio.create_task(
            self._execute(definition, call_id, arguments, respond, capabilities, budget, started),
            name=f"tool:{name}:{call_id}",
        )
        self._ledger.started(call_id, task)
        try:
            outcome = await task
        except Exception as error:  # noqa: BLE001 - e.g. a validator raising a non-ValueError
            outcome = handler_error(definition, error)
        except asyncio.CancelledError:
            self._ledger.discard(call_id)
            self._bus.emit(ToolCallCancelled(call_id=call_id, name=name, title=definition.title))
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # handle() itself is being cancelled: let it stop.
            return None  # only the call was cancelled (server or aclose): answer nothing.
        if self._ledger.finished(call_id):
            # Cancelled just as it finished: the server wants no answer.
            self._bus.emit(ToolCallCancelled(call_id=call_id, name=name, title=definition.title))
            return None
        if outcome is None:  # a stream that already sent its closing answer
            return None
        return self._final_response(
            definition, call_id, name, outcome, capabilities, budget, started
        )

    def _refusal(self, name: str, definition: ToolDefinition[Any, Any] | None) -> ToolResult[Any]:
        enabled = self._registry.enabled_names()
        available = ", ".join(enabled) or "none"
        if not name:
            return ToolResult.failure(
                f"The function call has no name. Available tools: {available}.",
                error_kind=ToolErrorKind.MISSING_NAME,
            )
        if definition is None:
            close = difflib.get_close_matches(name, enabled, n=1)
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
        """Validate, confirm and run; None when a stream already sent its last answer.

        Every exception but a cancellation becomes the call's answer here, inside the
        call's own task: ``KeyboardInterrupt`` or ``SystemExit`` leaving a task would stop
        the event loop (asyncio re-raises them), and with it the app.
        """
        try:
            return await self._validate_confirm_run(
                definition, call_id, raw_arguments, respond, capabilities, budget, started
            )
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # noqa: BLE001 - nothing a tool raises may stop the app
            return handler_error(definition, error)

    async def _validate_confirm_run(
        self,
        definition: ToolDefinition[Any, Any],
        call_id: str,
        raw_arguments: Mapping[str, Any],
        respond: Respond,
        capabilities: ModelCapabilities,
        budget: int,
        started: float,
    ) -> ToolResult[Any] | None:
        name = definition.name
        try:
            arguments = definition.parse_arguments(raw_arguments)
        except ValidationError as error:
            feedback = feedback_from_validation_error(error, definition.parameters_json_schema)
            return ToolResult.failure(
                f"The arguments for {name!r} are not valid. Fix the parameters listed under "
                "'validation' and call again.",
                validation=feedback,
                error_kind=ToolErrorKind.INVALID_ARGUMENTS,
                display=invalid_arguments_sentence(
                    error.errors(include_url=False), definition.argument_titles
                ),
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
                response, last_payload = function_response(
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
                        title=definition.title,
                        summary=definition.summarize(last),
                    )
                )
                await self._send(respond, [response])
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
        await self._send(respond, [closing])
        self._bus.emit(
            outcome_event(
                call_id,
                definition.name,
                last,
                last_payload,
                time.monotonic() - started,
                definition=definition,
            )
        )
        return None

    def _context_for(
        self, definition: ToolDefinition[Any, Any], call_id: str, arguments: BaseModel
    ) -> ToolContext:
        async def confirm(prompt: str, timeout_s: float | None, target: str | None) -> bool:
            return await self._confirmations.ask(
                call_id=call_id,
                tool_name=definition.name,
                prompt=prompt,
                arguments=arguments.model_dump(mode="json"),
                timeout_s=definition.confirmation_timeout_s if timeout_s is None else timeout_s,
                target=target,
                title=definition.title,
                argument_titles=definition.argument_titles,
            )

        return ToolContext(
            call_id=call_id,
            tool_name=definition.name,
            services=self._services,
            bus=self._bus,
            state=self._state,
            confirm=confirm,
        )

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
        response, payload = function_response(
            definition, call_id, name, result, capabilities, budget, will_continue=None
        )
        self._bus.emit(
            outcome_event(
                call_id, name, result, payload, time.monotonic() - started, definition=definition
            )
        )
        return response

    def _capabilities(self) -> ModelCapabilities:
        declared = self._registry.declared_capabilities
        if declared is not None:
            return declared
        try:
            model = self._state().model
        except Exception:  # noqa: BLE001 - answering matters more; assume the safe default
            _log.exception("cannot tell the current model; answering as for a synchronous one")
            model = ""
        return capabilities_for(model)
