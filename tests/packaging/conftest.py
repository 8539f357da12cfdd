"""Fixtures for the packaging tests: the bundle manifest, loaded from packaging/."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGING = REPO / "packaging"


def load_packaging_module(name: str) -> ModuleType:
    """Import ``packaging/<name>.py`` (packaging/ is a folder of build files, not a package)."""
    spec = importlib.util.spec_from_file_location(
        f"sammy_packaging_{name}", PACKAGING / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered first, as an import would: dataclasses look their module up by name.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def manifest() -> ModuleType:
    """packaging/bundle_manifest.py."""
    return load_packaging_module("bundle_manifest")
