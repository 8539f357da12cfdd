"""Lines ``typed-turn`` and ``tool-call``: the two typed turns and what the model sent back.

``typed-turn`` sends :data:`TYPED_PROMPT` and wants, before its ``turnComplete``, audio the
app can play (PCM16 at 24 kHz) with an output transcription (S1, R3). ``tool-call`` sends
:data:`TOOL_PROMPT` and wants the check's tool called with its required argument, not
``args={}`` (T1), the app's answer taken, and the model going on after it (T3). What a turn
sent is gathered in :class:`Heard`, which also words it for the line.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sammy_desktop.check_live.plan import CHECK_TOOL_NAME, CHECK_WORD
from sammy_desktop.check_live.report import Finding, quoted
from sammy_desktop.check_live.session import Session
from sammy_desktop.live_sdk import types
from sammy_desktop.wire_audio import OUTPUT_RATE, SAMPLE_WIDTH

__all__ = ["TOOL_PROMPT", "TYPED_PROMPT", "Heard", "tool_call", "typed_turn"]

TYPED_PROMPT: Final = (
    "This is Sammy's connection check, typed. Please answer in one short sentence: say hello."
)
"""The typed turn of step ``typed-turn``."""

TOOL_PROMPT: Final = (
    f"This is Sammy's connection check. Call the tool {CHECK_TOOL_NAME} with the word "
    f'"{CHECK_WORD}", then say in a few words what it answered.'
)
"""The typed turn of step ``tool-call``."""

_LATE_CALL_GRACE_S: Final = 5.0


@dataclass
class Heard:
    """What the model sent in one turn: audio, its transcription, the end of the turn."""

    audio_bytes: int = 0
    mime_types: set[str] = field(default_factory=set)
    transcript: list[str] = field(default_factory=list)
    turn_complete: bool = False

    def add(self, content: types.LiveServerContent) -> None:
        """Take in one server content message."""
        parts = (content.model_turn.parts or ()) if content.model_turn is not None else ()
        for part in parts:
            blob = part.inline_data
            if blob is not None and blob.data and (blob.mime_type or "").startswith("audio/"):
                self.audio_bytes += len(blob.data)
                self.mime_types.add(blob.mime_type or "")
        if content.output_transcription is not None and content.output_transcription.text:
            self.transcript.append(content.output_transcription.text)
        if content.turn_complete:
            self.turn_complete = True

    @property
    def text(self) -> str:
        """The output transcription so far."""
        return "".join(self.transcript).strip()

    def said(self) -> str:
        """The transcription, quoted and cut, or that there was none."""
        return quoted(self.text) if self.text else "no output transcription"

    def describe(self) -> str:
        """How much audio, of which kind, and what was said."""
        if not self.audio_bytes:
            return f"no audio, {self.said()}"
        seconds = self.audio_bytes / (OUTPUT_RATE * SAMPLE_WIDTH)
        return f"{seconds:.1f} s of {', '.join(sorted(self.mime_types))} audio, {self.said()}"

    def audio_problem(self) -> str | None:
        """Why the app could not play this audio, or None."""
        for mime in self.mime_types:
            kind, _, params = mime.partition(";")
            rate = params.strip().removeprefix("rate=") if params else str(OUTPUT_RATE)
            if kind.strip() != "audio/pcm" or rate != str(OUTPUT_RATE):
                return f"{mime} audio, while the app plays PCM16 at {OUTPUT_RATE} Hz"
        return None


# ---------------------------------------------------------------- typed-turn


async def typed_turn(session: Session, limit_s: float) -> str:
    """Line ``typed-turn``: a typed turn answered in audio with a transcript."""
    await session.send_text_turn(TYPED_PROMPT)
    heard = Heard()
    try:
        async with asyncio.timeout(limit_s):
            while not heard.turn_complete:
                message = await session.next()
                if message.tool_call is not None:
                    await session.answer_other(message.tool_call)
                if message.server_content is not None:
                    heard.add(message.server_content)
    except TimeoutError:
        raise Finding(f"no turnComplete within {limit_s:g} s ({heard.describe()})") from None
    if not heard.audio_bytes:
        raise Finding(f"the answer had no audio ({heard.said()})")
    problem = heard.audio_problem()
    if problem is not None:
        raise Finding(f"the answer came as {problem} ({heard.describe()})")
    if not heard.text:
        raise Finding(f"the answer had no output transcription ({heard.describe()})")
    return f"client_content turn answered: {heard.describe()}"


# ---------------------------------------------------------------- tool-call


async def tool_call(session: Session, limit_s: float) -> str:
    """Line ``tool-call``: the check's tool called with its argument, answered, gone on from."""
    await session.send_text_turn(TOOL_PROMPT)
    first_args: dict[str, Any] | None = None
    answers: list[types.FunctionResponse] = []
    answered = False
    after = Heard()

    async def respond(responses: list[types.FunctionResponse]) -> None:
        answers.extend(r for r in responses if r.name == CHECK_TOOL_NAME)
        await session.send_responses(responses)

    try:
        async with asyncio.timeout(limit_s) as deadline:
            while True:
                message = await session.next()
                if message.tool_call is not None:
                    calls = message.tool_call.function_calls or ()
                    ours = [c for c in calls if c.name == CHECK_TOOL_NAME]
                    if not ours:
                        await session.answer_other(message.tool_call)
                        continue
                    if first_args is None:
                        first_args = dict(ours[0].args or {})
                    await session.handle(message.tool_call, respond)
                    answered = True
                    after = Heard()
                    continue
                if message.server_content is None:
                    continue
                after.add(message.server_content)
                if not after.turn_complete:
                    continue
                if answered:
                    break
                # The turn ended with no call: give a late call a moment, then stop.
                if first_args is None:
                    loop = asyncio.get_running_loop()
                    deadline.reschedule(
                        min(deadline.when() or loop.time(), loop.time() + _LATE_CALL_GRACE_S)
                    )
                after = Heard()
    except TimeoutError:
        raise _unfinished(session, limit_s, first_args, answered=answered, after=after) from None
    assert first_args is not None
    verdict = _arguments_problem(first_args)
    if verdict is not None:
        raise Finding(f"{verdict}; the model went on: {after.describe()}")
    problem = _answer_problem(answers)
    if problem is not None:
        raise Finding(problem)
    if not after.audio_bytes and not after.text:
        raise Finding(
            f"{CHECK_TOOL_NAME}({_args_text(first_args)}) was answered, and the model ended "
            "its turn without saying anything"
        )
    return (
        f"{CHECK_TOOL_NAME}({_args_text(first_args)}) answered; the model went on: "
        f"{after.describe()}"
    )


def _unfinished(
    session: Session,
    limit_s: float,
    first_args: dict[str, Any] | None,
    *,
    answered: bool,
    after: Heard,
) -> Finding:
    """What the tool turn had got to when its time ran out."""
    if first_args is None:
        others = f" (it called {', '.join(session.other_calls)})" if session.other_calls else ""
        return Finding(f"the model did not call {CHECK_TOOL_NAME} within {limit_s:g} s{others}")
    if not answered:
        return Finding(f"{CHECK_TOOL_NAME} was called but not answered")
    verdict = _arguments_problem(first_args)
    if verdict is not None:
        return Finding(verdict)
    return Finding(
        f"{CHECK_TOOL_NAME}({_args_text(first_args)}) was answered, but the model did not "
        f"finish its turn within {limit_s:g} s ({after.describe()})"
    )


def _args_text(args: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={json.dumps(value)}" for name, value in args.items()) or ""


def _arguments_problem(args: Mapping[str, Any]) -> str | None:
    """Why the first call of the check's tool is not what the app relies on, or None."""
    word = args.get("word")
    if isinstance(word, str) and word.strip():
        return None
    return (
        f"{CHECK_TOOL_NAME} was called with args={json.dumps(dict(args))}: its required argument "
        "'word' is missing (docs/live-service.md T1)"
    )


def _answer_problem(answers: Sequence[types.FunctionResponse]) -> str | None:
    """Why the app's answer to the check's tool was not a success, or None."""
    if not answers:
        return f"the app sent no answer for {CHECK_TOOL_NAME}"
    payload = answers[0].response or {}
    output = payload.get("output")
    if isinstance(output, dict) and output.get("ok") is True:
        return None
    return f"the app answered {CHECK_TOOL_NAME} with a failure: {json.dumps(payload)[:200]}"
