"""What a failed or closed Live connection means, from its close code **and** its reason.

The service signals every error by closing the websocket (docs/live-service.md C5); the
same code means different things, so the reason text decides:

* 1007 "API key not valid" is a refused key (:attr:`FailureKind.AUTH`);
* 1008 "... is not found for API version ..., or is not supported for
  bidiGenerateContent" is a model this key or version cannot use (:attr:`FailureKind.MODEL`);
* "You exceeded your current quota" (1011 over the websocket, 429 over REST) is the quota
  (:attr:`FailureKind.QUOTA`);
* any other 1007 or 1008 is the service refusing something it was sent
  (:attr:`FailureKind.REFUSED`): at setup that is the setup's fault and final; after a good
  setupComplete it has been seen at random (a 2.5 preview's 1007 in ~6 % of calls), so the
  core resumes once, quietly, before it gives up;
* the rest (1000, 1001, 1006 keepalive timeouts, 1011 internal errors, a dropped network)
  is transient (:attr:`FailureKind.TRANSIENT`): reconnect with backoff.

Matching is on the beginning of the reasons, because a close frame carries at most 123 bytes
and long reasons arrive cut.
"""

from __future__ import annotations

import enum
import re

from sammy_desktop.core.events import ErrorKind
from sammy_desktop.live_sdk import errors

__all__ = ["FailureKind", "LiveConnectionError", "what_to_do"]

_WHAT_TO_DO = {
    # Each says what to do, once; the message beside it says only what happened.
    ErrorKind.AUTH: "Paste a working API key in Settings > Account, or try the offline demo.",
    ErrorKind.MODEL: "Choose another model in Settings > Voice & language: the list there "
    "shows the models your key can use.",
    ErrorKind.QUOTA: "Wait a while, or check your plan and billing in Google AI Studio, then "
    "connect again.",
    ErrorKind.CONFIGURATION: "Check the model, voice and language in Settings > Voice & "
    "language, and a custom endpoint's address in Settings > Account. The log file has the "
    "service's own words.",
    ErrorKind.CONNECTION: "Check the internet connection, then connect again. The "
    "conversation so far is kept in the history.",
    ErrorKind.INTERNAL: "Connect again. If it happens again, the log file has the details.",
}


def what_to_do(kind: ErrorKind) -> str:
    """The advice shown with an error of ``kind``: what the person can do, said once.

    The error's message says what happened and nothing more (no advice, no service text,
    which the log keeps), so the two read as one notice without repeating each other.
    """
    return _WHAT_TO_DO[kind]


class FailureKind(enum.StrEnum):
    """How the core should react to a failed or closed connection."""

    AUTH = "auth"
    """The key was refused (or there is none): stop at once, retrying cannot help."""
    MODEL = "model"
    """The model is not available to this key on this API version: stop, name the model."""
    QUOTA = "quota"
    """The key's quota is used up: stop, say so."""
    REFUSED = "refused"
    """The service refused something it was sent; at setup final, mid-session resumable once."""
    CONFIGURATION = "configuration"
    """The endpoint cannot be trusted or reached as configured: stop."""
    TRANSIENT = "transient"
    """Network trouble, a server restart, a timeout: reconnect with backoff."""


_BAD_KEY = re.compile(r"api[ _-]?key (?:not valid|invalid)|API_KEY_INVALID|invalid api key", re.I)
_MODEL = re.compile(
    r"is not found for API version|not supported for bidiGenerateContent|"
    r"models/\S+ is not found|model \S+ (?:is )?not found",
    re.I,
)
_QUOTA = re.compile(r"exceeded your current quota|RESOURCE_EXHAUSTED|quota", re.I)


class LiveConnectionError(Exception):
    """The connection failed or closed. ``code`` is the websocket close code when known."""

    def __init__(self, kind: FailureKind, code: int | None, reason: str) -> None:
        super().__init__(f"{code} {reason}" if code is not None else reason)
        self.kind = kind
        self.code = code
        self.reason = reason

    @classmethod
    def from_close(cls, code: int | None, reason: str) -> LiveConnectionError:
        """Classify a close by its code and its reason text (see the module docstring)."""
        text = reason or ""
        if _BAD_KEY.search(text) or (code == 1008 and "api key" in text.lower()):
            return cls(FailureKind.AUTH, code, text)
        if _QUOTA.search(text):
            return cls(FailureKind.QUOTA, code, text)
        if code in (1007, 1008):
            if _MODEL.search(text):
                return cls(FailureKind.MODEL, code, text)
            return cls(FailureKind.REFUSED, code, text or "the service refused the request")
        return cls(FailureKind.TRANSIENT, code, text or "connection closed")

    @classmethod
    def from_api_error(cls, exc: errors.APIError) -> LiveConnectionError:
        """Wrap the SDK's close error (``APIError(code, reason)``)."""
        reason = exc.details if isinstance(exc.details, str) else str(exc.message or exc)
        return cls.from_close(exc.code, reason)
