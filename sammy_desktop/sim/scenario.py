"""Scenarios: what the simulated model says, and when.

A :class:`Scenario` is an ordered list of :class:`Turn` objects. Each turn waits for its
trigger (the person stopped talking, typed text, answered a tool call, a timer ran out...;
:mod:`sammy_desktop.sim.triggers`) and then plays its actions in order (transcriptions,
model audio, tool calls, turnComplete, goAway, a close...; :mod:`sammy_desktop.sim.actions`).
Input that does not match the next turn's trigger is recorded and otherwise ignored. With
``repeat=True`` the list starts over after the last turn, which is how reactive scenarios
such as the offline demo are written (one turn whose :class:`~sammy_desktop.sim.actions.Respond`
action decides what to do from the :class:`~sammy_desktop.sim.actions.TurnContext`).

Scenarios are written in Python::

    Scenario(turns=[
        Turn(OnText(contains="time"), [
            CallTools(calls=[FunctionCallSpec(name="get_time")]),
        ]),
        Turn(OnToolResponse(), [
            Tone(duration_s=0.5, transcript="It is noon."),
            TurnComplete(),
        ]),
    ])

or loaded from JSON with :meth:`Scenario.from_json` / :meth:`Scenario.load`, in the format
:mod:`sammy_desktop.sim.scenario_json` describes. A barge-in (see
:mod:`sammy_desktop.sim.connection`) drops the rest of the playing turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

# The vocabulary of scenarios, importable from here as it was before it had modules of its own.
from sammy_desktop.sim.actions import (
    ACTION_TYPES,
    Action,
    AnswerIntents,
    CallTools,
    CancelToolCalls,
    Close,
    Delay,
    EchoAudio,
    FunctionCallSpec,
    GenerationComplete,
    GoAway,
    InputTranscription,
    Interrupted,
    ModelText,
    OutputTranscription,
    PcmAudio,
    RawMessage,
    Respond,
    ResumptionUpdate,
    Stall,
    Tone,
    TranscriptEntry,
    TurnComplete,
    TurnContext,
    Usage,
    WavAudio,
)
from sammy_desktop.sim.pcm import VadSettings
from sammy_desktop.sim.triggers import (
    TRIGGER_TYPES,
    InputSignal,
    OnActivityEnd,
    OnAny,
    OnAudioStreamEnd,
    OnSpeechEnd,
    OnText,
    OnTimer,
    OnToolResponse,
    SignalKind,
    Trigger,
)

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "ACTION_TYPES",
    "TRIGGER_TYPES",
    "Action",
    "AnswerIntents",
    "CallTools",
    "CancelToolCalls",
    "Close",
    "Delay",
    "EchoAudio",
    "FunctionCallSpec",
    "GenerationComplete",
    "GoAway",
    "InputSignal",
    "InputTranscription",
    "Interrupted",
    "ModelText",
    "OnActivityEnd",
    "OnAny",
    "OnAudioStreamEnd",
    "OnSpeechEnd",
    "OnText",
    "OnTimer",
    "OnToolResponse",
    "OutputTranscription",
    "PcmAudio",
    "RawMessage",
    "Respond",
    "ResumptionUpdate",
    "Scenario",
    "ScenarioError",
    "SignalKind",
    "Stall",
    "Tone",
    "TranscriptEntry",
    "Trigger",
    "Turn",
    "TurnComplete",
    "TurnContext",
    "Usage",
    "WavAudio",
]


class ScenarioError(ValueError):
    """A scenario that cannot be loaded; the message says where and why."""


@dataclass(frozen=True, slots=True)
class Turn:
    """A trigger and the actions it plays, in order."""

    trigger: Trigger
    actions: Sequence[Action] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    """A script for the simulated model.

    Attributes:
        turns: Played in order, each when its trigger fires.
        repeat: Start over after the last turn (for reactive scenarios).
        vad: Energy VAD settings for hands-free end-of-speech and barge-in.
        auto_resumption_updates: When the client asked for resumption, send a fresh handle
            after every turnComplete, as the service does.
        cancel_tool_calls_on_interrupt: On barge-in, also send toolCallCancellation for
            every unanswered function call (the service does this when the person
            interrupts a turn that called tools).
        name: Shown in logs.
    """

    turns: Sequence[Turn] = ()
    repeat: bool = False
    vad: VadSettings = field(default_factory=VadSettings)
    auto_resumption_updates: bool = True
    cancel_tool_calls_on_interrupt: bool = False
    name: str = "scenario"

    def turn_at(self, position: int) -> Turn | None:
        """Return the turn played at ``position`` (None when the scenario is over)."""
        if not self.turns:
            return None
        if self.repeat:
            return self.turns[position % len(self.turns)]
        return self.turns[position] if position < len(self.turns) else None

    @classmethod
    def from_json(cls, text: str, *, base_dir: Path | None = None, name: str = "") -> Scenario:
        """Build a scenario from the JSON format of :mod:`sammy_desktop.sim.scenario_json`.

        Args:
            text: The JSON document.
            base_dir: Folder that relative WAV paths are resolved against.
            name: A name for logs (defaults to the document's ``name`` key).

        Raises:
            ScenarioError: For invalid JSON or an unknown or malformed trigger or action.
        """
        # The JSON format builds Scenario and Turn objects, so it imports this module.
        from sammy_desktop.sim.scenario_json import parse_scenario

        return parse_scenario(text, base_dir=base_dir, name=name)

    @classmethod
    def load(cls, path: Path) -> Scenario:
        """Read a JSON scenario file (relative WAV paths are relative to it)."""
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ScenarioError(f"cannot read scenario {path}: {error}") from error
        return cls.from_json(text, base_dir=path.parent, name=path.stem)
