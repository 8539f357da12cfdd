"""What a tool lets the conversation history keep of its calls (issue 18, point 9).

``withhold`` keeps the length of the named string fields at any depth and everything else;
a definition without a view keeps all; a view that breaks keeps nothing rather than the
secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from pydantic import BaseModel

from sammy_desktop.tools import ToolContext, ToolDefinition
from sammy_desktop.tools.definition import withhold
from sammy_desktop.tools.desktop import clipboard_tools


class _In(BaseModel):
    pass


class _Out(BaseModel):
    pass


async def _handler(args: _In, context: ToolContext) -> _Out:
    return _Out()


def _definition(**options: Any) -> ToolDefinition[_In, _Out]:
    return ToolDefinition(
        name="t",
        description="a test tool",
        input_model=_In,
        output_model=_Out,
        handler=_handler,
        **options,
    )


def test_withhold_keeps_only_the_length_of_the_named_strings_at_any_depth() -> None:
    view = withhold("text", "body")
    value = {
        "text": "secret",
        "other": "kept",
        "nested": {"body": "also secret", "count": 3, "list": [{"text": "x"}, "y"]},
        "body": ["one", "three", 5],
        "text_not_a_string": 7,
    }
    assert view(value) == {
        "text": {"withheld_chars": 6},
        "other": "kept",
        "nested": {
            "body": {"withheld_chars": 11},
            "count": 3,
            "list": [{"text": {"withheld_chars": 1}}, "y"],
        },
        "body": [{"withheld_chars": 3}, {"withheld_chars": 5}, 5],
        "text_not_a_string": 7,
    }


def test_without_a_view_everything_is_recorded() -> None:
    definition = _definition()
    assert definition.recorded_arguments({"a": "b"}) == {"a": "b"}
    assert definition.recorded_output({"output": {"value": "v"}}) == {"output": {"value": "v"}}


def test_a_view_that_fails_records_nothing_of_it(caplog: pytest.LogCaptureFixture) -> None:
    def broken(_value: Mapping[str, Any]) -> Mapping[str, Any]:
        raise KeyError("output")

    definition = _definition(private_output=broken, private_arguments=broken)
    recorded = definition.recorded_output({"output": {"value": {"text": "secret"}}})
    assert "secret" not in str(recorded)
    assert "secret" not in str(definition.recorded_arguments({"text": "secret"}))
    assert any("private view failed" in r.getMessage() for r in caplog.records)


def test_the_clipboard_tools_declare_the_text_private() -> None:
    read, write = clipboard_tools(None)
    answer = {"output": {"ok": True, "value": {"text": "pa55word", "length": 8}}}
    assert read.recorded_output(answer)["output"]["value"] == {
        "text": {"withheld_chars": 8},
        "length": 8,
    }
    assert write.recorded_arguments({"text": "pa55word"}) == {"text": {"withheld_chars": 8}}
