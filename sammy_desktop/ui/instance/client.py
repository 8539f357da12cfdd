"""Sending a command to the running app, from a second ``sammy-desktop`` process.

Only the standard library: a remote command (a desktop shortcut's ``--talk-start``) should
reach the app as soon as the process starts, and loads no Qt at all. On Linux and the BSDs
the app's QLocalServer is a Unix socket; on Windows a named pipe, opened as a file. The
lock file is Qt's (QLockFile: the owner's process id on its first line).

It waits a moment for an app that holds the settings folder's lock but does not listen yet
(it is starting), and no longer.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Callable
from typing import Final

from sammy_desktop.ui.instance.address import InstanceAddress
from sammy_desktop.ui.instance.commands import (
    MAX_LINE_BYTES,
    RemoteCommand,
    Reply,
    decode_reply,
    encode_request,
)

__all__ = ["ANSWER_TIMEOUT_S", "STARTING_WAIT_S", "NotRunningError", "lock_holder", "send_command"]

STARTING_WAIT_S: Final = 15.0
"""How long to wait for an app that holds the lock to start listening."""
ANSWER_TIMEOUT_S: Final = 5.0
"""How long a running app may take to answer one command."""
_RETRY_S: Final = 0.1


class NotRunningError(Exception):
    """No app runs with this settings folder (or it does not answer); the text says which."""


def lock_holder(address: InstanceAddress) -> int | None:
    """The process id of the running app holding the folder's lock, or None.

    A lock whose process is gone (the app crashed) counts as none.
    """
    try:
        first = address.lock_file.read_bytes().split(b"\n", 1)[0]
    except OSError:
        return None
    try:
        pid = int(first)
    except ValueError:
        return None
    return pid if pid > 0 and _process_exists(pid) else None


def _process_exists(pid: int) -> bool:
    if sys.platform == "win32":
        return True  # no cheap check; the connection attempts decide
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, and is someone else's
    return True


def send_command(
    address: InstanceAddress,
    command: RemoteCommand,
    *,
    starting_wait_s: float = STARTING_WAIT_S,
    answer_timeout_s: float = ANSWER_TIMEOUT_S,
) -> Reply:
    """Ask the app of ``address`` to do ``command`` and return its answer.

    Raises:
        NotRunningError: nothing listens, and no starting app holds the lock (or it did
            not listen within ``starting_wait_s``), or the app did not answer.
    """
    deadline = time.monotonic() + starting_wait_s
    while True:
        try:
            line = _exchange(address.server_name, encode_request(command), answer_timeout_s)
        except _NoServer as exc:
            holder = lock_holder(address)
            if holder is None:
                raise NotRunningError("Sammy is not running with this settings folder") from None
            if time.monotonic() >= deadline:
                raise NotRunningError(
                    f"Sammy (process {holder}) holds this settings folder but does not "
                    f"answer ({exc})"
                ) from None
            time.sleep(_RETRY_S)  # it is starting: it listens once its window is up
            continue
        try:
            return decode_reply(line)
        except ValueError as exc:
            raise NotRunningError(f"Sammy's answer could not be read: {exc}") from None


class _NoServer(Exception):
    """Nothing listens on the name (yet)."""


def _exchange(name: str, request: bytes, timeout_s: float) -> bytes:
    """Send one request line and read one answer line."""
    if sys.platform == "win32":
        return _exchange_pipe(name, request)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout_s)
        try:
            sock.connect(name)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise _NoServer(exc.strerror or str(exc)) from None
        except OSError as exc:
            raise NotRunningError(f"Sammy's control socket cannot be reached: {exc}") from None
        try:
            sock.sendall(request)
            return _read_line(sock.recv)
        except TimeoutError:
            raise NotRunningError("Sammy did not answer in time") from None
        except OSError as exc:
            raise NotRunningError(f"Sammy's connection broke: {exc}") from None


def _exchange_pipe(name: str, request: bytes) -> bytes:  # pragma: no cover - Windows
    path = rf"\\.\pipe\{name}"
    try:
        pipe = open(path, "r+b", buffering=0)  # noqa: SIM115, PTH123 - a pipe, not a file
    except FileNotFoundError as exc:
        raise _NoServer(exc.strerror or str(exc)) from None
    except OSError as exc:
        raise NotRunningError(f"Sammy's control pipe cannot be reached: {exc}") from None
    with pipe:
        pipe.write(request)
        return _read_line(pipe.read)


def _read_line(read: Callable[[int], bytes]) -> bytes:
    """Bytes up to the first newline, from ``read(n)`` (a socket's recv, a pipe's read)."""
    answer = b""
    while b"\n" not in answer:
        chunk = read(4096)
        if not chunk:
            raise NotRunningError("Sammy closed the connection without an answer")
        answer += chunk
        if len(answer) > MAX_LINE_BYTES:
            raise NotRunningError("Sammy's answer is too long to be one")
    return answer.split(b"\n", 1)[0]
