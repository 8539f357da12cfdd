"""The running app's side: the lock it holds and the local socket it answers commands on.

:class:`InstanceLock` is taken by the first app of a settings folder before anything else
starts (``app.py``); a second launch finds it held and hands its request over instead.
:class:`InstanceServer` listens once the window exists; each connection sends one request
line, which the handler (the desktop app) answers with a :class:`Reply`. A socket file left
by a crashed app is replaced; a request that is not one is answered with what is wrong.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QLockFile, QObject, QTimer
from PySide6.QtNetwork import QAbstractSocket, QLocalServer, QLocalSocket

from sammy_desktop.ui.instance.address import InstanceAddress
from sammy_desktop.ui.instance.commands import (
    MAX_LINE_BYTES,
    RemoteCommand,
    Reply,
    decode_request,
    encode_reply,
)

__all__ = ["InstanceLock", "InstanceServer", "InstanceServerError"]

_log = logging.getLogger(__name__)

REQUEST_TIMEOUT_MS: Final = 5000
"""A client that sends no whole line within this is disconnected."""

Handler = Callable[[RemoteCommand], Reply]


class InstanceServerError(Exception):
    """The app could not listen for commands (the text says why)."""


class InstanceLock:
    """The settings folder's lock: held by the one app that runs with it.

    Only a live process holds it: the lock of an app that crashed is stale and taken over
    (QLockFile checks the owner's process id). It is never stale by age: the app holds it
    for as long as it runs.
    """

    def __init__(self, address: InstanceAddress) -> None:
        self._lock = QLockFile(str(address.lock_file))
        self._lock.setStaleLockTime(0)  # by age never: only a dead owner makes it stale

    def acquire(self) -> bool:
        """Take the lock if nobody alive holds it.

        Raises:
            OSError: the lock file cannot be written (the settings folder is read-only).
        """
        if self._lock.tryLock(0):
            return True
        if self._lock.error() is QLockFile.LockError.LockFailedError:
            return False
        raise OSError(f"the lock file {self._lock.fileName()} cannot be written")

    def release(self) -> None:
        """Let go of the lock (at quit)."""
        if self._lock.isLocked():
            self._lock.unlock()


class InstanceServer(QObject):
    """Answers the commands other processes send to this app.

    Args:
        address: where to listen.
        handler: does a command and says how it went; it runs on the Qt thread.
        parent: the Qt parent.
    """

    def __init__(
        self, address: InstanceAddress, handler: Handler, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._address = address
        self._handler = handler
        self._server = QLocalServer(self)
        # Only this user may connect (the socket's folder is private too).
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._on_new_connection)

    @property
    def listening(self) -> bool:
        """Whether commands are taken now."""
        return self._server.isListening()

    def listen(self) -> None:
        """Start taking commands; a socket left by a crashed app is replaced.

        Raises:
            InstanceServerError: another app answers on the socket, or it cannot be made.
        """
        name = self._address.server_name
        if self._server.listen(name):
            return
        if self._server.serverError() is QAbstractSocket.SocketError.AddressInUseError:
            if _answers(name):
                raise InstanceServerError("another Sammy already takes commands on " + name)
            _log.info("replacing the control socket a stopped Sammy left: %s", name)
            QLocalServer.removeServer(name)
            if self._server.listen(name):
                return
        raise InstanceServerError(
            f"Sammy cannot take commands on {name}: {self._server.errorString()}"
        )

    def close(self) -> None:
        """Stop taking commands and remove the socket."""
        if self._server.isListening():
            self._server.close()

    def _on_new_connection(self) -> None:
        while (socket := self._server.nextPendingConnection()) is not None:
            _Request(socket, self._handler, self)


class _Request(QObject):
    """One client's request line, read as it arrives, answered once."""

    def __init__(self, socket: QLocalSocket, handler: Handler, parent: QObject) -> None:
        super().__init__(parent)
        self._socket = socket
        socket.setParent(self)
        self._handler = handler
        self._buffer = b""
        self._answered = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._give_up)
        self._timer.start(REQUEST_TIMEOUT_MS)
        socket.readyRead.connect(self._on_ready_read)
        socket.disconnected.connect(self._finish)
        self._on_ready_read()  # what came with the connection

    def _on_ready_read(self) -> None:
        if self._answered:
            return
        self._buffer += bytes(self._socket.readAll().data())
        if b"\n" in self._buffer:
            line = self._buffer.split(b"\n", 1)[0]
            self._answer(self._handle(line))
        elif len(self._buffer) > MAX_LINE_BYTES:
            self._answer(Reply(False, f"the request is longer than {MAX_LINE_BYTES} bytes"))

    def _handle(self, line: bytes) -> Reply:
        try:
            command = decode_request(line)
        except ValueError as exc:
            _log.info("refused a control request: %s", exc)
            return Reply(False, f"Sammy did not understand the request: {exc}")
        _log.info("remote command: %s", command.value)
        try:
            return self._handler(command)
        except Exception:  # noqa: BLE001 - a command must never take the app down
            _log.exception("the remote command %s failed", command.value)
            return Reply(False, f"Sammy could not {command.value}; its log file has the details")

    def _answer(self, reply: Reply) -> None:
        self._answered = True
        self._timer.stop()
        self._socket.write(encode_reply(reply))
        self._socket.flush()
        self._socket.disconnectFromServer()  # after what was written has gone

    def _give_up(self) -> None:
        _log.info("a control client sent no request within %d ms", REQUEST_TIMEOUT_MS)
        self._socket.abort()
        self._finish()

    def _finish(self) -> None:
        self._timer.stop()
        self.deleteLater()


def _answers(name: str) -> bool:
    """Whether a live server answers on ``name`` (a crashed app's socket does not)."""
    probe = QLocalSocket()
    probe.connectToServer(name)
    connected = probe.waitForConnected(500)
    probe.abort()
    return connected
