"""The Live SDK (google-genai), loaded on first use: ``from sammy_desktop.live_sdk import types``.

Importing ``google.genai`` takes about 0.4 s, a third of the app's start-up, and nothing
needs it before the first connection. Every module that uses the SDK imports these names
from here instead: type checkers see the real modules, and at run time each name is one
shared :class:`~sammy_desktop.lazy.LazyModule` stand-in that loads the module when an
attribute is first read (``DesktopApp.run`` loads them on a worker thread right after the
window shows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sammy_desktop.lazy import lazy_module

if TYPE_CHECKING:
    from google import genai as genai
    from google.genai import errors as errors
    from google.genai import types as types
else:
    genai = lazy_module("google.genai")
    errors = lazy_module("google.genai.errors")
    types = lazy_module("google.genai.types")

__all__ = ["errors", "genai", "types"]
