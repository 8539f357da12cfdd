"""The Live SDK (google-genai), loaded on first use: ``from sammy_desktop.live_sdk import types``.

Importing ``google.genai`` takes about 0.4 s, a third of the app's start-up, and nothing
needs it before the first connection. Every module that uses the SDK imports these names
from here instead: type checkers see the real modules, and at run time each name is one
shared :class:`~sammy_desktop.lazy.LazyModule` stand-in that loads the module when an
attribute is first read (``DesktopApp.run`` loads them on a worker thread right after the
window shows).
"""

from __future__ import annotations

import importlib
import threading
import typing
from types import ModuleType
from typing import TYPE_CHECKING

import pydantic

from sammy_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from google import genai as genai
    from google.genai import errors as errors
    from google.genai import types as types
else:
    genai = lazy_module("google.genai")
    errors = lazy_module("google.genai.errors")
    types = lazy_module("google.genai.types")

__all__ = ["build_message_models", "errors", "genai", "types"]

_MESSAGE_ROOT = "LiveServerMessage"
"""Everything the service sends; its tree holds the tool responses' models too (through
``Part``), which the app builds for each answer to a tool call."""


_BUILD_LOCK = threading.Lock()
_built: list[int] = []  # how many models, once built


def build_message_models() -> int:
    """Build the SDK's pydantic models for the messages of a session, once per process.

    google-genai declares its models with ``defer_build``: each is built the first time a
    message needs one, inside ``receive()`` (``_remove_extra_fields`` rebuilds each model it
    meets; docs/live-service.md R12). The first answer's first audio message built most of
    ``LiveServerMessage``'s tree then, 23 ms on this machine (after ``setupComplete``'s 15),
    and the answer's first sample waited for it; the first transcription, usage report and
    tool call about a millisecond each. Built here: 55 models in 60-70 ms. Later calls, and
    calls from other threads meanwhile, wait for the first and return at once.

    Run it off the loop before a connection opens: :meth:`LiveConnection.connect
    <sammy_desktop.core.live.LiveConnection.connect>` does, and ``DesktopApp`` earlier still,
    on the worker that loads the SDK. Nothing on the loop parses a frame until then, and
    pydantic's building is not meant to run on two threads at once.

    Returns:
        How many models were looked at (built now, or already).
    """
    with _BUILD_LOCK:
        if not _built:
            _built.append(_build(importlib.import_module("google.genai.types")))
        return _built[0]


def _build(sdk_types: ModuleType) -> int:
    seen: set[type[pydantic.BaseModel]] = set()
    waiting: list[object] = [getattr(sdk_types, _MESSAGE_ROOT)]
    while waiting:
        annotation = waiting.pop()
        if not (isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel)):
            waiting.extend(typing.get_args(annotation))  # Optional[X], list[X], unions
            continue
        if annotation in seen:
            continue
        seen.add(annotation)
        annotation.model_rebuild(raise_errors=False)
        waiting.extend(field.annotation for field in annotation.model_fields.values())
    return len(seen)
