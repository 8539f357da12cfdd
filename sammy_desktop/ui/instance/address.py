"""Where the running app of a settings folder listens, and the lock that says it runs.

One app runs per settings folder, so two ``--config-dir`` profiles run side by side and a
command sent with a profile's ``--config-dir`` reaches that profile's app. The folder's
resolved path names both:

* the lock, ``instance.lock`` in the settings folder (a :class:`~PySide6.QtCore.QLockFile`:
  it holds the owner's process id, and a lock whose process is gone is stale);
* the local socket. On Linux and the BSDs it is a file in the user's runtime folder
  (``$XDG_RUNTIME_DIR/sammy-desktop/``, or a ``0700`` folder of the user's own under the
  temporary folder), a folder nobody else may enter: only this user's processes can
  connect. Windows and macOS get a name Qt places itself (a named pipe, a socket in the
  user's own temporary folder) and the server restricts it to the user.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["LOCK_FILE_NAME", "InstanceAddress", "InstanceAddressError"]

LOCK_FILE_NAME: Final = "instance.lock"
_SOCKET_DIR_NAME: Final = "sammy-desktop"
_MAX_UNIX_PATH: Final = 100
"""A Unix socket's path must fit in 108 bytes (sun_path); leave some room."""


class InstanceAddressError(OSError):
    """No private folder for the socket could be made (the sentence says why)."""


@dataclass(frozen=True, slots=True)
class InstanceAddress:
    """The lock file and the local socket name of one settings folder's app.

    Attributes:
        lock_file: the lock in the settings folder.
        server_name: what QLocalServer listens on and QLocalSocket connects to: a full
            path on Linux and the BSDs, a bare name elsewhere.
    """

    lock_file: Path
    server_name: str

    @classmethod
    def for_config_dir(
        cls, config_dir: Path, *, environ: dict[str, str] | os._Environ[str] | None = None
    ) -> InstanceAddress:
        """The address of the app whose settings are in ``config_dir``.

        Raises:
            InstanceAddressError: on Linux, no private folder for the socket.
        """
        env = os.environ if environ is None else environ
        resolved = config_dir.expanduser().resolve()
        digest = hashlib.sha256(os.fsencode(resolved)).hexdigest()[:16]
        lock_file = resolved / LOCK_FILE_NAME
        if not _uses_socket_files():
            return cls(lock_file, f"sammy-desktop-{_user_tag()}-{digest}")
        folder = _private_socket_dir(env)
        return cls(lock_file, str(folder / f"{digest}.sock"))


def _uses_socket_files() -> bool:
    return sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd"))


def _user_tag() -> str:
    """A short tag of the user's name: each user's pipes are told apart by name too."""
    try:
        name = os.getlogin()
    except OSError:
        name = os.environ.get("USERNAME") or os.environ.get("USER") or "user"
    return hashlib.sha256(name.encode()).hexdigest()[:8]


def _private_socket_dir(env: dict[str, str] | os._Environ[str]) -> Path:
    """``$XDG_RUNTIME_DIR/sammy-desktop`` (or the temporary folder's), ``0700``, the user's."""
    candidates: list[Path] = []
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime and Path(runtime).is_absolute():
        candidates.append(Path(runtime) / _SOCKET_DIR_NAME)
    getuid = getattr(os, "getuid", None)
    uid = getuid() if getuid is not None else 0
    candidates.append(Path(tempfile.gettempdir()) / f"{_SOCKET_DIR_NAME}-{uid}")
    problems: list[str] = []
    for folder in candidates:
        if len(os.fsencode(folder)) + 22 > _MAX_UNIX_PATH:  # "/<16 hex>.sock" and room
            problems.append(f"{folder} is too long a path for a socket")
            continue
        try:
            _make_private(folder, uid)
        except OSError as exc:
            problems.append(f"{folder}: {exc.strerror or exc}")
            continue
        return folder
    raise InstanceAddressError(
        "Sammy found no private folder for its control socket (" + "; ".join(problems) + ")"
    )


def _make_private(folder: Path, uid: int) -> None:
    """Create ``folder`` as ``0700``, or check that an existing one is the user's alone.

    Raises:
        OSError: it cannot be made, or it belongs to someone else or is open to others.
    """
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode):
        raise OSError(0, "it is not a folder")
    if info.st_uid != uid:
        raise OSError(0, "it belongs to another user")
    if info.st_mode & 0o077:
        folder.chmod(0o700)  # ours: close it to others
