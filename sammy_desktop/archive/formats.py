"""The formats a conversation is exported in.

A module of its own: the command line's parser names them without loading the archive.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias, get_args

__all__ = ["EXPORT_FORMATS", "ExportFormat"]

ExportFormat: TypeAlias = Literal["md", "txt", "json"]
EXPORT_FORMATS: Final[tuple[ExportFormat, ...]] = get_args(ExportFormat)
