"""Where the agent connects: the Gemini Live API with the person's key, or the offline demo.

:class:`Backend` is the app's one :data:`~sammy_desktop.core.ports.ClientFactory`. In live
mode it builds a google-genai client with the key from the secret store (read at each
connection, so a key changed in Settings is used on the next one), the endpoint from
``--api-base-url``, ``SAMMY_API_BASE_URL`` or the settings, and the API version the Live
service needs (``v1beta``, see :mod:`sammy_desktop.core.endpoint`). In demo mode it starts the
embedded Live-compatible simulator with its demo scenario on loopback and points the same
real client at it over TLS: nothing else in the app knows the difference, which is the
point of the offline demo (and it is labelled as such everywhere it shows). Each demo run
has a key of its own, made at random and known only to the simulator and the app's client,
and its recorder keeps only the newest of what it heard (``DEMO_RECORD_LIMIT``).
"""

from __future__ import annotations

import logging
import secrets
import ssl
from collections.abc import Callable
from typing import TYPE_CHECKING

from sammy_desktop.config import Settings
from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.core.endpoint import client_options, resolve_api_base_url, resolve_api_version
from sammy_desktop.core.live import FailureKind, LiveConnectionError
from sammy_desktop.live_sdk import genai

if TYPE_CHECKING:
    from sammy_desktop.sim import LiveSimulator

__all__ = ["Backend", "new_demo_key"]

_log = logging.getLogger(__name__)


def new_demo_key() -> str:
    """A fresh key for one demo run: 32 random bytes, URL-safe (never a public constant).

    Another program on the machine that finds the demo's port still cannot talk to it.
    """
    return secrets.token_urlsafe(32)


class Backend:
    """Builds the genai client for each connection (a ClientFactory), live or demo.

    Args:
        secrets: where the API key is read from.
        settings: returns the settings in use (for the endpoint override).
        api_base_url: the ``--api-base-url`` flag, or None.
        ssl_context: trust for a private endpoint (tests pointing the app at a simulator);
            None trusts what the SDK trusts (certifi, ``SSL_CERT_FILE``).
    """

    def __init__(
        self,
        secrets: SecretStore,
        settings: Callable[[], Settings],
        *,
        api_base_url: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self._secrets = secrets
        self._settings = settings
        self._api_base_url = api_base_url
        self._ssl_context = ssl_context
        self._simulator: LiveSimulator | None = None
        self._demo_key = ""

    @property
    def demo_mode(self) -> bool:
        """True while the offline demo simulator is the endpoint."""
        return self._simulator is not None

    @property
    def simulator(self) -> LiveSimulator | None:
        """The running demo simulator, if any."""
        return self._simulator

    def has_key(self) -> bool:
        """Whether an API key is available (environment or keyring)."""
        return self._secrets.get_api_key() is not None

    async def start_demo(self) -> None:
        """Start the embedded simulator with the demo scenario; later clients use it."""
        if self._simulator is not None:
            return
        # Only the demo needs the simulator.
        from sammy_desktop.sim import DEMO_RECORD_LIMIT, LiveSimulator, demo_scenario

        key = new_demo_key()
        simulator = LiveSimulator(
            demo_scenario(), api_keys=(key,), realtime=True, record_limit=DEMO_RECORD_LIMIT
        )
        await simulator.start()
        self._simulator, self._demo_key = simulator, key
        _log.info("offline demo simulator listening on %s", simulator.base_url)

    async def stop_demo(self) -> None:
        """Stop the simulator; later clients go to the real service."""
        simulator, self._simulator = self._simulator, None
        self._demo_key = ""
        if simulator is not None:
            await simulator.stop()

    def client_for_key(self, key: str) -> genai.Client:
        """A client for the endpoint the key is for, with ``key``: a pasted key's check.

        Never the demo's simulator, even during the demo: the key is for the real service
        (or the endpoint override), and the check must ask that.
        """
        version = resolve_api_version(self._settings())
        base_url = resolve_api_base_url(self._api_base_url, self._settings())
        options = client_options(
            base_url=base_url, api_version=version, ssl_context=self._ssl_context
        )
        return genai.Client(api_key=key, http_options=options)

    def __call__(self) -> genai.Client:
        """A client for the next connection.

        Raises:
            LiveConnectionError: no API key is available (kind AUTH), so the core shows
                the "check your key" error instead of trying.
        """
        version = resolve_api_version(self._settings())
        if self._simulator is not None:
            simulator = self._simulator
            options = client_options(
                base_url=simulator.base_url, api_version=version, ssl_context=simulator.ssl_context
            )
            return genai.Client(api_key=self._demo_key, http_options=options)
        key = self._secrets.get_api_key()
        if key is None:
            raise LiveConnectionError(
                FailureKind.AUTH,
                None,
                "No API key is saved yet.",
            )
        base_url = resolve_api_base_url(self._api_base_url, self._settings())
        options = client_options(
            base_url=base_url, api_version=version, ssl_context=self._ssl_context
        )
        return genai.Client(api_key=key.reveal(), http_options=options)
