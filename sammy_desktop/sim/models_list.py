"""The models list the simulator serves beside the Live websocket (docs/live-service.md C6).

``GET /{version}/models`` (paged with ``pageSize`` / ``pageToken``) and
``GET /{version}/models/{id}``, the requests behind ``client.aio.models.list()`` and
``models.get()``, answered on the same TLS port as the service answers them: every model the
profiles serve, listing ``bidiGenerateContent`` in ``supportedGenerationMethods`` (the SDK's
``Model.supported_actions``), and one model that is not a Live model, so a client's filter
has something to filter. No key is HTTP 403 ``PERMISSION_DENIED``, a bad key HTTP 400
``INVALID_ARGUMENT`` / ``API_KEY_INVALID``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Response

from sammy_desktop.sim.faults import fault_of
from sammy_desktop.sim.profiles import BAD_KEY_REASON

if TYPE_CHECKING:
    from websockets.http11 import Request

    from sammy_desktop.sim.profiles import ProfileSet, ServiceProfile

__all__ = ["is_models_path", "models_response"]

_MODELS_PATH = re.compile(r"^/+(v1|v1beta|v1alpha)/+models(?:/+([^/?]+))?/*$")
_DEFAULT_PAGE_SIZE = 50


def is_models_path(path: str) -> bool:
    """Whether ``path`` (without its query) asks for the models list or one model."""
    return _MODELS_PATH.match(path) is not None


def models_response(
    request: Request, profiles: ProfileSet, *, accepts_key: Callable[[str], bool]
) -> Response:
    """``GET /{version}/models[/{id}]``, as the REST API answers ``models.list``.

    Args:
        request: A request whose path :func:`is_models_path` accepts.
        profiles: The profiles whose models are listed.
        accepts_key: Whether the key in ``x-goog-api-key`` is let in.
    """
    parts = urlsplit(request.path)
    match = _MODELS_PATH.match(parts.path)
    assert match is not None  # checked by the caller
    version, model_id = match.group(1), match.group(2)
    key = str(request.headers.get("x-goog-api-key") or "")
    if not key:
        return _json_response(
            403,
            _error(
                403,
                "Method doesn't allow unregistered callers (callers without established "
                "identity). Please use API Key or other form of API consumer identity to "
                "call this API.",
                "PERMISSION_DENIED",
            ),
        )
    if not accepts_key(key):
        body = _error(400, BAD_KEY_REASON, "INVALID_ARGUMENT")
        body["error"]["details"] = [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
                "metadata": {"service": "generativelanguage.googleapis.com"},
            }
        ]
        return _json_response(400, body)
    entries = [
        _model_entry(name, profile)
        for name, profile in profiles.listed()
        # a test-facing fault (sim/faults.py): the model left out of the list
        if fault_of(profile, "models_list_entry") != "absent"
    ]
    entries.append(_NON_LIVE_MODEL)
    if model_id is not None:
        wanted = f"models/{model_id}"
        for entry in entries:
            if entry["name"] == wanted:
                return _json_response(200, entry)
        message = f"{wanted} is not found for API version {version}, or is not supported"
        return _json_response(404, _error(404, message, "NOT_FOUND"))
    query = parse_qs(parts.query)
    size = _int(query.get("pageSize", [""])[0]) or _DEFAULT_PAGE_SIZE
    start = _int(query.get("pageToken", [""])[0])
    page: dict[str, Any] = {"models": entries[start : start + size]}
    if start + size < len(entries):
        page["nextPageToken"] = str(start + size)
    return _json_response(200, page)


def _int(text: str) -> int:
    return int(text) if text.isdigit() else 0


def _error(code: int, message: str, status: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status}}


def _json_response(status: int, body: Mapping[str, Any]) -> Response:
    payload = json.dumps(body).encode("utf-8")
    reasons = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found"}
    headers = Headers(
        [
            ("Content-Type", "application/json; charset=UTF-8"),
            ("Content-Length", str(len(payload))),
            ("Connection", "close"),
        ]
    )
    return Response(status, reasons.get(status, ""), headers, payload)


def _model_entry(model_id: str, profile: ServiceProfile) -> dict[str, Any]:
    """One models.list entry; the SDK reads supportedGenerationMethods as supported_actions."""
    return {
        "name": f"models/{model_id}",
        "version": profile.version,
        "displayName": profile.display_name,
        "description": profile.description,
        "inputTokenLimit": profile.input_token_limit,
        "outputTokenLimit": profile.output_token_limit,
        "supportedGenerationMethods": (
            # a test-facing fault (sim/faults.py): listed, but not as a Live model
            ["generateContent", "countTokens"]
            if fault_of(profile, "models_list_entry") == "not_live"
            else ["bidiGenerateContent"]
        ),
        "thinking": True,
    }


# A model a key can use that is not a Live model, so a client's filter has work to do.
_NON_LIVE_MODEL: dict[str, Any] = {
    "name": "models/gemini-2.5-flash",
    "version": "001",
    "displayName": "Gemini 2.5 Flash",
    "description": "Not a Live model (simulated entry).",
    "inputTokenLimit": 1_048_576,
    "outputTokenLimit": 65_536,
    "supportedGenerationMethods": [
        "generateContent",
        "countTokens",
        "createCachedContent",
        "batchGenerateContent",
    ],
    "thinking": True,
}
