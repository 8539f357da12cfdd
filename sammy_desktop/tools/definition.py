"""How a tool is described: :class:`ToolDefinition`, and the :func:`tool` decorator.

A tool is a typed async function ``(input, context) -> output``: ``input`` is an instance of
a pydantic model (validated from the model's arguments), ``output`` an instance of a pydantic
output model or a :class:`~sammy_desktop.tools.results.ToolResult`. A handler written as an
async generator reports progress: each item it yields is sent to the model at once (for
NON_BLOCKING calls on models that support them).

tool2agent's lifecycle hooks map as follows. ``on_input_available`` runs with the validated
input before the handler. ``to_model_output`` decides what the model is told, apart from what
the UI shows. The Live API delivers a call's arguments whole, in one message, so tool2agent's
``onInputStart`` and ``onInputDelta`` would never fire here and are deliberately absent.

What the person reads about a call is the definition's to say as well: its :attr:`title`
("Open a web page"; a readable one from the name when none is given) and a one-line
:attr:`summary` of each result ("Opened wikipedia.org"), which the tool events carry to the
window. The model's answer is never shown to the person: it is written for the model.

What the conversation history keeps of a call is the definition's to say too: a tool whose
arguments or answers may hold private text (the clipboard's, often a password) declares
``private_arguments`` / ``private_output``, and the history records what they leave
(:func:`withhold` keeps only the length of the named fields). The model still gets the
whole answer; only what is written to disk changes.
"""

from __future__ import annotations

import inspect
import logging
import re
import types as pytypes
import typing
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final, Generic, Protocol, TypeAlias, TypeVar, overload

from pydantic import BaseModel

from sammy_desktop.tools.context import ToolContext
from sammy_desktop.tools.kinds import ResponseScheduling, ToolBehavior, ToolCategory
from sammy_desktop.tools.live_schema import LiveConversion, convert_model
from sammy_desktop.tools.results import ToolResult
from sammy_desktop.tools.schema import parameters_schema
from sammy_desktop.tools.wording import default_summary, title_from_name

if typing.TYPE_CHECKING:
    from google.genai import types

__all__ = [
    "CallHandler",
    "PrivateView",
    "ResultSummary",
    "StreamHandler",
    "ToolDefinition",
    "ToolDefinitionError",
    "tool",
    "withhold",
]

InT = TypeVar("InT", bound=BaseModel)
OutT = TypeVar("OutT", bound=BaseModel)

CallHandler: TypeAlias = Callable[[InT, ToolContext], Awaitable[OutT | ToolResult[OutT]]]
"""An ordinary handler: one answer."""

StreamHandler: TypeAlias = Callable[[InT, ToolContext], AsyncIterator[OutT | ToolResult[OutT]]]
"""A progress-reporting handler (an async generator): several answers, the last one final."""

_log = logging.getLogger(__name__)

# The Live API's rule for function names (FunctionDeclaration.name), at the v1beta
# reference's 64 characters (the SDK's docstring says 128): docs/live-service.md T9.
_NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_.:\-]{0,63}")

ResultSummary: TypeAlias = Callable[[ToolResult[Any]], str | None]
"""One line for the person about a result ("Timer for 5 minutes set"); None for the default."""

_MAX_TITLE_CHARS: Final = 60

PrivateView: TypeAlias = Callable[[Mapping[str, Any]], Mapping[str, Any]]
"""What the history may keep of a call's arguments or answer, given them (see :func:`withhold`)."""

_NOTHING_RECORDED: Final[Mapping[str, Any]] = {"withheld": "not recorded (private)"}


def withhold(*fields: str) -> PrivateView:
    """A :data:`PrivateView` that keeps only the length of the string ``fields``.

    Every string under one of those keys, at any depth, becomes ``{"withheld_chars": N}``;
    everything else is kept. ``withhold("text")`` records readClipboard's answer without
    the clipboard's text.
    """
    names = frozenset(fields)

    def view(value: Mapping[str, Any]) -> Mapping[str, Any]:
        return {key: _withheld(key in names, item, names) for key, item in value.items()}

    return view


def _withheld(private: bool, value: Any, names: frozenset[str]) -> Any:
    if private and isinstance(value, str):
        return {"withheld_chars": len(value)}
    if isinstance(value, Mapping):
        return {key: _withheld(key in names, item, names) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_withheld(private, item, names) for item in value]
    return value


DEFAULT_TIMEOUT_S = 30.0
DEFAULT_CONFIRMATION_TIMEOUT_S = 60.0


class ToolDefinitionError(ValueError):
    """A tool is described wrongly (bad name, missing model, bad timeout ...)."""


@dataclass(frozen=True, kw_only=True)
class ToolDefinition(Generic[InT, OutT]):
    """Everything the manager needs to declare, validate, run and answer one tool.

    Attributes:
        name: the function name the model calls (letters, digits, ``_.:-``, at most 64).
        description: tells the model what the tool does and when to use it.
        input_model: pydantic model of the arguments; its JSON schema is declared.
        output_model: pydantic model of the value a success carries.
        handler: ``async (input, context) -> output | ToolResult``, or an async generator
            yielding them (progress).
        category: action, context or system; the settings pane groups by it.
        behavior: BLOCKING (the model waits) or NON_BLOCKING (it keeps talking).
        scheduling: how a NON_BLOCKING success enters the conversation.
        error_scheduling: how a NON_BLOCKING failure does; SILENT by default, so a broken
            tool does not interrupt the person, as the original tool system does.
        timeout_s: the handler is cancelled and the model told after this long; None for
            no limit. Covers ``on_input_available`` and the whole of a streaming handler.
        requires_confirmation: ask the person before every run (the manager asks, before
            the handler is called).
        confirms_in_handler: the handler itself asks the person (``context.confirm``) before
            it acts, after checking what it was asked, so nobody is asked about something
            that would be refused anyway. Together with ``requires_confirmation`` this is
            what :attr:`asks_first` reports (the settings pane's "asks first" badge).
        confirmation_prompt: builds the question from the input; a default names the tool.
        confirmation_timeout_s: no answer within this long counts as no.
        enabled_by_default: whether the tool is on before the person decides.
        on_input_available: called with the validated input before the handler.
        to_model_output: maps a result to the ``response`` object the model gets; by default
            :meth:`ToolResult.to_model_payload`.
        private_arguments: what the conversation history keeps of the call's arguments
            (:meth:`recorded_arguments`); None keeps them whole.
        private_output: what it keeps of each ``response`` the model got
            (:meth:`recorded_output`); None keeps it whole.
        title: what the person calls the tool, in a few words ("Timer", "Open a web page");
            the cards, the confirmation sheet and Settings show it. Left empty, one is made
            from the name (``convertUnits`` -> "Convert units").
        summary: one line for the person about a result, success or failure ("Timer for 5
            minutes set", "You did not allow it"); a result's own ``display`` comes first,
            and None (or no hook) falls back to "Done" or the failure's kind in words (see
            :meth:`summarize`).
        about: what the tool does, in a sentence for the person (Settings > Tools); the
            description is written for the model, so without it Settings shows only the
            description's first sentence.
    """

    name: str
    description: str
    input_model: type[InT]
    output_model: type[OutT]
    handler: CallHandler[InT, OutT] | StreamHandler[InT, OutT]
    category: ToolCategory = ToolCategory.ACTION
    behavior: ToolBehavior = ToolBehavior.BLOCKING
    scheduling: ResponseScheduling = ResponseScheduling.WHEN_IDLE
    error_scheduling: ResponseScheduling = ResponseScheduling.SILENT
    timeout_s: float | None = DEFAULT_TIMEOUT_S
    requires_confirmation: bool = False
    confirms_in_handler: bool = False
    confirmation_prompt: Callable[[InT], str] | None = None
    confirmation_timeout_s: float = DEFAULT_CONFIRMATION_TIMEOUT_S
    enabled_by_default: bool = True
    on_input_available: Callable[[InT, ToolContext], Awaitable[None]] | None = None
    to_model_output: Callable[[ToolResult[OutT]], Mapping[str, Any]] | None = None
    private_arguments: PrivateView | None = None
    private_output: PrivateView | None = None
    title: str = ""
    summary: ResultSummary | None = None
    about: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME_PATTERN.fullmatch(self.name):
            raise ToolDefinitionError(
                f"tool name {self.name!r} is not allowed: start with a letter or _, then "
                "letters, digits, _ . : - (at most 64 characters)"
            )
        title = " ".join(str(self.title or "").split())
        if len(title) > _MAX_TITLE_CHARS:
            raise ToolDefinitionError(
                f"tool {self.name!r}: its title is {len(title)} characters; at most "
                f"{_MAX_TITLE_CHARS} (a few words, such as 'Open a web page')"
            )
        # Frozen: the one place the title is filled in.
        object.__setattr__(self, "title", title or title_from_name(self.name))
        if not self.description.strip():
            raise ToolDefinitionError(f"tool {self.name!r} needs a description for the model")
        for role, model in (("input_model", self.input_model), ("output_model", self.output_model)):
            if not (isinstance(model, type) and issubclass(model, BaseModel)):
                raise ToolDefinitionError(
                    f"tool {self.name!r}: {role} must be a pydantic BaseModel subclass, "
                    f"got {model!r}"
                )
        if not callable(self.handler):
            raise ToolDefinitionError(f"tool {self.name!r}: handler is not callable")
        for label, seconds in (
            ("timeout_s", self.timeout_s),
            ("confirmation_timeout_s", self.confirmation_timeout_s),
        ):
            if seconds is not None and not seconds > 0:
                raise ToolDefinitionError(
                    f"tool {self.name!r}: {label} must be positive, got {seconds}"
                )
        # Fail at definition time, not when the session is being set up.
        _ = self.parameters_json_schema
        _ = self.live_conversion

    @cached_property
    def parameters_json_schema(self) -> dict[str, Any]:
        """The input model's JSON schema as declared to the model (references inlined)."""
        try:
            return parameters_schema(self.input_model)
        except ValueError as error:
            raise ToolDefinitionError(f"tool {self.name!r}: {error}") from error

    @cached_property
    def live_conversion(self) -> LiveConversion:
        """The input model as the Live-safe ``parameters`` subset, with what it leaves out."""
        try:
            return convert_model(self.input_model)
        except ValueError as error:
            raise ToolDefinitionError(f"tool {self.name!r}: {error}") from error

    @cached_property
    def live_parameters(self) -> types.Schema:
        """``FunctionDeclaration.parameters``: what the model is told about the arguments.

        Declared as ``parameters`` (a ``types.Schema``), never ``parameters_json_schema``,
        which Live models have been seen to ignore (docs/live-service.md T1).
        """
        return self.live_conversion.to_schema()

    def parse_arguments(self, arguments: Mapping[str, Any]) -> InT:
        """The call's arguments checked and typed: ``input_model.model_validate``.

        Raises:
            pydantic.ValidationError: what is wrong, field by field (the runner turns it
                into per-parameter feedback for the model).
        """
        return self.input_model.model_validate(arguments)

    def recorded_arguments(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """What the history writes of a call's ``arguments`` (see ``private_arguments``)."""
        return _recorded(self.private_arguments, arguments, self.name)

    def recorded_output(self, response: Mapping[str, Any]) -> dict[str, Any]:
        """What the history writes of an answer's ``response`` (see ``private_output``)."""
        return _recorded(self.private_output, response, self.name)

    @property
    def about_for_people(self) -> str:
        """What the tool does, for the person: :attr:`about`, or the description's first line."""
        if self.about.strip():
            return " ".join(self.about.split())
        first = self.description.strip().split("\n\n")[0]
        return " ".join(first.split())

    @cached_property
    def argument_titles(self) -> dict[str, str]:
        """The human labels of the arguments that declare a ``title`` (``Field(title=...)``)."""
        return {
            name: field.title
            for name, field in self.input_model.model_fields.items()
            if field.title
        }

    def summarize(self, result: ToolResult[Any]) -> str:
        """The one line the person reads about ``result``; never the model's answer.

        The result's ``display`` when it has one, else the :attr:`summary` hook's line, else
        "Done" for a success and the failure's kind in words. A broken hook is logged and
        passed over.
        """
        if result.display:
            return result.display
        if self.summary is not None:
            try:
                line = self.summary(result)
            except Exception:  # noqa: BLE001 - a broken wording must not lose the answer
                _log.warning("tool %r: its summary failed; the default is shown", self.name)
            else:
                if line:
                    return line
        return default_summary(result)

    @property
    def asks_first(self) -> bool:
        """Whether the person is asked before the tool acts (by the manager or the handler)."""
        return self.requires_confirmation or self.confirms_in_handler

    @property
    def streams_progress(self) -> bool:
        """True when the handler is an async generator (it may send several answers)."""
        return inspect.isasyncgenfunction(self.handler)

    def prompt_for(self, arguments: InT) -> str:
        """The confirmation question for ``arguments``."""
        if self.confirmation_prompt is not None:
            return self.confirmation_prompt(arguments)
        return f"Sammy wants to use “{self.title}”. Allow it?"


def _recorded(view: PrivateView | None, value: Mapping[str, Any], tool_name: str) -> dict[str, Any]:
    if view is None:
        return dict(value)
    try:
        return dict(view(value))
    except Exception:  # noqa: BLE001 - a broken view must keep the secret, not crash the log
        _log.warning("tool %r: its private view failed; nothing of it recorded", tool_name)
        return dict(_NOTHING_RECORDED)


class _ToolDecorator(Protocol):
    """What ``tool(...)`` returns: turns a typed async function into a ToolDefinition."""

    @overload
    def __call__(
        self, func: Callable[[InT, ToolContext], Awaitable[OutT | ToolResult[OutT]]], /
    ) -> ToolDefinition[InT, OutT]: ...

    @overload
    def __call__(
        self, func: Callable[[InT, ToolContext], AsyncIterator[OutT | ToolResult[OutT]]], /
    ) -> ToolDefinition[InT, OutT]: ...


def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    category: ToolCategory = ToolCategory.ACTION,
    behavior: ToolBehavior = ToolBehavior.BLOCKING,
    scheduling: ResponseScheduling = ResponseScheduling.WHEN_IDLE,
    error_scheduling: ResponseScheduling = ResponseScheduling.SILENT,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    requires_confirmation: bool = False,
    confirms_in_handler: bool = False,
    confirmation_prompt: Callable[[Any], str] | None = None,
    confirmation_timeout_s: float = DEFAULT_CONFIRMATION_TIMEOUT_S,
    enabled_by_default: bool = True,
    on_input_available: Callable[[Any, ToolContext], Awaitable[None]] | None = None,
    to_model_output: Callable[[ToolResult[Any]], Mapping[str, Any]] | None = None,
    private_arguments: PrivateView | None = None,
    private_output: PrivateView | None = None,
    title: str = "",
    summary: Callable[[ToolResult[Any]], str | None] | None = None,
    about: str = "",
    input_model: type[BaseModel] | None = None,
    output_model: type[BaseModel] | None = None,
) -> _ToolDecorator:
    """Build a :class:`ToolDefinition` from a typed async function.

    The name defaults to the function's name, the description to its docstring, the input
    model to the first parameter's annotation and the output model to the return
    annotation (``Out``, ``Out | ToolResult[Out]``, or ``AsyncIterator[...]`` of those).
    Pass ``input_model`` / ``output_model`` when the annotations cannot be resolved (for
    example models defined inside a function). The other arguments are the
    :class:`ToolDefinition` fields.

    Example::

        @tool(category=ToolCategory.CONTEXT)
        async def roll_dice(args: DiceInput, context: ToolContext) -> DiceOutput:
            '''Roll dice for a board game.'''
            return DiceOutput(total=...)
    """

    def build(func: Callable[..., Any], /) -> ToolDefinition[Any, Any]:
        if not (inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func)):
            raise ToolDefinitionError(f"@tool needs an async function (async def), got {func!r}")
        hints = _resolve_hints(func, needed=input_model is None or output_model is None)
        parameters = list(inspect.signature(func).parameters)
        if len(parameters) != 2:
            raise ToolDefinitionError(
                f"{func.__qualname__}: a tool function takes (input, context), "
                f"found {len(parameters)} parameter(s)"
            )
        chosen_input = input_model or _as_model(hints.get(parameters[0]), func, "input")
        chosen_output = output_model or _output_model_from(hints.get("return"), func)
        return ToolDefinition(
            name=name or func.__name__,
            description=description or _unwrapped(inspect.getdoc(func) or ""),
            input_model=chosen_input,
            output_model=chosen_output,
            handler=func,
            category=category,
            behavior=behavior,
            scheduling=scheduling,
            error_scheduling=error_scheduling,
            timeout_s=timeout_s,
            requires_confirmation=requires_confirmation,
            confirms_in_handler=confirms_in_handler,
            confirmation_prompt=confirmation_prompt,
            confirmation_timeout_s=confirmation_timeout_s,
            enabled_by_default=enabled_by_default,
            on_input_available=on_input_available,
            to_model_output=to_model_output,
            private_arguments=private_arguments,
            private_output=private_output,
            title=title,
            summary=summary,
            about=about,
        )

    return typing.cast("_ToolDecorator", build)


def _unwrapped(docstring: str) -> str:
    """A docstring as the model should read it: paragraphs kept, hard line breaks removed."""
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in docstring.split("\n\n"))


def _resolve_hints(func: Callable[..., Any], *, needed: bool) -> dict[str, Any]:
    try:
        return typing.get_type_hints(func)
    except (NameError, TypeError) as error:
        if not needed:
            return {}
        raise ToolDefinitionError(
            f"{func.__qualname__}: cannot resolve its type annotations ({error}); define the "
            "models at module level or pass input_model= and output_model= to @tool"
        ) from error


def _as_model(annotation: Any, func: Callable[..., Any], role: str) -> type[BaseModel]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    raise ToolDefinitionError(
        f"{func.__qualname__}: the {role} must be annotated with a pydantic model, "
        f"got {annotation!r} (or pass {role}_model= to @tool)"
    )


def _output_model_from(annotation: Any, func: Callable[..., Any]) -> type[BaseModel]:
    """Find ``Out`` in ``Out``, ``Out | ToolResult[Out]`` or ``AsyncIterator[...]``."""
    candidates = [annotation]
    found: list[type[BaseModel]] = []
    while candidates:
        current = candidates.pop()
        origin = typing.get_origin(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            found.append(current)
        elif origin in (typing.Union, pytypes.UnionType) or origin is ToolResult:
            candidates.extend(typing.get_args(current))
        elif isinstance(origin, type) and issubclass(origin, AsyncIterator | Awaitable):
            candidates.extend(typing.get_args(current)[:1])
    unique = list(dict.fromkeys(found))
    if len(unique) != 1:
        raise ToolDefinitionError(
            f"{func.__qualname__}: cannot tell the output model from the return annotation "
            f"{annotation!r}; return one pydantic model (or pass output_model= to @tool)"
        )
    return unique[0]
