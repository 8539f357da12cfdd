"""Clipboard: ``readClipboard`` and ``writeClipboard``, through the UI's clipboard port.

Reading asks the person every time, because a clipboard often holds a password or a
private message; nothing is read before the answer is yes. The tool itself never
remembers a yes: "Always this session" is the confirmation port's choice (the UI's
``QtConfirmationPort`` answers yes without showing the sheet until the session ends).
Writing asks when it would replace something the person copied.

The clipboard's text is never written to the conversation history: both tools declare it
private (``withhold("text")``), so the history keeps only its length.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sammy_desktop.tools.context import ToolContext
from sammy_desktop.tools.definition import ToolDefinition, tool, withhold
from sammy_desktop.tools.desktop.ports import ClipboardPort
from sammy_desktop.tools.kinds import ToolBehavior, ToolCategory
from sammy_desktop.tools.results import ToolErrorKind, ToolResult

__all__ = [
    "MAX_READ_CHARS",
    "MAX_WRITE_CHARS",
    "READ_CLIPBOARD",
    "ReadClipboardInput",
    "ReadClipboardOutput",
    "WriteClipboardInput",
    "WriteClipboardOutput",
    "clipboard_tools",
]

READ_CLIPBOARD = "readClipboard"
MAX_READ_CHARS = 20_000
MAX_WRITE_CHARS = 100_000
_CONFIRMATION_TIMEOUT_S = 60.0
_READ_PROMPT = (
    "Let the assistant read what is on your clipboard? It may contain passwords or other "
    "private text."
)


class ReadClipboardInput(BaseModel):
    """readClipboard takes no arguments."""

    model_config = ConfigDict(extra="forbid")


class ReadClipboardOutput(BaseModel):
    """What readClipboard answers."""

    has_text: bool = Field(description="False when the clipboard holds no text (an image).")
    text: str = Field(description="The clipboard's text ('' when it is empty).")
    truncated: bool = Field(description="True when only the beginning of a long text is given.")
    length: int = Field(description="The full text's length in characters.")


class WriteClipboardInput(BaseModel):
    """Arguments of writeClipboard."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        min_length=1,
        max_length=MAX_WRITE_CHARS,
        description="The exact text to put on the clipboard for the person to paste.",
    )


class WriteClipboardOutput(BaseModel):
    """What writeClipboard answers."""

    length: int = Field(description="How many characters were copied.")


def _no_clipboard() -> ToolResult[Any]:
    return ToolResult.failure(
        "There is no clipboard access in this app right now (no desktop session). Tell the "
        "person; do not retry.",
        display="There is no clipboard Sammy can use here.",
    )


_PREVIEW_CHARS = 400


def _preview(text: str) -> str:
    """The text as the person sees it on the card and in the question (long ones cut)."""
    if len(text) <= _PREVIEW_CHARS:
        return text
    return f"{text[:_PREVIEW_CHARS]}… ({len(text)} characters in all)"


def _characters(count: int) -> str:
    return f"{count} character" + ("" if count == 1 else "s")


def clipboard_tools(clipboard: ClipboardPort | None) -> list[ToolDefinition[Any, Any]]:
    """The tools readClipboard and writeClipboard over ``clipboard``.

    With ``clipboard`` None both answer that there is no clipboard.

    Args:
        clipboard: the UI's clipboard.
    """

    @tool(
        name=READ_CLIPBOARD,
        title="Read the clipboard",
        about="Reads the text you copied, after asking you each time.",
        confirms_in_handler=True,
        category=ToolCategory.CONTEXT,
        behavior=ToolBehavior.BLOCKING,
        timeout_s=_CONFIRMATION_TIMEOUT_S + 15.0,
        confirmation_timeout_s=_CONFIRMATION_TIMEOUT_S,
        private_output=withhold("text"),
    )
    async def read_clipboard(
        args: ReadClipboardInput, context: ToolContext
    ) -> ReadClipboardOutput | ToolResult[ReadClipboardOutput]:
        """Read the text on the person's clipboard, when they ask about what they copied.

        The person is asked to allow it each time.
        """
        if clipboard is None:
            return _no_clipboard()
        if not await context.confirm(_READ_PROMPT):
            return ToolResult.failure(
                "The person did not allow reading the clipboard (they said no or did not "
                "answer); nothing was read. Do not try again unless they ask.",
                error_kind=ToolErrorKind.DENIED,
                display="You did not allow reading the clipboard.",
            )
        text = await clipboard.read_text()
        if text is None:
            return ToolResult.success(
                ReadClipboardOutput(has_text=False, text="", truncated=False, length=0),
                feedback=["The clipboard holds something that is not text, such as an image."],
                display="The clipboard holds no text",
            )
        shown = text[:MAX_READ_CHARS]
        return ToolResult.success(
            ReadClipboardOutput(
                has_text=True, text=shown, truncated=len(shown) < len(text), length=len(text)
            ),
            feedback=[] if text else ["The clipboard is empty."],
            display=f"Read {_characters(len(text))} from the clipboard"
            if text
            else "The clipboard is empty",
        )

    written: list[str] = []  # what this app put there last: replacing it needs no question

    @tool(
        name="writeClipboard",
        title="Copy to the clipboard",
        about="Puts text on your clipboard for you to paste; asks before replacing what you "
        "copied.",
        confirms_in_handler=True,
        category=ToolCategory.ACTION,
        behavior=ToolBehavior.BLOCKING,
        timeout_s=_CONFIRMATION_TIMEOUT_S + 15.0,
        confirmation_timeout_s=_CONFIRMATION_TIMEOUT_S,
        private_arguments=withhold("text"),
    )
    async def write_clipboard(
        args: WriteClipboardInput, context: ToolContext
    ) -> WriteClipboardOutput | ToolResult[WriteClipboardOutput]:
        """Put text on the person's clipboard so they can paste it.

        Use it when they ask you to copy something: an address, a command, a draft. When
        the clipboard holds something the person copied, they are asked first.
        """
        if clipboard is None:
            return _no_clipboard()
        current = await clipboard.read_text()
        theirs = current is None or (bool(current) and current not in (args.text, *written))
        if theirs and not await context.confirm(
            f"Replace what you copied with this text?\n\n{_preview(args.text)}"
        ):
            return ToolResult.failure(
                "The person did not allow replacing what they had copied (they said no or "
                "did not answer); the clipboard is unchanged. Do not try again unless they ask.",
                error_kind=ToolErrorKind.DENIED,
                display="You did not allow replacing what you had copied.",
            )
        await clipboard.write_text(args.text)
        written[:] = [args.text]
        return ToolResult.success(
            WriteClipboardOutput(length=len(args.text)),
            display=f"Copied to the clipboard: {_preview(args.text)}",
        )

    return [read_clipboard, write_clipboard]
