"""An MCP ``CallToolResult`` as the tool system's :class:`~sammy_desktop.tools.results.ToolResult`.

* ``structured_content``, when the server sent it, is the answer's ``content`` (the
  server's typed value); the text parts are then left out, as the MCP specification has
  them carry the same value serialised for older clients.
* Otherwise the text parts, joined by blank lines, are the ``content``.
* Images, audio, resource links and embedded resources are summarised (kind, type, size,
  name) under ``attachments``: the model cannot see them through a function response, and
  a few hundred kilobytes of base64 would only fill its context.
* ``isError`` is a failure carrying the server's own text, so the model can correct the call
  and try again.
* Every answer is capped at :data:`MAX_ANSWER_CHARS` characters of JSON; a longer one is cut
  and says so (``truncated``).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel, ConfigDict, Field

from sammy_desktop.tools.results import ToolErrorKind, ToolResult

if TYPE_CHECKING:
    from mcp.types import CallToolResult

__all__ = ["MAX_ANSWER_CHARS", "McpAnswer", "answer_from_result", "attachment_line"]

MAX_ANSWER_CHARS: Final = 16_000
"""The most of one MCP answer the model gets, in characters of JSON (about 4,000 tokens)."""

_MAX_PROBLEM_CHARS: Final = 2_000


class McpAnswer(BaseModel):
    """What the model is told of an MCP tool's answer."""

    model_config = ConfigDict(extra="forbid")

    content: Any = Field(
        default=None, description="the server's structured value, or its text when it sent none"
    )
    attachments: list[str] = Field(
        default_factory=list, description="images, audio and resources, summarised"
    )
    truncated: bool = Field(default=False, description="the content was longer and was cut")


def _size(data: str) -> int | None:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return None


def _bytes(count: int | None) -> str:
    if count is None:
        return "size unknown"
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def attachment_line(block: Any) -> str | None:
    """One line about a content block that is not text; None for a text block."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return None
    if kind in ("image", "audio"):
        return f"{kind} ({block.mime_type}, {_bytes(_size(block.data))})"
    if kind == "resource_link":
        mime = f", {block.mime_type}" if getattr(block, "mime_type", None) else ""
        return f"link to resource {block.name!r} ({block.uri}{mime})"
    if kind == "resource":
        resource = block.resource
        mime = getattr(resource, "mime_type", None) or "unknown type"
        if hasattr(resource, "text"):
            size = _bytes(len(resource.text.encode("utf-8")))
        else:
            size = _bytes(_size(resource.blob))
        return f"resource {resource.uri} ({mime}, {size})"
    return f"content of type {kind!r}"


def _texts(result: CallToolResult) -> list[str]:
    from mcp.types import TextContent

    return [block.text for block in result.content if isinstance(block, TextContent)]


def _capped(content: Any) -> tuple[Any, bool]:
    """``content`` within the cap: as it is, or its JSON text cut to fit."""
    text = (
        content
        if isinstance(content, str)
        else json.dumps(content, ensure_ascii=False, default=str)
    )
    if len(text) <= MAX_ANSWER_CHARS:
        return content, False
    return text[:MAX_ANSWER_CHARS] + " …", True


def answer_from_result(server: str, tool: str, result: CallToolResult) -> ToolResult[McpAnswer]:
    """The tool system's result for what the server answered.

    Args:
        server: the server's name (for the failure's words).
        tool: the tool's name on the server.
        result: what ``call_tool`` returned.
    """
    attachments = [line for block in result.content if (line := attachment_line(block))]
    if result.is_error:
        text = "\n\n".join(_texts(result)).strip() or "it gave no reason"
        if len(text) > _MAX_PROBLEM_CHARS:
            text = text[:_MAX_PROBLEM_CHARS] + " …"
        return ToolResult.failure(
            f"The MCP server {server!r} answered that its tool {tool!r} failed: {text}",
            "Correct the arguments and call again if the reason says how; otherwise tell the "
            "person what went wrong.",
            error_kind=ToolErrorKind.TOOL_FAILURE,
            display=f"{server} said it failed",
        )
    if result.structured_content is not None:
        content: Any = result.structured_content
    else:
        texts = _texts(result)
        content = "\n\n".join(texts) if texts else None
    content, truncated = _capped(content)
    feedback = (
        (f"The answer was longer than {MAX_ANSWER_CHARS} characters and was cut.",)
        if truncated
        else ()
    )
    return ToolResult.success(
        McpAnswer(content=content, attachments=attachments, truncated=truncated),
        feedback=feedback,
    )
