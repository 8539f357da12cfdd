"""The running app's side of remote commands, in this process: the server, the answers.

The commands from real processes are in test_single_instance.py; here the same server and
client meet a real window, so what a command does to it can be looked at directly.
"""

from __future__ import annotations

import asyncio
import re
import socket
from pathlib import Path

import pytest

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.instance.address import InstanceAddress
from sammy_desktop.ui.instance.client import NotRunningError, send_command
from sammy_desktop.ui.instance.commands import (
    PROTOCOL_VERSION,
    RemoteCommand,
    Reply,
    command_line,
    decode_reply,
    decode_request,
    encode_reply,
    encode_request,
)
from sammy_desktop.ui.instance.remote_control import RemoteControl
from sammy_desktop.ui.instance.server import InstanceLock, InstanceServer
from sammy_desktop.ui.main_window import MainWindow

from .conftest import FakeAgent, MakeWindow


@pytest.fixture
def address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> InstanceAddress:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    return InstanceAddress.for_config_dir(tmp_path / "profile")


def test_every_request_and_reply_reads_back() -> None:
    for command in RemoteCommand:
        assert decode_request(encode_request(command).rstrip(b"\n")) is command
    reply = Reply(False, "Sammy cannot listen now (Microphone not working).")
    assert decode_reply(encode_reply(reply).rstrip(b"\n")) == reply


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"{not json", "the request is not JSON"),
        (b"[1]", "the request is not a JSON object"),
        (b'{"v": 99, "command": "quit"}', "protocol version 99, this Sammy speaks 1"),
        (b'{"v": 1, "command": "dance"}', "there is no command 'dance'"),
        (b'{"v": 1}', "there is no command None"),
        (b"x" * 5000, "longer than 4096 bytes"),
    ],
)
def test_a_bad_request_is_refused_with_what_is_wrong(line: bytes, reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        decode_request(line)
    assert PROTOCOL_VERSION == 1


def test_the_line_to_bind_names_the_profile_and_quotes_it() -> None:
    line = command_line(RemoteCommand.TALK_START, Path("/home/a b/p"), program="/opt/s d/sammy")
    assert line == "'/opt/s d/sammy' --config-dir '/home/a b/p' --talk-start"
    assert command_line(RemoteCommand.TOGGLE_TALK, program="sammy-desktop") == (
        "sammy-desktop --toggle-talk"
    )


def test_a_second_lock_on_the_same_folder_is_refused_until_the_first_lets_go(
    address: InstanceAddress,
) -> None:
    address.lock_file.parent.mkdir(parents=True)
    first, second = InstanceLock(address), InstanceLock(address)
    assert first.acquire()
    assert not second.acquire()
    first.release()
    assert second.acquire()
    second.release()


def test_activate_brings_a_hidden_window_to_the_front(
    qloop: asyncio.Runner, make_window: MakeWindow, agent: FakeAgent, address: InstanceAddress
) -> None:
    window = make_window()
    quits: list[bool] = []
    control = RemoteControl(window, lambda: quits.append(True), describe=lambda: "Sammy: Ready")
    server = InstanceServer(address, control.handle)
    server.listen()

    async def scenario() -> None:
        assert not window.isVisible()
        reply = await asyncio.to_thread(send_command, address, RemoteCommand.ACTIVATE)
        assert reply == Reply(True, "Sammy's window is in front.")
        assert window.isVisible() and not window.isMinimized()
        window.showMinimized()
        reply = await asyncio.to_thread(send_command, address, RemoteCommand.SHOW)
        assert reply.ok and not window.isMinimized()
        agent.move_to(AgentState.READY)
        reply = await asyncio.to_thread(send_command, address, RemoteCommand.TALK_START)
        assert reply == Reply(True, "Sammy is listening.")
        assert agent.names() == ["begin_talk"]
        status = await asyncio.to_thread(send_command, address, RemoteCommand.STATUS)
        assert status == Reply(True, "Sammy: Ready · talking")
        reply = await asyncio.to_thread(send_command, address, RemoteCommand.QUIT)
        assert reply == Reply(True, "Sammy is quitting.")
        async with asyncio.timeout(5):
            while not quits:  # noqa: ASYNC110 - the quit is a plain callback, asked later
                await asyncio.sleep(0.01)

    try:
        qloop.run(scenario())
    finally:
        server.close()
    assert quits == [True]


def test_a_command_talking_cannot_follow_says_why(
    qloop: asyncio.Runner, make_window: MakeWindow, address: InstanceAddress
) -> None:
    window: MainWindow = make_window(controls=None)  # no agent: talking is unavailable
    control = RemoteControl(window, lambda: None, describe=lambda: "Sammy")
    server = InstanceServer(address, control.handle)
    server.listen()

    async def scenario() -> Reply:
        return await asyncio.to_thread(send_command, address, RemoteCommand.TOGGLE_TALK)

    try:
        reply = qloop.run(scenario())
    finally:
        server.close()
    assert reply == Reply(False, "Sammy cannot listen now (Talking is not available yet).")


def test_the_server_answers_a_stranger_with_what_is_wrong(
    qloop: asyncio.Runner, make_window: MakeWindow, address: InstanceAddress
) -> None:
    control = RemoteControl(make_window(), lambda: None, describe=lambda: "Sammy")
    server = InstanceServer(address, control.handle)
    server.listen()

    def talk_nonsense() -> bytes:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(address.server_name)
            sock.sendall(b'{"v": 1, "command": "dance"}\n')
            return sock.makefile("rb").readline()

    try:
        answer = qloop.run(asyncio.to_thread(talk_nonsense))
    finally:
        server.close()
    assert decode_reply(answer.rstrip(b"\n")) == Reply(
        False, "Sammy did not understand the request: there is no command 'dance'"
    )


def test_no_server_and_no_lock_is_not_running_at_once(address: InstanceAddress) -> None:
    with pytest.raises(NotRunningError, match=r"^Sammy is not running with this settings folder$"):
        send_command(address, RemoteCommand.STATUS, starting_wait_s=30)


def test_a_lock_held_by_a_live_app_that_never_listens_is_given_up_on(
    address: InstanceAddress,
) -> None:
    address.lock_file.parent.mkdir(parents=True)
    lock = InstanceLock(address)
    assert lock.acquire()  # this process: alive, and not listening
    try:
        with pytest.raises(NotRunningError, match="holds this settings folder but does not"):
            send_command(address, RemoteCommand.STATUS, starting_wait_s=0.3)
    finally:
        lock.release()
