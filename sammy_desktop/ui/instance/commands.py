"""What another process may ask the running app to do, and how it is written on a command line.

``sammy-desktop --toggle-talk`` (and the other flags here) acts on the app already running
with the same settings folder, through its local socket (:mod:`.server`, :mod:`.client`). A
desktop's own keyboard settings bind a key to one of these command lines: that is how a
person talks from any window where the app cannot see the keyboard itself (Wayland without
the GlobalShortcuts portal). :func:`command_line` writes the exact line to bind.

The wire format is one JSON object per line each way: ``{"v": 1, "command": "toggle-talk"}``
asked, ``{"ok": true, "message": "..."}`` answered.
"""

from __future__ import annotations

import enum
import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Final

# How this installation is started lives below the UI: autostart and menu entries need it too.
from sammy_desktop.integration.launch import launch_words, program_path

__all__ = [
    "MAX_LINE_BYTES",
    "PROTOCOL_VERSION",
    "REMOTE_FLAGS",
    "RemoteCommand",
    "Reply",
    "command_line",
    "decode_reply",
    "decode_request",
    "encode_reply",
    "encode_request",
    "program_path",
]

PROTOCOL_VERSION: Final = 1
MAX_LINE_BYTES: Final = 4096
"""Nothing a client sends is longer; a longer line is refused, not read on."""


class RemoteCommand(enum.StrEnum):
    """One request to the running app."""

    ACTIVATE = "activate"
    """A second plain launch: the running app comes to the front."""
    SHOW = "show"
    TOGGLE_TALK = "toggle-talk"
    TALK_START = "talk-start"
    TALK_STOP = "talk-stop"
    STOP_SPEAKING = "stop-speaking"
    TOGGLE_SHARE = "toggle-share"
    QUIT = "quit"
    STATUS = "status"

    @property
    def flag(self) -> str:
        """The command-line flag that sends it (``--toggle-talk``)."""
        return f"--{self.value}"


REMOTE_FLAGS: Final[dict[RemoteCommand, str]] = {
    RemoteCommand.TOGGLE_TALK: "start talking in the running Sammy, or stop (bind a key to "
    "this in your desktop's keyboard settings)",
    RemoteCommand.TALK_START: "start talking in the running Sammy (bind to a key's press)",
    RemoteCommand.TALK_STOP: "stop talking in the running Sammy (bind to the key's release)",
    RemoteCommand.STOP_SPEAKING: "stop the running Sammy's answer",
    RemoteCommand.TOGGLE_SHARE: "share your screen with the running Sammy (your last choice, "
    "or the whole screen), or stop sharing it",
    RemoteCommand.SHOW: "bring the running Sammy's window to the front (or start Sammy)",
    RemoteCommand.QUIT: "quit the running Sammy",
    RemoteCommand.STATUS: "print the running Sammy's state in one line",
}
"""The flags a person types, with their help; ACTIVATE is a plain launch's own."""


@dataclass(frozen=True, slots=True)
class Reply:
    """The running app's answer: done or not, and a line for the person."""

    ok: bool
    message: str = ""


def encode_request(command: RemoteCommand) -> bytes:
    """One request as its line."""
    return json.dumps({"v": PROTOCOL_VERSION, "command": command.value}).encode() + b"\n"


def decode_request(line: bytes) -> RemoteCommand:
    """A request line read back.

    Raises:
        ValueError: not a request of this version, with what is wrong.
    """
    if len(line) > MAX_LINE_BYTES:
        raise ValueError(f"the request is longer than {MAX_LINE_BYTES} bytes")
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"the request is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError("the request is not a JSON object")  # noqa: TRY004 - bad input
    if data.get("v") != PROTOCOL_VERSION:
        raise ValueError(
            f"the request is of protocol version {data.get('v')!r}, this Sammy speaks "
            f"{PROTOCOL_VERSION} (two different versions of Sammy?)"
        )
    try:
        return RemoteCommand(str(data.get("command")))
    except ValueError:
        raise ValueError(f"there is no command {data.get('command')!r}") from None


def encode_reply(reply: Reply) -> bytes:
    """One reply as its line."""
    return json.dumps({"ok": reply.ok, "message": reply.message}).encode() + b"\n"


def decode_reply(line: bytes) -> Reply:
    """A reply line read back.

    Raises:
        ValueError: not a reply.
    """
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"the answer is not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
        raise ValueError("the answer is not a reply")  # noqa: TRY004 - bad input
    message = data.get("message", "")
    return Reply(data["ok"], message if isinstance(message, str) else "")


def command_line(
    command: RemoteCommand, config_dir: Path | None = None, *, program: str | None = None
) -> str:
    """The exact shell line that sends ``command`` to the app of ``config_dir``.

    Args:
        command: what the line asks.
        config_dir: the ``--config-dir`` profile the app runs with; None for the default.
        program: the executable to name (:func:`program_path` when None).
    """
    return shlex.join(launch_words([command.flag], config_dir, program=program or program_path()))
