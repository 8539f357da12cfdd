"""What the widgets ask of the agent, as a Protocol, and how they run its coroutines.

The real :class:`~sammy_desktop.core.agent.AgentCore` satisfies :class:`AgentControls`
structurally; tests use a hand-written fake. :class:`ConversationControls` adds continuing an
earlier conversation (the History window), which the app's ``VoiceControls`` provides. Some
of its methods are coroutines; widgets never await in a slot, they hand the coroutine to
:class:`UiTasks`, which owns the tasks, keeps them referenced, logs their failures and
cancels them at shutdown. :func:`can_talk` says when the agent takes the person's words.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from sammy_desktop.config import TalkMode
from sammy_desktop.core.events import AgentState, Speaker

if TYPE_CHECKING:
    from sammy_desktop.core.screen import VideoFrame

__all__ = ["AgentControls", "ConversationControls", "UiTasks", "can_talk"]

_log = logging.getLogger(__name__)


def can_talk(state: AgentState) -> bool:
    """Whether the agent takes speech and text in ``state``.

    Connected, reconnecting or resting: what the person says meanwhile is kept and sent once
    the connection is back, so the window lets them go on talking and typing.
    """
    return state.is_connected or state in (AgentState.RECONNECTING, AgentState.RESTING)


class AgentControls(Protocol):
    """The agent operations the window, the tray and the settings pane use."""

    @property
    def state(self) -> AgentState:
        """The agent's current state."""
        ...

    async def start(self) -> None:
        """Open a conversation (returns at once; watch the state)."""
        ...

    async def stop(self) -> None:
        """Close the conversation; the state becomes Disconnected."""
        ...

    async def end_session(self, reason: str) -> None:
        """End the conversation for good; the state becomes Ended."""
        ...

    def begin_talk(self, pre_roll: bytes = b"") -> bool:
        """The person starts speaking; False when there is no conversation yet."""
        ...

    def end_talk(self) -> None:
        """The person stopped speaking."""
        ...

    def send_text(self, text: str) -> bool:
        """Send a typed message; False when empty or there is no conversation."""
        ...

    def send_video(self, frame: VideoFrame) -> bool:
        """One JPEG picture of the shared screen; False when it was dropped (never blocks)."""
        ...

    def set_screen_sharing(self, active: bool, source: str = "") -> None:
        """Sharing the screen (``source``: what is shared) started or stopped."""
        ...

    async def set_talk_mode(self, mode: TalkMode) -> None:
        """Switch push-to-talk / hands-free."""
        ...

    async def set_tool_enabled(self, name: str, on: bool) -> bool:
        """Switch a tool on or off, mid-session when possible."""
        ...


class ConversationControls(AgentControls, Protocol):
    """The agent as the History window drives it: also continuing an earlier conversation.

    The app's :class:`~sammy_desktop.voice_controls.VoiceControls` has it; the bare
    ``AgentCore`` does not (its ``start`` takes the earlier lines instead).
    """

    async def continue_conversation(
        self, earlier: Sequence[tuple[Speaker, str]], *, continues: str
    ) -> None:
        """End any conversation running, then start one whose history is ``earlier``.

        Args:
            earlier: the earlier conversation's final lines, oldest first.
            continues: that conversation's session id, for the new session's history.
        """
        ...


class UiTasks:
    """Runs coroutines started by widgets as named, owned tasks on the running loop.

    Under qasync the Qt thread runs the asyncio loop, so a slot can start a task directly.
    """

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def run(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any] | None:
        """Start ``coro`` as a task called ``name``.

        Returns None (and closes the coroutine) when no asyncio loop is running, which
        only happens in a misconfigured app or test.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            coro.close()
            _log.error("cannot run %s: no asyncio loop is running on the Qt thread", name)
            return None
        task = loop.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._on_done)
        return task

    @property
    def pending(self) -> int:
        """How many tasks have not finished yet."""
        return len(self._tasks)

    async def join(self, timeout_s: float = 5.0) -> None:
        """Wait until every task (and any task they started) has finished.

        Raises:
            TimeoutError: tasks were still running after ``timeout_s``.
        """
        async with asyncio.timeout(timeout_s):
            while self._tasks:
                await asyncio.wait(list(self._tasks))

    async def aclose(self, timeout_s: float = 5.0) -> None:
        """Cancel the tasks still running and wait for them, at most ``timeout_s``."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=timeout_s)
            for task in pending:
                _log.warning("UI task %s did not stop within %.1f s", task.get_name(), timeout_s)

    def _on_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            _log.error("UI task %s failed", task.get_name(), exc_info=error)
