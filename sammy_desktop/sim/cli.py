"""``sammy-live-sim``: run the Live simulator from a shell for any client.

Example::

    $ sammy-live-sim --port 8765 --scenario demo --api-key local-key
    base_url=https://127.0.0.1:8765
    ca_file=/tmp/sammy-live-sim-x1y2/ca.pem

Then point a client at it, e.g. the Gemini cookbook's Python starter::

    SSL_CERT_FILE=/tmp/sammy-live-sim-x1y2/ca.pem python starter.py
    # with genai.Client(api_key="local-key",
    #     http_options={"base_url": "https://127.0.0.1:8765", "api_version": "v1beta"})

It is as strict as the real service by default (``--profile service``: every model family,
each with its own rules, see docs/live-service.md); ``--profile gemini-3.8-live`` (or
``gemini-3.1-flash-live``, ``gemini-2.5-flash-native-audio``) serves one family, and
``--lenient`` keeps the old simulator for clients that want any model on any API version.

The first two lines of standard output are ``key=value`` pairs so scripts can read them.
The simulator runs until interrupted (Ctrl+C or SIGTERM). ``--verbose`` logs every request
and frame, with the API key hidden (:class:`RedactingFilter`); a ``--host`` other machines can
reach (``0.0.0.0``, a LAN address) is warned about on standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import re
import signal
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from sammy_desktop.sim.demo import demo_scenario
from sammy_desktop.sim.profiles import PROFILES, SERVICE, Pacing
from sammy_desktop.sim.scenario import Scenario, ScenarioError
from sammy_desktop.sim.server import LiveSimulator

__all__ = ["REDACTED", "SECRET_HEADERS", "RedactingFilter", "build_parser", "main"]

REDACTED = "[redacted]"

SECRET_HEADERS = frozenset({"x-goog-api-key", "authorization", "proxy-authorization", "cookie"})
"""Request headers whose values never reach the log (the key, an ephemeral token)."""

_KEY_IN_QUERY = re.compile(r"([?&](?:key|access_token)=)[^&\s]+", re.IGNORECASE)


class RedactingFilter(logging.Filter):
    """Hides secrets in every record a handler writes.

    The websockets library logs each request header at DEBUG as ``"< %s: %s"`` (name,
    value): the values of :data:`SECRET_HEADERS` are replaced, and so are a ``key=`` in a URL
    and any of the keys the simulator was given.

    Args:
        secrets: Values to hide wherever they appear (the ``--api-key`` values).
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._secrets = tuple(sorted((s for s in secrets if s), key=len, reverse=True))

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite ``record`` without its secrets; never drops a record."""
        args = record.args
        if (
            isinstance(args, tuple)
            and len(args) == 2
            and isinstance(args[0], str)
            and args[0].strip().lower() in SECRET_HEADERS
        ):
            record.args = (args[0], REDACTED)
        message = record.getMessage()
        redacted = _KEY_IN_QUERY.sub(rf"\1{REDACTED}", message)
        for secret in self._secrets:
            redacted = redacted.replace(secret, REDACTED)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def build_parser() -> argparse.ArgumentParser:
    """Return the command-line parser."""
    parser = argparse.ArgumentParser(
        prog="sammy-live-sim",
        description="A local Gemini Live-compatible server (TLS on loopback) for tests and demos.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="interface to bind (default: %(default)s)"
    )
    parser.add_argument("--port", type=int, default=0, help="TCP port; 0 picks a free one")
    parser.add_argument(
        "--scenario",
        default="demo",
        help="'demo' (the offline demo) or the path of a JSON scenario file",
    )
    parser.add_argument(
        "--api-key",
        action="append",
        dest="api_keys",
        metavar="KEY",
        help="an accepted API key (repeatable); without it any non-empty key is accepted",
    )
    parser.add_argument(
        "--profile",
        choices=[SERVICE, *PROFILES],
        default=SERVICE,
        help="how strictly the real service is imitated: 'service' (every model family, "
        "the default), one family, or 'lenient' (any model, any API version)",
    )
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="the same as --profile lenient: the simulator before profiles, for any client",
    )
    parser.add_argument(
        "--pacing",
        choices=["burst", "realtime", "fast"],
        default=None,
        help="answer audio: 'burst' (faster than real time, as the service streams; the "
        "default of strict profiles), 'realtime' (the default with --lenient) or 'fast'",
    )
    parser.add_argument(
        "--fast",
        action="store_true",
        help="the same as --pacing fast: send model audio as fast as possible",
    )
    parser.add_argument("--verbose", action="store_true", help="log every connection and frame")
    return parser


def _pacing(arguments: argparse.Namespace, profile: str) -> Pacing:
    if arguments.fast:
        return "fast"
    if arguments.pacing is not None:
        pacing: Pacing = arguments.pacing
        return pacing
    # The old default (real time) for lenient clients; the service's bursts otherwise.
    return "realtime" if profile == "lenient" else "burst"


def _load_scenario(name: str) -> Scenario:
    if name == "demo":
        return demo_scenario()
    return Scenario.load(Path(name))


async def _serve(arguments: argparse.Namespace, scenario: Scenario) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        # Windows has no loop signal handlers; Ctrl+C then arrives as KeyboardInterrupt.
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signal_number, stop.set)
    profile = "lenient" if arguments.lenient else arguments.profile
    async with LiveSimulator(
        scenario,
        api_keys=arguments.api_keys,
        host=arguments.host,
        port=arguments.port,
        profile=profile,
        pacing=_pacing(arguments, profile),
    ) as simulator:
        sys.stdout.write(f"base_url={simulator.base_url}\nca_file={simulator.ca_pem_path}\n")
        sys.stdout.flush()
        version = "" if profile == "lenient" else ", 'api_version': 'v1beta'"
        sys.stderr.write(
            f"Live simulator running scenario {scenario.name!r} as {profile!r}. Point a client "
            "at it with\n"
            f"  SSL_CERT_FILE={simulator.ca_pem_path}\n"
            f"  genai.Client(api_key=KEY, http_options={{'base_url': '{simulator.base_url}'"
            f"{version}}})\n"
            "Stop with Ctrl+C.\n"
        )
        sys.stderr.flush()
        await stop.wait()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the simulator until interrupted.

    Returns:
        0 after a clean stop, 2 for a scenario or address that cannot be used.
    """
    arguments = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if arguments.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # On the handlers, so every logger's records pass it (websockets logs the headers).
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter(arguments.api_keys or ()))
    try:
        scenario = _load_scenario(arguments.scenario)
    except ScenarioError as error:
        sys.stderr.write(f"sammy-live-sim: {error}\n")
        return 2
    try:
        asyncio.run(_serve(arguments, scenario))
    except KeyboardInterrupt:
        return 0
    except OSError as error:
        sys.stderr.write(
            f"sammy-live-sim: cannot listen on {arguments.host}:{arguments.port}: {error}\n"
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
