"""One running app per settings folder, and the commands other processes send it."""

from sammy_desktop.ui.instance.commands import (
    REMOTE_FLAGS,
    RemoteCommand,
    Reply,
    command_line,
    program_path,
)

__all__ = ["REMOTE_FLAGS", "RemoteCommand", "Reply", "command_line", "program_path"]
