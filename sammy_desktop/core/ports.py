"""The shapes of the parts the core talks to but does not own.

The core never imports the audio layer: the app hands it an object that satisfies
:class:`AudioSink` (the real ``AudioPlayback`` does so structurally). The tool layer's
``ToolManager`` satisfies :class:`ToolRunner`. The genai client comes from a
:data:`ClientFactory` so tests and the offline demo can point it at the simulator.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from sammy_desktop.live_sdk import genai, types
from sammy_desktop.tools.calls import Respond, ToolCallLedger

if TYPE_CHECKING:
    from sammy_desktop.tools.definition import ToolDefinition

__all__ = ["AudioSink", "ClientFactory", "Respond", "ToolRunner", "TurnAwareSink"]


@runtime_checkable
class AudioSink(Protocol):
    """Where the model's voice goes (PCM16 LE mono, 24 kHz)."""

    def play(self, pcm24k: bytes) -> None:
        """Queue ``pcm24k`` for playback; must return at once (no blocking I/O)."""

    def flush(self) -> None:
        """Drop everything queued and stop sounding now (barge-in)."""

    @property
    def is_playing(self) -> bool:
        """True while queued audio is still being played."""


@runtime_checkable
class TurnAwareSink(AudioSink, Protocol):
    """A sink that can be told the model's turn is complete.

    The real playback then reports "drained" as soon as the last of the speech has played,
    instead of waiting a grace period for more: the state goes back to Ready sooner.
    """

    def end_of_turn(self) -> None:
        """No more speech follows for now."""


class ToolRunner(Protocol):
    """What the core needs from the tool layer's ``ToolManager``."""

    @property
    def calls(self) -> ToolCallLedger:
        """The calls in flight: what the model waits for, what may still be answered."""

    def declarations(self, model: str) -> list[types.Tool]:
        """The tools to declare for ``model``, only the enabled ones."""

    async def handle(self, tool_call: types.LiveServerToolCall, respond: Respond) -> None:
        """Run every call of ``tool_call`` and answer each through ``respond``."""

    def cancel(self, ids: Iterable[str]) -> None:
        """Cancel running calls; nothing is answered for them."""

    def set_enabled(self, name: str, on: bool) -> None:
        """Switch one tool on or off."""

    def get(self, name: str) -> ToolDefinition[Any, Any]:
        """The tool called ``name`` (what the history may record of its calls).

        Raises:
            LookupError: no such tool.
        """


ClientFactory: TypeAlias = "Callable[[], genai.Client]"
"""Builds the genai client for each connection attempt (a fresh one picks up a new key)."""
