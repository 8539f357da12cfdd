"""Asking the person before a tool acts: the question, the wait, and "no answer means no".

:class:`Confirmations` is what a :class:`~sammy_desktop.tools.context.ToolContext`'s
``confirm`` reaches: it announces the question (``ConfirmationRequested``), asks the UI's
:class:`~sammy_desktop.tools.context.ConfirmationPort` within the timeout, and reports the
outcome (``ConfirmationResolved``). Only an explicit yes in time counts as yes: a timeout, a
broken dialog, a missing UI or a cancelled call are all a no. Each question carries its own
random token, and the dialog answers by it: a yes can only ever reach the question shown.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools.context import ConfirmationPort, ConfirmationRequest
from sammy_desktop.tools.events import ConfirmationRequested, ConfirmationResolved

__all__ = ["Confirmations"]

_log = logging.getLogger(__name__)


class Confirmations:
    """Puts one question at a time per call to the person and waits for the answer.

    Args:
        bus: where the question and its outcome are announced.
        port: the UI's dialog; None means every question is answered no.
    """

    def __init__(self, bus: EventBus, port: ConfirmationPort | None) -> None:
        self._bus = bus
        self._port = port

    async def ask(
        self,
        *,
        call_id: str,
        tool_name: str,
        prompt: str,
        arguments: Mapping[str, Any],
        timeout_s: float,
        target: str | None = None,
        title: str = "",
        argument_titles: Mapping[str, str] | None = None,
    ) -> bool:
        """Ask ``prompt`` about the call; True only for an explicit yes within ``timeout_s``.

        Raises:
            asyncio.CancelledError: the call was cancelled while the question was open (the
                UI is told the question is over first).
        """
        request = ConfirmationRequest(
            call_id=call_id,
            tool_name=tool_name,
            prompt=prompt,
            arguments=arguments,
            timeout_s=timeout_s,
            target=target,
            title=title,
            argument_titles=dict(argument_titles or {}),
        )
        self._bus.emit(
            ConfirmationRequested(
                call_id=call_id,
                name=tool_name,
                prompt=prompt,
                arguments=arguments,
                timeout_s=timeout_s,
                target=target,
                token=request.token,
                title=request.title,
            )
        )
        approved = False
        if self._port is None:
            reason = "no confirmation available"
        else:
            scope = asyncio.timeout(timeout_s)
            try:
                async with scope:
                    approved = await self._port.confirm(request) is True
                reason = "approved" if approved else "denied"
            except asyncio.CancelledError:
                self._resolve(call_id, tool_name, approved=False, reason="cancelled")
                raise
            except TimeoutError:
                if scope.expired():
                    reason = "timed out"
                else:
                    _log.exception("confirmation for %s failed", tool_name)
                    reason = "confirmation failed"
            except Exception:  # noqa: BLE001 - a broken dialog must count as "no"
                _log.exception("confirmation for %s failed", tool_name)
                reason = "confirmation failed"
        self._resolve(call_id, tool_name, approved=approved, reason=reason)
        return approved

    def _resolve(self, call_id: str, tool_name: str, *, approved: bool, reason: str) -> None:
        self._bus.emit(
            ConfirmationResolved(call_id=call_id, approved=approved, reason=reason, name=tool_name)
        )
