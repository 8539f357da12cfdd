"""Where the Live client connects: the endpoint, the API version, the trust, the client.

The Gemini API serves the Live websocket only on API version ``v1beta`` (the SDK's own
real-backend tests force it; SDK 3.x defaults to ``v1``, which the service refuses at
setup: docs/live-service.md C1). Every client the app builds goes through
:func:`client_options`, so none can forget it. Gateways that serve another version are
reached with ``SAMMY_API_VERSION`` or the ``api_version`` setting.

The endpoint itself is Google's unless ``--api-base-url``, ``SAMMY_API_BASE_URL`` or the
settings say otherwise (:func:`resolve_api_base_url`). A private CA is trusted through
``SSL_CERT_FILE`` or an explicit ``ssl.SSLContext``.

What the SDK then dials (the websocket address, its headers, its TLS arguments) is
:func:`live_dial`'s, the one place that reads the SDK's private attributes for it.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from sammy_desktop.config import Settings
from sammy_desktop.core.ports import ClientFactory
from sammy_desktop.live_sdk import genai, types

__all__ = [
    "API_BASE_URL_ENV",
    "API_VERSION_ENV",
    "DEFAULT_API_VERSION",
    "LiveDial",
    "client_options",
    "live_dial",
    "live_url",
    "make_client_factory",
    "resolve_api_base_url",
    "resolve_api_version",
]

API_BASE_URL_ENV: Final = "SAMMY_API_BASE_URL"
"""Environment variable naming the Live endpoint (proxies, gateways, the simulator)."""

API_VERSION_ENV: Final = "SAMMY_API_VERSION"
"""Environment variable naming the API version, for gateways that serve another one."""

DEFAULT_API_VERSION: Final = "v1beta"
"""The only version on which the Gemini API serves the Live websocket (live-service.md C1)."""


def resolve_api_base_url(
    explicit: str | None,
    settings: Settings,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """Where to connect: ``--api-base-url`` beats ``SAMMY_API_BASE_URL`` beats the settings.

    Args:
        explicit: the command-line value, or None when not given.
        settings: the settings; ``api_base_url`` is used when nothing else is set.
        environ: the environment (``os.environ`` when None).

    Returns:
        The base URL without a trailing slash, or None for Google's own endpoint.
    """
    env = os.environ if environ is None else environ
    for candidate in (explicit, env.get(API_BASE_URL_ENV), settings.api_base_url):
        if candidate and candidate.strip():
            return candidate.strip().rstrip("/")
    return None


def resolve_api_version(settings: Settings, environ: Mapping[str, str] | None = None) -> str:
    """The API version: ``SAMMY_API_VERSION`` beats the setting, which defaults to v1beta."""
    env = os.environ if environ is None else environ
    for candidate in (env.get(API_VERSION_ENV), settings.api_version):
        if candidate and candidate.strip():
            return candidate.strip()
    return DEFAULT_API_VERSION


def client_options(
    *,
    base_url: str | None,
    api_version: str = DEFAULT_API_VERSION,
    ssl_context: ssl.SSLContext | None = None,
) -> types.HttpOptions:
    """The ``HttpOptions`` of every client the app builds.

    Args:
        base_url: the endpoint; None for Google's.
        api_version: the API version (``v1beta`` unless a gateway needs another).
        ssl_context: trust for a private endpoint. When None the SDK builds its own, which
            honours ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``. It is handed to the websocket
            (``ssl``) and to the REST client for the models list (``verify``).
    """
    return types.HttpOptions(
        base_url=base_url,
        api_version=api_version,
        client_args={"verify": ssl_context} if ssl_context is not None else None,
        async_client_args=(
            {"ssl": ssl_context, "verify": ssl_context} if ssl_context is not None else None
        ),
    )


def make_client_factory(
    api_key: Callable[[], str],
    *,
    base_url: str | None = None,
    ssl_context: ssl.SSLContext | None = None,
    api_version: str = DEFAULT_API_VERSION,
) -> ClientFactory:
    """A :data:`ClientFactory` for the real service or any compatible endpoint.

    Args:
        api_key: returns the key at connection time (so a key changed in Settings is used
            on the next connection without rebuilding the core).
        base_url: the endpoint; None for Google's.
        ssl_context: trust for a private endpoint (see :func:`client_options`).
        api_version: the API version.
    """

    def factory() -> genai.Client:
        options = client_options(
            base_url=base_url, api_version=api_version, ssl_context=ssl_context
        )
        return genai.Client(api_key=api_key(), http_options=options)

    return factory


@dataclass(frozen=True, slots=True)
class LiveDial:
    """What the SDK dials for a Live session of a client, as ``AsyncLive.connect`` does.

    Attributes:
        url: the websocket address, with the API version in its path.
        headers: the HTTP headers of the upgrade; they carry ``x-goog-api-key`` (C2), so
            they are left out of the repr.
        tls: the keyword arguments of ``websockets``' ``connect`` for TLS (``ssl``: the
            SDK's context, which honours ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``).
    """

    url: str
    headers: Mapping[str, str] = field(repr=False)
    tls: Mapping[str, Any]


def live_dial(client: genai.Client) -> LiveDial:
    """What the SDK would dial to connect ``client`` (:class:`LiveDial`).

    Read from the SDK's own parts (its URL builder, its HTTP options, its websocket TLS
    arguments), so it is exactly what ``client.aio.live.connect`` opens; a Live config of
    the app sets no ``http_options`` of its own, so the client's are the session's.
    """
    api_client = client.aio.live._api_client
    options = api_client._http_options
    base = str(api_client._websocket_base_url())
    method = "BidiGenerateContent"
    url = f"{base}/ws/google.ai.generativelanguage.{options.api_version}.GenerativeService.{method}"
    tls = dict(getattr(api_client, "_websocket_ssl_ctx", None) or {})
    if "ssl" not in tls:
        # As the SDK builds it, for a version that keeps no context of its own.
        import certifi

        tls["ssl"] = ssl.create_default_context(
            cafile=os.environ.get("SSL_CERT_FILE", certifi.where()),
            capath=os.environ.get("SSL_CERT_DIR"),
        )
    return LiveDial(url=url, headers=dict(options.headers or {}), tls=tls)


def live_url(client: genai.Client) -> str:
    """The websocket address the SDK connects ``client`` to (:attr:`LiveDial.url`)."""
    return live_dial(client).url
