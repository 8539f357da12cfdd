"""ToolResult and ParameterFeedback: the tool2agent shapes the model sees."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sammy_desktop.tools import ParameterFeedback, ToolErrorKind, ToolResult
from sammy_desktop.tools.results import feedback_from_validation_error
from sammy_desktop.tools.schema import parameters_schema


class Value(BaseModel):
    n: int


def test_success_payload_carries_value_feedback_and_instructions() -> None:
    result = ToolResult.success(
        Value(n=3), feedback=["rounded down"], instructions=["say the number"], display="3"
    )
    assert result.ok and result.error_kind is None
    assert result.to_model_payload() == {
        "output": {
            "ok": True,
            "value": {"n": 3},
            "feedback": ["rounded down"],
            "instructions": ["say the number"],
        }
    }


def test_failure_payload_carries_problems_and_validation() -> None:
    result = ToolResult.failure(
        "bad city",
        validation={
            "city": ParameterFeedback.invalid("unknown", suggested_values=["Paris", "Parma"]),
            "unit": ParameterFeedback(valid=False, allowed_values=("C", "F"), normalized_value="C"),
        },
    )
    assert not result.ok
    assert result.error_kind is ToolErrorKind.TOOL_FAILURE
    assert result.to_model_payload() == {
        "error": {
            "ok": False,
            "problems": ["bad city"],
            "validation": {
                "city": {
                    "valid": False,
                    "problems": ["unknown"],
                    "suggested_values": ["Paris", "Parma"],
                },
                "unit": {"valid": False, "allowed_values": ["C", "F"], "normalized_value": "C"},
            },
        }
    }


def test_bad_results_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one problem"):
        ToolResult.failure()
    with pytest.raises(ValueError, match="not both"):
        ParameterFeedback(valid=False, allowed_values=(1,), suggested_values=(2,))


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    temperature: Literal["low", "high"] = Field(description="How warm.")
    count: int = Field(ge=1, description="How many.")
    maybe: Literal["a", "b"] | None = None


def feedback_for(arguments: dict[str, object]) -> dict[str, ParameterFeedback]:
    with pytest.raises(ValidationError) as caught:
        Strict.model_validate(arguments)
    return feedback_from_validation_error(caught.value, parameters_schema(Strict))


def test_validation_errors_become_per_parameter_feedback() -> None:
    feedback = feedback_for({"temperature": "warm", "count": 0, "maybe": "c", "tempreature": 1})

    assert feedback["temperature"].allowed_values == ("low", "high")
    assert feedback["temperature"].problems == ("Input should be 'low' or 'high'",)
    assert feedback["count"].problems == ("Input should be greater than or equal to 1",)
    assert feedback["count"].allowed_values is None
    assert feedback["maybe"].allowed_values == ("a", "b", None)
    assert feedback["tempreature"].problems == ("this tool has no such parameter",)
    assert feedback["tempreature"].suggested_values == ("temperature",)
    assert all(not item.valid for item in feedback.values())


def test_missing_parameters_say_what_they_are_for() -> None:
    feedback = feedback_for({})
    assert feedback["count"].problems == ("this parameter is required: How many.",)
    assert feedback["temperature"].allowed_values == ("low", "high")
