"""Modules imported on first use, so the window shows before the heavy ones load.

:mod:`sammy_desktop.live_sdk` binds the Live SDK this way: type checkers see the real
modules, and at run time each name is a :class:`LazyModule`, a stand-in that imports the
module the first time one of its attributes is read, then takes over the module's
namespace, so every later attribute read is an ordinary one, with no indirection left.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

__all__ = ["LazyModule", "lazy_attributes", "lazy_module"]


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


def lazy_attributes(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's ``__getattr__`` (PEP 562) that imports each exported name on first use.

    A package whose ``__init__`` re-exports its modules' names imports them all whenever any
    of its modules is imported. With this the ``__init__`` lists the names (under
    ``TYPE_CHECKING`` for type checkers, and in ``where``: name -> module) and imports none:
    ``sammy-desktop --talk-start`` then loads only what it needs and starts at once.

    Args:
        package: the package's ``__name__``.
        where: each exported name and the module that defines it.
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # from now on an ordinary attribute
        return value

    return __getattr__
