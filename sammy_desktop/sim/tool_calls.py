"""Function calls under the profile's rules: made, answered, cancelled, and in input's way.

The session keeps the calls in flight (``pending_calls`` and ``pending_behaviors`` of
:class:`~sammy_desktop.sim.session.SessionState`, kept across resumed connections); these
functions are the rules that change them, each naming its entry of docs/live-service.md:

* T1: a 2.5 model calls a function declared with ``parameters_json_schema`` with ``{}``;
* T4: the behavior each call gets (NON_BLOCKING only where the family supports it);
  ``will_continue`` and ``scheduling`` count for NON_BLOCKING calls only, and a SILENT
  answer starts no generation;
* T7: realtime input while a blocking call is pending is taken, cancels the call, or closes
  the connection with 1008.

They send nothing: the connection sends what they decide.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sammy_desktop.sim.actions import TranscriptEntry
from sammy_desktop.sim.faults import fault_of
from sammy_desktop.sim.pcm import pcm_rms
from sammy_desktop.sim.wire import ActivityStart, RealtimeAudio, RealtimeText

if TYPE_CHECKING:
    from sammy_desktop.sim.actions import CallTools
    from sammy_desktop.sim.profiles import ServiceProfile
    from sammy_desktop.sim.session import SessionState
    from sammy_desktop.sim.wire import ClientMessage, Setup, ToolResponse

__all__ = [
    "answers_are_silent",
    "calls_cancelled_by_input",
    "cancel_calls",
    "function_calls",
    "refuses_input_during_calls",
]


def function_calls(
    action: CallTools, state: SessionState, profile: ServiceProfile
) -> list[dict[str, Any]]:
    """The function calls of one toolCall for ``action``, each now pending in the session."""
    calls = []
    for spec in action.calls:
        call_id = spec.id or state.next_call_id()
        declaration = state.declaration(spec.name)
        args = dict(spec.args)
        if (
            profile.json_schema_parameters == "ignored"
            and declaration is not None
            and declaration.schema == "parameters_json_schema"
        ):
            # T1: the 2.5 models see no arguments declared this way and call with {}.
            args = {}
        if fault_of(profile, "function_call_args") == "dropped":
            args = {}  # a test-facing fault (sim/faults.py): T1's failure for any tool
        behavior: str = profile.default_behavior
        if profile.nonblocking_supported and declaration is not None and declaration.behavior:
            behavior = declaration.behavior  # T4
        if not profile.nonblocking_supported:
            behavior = "BLOCKING"  # T4: 3.1 calls are synchronous whatever is declared
        state.pending_calls[call_id] = spec.name
        state.pending_behaviors[call_id] = behavior
        state.call_arguments[call_id] = args
        state.transcript.append(TranscriptEntry("model", f"{spec.name}({json.dumps(args)})"))
        calls.append({"id": call_id, "name": spec.name, "args": args})
    return calls


def cancel_calls(state: SessionState, ids: Sequence[str] | None = None) -> list[str]:
    """Forget the calls ``ids`` (every pending call when None) and return their ids."""
    cancelled = list(state.pending_calls) if ids is None else list(ids)
    state.forget_calls(cancelled)
    return cancelled


def answers_are_silent(message: ToolResponse, state: SessionState, profile: ServiceProfile) -> bool:
    """Apply the client's answers to the pending calls; True when none starts generation.

    A call stays pending while its answer says ``will_continue``. Only the answers to
    NON_BLOCKING calls may keep it open or be SILENT on a strict profile (T4); the lenient
    profile takes both as sent.
    """
    silent = True
    for response in message.responses:
        behavior = state.pending_behaviors.get(response.id, "BLOCKING")
        non_blocking = behavior == "NON_BLOCKING"
        # T4: will_continue and scheduling "Only applicable to NON_BLOCKING function
        # calls, is ignored otherwise"; the lenient profile takes them as sent.
        will_continue = bool(response.will_continue) and (non_blocking or not profile.strict)
        scheduling = response.scheduling if non_blocking and profile.scheduling_supported else None
        if not will_continue:
            state.forget_calls([response.id])
        if str(scheduling).upper() != "SILENT" or not profile.strict:
            silent = False
        state.transcript.append(
            TranscriptEntry("tool", f"{response.name}: {json.dumps(dict(response.response))}")
        )
    return silent


def refuses_input_during_calls(state: SessionState, profile: ServiceProfile) -> bool:
    """Whether realtime input now closes the connection: a blocking call is pending (T7)."""
    return profile.realtime_input_during_tool_call == "close_1008" and bool(state.blocking_calls())


def calls_cancelled_by_input(
    message: ClientMessage, state: SessionState, profile: ServiceProfile, setup: Setup
) -> list[str]:
    """The blocking calls that ``message``, new input, cancels (T7); forgotten already.

    Where the profile cancels (Vertex, Gemini 3.8 Live), new input is an activityStart,
    text, or with automatic activity detection audio loud enough to be speech.
    """
    blocking = state.blocking_calls()
    if profile.realtime_input_during_tool_call != "cancel" or not blocking:
        return []
    is_new_input = isinstance(message, ActivityStart | RealtimeText) or (
        isinstance(message, RealtimeAudio)
        and setup.automatic_activity_detection
        and pcm_rms(message.pcm) >= state.scenario.vad.threshold_rms
    )
    if not is_new_input:
        return []
    state.forget_calls(blocking)
    return blocking
