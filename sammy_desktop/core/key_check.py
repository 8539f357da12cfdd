"""Whether a pasted API key works, asked of the service before the key is saved.

A key that is mistyped, cut short, or of a project without the Live API would otherwise be
saved, and the person would learn that only from an error at the next connection. The check
is the models list (``GET /v1beta/models``, :func:`~sammy_desktop.core.models.live_models`),
which the service answers with the key's own rights: a refused key is HTTP 400 (or 401/403),
and a key that may not use the Live API lists no model with ``bidiGenerateContent``
(docs/live-service.md C6). It costs no tokens and opens no session.

:func:`check_key` says which of five outcomes it was (:class:`KeyVerdict`) with a sentence for
the person. Only a key that was accepted and can use a Live model is fine to save; when the
service could not be reached (no network) or answered with an error of its own, the key may
still be good, and the person may choose to save it anyway.
"""

from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sammy_desktop.core.models import LiveModel, ModelListError, ModelListProblem, live_models

if TYPE_CHECKING:
    from sammy_desktop.live_sdk import genai

__all__ = ["KeyCheck", "KeyClientFactory", "KeyVerdict", "check_key"]

_log = logging.getLogger(__name__)

KeyClientFactory = Callable[[str], "genai.Client"]
"""Builds a client for the endpoint in use with a given key (never the offline demo's)."""


class KeyVerdict(enum.StrEnum):
    """What the service said about a key."""

    WORKS = "works"
    """Accepted, with at least one Live model: save it."""
    REFUSED = "refused"
    """Not accepted: wrong, incomplete, deleted or restricted. Not saved."""
    NO_LIVE_ACCESS = "no_live_access"
    """Accepted, but it can use no Live model. Not saved."""
    UNREACHABLE = "unreachable"
    """The service could not be reached (no network). May be saved anyway."""
    SERVICE_ERROR = "service_error"
    """The service answered with an error of its own. May be saved anyway."""


@dataclass(frozen=True, slots=True)
class KeyCheck:
    """The outcome of :func:`check_key`.

    Attributes:
        verdict: what the service said.
        message: what happened and what to do, for the person ("" when the key works).
        models: the Live models the key can use (only when it works).
    """

    verdict: KeyVerdict
    message: str = ""
    models: tuple[LiveModel, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the key is fine to save."""
        return self.verdict is KeyVerdict.WORKS

    @property
    def may_save_anyway(self) -> bool:
        """Whether the key might be good although it could not be checked."""
        return self.verdict in (KeyVerdict.UNREACHABLE, KeyVerdict.SERVICE_ERROR)


REFUSED_MESSAGE = (
    "Google did not accept this key, so it was not saved. Copy the whole key again from "
    "aistudio.google.com/apikey and paste it here."
)
NO_LIVE_MESSAGE = (
    "Google accepted this key, but it cannot use the Live voice models Sammy talks with, so "
    "it was not saved. Use a key of a project with the Gemini Live API "
    "(aistudio.google.com/apikey)."
)
UNREACHABLE_MESSAGE = (
    "Sammy could not reach Google to check this key, so it was not saved yet. Check the "
    "internet connection and try again, or save it anyway."
)


def _service_error_message(code: int | None) -> str:
    what = f" (error {code})" if code is not None else ""
    return (
        f"Google could not check this key just now{what}, so it was not saved yet. Try "
        "again in a moment, or save it anyway."
    )


async def check_key(key: str, client_for_key: KeyClientFactory) -> KeyCheck:
    """Ask the service whether ``key`` works and may use the Live API.

    Never raises for what the service or the network does; the key never appears in the
    log or in a message.

    Args:
        key: the pasted key (already stripped).
        client_for_key: builds the client for the endpoint in use with that key.
    """
    client = client_for_key(key)
    try:
        models = await live_models(client)
    except ModelListError as error:
        _log.info("the pasted key was not accepted as it is: %s (%s)", error, error.problem)
        if error.problem is ModelListProblem.KEY_REFUSED:
            return KeyCheck(KeyVerdict.REFUSED, REFUSED_MESSAGE)
        if error.problem is ModelListProblem.UNREACHABLE:
            return KeyCheck(KeyVerdict.UNREACHABLE, UNREACHABLE_MESSAGE)
        return KeyCheck(KeyVerdict.SERVICE_ERROR, _service_error_message(error.code))
    finally:
        with contextlib.suppress(Exception):
            await client.aio.aclose()
        with contextlib.suppress(Exception):
            client.close()
    if not models:
        _log.info("the pasted key may use no Live model")
        return KeyCheck(KeyVerdict.NO_LIVE_ACCESS, NO_LIVE_MESSAGE)
    return KeyCheck(KeyVerdict.WORKS, models=tuple(models))
