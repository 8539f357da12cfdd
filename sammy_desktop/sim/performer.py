"""Each scenario action carried out on one connection.

:class:`ActionPerformer` hands each action to the part that sends it: the model's output to
:class:`~sammy_desktop.sim.turn_output.TurnOutput` (with the answer's audio made by
:mod:`sammy_desktop.sim.model_audio` and the function calls by
:mod:`sammy_desktop.sim.tool_calls`), goAway, ``interrupted`` and raw frames to the
:class:`~sammy_desktop.sim.outbound.Outbound`. The actions that send nothing are its own: a
:class:`~sammy_desktop.sim.actions.Respond` computes more actions, a delay waits on the
simulator's clock, a stall holds every later frame back, a close ends the connection; an
:class:`~sammy_desktop.sim.actions.AnswerIntents` becomes the actions
:mod:`sammy_desktop.sim.intent_answers` decides.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from sammy_desktop.sim.actions import (
    Action,
    AnswerIntents,
    CallTools,
    CancelToolCalls,
    Close,
    Delay,
    EchoAudio,
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
    TurnComplete,
    TurnContext,
    Usage,
    WavAudio,
)
from sammy_desktop.sim.intent_answers import answer_intents
from sammy_desktop.sim.model_audio import answer_pcm
from sammy_desktop.sim.tool_calls import cancel_calls, function_calls
from sammy_desktop.sim.wire import format_duration, server_content_message

if TYPE_CHECKING:
    from sammy_desktop.sim.clock import Clock
    from sammy_desktop.sim.outbound import Outbound
    from sammy_desktop.sim.profiles import ServiceProfile
    from sammy_desktop.sim.session import SessionState
    from sammy_desktop.sim.turn_output import TurnOutput

__all__ = ["ActionPerformer"]


class ActionPerformer:
    """Carries out the actions of one connection's turns (and the test controls' injections).

    Args:
        output: The model's side of the connection.
        out: Where the connection's frames go.
        state: The session.
        profile: The service profile serving the connection.
        clock: Delays wait on it.
        close: Closes the connection with a code and a reason.
    """

    def __init__(
        self,
        *,
        output: TurnOutput,
        out: Outbound,
        state: SessionState,
        profile: ServiceProfile,
        clock: Clock,
        close: Callable[[int | None, str], Awaitable[None]],
    ) -> None:
        self._output = output
        self._out = out
        self._state = state
        self._profile = profile
        self._clock = clock
        self._close = close

    async def perform_all(self, actions: Sequence[Action], context: TurnContext) -> None:
        """Carry out ``actions`` in order."""
        for action in actions:
            await self.perform(action, context)

    async def perform(self, action: Action, context: TurnContext) -> None:
        """Carry out one action of a turn fired by ``context``'s input."""
        output = self._output
        if isinstance(action, Respond):
            result = action.handler(context)
            actions = await result if inspect.isawaitable(result) else result
            await self.perform_all(actions, context)
        elif isinstance(action, AnswerIntents):
            await self.perform_all(answer_intents(action, context), context)
        elif isinstance(action, InputTranscription):
            await output.input_transcription(action)
        elif isinstance(action, OutputTranscription):
            await output.output_transcription(action)
        elif isinstance(action, ModelText):
            await output.model_text(action)
        elif isinstance(action, Tone | WavAudio | EchoAudio | PcmAudio):
            threshold = self._state.scenario.vad.threshold_rms
            await output.audio(action, await answer_pcm(action, context, threshold_rms=threshold))
        elif isinstance(action, CallTools):
            await output.tool_call(function_calls(action, self._state, self._profile))
        elif isinstance(action, CancelToolCalls):
            await output.tool_call_cancellation(cancel_calls(self._state, action.ids))
        elif isinstance(action, GenerationComplete):
            await output.generation_complete()
        elif isinstance(action, TurnComplete):
            await output.turn_complete(action, wait_for_playback=True)
        elif isinstance(action, Interrupted):
            await self._out.send(server_content_message(interrupted=True))
        elif isinstance(action, ResumptionUpdate):
            await output.resumption_update(resumable=action.resumable)
        elif isinstance(action, GoAway):
            await self._out.send({"goAway": {"timeLeft": format_duration(action.time_left_s)}})
        elif isinstance(action, Usage):
            await output.usage(action)
        elif isinstance(action, Delay):
            await self._clock.sleep(action.seconds)
        elif isinstance(action, Stall):
            self._out.stall()
        elif isinstance(action, Close):
            await self._close(action.code, action.reason)
        elif isinstance(action, RawMessage):
            await self._out.send(dict(action.message))
