"""What each Gemini Live model supports, in one table.

Models differ in how they take function calls (see shared/LIVE_PROTOCOL.md): the 2.5
native-audio previews support asynchronous (NON_BLOCKING) calls and response scheduling but
block by default; 3.1 flash live is synchronous only and must not be sent ``behavior``; 3.8
live is non-blocking by default, so BLOCKING must be said explicitly, and rejects
``thinking_config`` and ``enable_affective_dialog``. A model that is not in the table is
treated as synchronous-only: leaving ``behavior`` out is accepted everywhere, while sending
it to a model that does not know it fails the session setup.
"""

from __future__ import annotations

from dataclasses import dataclass

from sammy_desktop.tools.kinds import ToolBehavior

__all__ = ["MODEL_CAPABILITIES", "ModelCapabilities", "capabilities_for"]


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
    """

    family: str
    async_function_calling: bool
    default_behavior: ToolBehavior = ToolBehavior.BLOCKING
    thinking_config: bool = True
    affective_dialog: bool = False


# Longest matching prefix wins; keep the more specific prefixes first for the reader.
MODEL_CAPABILITIES: tuple[ModelCapabilities, ...] = (
    ModelCapabilities(
        family="gemini-2.5-flash-native-audio",
        async_function_calling=True,
        affective_dialog=True,
    ),
    ModelCapabilities(family="gemini-live-2.5-flash", async_function_calling=True),
    ModelCapabilities(
        family="gemini-2.0-flash-live", async_function_calling=False, thinking_config=False
    ),
    ModelCapabilities(family="gemini-3.1-flash-live", async_function_calling=False),
    ModelCapabilities(
        family="gemini-3.8",
        async_function_calling=True,
        default_behavior=ToolBehavior.NON_BLOCKING,
        thinking_config=False,
        affective_dialog=False,
    ),
)

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
