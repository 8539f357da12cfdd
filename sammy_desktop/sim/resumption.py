"""Session resumption handles: given out after turns, redeemed by a reconnect's setup.

A handle names the :class:`~sammy_desktop.sim.session.SessionState` it resumes and is valid
for a while after it was issued (the service: 2 hours), on the event loop's clock. An
unknown or expired handle resolves to nothing; the server then refuses the setup.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sammy_desktop.sim.session import SessionState

__all__ = ["ResumptionHandles"]


class ResumptionHandles:
    """The handles issued so far.

    Args:
        ttl_s: How long a handle stays valid after it was issued.
    """

    def __init__(self, ttl_s: float) -> None:
        self._ttl_s = ttl_s
        self._handles: dict[str, tuple[SessionState, float]] = {}

    def issue(self, state: SessionState) -> str:
        """Give out a new resumption handle for ``state``."""
        handle = secrets.token_urlsafe(24)
        self._handles[handle] = (state, _now())
        return handle

    def resolve(self, handle: str) -> SessionState | None:
        """The session ``handle`` resumes (None: unknown or expired)."""
        entry = self._handles.get(handle)
        if entry is None:
            return None
        state, issued = entry
        if _now() - issued > self._ttl_s:
            del self._handles[handle]
            return None
        return state

    def clear(self) -> None:
        """Forget every handle issued so far."""
        self._handles.clear()


def _now() -> float:
    return asyncio.get_running_loop().time()
