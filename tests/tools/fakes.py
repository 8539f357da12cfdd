"""Hand-written stand-ins for the parts the UI provides (a dialog, the desktop's URL opener)
and a recorder for what the manager sends to the model.

They implement the same Protocols as the real parts; nothing here mocks the tool layer.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from google.genai import types

from sammy_desktop.tools import ConfirmationRequest


@dataclass
class RecordingResponder:
    """Collects every ``respond`` call, like ``session.send_tool_response`` would send."""

    batches: list[list[types.FunctionResponse]] = field(default_factory=list)
    fail_with: Exception | None = None

    async def __call__(self, responses: list[types.FunctionResponse]) -> None:
        self.batches.append(list(responses))
        if self.fail_with is not None:
            raise self.fail_with

    @property
    def responses(self) -> list[types.FunctionResponse]:
        return [response for batch in self.batches for response in batch]

    def by_id(self, call_id: str) -> types.FunctionResponse:
        matches = [response for response in self.responses if response.id == call_id]
        assert len(matches) == 1, f"expected one answer for {call_id}, got {matches}"
        return matches[0]


class ScriptedConfirmer:
    """A ConfirmationPort whose answer the test decides; None means never answer."""

    def __init__(self, answer: bool | None, *, error: Exception | None = None) -> None:
        self.answer = answer
        self.error = error
        self.requests: list[ConfirmationRequest] = []
        self.cancelled = False
        self.asked = asyncio.Event()

    async def confirm(self, request: ConfirmationRequest) -> bool:
        self.requests.append(request)
        self.asked.set()
        if self.error is not None:
            raise self.error
        if self.answer is None:
            try:
                await asyncio.Event().wait()  # the person never answers
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        return bool(self.answer)


class RecordingUrlOpener:
    """A UrlOpener that records URLs; ``result`` or ``error`` decides what opening does."""

    def __init__(self, result: bool = True, error: Exception | None = None) -> None:
        self.result = result
        self.error = error
        self.opened: list[str] = []

    async def open_url(self, url: str) -> bool:
        self.opened.append(url)
        if self.error is not None:
            raise self.error
        return self.result
