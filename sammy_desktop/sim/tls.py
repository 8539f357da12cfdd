"""A throwaway certificate authority so the simulator can speak TLS on loopback.

The google-genai SDK always rewrites the scheme to ``wss://`` when it uses an API key, so a
local stand-in for the Live service must serve TLS. At start the simulator makes a fresh CA
and a certificate for its host with ``trustme``; clients trust that CA either through an
``ssl.SSLContext`` (the app and the tests) or through a PEM file named by ``SSL_CERT_FILE``
(any other client, such as a cookbook script started from a shell).
"""

from __future__ import annotations

import ipaddress
import shutil
import ssl
import tempfile
from pathlib import Path

import trustme

__all__ = ["ThrowawayCertificateAuthority"]


class ThrowawayCertificateAuthority:
    """A CA made for one simulator run, with a server certificate for one host.

    The CA's PEM lives in a private temporary folder until :meth:`remove_files` is called.

    Args:
        host: The name or IP address the server certificate is issued for.
    """

    def __init__(self, host: str) -> None:
        self._ca = trustme.CA(organization_name="Sammy Desktop Live simulator")
        identities = [host]
        if _is_ip_address(host) and host != "127.0.0.1":
            identities.append("127.0.0.1")
        if host in ("127.0.0.1", "::1"):
            # Clients that say "localhost" must be able to verify the same certificate.
            identities.append("localhost")
        self._server_cert = self._ca.issue_cert(*identities)
        self._folder = Path(tempfile.mkdtemp(prefix="sammy-live-sim-"))
        self._ca_pem_path = self._folder / "ca.pem"
        self._ca.cert_pem.write_to_path(str(self._ca_pem_path))

    @property
    def ca_pem_path(self) -> Path:
        """The CA certificate as a PEM file, for ``SSL_CERT_FILE``."""
        return self._ca_pem_path

    def server_context(self) -> ssl.SSLContext:
        """Return a server-side context presenting the issued certificate."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self._server_cert.configure_cert(context)
        return context

    def client_context(self) -> ssl.SSLContext:
        """Return a client-side context that trusts this CA (and nothing else)."""
        context = ssl.create_default_context()
        self._ca.configure_trust(context)
        return context

    def remove_files(self) -> None:
        """Delete the temporary PEM folder; calling it twice is harmless."""
        shutil.rmtree(self._folder, ignore_errors=True)


def _is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
