"""What an :class:`~sammy_desktop.sim.actions.AnswerIntents` action does, as actions.

Typed text: the first intent that matches calls its function with the arguments read from
the person's words, or says its sentence, or asks for what is missing, or says that its
function is not declared. Failing an intent, a declared function named in the text that
needs no argument is called as it is; failing that, the action's ``otherwise`` is said with
the examples of what the declared functions can do.

The answer to a call: the intent that made it says its sentence filled from the answer's
value (``{"output": {"ok": true, "value": {...}}}``, the app's shape, or any other
``output``), or its failure sentence for an ``error`` (or ``"ok": false``); a call no
intent made gets a plain sentence from the answer's values. Nothing said is JSON or a
function's own name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from sammy_desktop.sim.actions import (
    Action,
    AnswerIntents,
    CallTools,
    FunctionCallSpec,
    GenerationComplete,
    OutputTranscription,
    Tone,
    TurnComplete,
    TurnContext,
)
from sammy_desktop.sim.intents import Intent, fill, fill_first, spoken_name, understand
from sammy_desktop.sim.triggers import SignalKind

__all__ = ["answer_intents", "examples_of"]

_MAX_SENTENCE_CHARS = 300
_MAX_VALUES = 3


def answer_intents(action: AnswerIntents, context: TurnContext) -> list[Action]:
    """The actions that answer ``context``'s input with ``action``'s intents."""
    kind = context.signal.kind
    if kind is SignalKind.TOOL_RESPONSE:
        return _say(action, _answer_sentences(action, context))
    if kind is SignalKind.TEXT:
        return _answer_text(action, context)
    return []


def examples_of(
    intents: Iterable[Intent], declared: Iterable[str], *, limit: int | None = None
) -> str:
    """The examples of the intents whose function is declared: “a”, “b” or “c”.

    Args:
        intents: The table.
        declared: The functions the client declared.
        limit: The most examples given (all when None).
    """
    names = set(declared)
    quoted = [
        f"\u201c{intent.example}\u201d"
        for intent in intents
        if intent.example and intent.call is not None and intent.call in names
    ][:limit]
    if len(quoted) <= 1:
        return "".join(quoted)
    return f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _answer_text(action: AnswerIntents, context: TurnContext) -> list[Action]:
    declared = context.function_names
    examples = examples_of(action.intents, declared)
    understood = understand(context.text, action.intents)
    if understood is not None:
        intent = understood.intent
        scope = {"said": understood.said, "examples": examples, "screen": _screen(context)}
        if intent.call is not None and intent.call not in declared:
            return _say(
                action,
                fill(intent.say_unavailable, scope) or "That tool is not switched on.",
            )
        if understood.missing:
            return _say(action, fill(intent.say_missing, scope) or _help(action, examples))
        if intent.call is None:
            return _say(action, fill_first(intent.say, scope) or _help(action, examples))
        call = FunctionCallSpec(name=intent.call, args=intent.arguments(understood.said))
        return [CallTools(calls=(call,))]
    if action.call_named_tools:
        named = _named_function(context.text, declared)
        if named is not None:
            declaration = context.declaration(named)
            if declaration is None or not declaration.required:
                return [CallTools(calls=(FunctionCallSpec(name=named),))]
            example = next((i.example for i in action.intents if i.call == named and i.example), "")
            how = (
                f"say it in words, such as \u201c{example}\u201d"
                if example
                else "the offline demo cannot fill in what it needs"
            )
            return _say(action, f"To use {spoken_name(named)}, {how}.")
    return _say(action, _help(action, examples))


def _screen(context: TurnContext) -> dict[str, Any]:
    """What an answer may say of the shared screen: empty until a frame arrived (S6)."""
    if not context.video_frames or context.video_size is None:
        return {}
    width, height = context.video_size
    frames = context.video_frames
    return {
        "frames": frames,
        "frames_so_far": f"{frames} frame{'' if frames == 1 else 's'} so far",
        "width": width,
        "height": height,
    }


def _help(action: AnswerIntents, examples: str) -> str:
    if not examples:
        return action.without_tools
    return fill(action.otherwise, {"examples": examples}) or action.without_tools


def _named_function(text: str, declared: Iterable[str]) -> str | None:
    """A declared function named in ``text`` as it is ("sayHello") or in words ("say hello")."""
    lowered = f" {' '.join(re.findall(r'[a-z0-9]+', text.lower()))} "
    raw = text.lower()
    for name in declared:
        if name.lower() in raw or f" {spoken_name(name)} " in lowered:
            return name
    return None


def _answer_sentences(action: AnswerIntents, context: TurnContext) -> str:
    signal = context.signal
    examples = examples_of(action.intents, context.function_names)
    sentences = []
    for response in signal.tool_responses:
        intent = next((i for i in action.intents if i.call == response.name), None)
        ok, value = _outcome(response.response)
        scope = {
            "value": value,
            "args": signal.call_arguments.get(response.id, {}),
            "examples": examples,
        }
        templates = () if intent is None else (intent.say if ok else intent.say_failed)
        sentence = fill_first(templates, scope)
        if sentence is None:
            sentence = (
                _plain_success(response.name, value) if ok else _plain_failure(response.name, value)
            )
        sentences.append(sentence)
    return " ".join(sentences)


def _outcome(response: Mapping[str, Any]) -> tuple[bool, Any]:
    """Whether the answer is a success, and its value."""
    if "error" in response:
        return False, response["error"]
    body = response.get("output", response)
    if isinstance(body, Mapping):
        if body.get("ok") is False:
            return False, body
        return True, body.get("value", body)
    return True, body


def _plain_success(name: str, value: Any) -> str:
    values = list(_leaves(value))[:_MAX_VALUES]
    title = spoken_name(name).capitalize()
    if not values:
        return f"{title} is done."
    return _cut(f"{title} answered: {'; '.join(values)}.")


def _plain_failure(name: str, error: Any) -> str:
    problems = error.get("problems", ()) if isinstance(error, Mapping) else ()
    if any("did not allow" in str(problem) for problem in problems):
        return "All right, I won't do that without your yes."
    return f"Sorry, “{spoken_name(name)}” did not work this time."


def _leaves(value: Any) -> Iterable[str]:
    """The plain values inside an answer, depth first (no keys, no flags)."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, str):
        if value.strip():
            yield value.strip().rstrip(".")
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)


def _cut(text: str) -> str:
    if len(text) <= _MAX_SENTENCE_CHARS:
        return text
    return text[: _MAX_SENTENCE_CHARS - 1].rstrip() + "\u2026"


def _say(action: AnswerIntents, text: str) -> list[Action]:
    spoken: Action
    if action.chime_hz > 0:
        spoken = Tone(frequency_hz=action.chime_hz, duration_s=0.25, amplitude=0.1, transcript=text)
    else:
        spoken = OutputTranscription(text=text)
    return [spoken, GenerationComplete(), TurnComplete()]
