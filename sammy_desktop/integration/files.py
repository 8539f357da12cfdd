"""Writing and removing the integration files: atomically, and failing in words.

A file is written next to its final name and renamed over it, so a reader (the session
manager at login, the menu) sees the old file or the new one, never half of one. An
``OSError`` becomes an :class:`IntegrationError` whose text names the path and says what is
wrong in a phrase (:func:`~sammy_desktop.os_errors.os_error_reason`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

from sammy_desktop.os_errors import os_error_reason

__all__ = ["IntegrationError", "path_problem", "remove_file", "write_atomically"]


class IntegrationError(Exception):
    """A desktop integration file could not be written, read or removed.

    ``str(error)`` is a sentence for the person: what failed, where, and why.
    """

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


def path_problem(path: Path, error: OSError) -> str:
    """Why ``path`` cannot be written, as a phrase naming the culprit when it can.

    A folder on the way that is a file (``~/.config/autostart`` made a file by mistake) is
    named: "/home/me/.config/autostart is a file, not a folder".
    """
    if error.errno in (errno.EEXIST, errno.ENOTDIR):
        for parent in path.parents:
            if parent.exists() or parent.is_symlink():
                if not parent.is_dir():
                    return f"{parent} is a file, not a folder"
                break
    return os_error_reason(error)


def write_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` (creating its folders) with permissions ``mode``.

    Raises:
        OSError: the folder or the file could not be written; nothing was left behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        temporary.chmod(mode)
        temporary.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def remove_file(path: Path) -> bool:
    """Remove ``path`` if it is there.

    Returns:
        Whether there was a file to remove.

    Raises:
        OSError: it is there but could not be removed.
    """
    try:
        path.unlink()
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True
