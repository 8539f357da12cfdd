"""The typed tool system: how the model acts on the desktop (no Qt here).

Write a tool as a typed async function with :func:`tool`, or build a
:class:`ToolDefinition` directly; hand it to :class:`ToolManager` or ship it in a package
through the entry point group ``sammy_desktop.tools``. See docs/tools.md.
"""

from sammy_desktop.tools.capabilities import (
    MODEL_CAPABILITIES,
    ModelCapabilities,
    capabilities_for,
)
from sammy_desktop.tools.context import (
    AgentStateSnapshot,
    ConfirmationPort,
    ConfirmationRequest,
    ToolContext,
    ToolServices,
    TranscriptLine,
    UrlOpener,
)
from sammy_desktop.tools.definition import (
    CallHandler,
    StreamHandler,
    ToolDefinition,
    ToolDefinitionError,
    tool,
)
from sammy_desktop.tools.events import (
    AnnouncementPending,
    ConfirmationRequested,
    ConfirmationResolved,
    ContextShared,
    EndSessionRequested,
    EscalationRaised,
    ToolCallCancelled,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
    ToolEnabledChanged,
)
from sammy_desktop.tools.kinds import ResponseScheduling, ToolBehavior, ToolCategory
from sammy_desktop.tools.manager import (
    MAX_CALLS_PER_MESSAGE,
    DuplicateToolError,
    RegistrationProblem,
    Respond,
    ToolManager,
    UnknownToolError,
)
from sammy_desktop.tools.plugins import ENTRY_POINT_GROUP, PluginError
from sammy_desktop.tools.results import ParameterFeedback, ToolErrorKind, ToolResult

__all__ = [
    "ENTRY_POINT_GROUP",
    "MAX_CALLS_PER_MESSAGE",
    "MODEL_CAPABILITIES",
    "AgentStateSnapshot",
    "AnnouncementPending",
    "CallHandler",
    "ConfirmationPort",
    "ConfirmationRequest",
    "ConfirmationRequested",
    "ConfirmationResolved",
    "ContextShared",
    "DuplicateToolError",
    "EndSessionRequested",
    "EscalationRaised",
    "ModelCapabilities",
    "ParameterFeedback",
    "PluginError",
    "RegistrationProblem",
    "Respond",
    "ResponseScheduling",
    "StreamHandler",
    "ToolBehavior",
    "ToolCallCancelled",
    "ToolCallFailed",
    "ToolCallFinished",
    "ToolCallProgress",
    "ToolCallStarted",
    "ToolCategory",
    "ToolContext",
    "ToolDefinition",
    "ToolDefinitionError",
    "ToolEnabledChanged",
    "ToolErrorKind",
    "ToolManager",
    "ToolResult",
    "ToolServices",
    "TranscriptLine",
    "UnknownToolError",
    "UrlOpener",
    "capabilities_for",
    "tool",
]
