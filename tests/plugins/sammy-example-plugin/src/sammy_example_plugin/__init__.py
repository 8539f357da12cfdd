"""An example Sammy Desktop tool plugin: convert lengths and temperatures."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from sammy_desktop.tools import (
    ParameterFeedback,
    ToolCategory,
    ToolContext,
    ToolResult,
    tool,
)

Unit = Literal["m", "km", "ft", "mi", "celsius", "fahrenheit"]

# How many metres one of each length unit is.
_METRES = {"m": 1.0, "km": 1000.0, "ft": 0.3048, "mi": 1609.344}
_TEMPERATURES = ("celsius", "fahrenheit")


class ConvertInput(BaseModel):
    """What to convert."""

    value: float = Field(description="The number to convert.")
    from_unit: Unit = Field(description="The unit the value is in.")
    to_unit: Unit = Field(description="The unit to convert to.")


class ConvertOutput(BaseModel):
    """The converted value."""

    value: float = Field(description="The converted number, rounded to 4 decimals.")
    unit: Unit = Field(description="Its unit.")


@tool(name="convertUnits", category=ToolCategory.CONTEXT, timeout_s=2.0)
async def convert_units(
    args: ConvertInput, context: ToolContext
) -> ConvertOutput | ToolResult[ConvertOutput]:
    """Convert a length (m, km, ft, mi) or a temperature (celsius, fahrenheit)."""
    units = (args.from_unit, args.to_unit)
    if all(unit in _TEMPERATURES for unit in units):
        celsius = args.value if args.from_unit == "celsius" else (args.value - 32) / 1.8
        result = celsius if args.to_unit == "celsius" else celsius * 1.8 + 32
    elif all(unit in _METRES for unit in units):
        result = args.value * _METRES[args.from_unit] / _METRES[args.to_unit]
    else:
        # Tell the model which target units make sense, so it can correct itself.
        family = _TEMPERATURES if args.from_unit in _TEMPERATURES else tuple(_METRES)
        return ToolResult.failure(
            f"Cannot convert {args.from_unit} to {args.to_unit}.",
            validation={
                "to_unit": ParameterFeedback.invalid(
                    "not the same kind of unit as from_unit", allowed_values=family
                )
            },
        )
    return ConvertOutput(value=round(result, 4), unit=args.to_unit)
