"""Standing permissions for one conversation: "always allow this tool for this session".

Some tools ask every time (reading the clipboard: it may hold a password). The person can
answer "always, for this session" instead of "yes"; the confirmation dialog records that
here with :meth:`SessionConsent.allow_for_session`, and the tool stops asking until the
session changes. The session is identified by a key the app supplies (the agent snapshot's
``session_started_at``), so a grant ends by itself with its conversation; nothing needs to
remember to clear it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

__all__ = ["SessionConsent"]


class SessionConsent:
    """Which tools the person allowed for the rest of the current session.

    Args:
        session_key: returns something that identifies the current conversation and
            changes when a new one starts (the agent snapshot's ``session_started_at``).
        tools_offering_always: the tools whose question may be answered "always for this
            session"; the dialog offers the choice only for these.
    """

    def __init__(
        self,
        session_key: Callable[[], Hashable],
        tools_offering_always: frozenset[str] = frozenset({"readClipboard"}),
    ) -> None:
        self._session_key = session_key
        self._offering = tools_offering_always
        self._granted: dict[str, Hashable] = {}

    def offers_always(self, tool_name: str) -> bool:
        """Whether the dialog for ``tool_name`` should offer "always for this session"."""
        return tool_name in self._offering

    def allow_for_session(self, tool_name: str) -> None:
        """Record that ``tool_name`` may run without asking until the session changes.

        Raises:
            ValueError: ``tool_name`` does not offer a standing permission.
        """
        if tool_name not in self._offering:
            raise ValueError(f"{tool_name!r} must ask every time; it has no 'always' choice")
        self._granted[tool_name] = self._session_key()

    def revoke(self, tool_name: str) -> None:
        """Make ``tool_name`` ask again (harmless when it had no permission)."""
        self._granted.pop(tool_name, None)

    def is_allowed(self, tool_name: str) -> bool:
        """True when the person said "always" for ``tool_name`` in the current session."""
        if tool_name not in self._granted:
            return False
        if self._granted[tool_name] != self._session_key():
            del self._granted[tool_name]  # from an earlier conversation: it has expired
            return False
        return True
