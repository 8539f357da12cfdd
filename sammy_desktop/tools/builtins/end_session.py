"""``endSession``: the model ends the conversation, once the person has said so.

The tool refuses unless ``confirmed`` is true, and its failure tells the model to ask the
person first: ending a conversation by mistake loses the person's place. Once confirmed it
emits :class:`~sammy_desktop.tools.events.EndSessionRequested`; the core saves the
conversation and closes the session after the answer has been sent.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from sammy_desktop.tools.context import ToolContext
from sammy_desktop.tools.definition import tool
from sammy_desktop.tools.events import EndSessionRequested
from sammy_desktop.tools.kinds import ResponseScheduling, ToolBehavior, ToolCategory
from sammy_desktop.tools.results import ParameterFeedback, ToolResult

__all__ = ["EndSessionInput", "EndSessionOutput", "end_session"]


class EndSessionInput(BaseModel):
    """Arguments of endSession."""

    reason: str = Field(
        min_length=1,
        max_length=500,
        description="Why the conversation ends, e.g. 'the person said goodbye'.",
    )
    confirmed: bool = Field(
        description="True only after the person has clearly said they want to end the "
        "conversation now.",
    )


class EndSessionOutput(BaseModel):
    """What endSession answers when the session will end."""

    ending: bool = Field(description="Always true: the session closes after this answer.")
    reason: str = Field(description="The reason given.")


@tool(
    name="endSession",
    title="End the conversation",
    about="Ends the conversation when you say goodbye.",
    category=ToolCategory.ACTION,
    behavior=ToolBehavior.NON_BLOCKING,
    scheduling=ResponseScheduling.WHEN_IDLE,
    # The refusal must reach the model so it asks the person; SILENT would swallow it.
    error_scheduling=ResponseScheduling.WHEN_IDLE,
    timeout_s=5.0,
)
async def end_session(
    args: EndSessionInput, context: ToolContext
) -> EndSessionOutput | ToolResult[EndSessionOutput]:
    """End the voice conversation.

    Call it when the person says goodbye, wants to stop, or
    the task is done and they agree to end. Set confirmed=true only after the person has
    clearly said they want to end now; otherwise ask them first.
    """
    if not args.confirmed:
        return ToolResult.failure(
            "The session was not ended because the person has not confirmed. Ask them "
            "whether they want to end the conversation, and call endSession again with "
            "confirmed=true only if they say yes.",
            display="The conversation goes on: Sammy asks you first before ending it.",
            validation={
                "confirmed": ParameterFeedback.invalid(
                    "must be true, and only after the person agreed", allowed_values=[True]
                )
            },
        )
    context.emit(EndSessionRequested(reason=args.reason, call_id=context.call_id))
    return ToolResult.success(
        EndSessionOutput(ending=True, reason=args.reason),
        instructions=("Say a short goodbye now; the session closes after this answer.",),
        display="Ending the conversation",
    )
