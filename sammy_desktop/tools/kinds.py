"""The small vocabularies a tool is described with: category, behavior, scheduling."""

from __future__ import annotations

import enum

from sammy_desktop.live_sdk import types

__all__ = ["ResponseScheduling", "ToolBehavior", "ToolCategory"]


class ToolCategory(enum.StrEnum):
    """What kind of thing a tool does; the settings pane groups tools by it."""

    ACTION = "action"
    """Changes something (ends the session, opens a page, writes a file)."""
    CONTEXT = "context"
    """Reads something for the model (time, preferences, the app's state)."""
    SYSTEM = "system"
    """About the assistant itself (escalation to a human)."""


class ToolBehavior(enum.StrEnum):
    """Whether the model waits for the answer (Live API ``Behavior``)."""

    BLOCKING = "BLOCKING"
    """The model stops and waits for the answer before it goes on."""
    NON_BLOCKING = "NON_BLOCKING"
    """The model keeps talking; the answer arrives later, scheduled as the tool asks."""

    def to_genai(self) -> types.Behavior:
        """The google-genai enum value."""
        return types.Behavior(self.value)


class ResponseScheduling(enum.StrEnum):
    """How an answer to a NON_BLOCKING call enters the conversation (ignored otherwise)."""

    INTERRUPT = "INTERRUPT"
    """Stop what the model is saying and react now."""
    WHEN_IDLE = "WHEN_IDLE"
    """React when the model has finished what it is saying."""
    SILENT = "SILENT"
    """Add to the context only; the model does not react by itself."""

    def to_genai(self) -> types.FunctionResponseScheduling:
        """The google-genai enum value."""
        return types.FunctionResponseScheduling(self.value)
