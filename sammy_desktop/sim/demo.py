"""The offline demo: what Sammy does with no API key, and honestly nothing more.

It proves the whole path works end to end without pretending to be an assistant (the UI
labels this mode "Offline demo"):

* After the person speaks (push-to-talk release, or end of speech hands-free), it plays
  their own voice back a moment later (16 -> 24 kHz) and transcribes the turn as
  ``[you spoke for 2.3 s]``.
* Typed text is answered with a short explanation of what the demo can do.
* When the typed text names a tool the app declared (``get_time`` or ``get time``), or says
  "what time is it" or "goodbye", it calls that tool and reads the result back as output
  transcription.

The tool names come from the setup message's function declarations (and later context
updates), so the demo follows whatever tools the person enabled.

The demo runs as long as the app does, so its simulator keeps only the newest of what it
received (:data:`DEMO_RECORD_LIMIT`): a test's simulator keeps everything, the demo's would
otherwise hold every microphone chunk of the day.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sammy_desktop.sim.actions import (
    Action,
    CallTools,
    Delay,
    EchoAudio,
    FunctionCallSpec,
    GenerationComplete,
    InputTranscription,
    OutputTranscription,
    Respond,
    Tone,
    TurnComplete,
    TurnContext,
)
from sammy_desktop.sim.recorder import RecordLimit
from sammy_desktop.sim.scenario import Scenario, Turn
from sammy_desktop.sim.triggers import (
    OnActivityEnd,
    OnAny,
    OnSpeechEnd,
    OnText,
    OnToolResponse,
    SignalKind,
)

__all__ = ["DEMO_RECORD_LIMIT", "DemoResponder", "demo_scenario"]

DEMO_RECORD_LIMIT = RecordLimit(max_events=2_000, max_audio_bytes=2 * 1024 * 1024)
"""What the demo's recorder keeps: the last ~65 s of microphone audio, 2,000 events at most.

Nothing in the app reads the demo's recorder; the bound is there so an hour of talking costs
2 MiB, not the ~115 MB that every 16 kHz chunk kept would.
"""

# Phrases a person may type, and words that identify the tool meant by each.
_PHRASES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\bwhat time is it\b|\bwhat's the time\b|\bthe time\b", re.IGNORECASE), ("time",)),
    (
        re.compile(r"\bgood ?bye\b|\bbye\b|\bhang up\b", re.IGNORECASE),
        ("end", "hang", "goodbye", "bye", "stop", "disconnect"),
    ),
)
_MAX_READBACK_CHARS = 400


class DemoResponder:
    """Decides what the demo says for each input; used through :func:`demo_scenario`.

    Args:
        echo_delay_s: Pause before the echo, so the person hears it as a reply.
        chime_hz: Pitch of the short tone that carries text answers (0 for none).
    """

    def __init__(self, *, echo_delay_s: float = 0.3, chime_hz: float = 660.0) -> None:
        self._echo_delay_s = echo_delay_s
        self._chime_hz = chime_hz

    def respond(self, context: TurnContext) -> Sequence[Action]:
        """Return the actions answering the input that fired the turn."""
        kind = context.signal.kind
        if kind is SignalKind.TOOL_RESPONSE:
            return self._read_back(context)
        if kind is SignalKind.TEXT:
            return self._answer_text(context)
        return self._echo(context)

    def _echo(self, context: TurnContext) -> list[Action]:
        seconds = context.speech_seconds
        actions: list[Action] = [InputTranscription(text=f"[you spoke for {seconds:.1f} s]")]
        if context.user_speech:
            actions += [
                Delay(seconds=self._echo_delay_s),
                EchoAudio(transcript="[your voice, played back]"),
            ]
        return [*actions, GenerationComplete(), TurnComplete()]

    def _answer_text(self, context: TurnContext) -> list[Action]:
        tool = self._tool_for(context.text, context.function_names)
        if tool is not None:
            return [CallTools(calls=(FunctionCallSpec(name=tool),))]
        if context.function_names:
            tools = ", ".join(context.function_names)
            hint = f"Name a tool ({tools}) or ask 'what time is it' and I will call it."
        else:
            hint = "No tools are enabled, so I can only echo what you say."
        answer = f"Offline demo: you typed \u201c{context.text.strip()}\u201d. {hint}"
        return [*self._say(answer), GenerationComplete(), TurnComplete()]

    def _read_back(self, context: TurnContext) -> list[Action]:
        lines = [
            f"{response.name}: {_render(response.response)}"
            for response in context.signal.tool_responses
        ]
        return [*self._say(" ".join(lines)), GenerationComplete(), TurnComplete()]

    def _say(self, text: str) -> list[Action]:
        if self._chime_hz <= 0:
            return [OutputTranscription(text=text)]
        return [Tone(frequency_hz=self._chime_hz, duration_s=0.25, amplitude=0.1, transcript=text)]

    @staticmethod
    def _tool_for(text: str, function_names: Sequence[str]) -> str | None:
        lowered = text.lower()
        for name in function_names:
            spoken = name.lower().replace("_", " ")
            if name.lower() in lowered or spoken in lowered:
                return name
        for pattern, hints in _PHRASES:
            if not pattern.search(text):
                continue
            for hint in hints:
                for name in function_names:
                    if hint in name.lower():
                        return name
        return None


def _render(response: Mapping[str, Any]) -> str:
    if "error" in response:
        body: Any = response["error"]
        prefix = "error: "
    else:
        body = response.get("output", response)
        prefix = ""
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    text = prefix + text
    if len(text) > _MAX_READBACK_CHARS:
        text = text[: _MAX_READBACK_CHARS - 1] + "\u2026"
    return text


def demo_scenario(*, echo_delay_s: float = 0.3, chime_hz: float = 660.0) -> Scenario:
    """Return the offline demo scenario (see the module docstring).

    Args:
        echo_delay_s: Pause before the person's voice is played back.
        chime_hz: Pitch of the short tone carrying text answers; 0 sends text only.
    """
    responder = DemoResponder(echo_delay_s=echo_delay_s, chime_hz=chime_hz)
    trigger = OnAny((OnActivityEnd(), OnSpeechEnd(), OnText(), OnToolResponse()))
    return Scenario(turns=[Turn(trigger, [Respond(responder.respond)])], repeat=True, name="demo")
