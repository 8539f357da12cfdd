"""Who the simulated service lets in: the websocket path, the API key and the setup.

The checks the service makes before it answers a setup, each refusal with its close code and
wording (docs/live-service.md): the path names ``BidiGenerateContent`` (an unknown path is
HTTP 404); the key is in ``x-goog-api-key``, or ``Authorization: Token`` for ephemeral tokens
(C5); the model is served, on this API version (C1, C6); the setup asks for nothing the
model's family refuses (M1-M3, R11, T2). :func:`setup_refusal` answers with the profile that
serves the setup, or the close the service would send instead.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sammy_desktop.sim.profiles import (
    BAD_KEY_REASON,
    INVALID_ARGUMENT_REASON,
    NOT_SUPPORTED_REASON,
    not_found_reason,
    text_modality_reason,
)
from sammy_desktop.sim.wire import CloseCode

if TYPE_CHECKING:
    from websockets.datastructures import Headers

    from sammy_desktop.sim.profiles import ProfileSet, ServiceProfile
    from sammy_desktop.sim.wire import Setup

__all__ = [
    "INVALID_HANDLE_REASON",
    "INVALID_KEY_REASON",
    "accepts_key",
    "api_key_of",
    "is_live_path",
    "never_answered",
    "setup_refusal",
]

INVALID_KEY_REASON = BAD_KEY_REASON
INVALID_HANDLE_REASON = "Request contains an invalid argument. (session resumption handle)"

_PATH_PREFIX = "/ws/google.ai.generativelanguage."
_PATH_SUFFIXES = (
    ".GenerativeService.BidiGenerateContent",
    ".GenerativeService.BidiGenerateContentConstrained",
)
_VERSION_IN_PATH = re.compile(r"\.generativelanguage\.([^./]+)\.GenerativeService\.")


# T9: "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain
# underscores, dots, colons and dashes" (the length is the profile's).
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:\-]*")


def is_live_path(path: str) -> bool:
    """Whether ``path`` (without its query) is the Live websocket's, on any API version."""
    return _PATH_PREFIX in path and path.endswith(_PATH_SUFFIXES)


def api_key_of(headers: Headers | None) -> str:
    """The API key or ephemeral token a request carries ("" when none)."""
    if headers is None:
        return ""
    key = headers.get("x-goog-api-key")
    if key:
        return str(key)
    authorization = str(headers.get("authorization") or "")
    if authorization.startswith("Token "):
        return authorization.removeprefix("Token ")
    return ""


def accepts_key(api_keys: frozenset[str] | None, key: str) -> bool:
    """Whether ``key`` is let in: one of ``api_keys``, or any non-empty key when None."""
    return bool(key) and (api_keys is None or key in api_keys)


def setup_refusal(
    setup: Setup, path: str, profiles: ProfileSet
) -> ServiceProfile | tuple[int, str]:
    """The profile serving this setup, or the (code, reason) the service closes with."""
    match = _VERSION_IN_PATH.search(path)
    version = match.group(1) if match else ""
    profile = profiles.for_model(setup.model)
    if profile is None:
        # C6: an unknown or retired model is "not found".
        return CloseCode.POLICY, not_found_reason(setup.model, version)
    if not profile.serves_version(version):
        # C1: the Live websocket is served on v1beta (and v1alpha), not v1.
        return CloseCode.POLICY, not_found_reason(setup.model, version)
    if any(rule.matches(setup.raw) for rule in profile.refused_setup_fields):
        return CloseCode.INVALID_ARGUMENT, INVALID_ARGUMENT_REASON  # M3
    if profile.audio_only and "TEXT" in setup.response_modalities:
        # M1: "The requested combination of response modalities (TEXT) is not supported".
        return CloseCode.INVALID_ARGUMENT, text_modality_reason(setup.response_modalities)
    if profile.code_execution == "refused" and setup.code_execution:
        return CloseCode.POLICY, NOT_SUPPORTED_REASON  # R11: no Live model runs code
    if profile.refuse_additional_properties and any(
        declaration.additional_properties for declaration in setup.declarations
    ):
        # T2: additionalProperties inside `parameters` is refused with 1007 on 3.x.
        return CloseCode.INVALID_ARGUMENT, INVALID_ARGUMENT_REASON
    limit = profile.max_function_name_chars
    if limit is not None and any(
        not _FUNCTION_NAME.fullmatch(declaration.name) or len(declaration.name) > limit
        for declaration in setup.declarations
    ):
        # T9: a name outside the documented characters or length is an invalid argument.
        return CloseCode.INVALID_ARGUMENT, INVALID_ARGUMENT_REASON
    return profile


def never_answered(setup: Setup, profile: ServiceProfile) -> bool:
    """Whether the model's family never answers this setup (M3: no setupComplete, no close)."""
    return any(rule.matches(setup.raw) for rule in profile.unanswered_setup_fields)
