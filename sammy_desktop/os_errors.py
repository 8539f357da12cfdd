"""Why a file or folder could not be used, in words for the person.

An ``OSError``'s own text ("[Errno 13] Permission denied: '/home/me/.config/...'") is for
the log. The window says what happened in a phrase that fits a sentence ("you do not have
permission to change it"), once, and the sentence around it says what to do. Usable by
every layer: it knows nothing but the standard library.
"""

from __future__ import annotations

import errno

__all__ = ["os_error_reason"]

_PHRASES = {
    "EACCES": "you do not have permission",
    "EPERM": "you do not have permission",
    "EROFS": "it is on a disk that cannot be written to",
    "ENOSPC": "the disk is full",
    "EDQUOT": "the disk quota is used up",
    "ENOENT": "it does not exist",
    "ENOTDIR": "a part of its path is a file, not a folder",
    "EISDIR": "it is a folder, not a file",
    "EEXIST": "something of that name is already there",
    "ENAMETOOLONG": "its name is too long",
    "EMFILE": "too many files are open",
    "ENFILE": "too many files are open",
    "EBUSY": "it is in use",
    "EIO": "the disk could not be read or written",
}
# Not every platform has every code (Windows has no EDQUOT).
_BY_ERRNO = {
    code: phrase for name, phrase in _PHRASES.items() if (code := getattr(errno, name, None))
}


def os_error_reason(error: OSError) -> str:
    """What went wrong with a file or folder, as a phrase: "you do not have permission"."""
    if error.errno in _BY_ERRNO:
        return _BY_ERRNO[error.errno]
    if isinstance(error, PermissionError):
        return "you do not have permission"
    if isinstance(error, FileNotFoundError):
        return "it does not exist"
    return "the system refused"
