"""Modules imported on first use, so the window shows before the heavy ones load.

``google.genai`` takes about 0.4 s to import (its ``types`` module builds some 500 pydantic
models), a third of the app's start-up, and nothing needs it before the first connection.
The modules that use it bind it like this::

    if TYPE_CHECKING:
        from google.genai import types
    else:
        types = lazy_module("google.genai.types")

Type checkers see the real module. At run time the name is a stand-in that imports the
module the first time one of its attributes is read, then takes over the module's namespace,
so every later attribute read is an ordinary one, with no indirection left.
:func:`sammy_desktop.desktop_app.DesktopApp.run` imports the SDK on a worker thread right
after the window is shown, so the first connection rarely waits for it either.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType
from typing import Any

__all__ = ["LazyModule", "lazy_module"]


class LazyModule(ModuleType):
    """Stands in for the module called ``name`` until one of its attributes is read."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_lazy_lock"] = threading.Lock()

    def __getattr__(self, attribute: str) -> Any:
        # Only called for names not in our namespace yet, i.e. before the first load.
        if attribute.startswith("__") and attribute.endswith("__"):
            # Introspection (copy, pickle, doctest, mypy's stubgen) must not trigger the
            # import of a whole SDK, nor recurse while the namespace is being filled.
            raise AttributeError(attribute)
        with self.__dict__["_lazy_lock"]:
            module = importlib.import_module(self.__name__)
            self.__dict__.update(module.__dict__)
        return getattr(module, attribute)

    def __repr__(self) -> str:
        loaded = "loaded" if "__file__" in self.__dict__ else "not loaded yet"
        return f"<lazy module {self.__name__!r} ({loaded})>"


def lazy_module(name: str) -> Any:
    """A stand-in for the module ``name`` that imports it on first attribute access.

    Typed ``Any`` so the call sites can bind it to the name their ``TYPE_CHECKING`` import
    gives the real module's type.
    """
    return LazyModule(name)
