"""What one Live session keeps across its resumed connections.

A session begins with a setup that has no resumption handle; a reconnect with a handle the
simulator issued continues it: the scenario's position, the transcript, the declared
functions and the function calls still pending all carry over. The connection serving it
now is a :class:`~sammy_desktop.sim.connection.SimulatedConnection`; the rules that change
the pending calls are :mod:`sammy_desktop.sim.tool_calls`'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

# The connection's names were defined here before it had a module of its own; they stay
# importable from here. (The connection imports this module for type checking only.)
from sammy_desktop.sim.connection import ConnectionLimits, SimulatedConnection
from sammy_desktop.sim.outbound import SimulatorScenarioError, close_websocket
from sammy_desktop.sim.turn_output import split_text

if TYPE_CHECKING:
    from sammy_desktop.sim.actions import TranscriptEntry
    from sammy_desktop.sim.scenario import Scenario
    from sammy_desktop.sim.wire import FunctionDeclarationInfo

__all__ = [
    "ConnectionLimits",
    "SessionState",
    "SimulatedConnection",
    "SimulatorScenarioError",
    "close_websocket",
    "split_text",
]


class SessionState:
    """What one Live session keeps across resumed connections.

    Args:
        session_id: Sent in setupComplete; shared by every connection of the session.
        scenario: The script this session plays.

    Attributes:
        profile: Name of the service profile that serves the session's model.
    """

    def __init__(self, session_id: str, scenario: Scenario) -> None:
        self.session_id = session_id
        self.scenario = scenario
        self.profile = "lenient"
        self.position = 0
        self.transcript: list[TranscriptEntry] = []
        self.function_names: tuple[str, ...] = ()
        self.declarations: tuple[FunctionDeclarationInfo, ...] = ()
        self.pending_calls: dict[str, str] = {}
        self.pending_behaviors: dict[str, str] = {}
        self.call_arguments: dict[str, dict[str, Any]] = {}
        self.next_call_number = 1
        self.client_messages = 0
        self.client_content_text: list[str] = []
        # S6: the shared screen's JPEG frames this session received, the last one's size,
        # and those no usage has counted yet.
        self.video_frames = 0
        self.video_size: tuple[int, int] | None = None
        self.video_frames_unbilled = 0

    def next_call_id(self) -> str:
        """Return a fresh function call id (``fc-1``, ``fc-2``...)."""
        call_id = f"fc-{self.next_call_number}"
        self.next_call_number += 1
        return call_id

    def declaration(self, name: str) -> FunctionDeclarationInfo | None:
        """The declaration of function ``name`` (setup, then context updates)."""
        return next((d for d in self.declarations if d.name == name), None)

    def blocking_calls(self) -> list[str]:
        """Ids of unanswered calls that block the conversation (docs/live-service.md T4)."""
        return [
            call_id
            for call_id in self.pending_calls
            if self.pending_behaviors.get(call_id, "BLOCKING") != "NON_BLOCKING"
        ]

    def forget_calls(self, ids: Sequence[str]) -> None:
        """Drop calls that were answered or cancelled."""
        for call_id in ids:
            self.pending_calls.pop(call_id, None)
            self.pending_behaviors.pop(call_id, None)
            self.call_arguments.pop(call_id, None)
