"""CallToolResult -> ToolResult: structured first, text joined, attachments summarised, capped."""

from __future__ import annotations

import base64

from mcp.types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from sammy_desktop.tools.mcp.results import MAX_ANSWER_CHARS, answer_from_result
from sammy_desktop.tools.results import ToolErrorKind


def test_structured_content_is_the_answer() -> None:
    result = CallToolResult(
        content=[TextContent(text='{"t": "12:00"}')], structured_content={"t": "12:00"}
    )
    answer = answer_from_result("time", "now", result)
    assert answer.ok
    assert answer.value is not None
    assert answer.value.content == {"t": "12:00"}
    assert answer.to_model_payload() == {
        "output": {
            "ok": True,
            "value": {"content": {"t": "12:00"}, "attachments": [], "truncated": False},
        }
    }


def test_text_parts_are_joined() -> None:
    result = CallToolResult(content=[TextContent(text="one"), TextContent(text="two")])
    answer = answer_from_result("s", "t", result)
    assert answer.value is not None
    assert answer.value.content == "one\n\ntwo"


def test_images_and_resources_are_summarised_not_dumped() -> None:
    png = base64.b64encode(b"\x89PNG" + b"\0" * 2044).decode()
    result = CallToolResult(
        content=[
            TextContent(text="Here is the chart."),
            ImageContent(data=png, mime_type="image/png"),
            EmbeddedResource(
                resource=TextResourceContents(
                    uri="file:///notes.txt", mime_type="text/plain", text="hello"
                )
            ),
            EmbeddedResource(
                resource=BlobResourceContents(
                    uri="file:///a.bin", blob=base64.b64encode(b"x" * 10).decode()
                )
            ),
            ResourceLink(name="report", uri="file:///report.pdf", mime_type="application/pdf"),
        ]
    )
    answer = answer_from_result("charts", "draw", result)
    assert answer.value is not None
    assert answer.value.content == "Here is the chart."
    assert answer.value.attachments == [
        "image (image/png, 2.0 KB)",
        "resource file:///notes.txt (text/plain, 5 bytes)",
        "resource file:///a.bin (unknown type, 10 bytes)",
        "link to resource 'report' (file:///report.pdf, application/pdf)",
    ]
    assert png not in str(answer.to_model_payload())


def test_is_error_is_a_failure_with_the_servers_words() -> None:
    result = CallToolResult(content=[TextContent(text="city 'Pariss' not found")], is_error=True)
    answer = answer_from_result("weather", "forecast", result)
    assert not answer.ok
    assert answer.error_kind is ToolErrorKind.TOOL_FAILURE
    assert "city 'Pariss' not found" in answer.problems[0]
    assert "'weather'" in answer.problems[0]
    assert "call again" in answer.problems[1]


def test_a_long_answer_is_cut_and_says_so() -> None:
    result = CallToolResult(content=[TextContent(text="x" * (MAX_ANSWER_CHARS * 3))])
    answer = answer_from_result("s", "t", result)
    assert answer.value is not None
    assert answer.value.truncated
    assert len(answer.value.content) <= MAX_ANSWER_CHARS + 2
    assert answer.feedback and "was cut" in answer.feedback[0]
