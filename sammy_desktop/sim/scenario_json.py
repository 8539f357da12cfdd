"""The JSON scenario format: a document read into a :class:`~sammy_desktop.sim.scenario.Scenario`.

The format mirrors the Python classes: each trigger and action is an object whose ``"type"``
names the class (the tables :data:`~sammy_desktop.sim.triggers.TRIGGER_TYPES` and
:data:`~sammy_desktop.sim.actions.ACTION_TYPES`) and whose other keys are the dataclass
fields::

    {
      "repeat": false,
      "vad": {"threshold_rms": 500, "silence_ms": 700},
      "auto_resumption_updates": true,
      "cancel_tool_calls_on_interrupt": false,
      "turns": [
        {"on": {"type": "text", "contains": "time"},
         "actions": [
           {"type": "call_tools", "calls": [{"name": "get_time", "args": {}}]}
         ]},
        {"on": {"type": "any", "of": [{"type": "tool_response"}, {"type": "timer", "after_s": 5}]},
         "actions": [
           {"type": "input_transcription", "text": "what time is it", "pieces": 2},
           {"type": "tone", "frequency_hz": 440, "duration_s": 0.5, "transcript": "It is noon."},
           {"type": "wav", "path": "answer.wav"},
           {"type": "echo"},
           {"type": "usage", "prompt_tokens": 10, "response_tokens": 20},
           {"type": "generation_complete"},
           {"type": "turn_complete"},
           {"type": "go_away", "time_left_s": 50},
           {"type": "close", "code": 1011, "reason": "Internal error encountered."}
         ]}
      ]
    }

Trigger types: ``activity_end``, ``audio_stream_end``, ``speech_end`` (energy VAD, hands-free),
``text`` (realtime text or client content; ``contains`` / ``pattern`` filter),
``tool_response`` (``name``, ``wait_for_all``), ``timer`` (``after_s`` since the previous turn
finished), ``any`` (``of``: a list of triggers).

Action types: ``input_transcription``, ``output_transcription``, ``model_text`` (``text``,
``pieces``), ``tone``, ``wav`` (``path``, relative to the JSON file), ``echo`` (what the
person said, 16 -> 24 kHz), audio actions share ``transcript``, ``chunk_ms``, ``realtime``;
``call_tools`` (``calls``: ``name``, ``args``, ``id``), ``cancel_tool_calls`` (``ids``, all
pending when omitted), ``generation_complete``, ``turn_complete`` (``reason``,
``waiting_for_input``), ``interrupted``, ``resumption_update`` (``resumable``), ``go_away``
(``time_left_s``), ``usage`` (``prompt_tokens``, ``response_tokens``, ``total_tokens``),
``delay`` (``seconds``), ``stall``, ``close`` (``code``: null or 1006 drops TCP with no close
frame; ``reason``), ``raw`` (``message``: any JSON object sent as is), ``intents`` (typed
text answered from a table of intents: ``intents``, each with ``name``, ``patterns``,
``example``, ``call``, ``args``, ``slots``, ``required``, ``say``, ``say_failed``,
``say_missing``, ``say_unavailable``; ``otherwise``, ``without_tools``, ``call_named_tools``,
``chime_hz``; see :mod:`sammy_desktop.sim.intents`). ``tone`` takes
``frequency_hz``, ``duration_s``, ``amplitude``; ``echo`` takes ``trim`` (cut the silence
around the speech, default true) and ``padding_ms`` (quiet audio kept around it, 100).

Every error names its place in the document (``turns[1].actions[0] (tone): ...``) and is a
:class:`~sammy_desktop.sim.scenario.ScenarioError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import pydantic

from sammy_desktop.sim.actions import ACTION_TYPES, Action
from sammy_desktop.sim.pcm import VadSettings
from sammy_desktop.sim.scenario import Scenario, ScenarioError, Turn
from sammy_desktop.sim.triggers import TRIGGER_TYPES, OnAny, Trigger

__all__ = ["parse_scenario"]


def parse_scenario(text: str, *, base_dir: Path | None = None, name: str = "") -> Scenario:
    """Build a scenario from a JSON document; what ``Scenario.from_json`` does.

    Args:
        text: The JSON document.
        base_dir: Folder that relative WAV paths are resolved against (default: the current
            one).
        name: A name for logs (defaults to the document's ``name`` key).

    Raises:
        ScenarioError: For invalid JSON or an unknown or malformed trigger or action.
    """
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ScenarioError(f"scenario is not valid JSON: {error}") from error
    return _ScenarioLoader(base_dir or Path.cwd()).scenario(document, name)


class _ScenarioLoader:
    """Turns a parsed JSON document into a :class:`Scenario`, naming the place of any error."""

    def __init__(self, base_dir: Path) -> None:
        self._base_dir = base_dir

    def scenario(self, document: Any, name: str) -> Scenario:
        if not isinstance(document, dict):
            raise ScenarioError("a scenario must be a JSON object with a 'turns' list")
        known = {
            "turns",
            "repeat",
            "vad",
            "auto_resumption_updates",
            "cancel_tool_calls_on_interrupt",
            "name",
        }
        unknown = sorted(set(document) - known)
        if unknown:
            raise ScenarioError(f"unknown scenario keys {unknown}; expected {sorted(known)}")
        turns = document.get("turns")
        if not isinstance(turns, list):
            raise ScenarioError("scenario 'turns' must be a list")
        vad = self._build(VadSettings, document.get("vad") or {}, "vad")
        return Scenario(
            turns=tuple(self._turn(turn, f"turns[{index}]") for index, turn in enumerate(turns)),
            repeat=self._bool(document.get("repeat", False), "repeat"),
            vad=vad,
            auto_resumption_updates=self._bool(
                document.get("auto_resumption_updates", True), "auto_resumption_updates"
            ),
            cancel_tool_calls_on_interrupt=self._bool(
                document.get("cancel_tool_calls_on_interrupt", False),
                "cancel_tool_calls_on_interrupt",
            ),
            name=str(document.get("name") or name or "scenario"),
        )

    @staticmethod
    def _bool(value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise ScenarioError(f"{where} must be true or false, got {value!r}")
        return value

    def _turn(self, turn: Any, where: str) -> Turn:
        if not isinstance(turn, dict) or set(turn) - {"on", "actions"} or "on" not in turn:
            raise ScenarioError(f"{where} must be an object with 'on' and 'actions'")
        actions = turn.get("actions", [])
        if not isinstance(actions, list):
            raise ScenarioError(f"{where}.actions must be a list")
        return Turn(
            trigger=self._trigger(turn["on"], f"{where}.on"),
            actions=tuple(
                self._action(action, f"{where}.actions[{index}]")
                for index, action in enumerate(actions)
            ),
        )

    def _typed(
        self, spec: Any, where: str, table: Mapping[str, type[Any]]
    ) -> tuple[str, dict[str, Any]]:
        if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
            raise ScenarioError(f"{where} must be an object with a 'type'")
        params = dict(spec)
        kind = params.pop("type")
        if kind not in table and kind != "any":
            raise ScenarioError(f"{where}: unknown type {kind!r}; expected one of {sorted(table)}")
        return kind, params

    def _trigger(self, spec: Any, where: str) -> Trigger:
        kind, params = self._typed(spec, where, TRIGGER_TYPES)
        if kind == "any":
            children = params.get("of")
            if set(params) != {"of"} or not isinstance(children, list) or not children:
                raise ScenarioError(f"{where}: 'any' needs a non-empty 'of' list and nothing else")
            return OnAny(
                tuple(self._trigger(child, f"{where}.of[{i}]") for i, child in enumerate(children))
            )
        trigger: Trigger = self._build(TRIGGER_TYPES[kind], params, f"{where} ({kind})")
        return trigger

    def _action(self, spec: Any, where: str) -> Action:
        kind, params = self._typed(spec, where, ACTION_TYPES)
        if kind == "any":
            raise ScenarioError(f"{where}: 'any' is a trigger, not an action")
        if kind == "wav" and isinstance(params.get("path"), str):
            path = self._base_dir / params["path"]
            if not path.is_file():
                raise ScenarioError(f"{where} (wav): no such file {path}")
            params["path"] = str(path)
        action: Action = self._build(ACTION_TYPES[kind], params, f"{where} ({kind})")
        return action

    @staticmethod
    def _build(cls: type[Any], params: Any, where: str) -> Any:
        if not isinstance(params, dict):
            raise ScenarioError(f"{where} must be a JSON object")
        allowed = {f.name for f in fields(cls)}
        unknown = sorted(set(params) - allowed)
        if unknown:
            raise ScenarioError(f"{where}: unknown field(s) {unknown}; expected {sorted(allowed)}")
        try:
            return pydantic.TypeAdapter(cls).validate_python(params)
        except pydantic.ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in problem['loc']) or 'value'}: {problem['msg']}"
                for problem in error.errors()
            )
            raise ScenarioError(f"{where}: {problems}") from error
