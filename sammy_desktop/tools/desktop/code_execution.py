"""Code execution: the Live API's own tool for running Python on Google's side.

Like Google Search it is not a function the app runs: it is declared as a ``codeExecution``
tool in the session setup, and the model's ``executableCode`` and ``codeExecutionResult``
parts come back in its answer (the core shows them as ``CodeExecuted``). No Live model of
the Gemini API supports it today (the 3.8 and 3.1 model pages and the Live tools table say
"Code execution: Not supported"; docs/live-service.md R11), so :func:`code_execution_tools`
declares it only for a model whose capability entry says so, and the settings pane says why
the switch does nothing otherwise.
"""

from __future__ import annotations

from typing import Final

from sammy_desktop.config import Settings
from sammy_desktop.live_sdk import types
from sammy_desktop.tools.capabilities import capabilities_for

__all__ = [
    "CODE_EXECUTION_UNAVAILABLE",
    "code_execution_available",
    "code_execution_tools",
    "code_execution_unavailable_reason",
]

CODE_EXECUTION_UNAVAILABLE: Final = (
    "No Live model offers code execution today (Google's model pages say it is not "
    "supported), so this switch has no effect with the chosen model."
)


def code_execution_available(model: str) -> bool:
    """Whether ``model`` takes the ``codeExecution`` tool in Live."""
    return capabilities_for(model).code_execution


def code_execution_unavailable_reason(model: str) -> str | None:
    """Why the code execution switch does nothing with ``model``; None when the model offers it.

    The settings pane shows it under the switch (the window may not import this pack, so the
    app hands the pane this function).
    """
    return None if code_execution_available(model) else CODE_EXECUTION_UNAVAILABLE


def code_execution_tools(settings: Settings) -> list[types.Tool]:
    """The code execution tool for the setup: switched on, and offered by the model."""
    if not settings.code_execution or not code_execution_available(settings.model):
        return []
    return [types.Tool(code_execution=types.ToolCodeExecution())]
