"""What each Gemini Live model supports, in one table (evidence: docs/live-service.md).

Models differ in how they take function calls: the 2.5 native-audio models support
asynchronous (NON_BLOCKING) calls and response scheduling but block by default; 3.1 flash
live is synchronous only and must not be sent ``behavior``; 3.8 live is non-blocking by
default, so BLOCKING must be said explicitly, and rejects ``thinking_config`` and
``enable_affective_dialog`` (T4, M3). A model that is not in the table is treated as
synchronous-only: leaving ``behavior`` out is accepted everywhere, while sending it to a
model that does not know it fails the session setup.

Also per family: whether a mid-session ``contextUpdate`` is known to work (no source says
so for any model, S4: the app reconnects with the resumption handle instead), whether
microphone input must wait while a tool call is unanswered (3.x close or cancel on it, T7),
whether ``speech_config.language_code`` is honoured (native-audio models ignore it, M4: the
language goes into the system instruction), whether the ``codeExecution`` tool exists in
Live (no current model, R11), and how a fresh session takes the earlier conversation (S7:
declared as history in the setup and closed with ``turn_complete``, or as context turns that
end with the person's).
"""

from __future__ import annotations

from dataclasses import dataclass

from sammy_desktop.tools.kinds import ToolBehavior

__all__ = [
    "LIVE_MODELS",
    "MODEL_CAPABILITIES",
    "ModelCapabilities",
    "capabilities_for",
    "is_known_model",
]


@dataclass(frozen=True, slots=True)
class ModelCapabilities:
    """What one family of Live models accepts.

    Attributes:
        family: the model-name prefix this entry covers ("" for the fallback).
        async_function_calling: accepts ``behavior`` in declarations, NON_BLOCKING calls,
            ``scheduling`` and ``will_continue`` in responses.
        default_behavior: what a declaration without ``behavior`` means for this model.
        thinking_config: accepts ``generationConfig.thinkingConfig``.
        affective_dialog: accepts ``enableAffectiveDialog``.
        context_update: applies a mid-session ``contextUpdate`` (tools, instructions).
        holds_input_during_tool_call: realtime input must wait while a call is unanswered.
        honours_language_code: ``speech_config.language_code`` decides the language.
        code_execution: the ``codeExecution`` tool works in Live.
        client_content_turns: a typed turn sent as ``client_content`` is answered (S1).
        history_in_setup: earlier turns replayed to a fresh session are declared in the
            setup (``historyConfig.initialHistoryInClientContent``) and closed with
            ``turn_complete=True``, which the field's doc says triggers no answer (S7). False
            (2.5, which answers such a seed): they go with ``turn_complete=False``, ending
            with a turn of the person's.
    """

    family: str
    async_function_calling: bool
    default_behavior: ToolBehavior = ToolBehavior.BLOCKING
    thinking_config: bool = True
    affective_dialog: bool = False
    context_update: bool = False
    holds_input_during_tool_call: bool = False
    honours_language_code: bool = False
    code_execution: bool = False
    client_content_turns: bool = True
    history_in_setup: bool = True


# Longest matching prefix wins; keep the more specific prefixes first for the reader.
MODEL_CAPABILITIES: tuple[ModelCapabilities, ...] = (
    ModelCapabilities(
        family="gemini-2.5-flash-native-audio",
        async_function_calling=True,
        affective_dialog=True,
        history_in_setup=False,  # S7: a closed seed is answered; it must end with the user
    ),
    ModelCapabilities(
        family="gemini-3.1-flash-live",
        async_function_calling=False,
        holds_input_during_tool_call=True,  # T7: closes with 1008 otherwise
    ),
    ModelCapabilities(
        family="gemini-3.8",
        async_function_calling=True,
        default_behavior=ToolBehavior.NON_BLOCKING,
        thinking_config=False,
        affective_dialog=False,
        # T7: new input cancels a BLOCKING call (answered by the cancellation path); the
        # NON_BLOCKING default takes audio, so input is not held back.
    ),
)

LIVE_MODELS: tuple[str, ...] = (
    "gemini-3.8-live",
    "gemini-2.5-flash-native-audio-preview-12-2025",
    "gemini-2.5-flash-native-audio-latest",
    "gemini-3.1-flash-live-preview",
)
"""The Live models in service that the app knows, Google's recommended default first (C6)."""


def is_known_model(model: str) -> bool:
    """Whether ``model`` belongs to a family of the table (its features are known)."""
    bare = model.strip().removeprefix("models/")
    return any(bare.startswith(entry.family) for entry in MODEL_CAPABILITIES)


_FALLBACK = ModelCapabilities(family="", async_function_calling=False, thinking_config=False)


def capabilities_for(model: str) -> ModelCapabilities:
    """The capabilities of ``model`` (with or without the ``models/`` prefix).

    Unknown models get the conservative fallback: synchronous function calls only.
    """
    bare = model.strip().removeprefix("models/")
    matches = [entry for entry in MODEL_CAPABILITIES if bare.startswith(entry.family)]
    if not matches:
        return _FALLBACK
    return max(matches, key=lambda entry: len(entry.family))
